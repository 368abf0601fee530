/* catalog.c: the named real datasets (house rule 18): files, published checksums and row
 * counts, where to look, source and license. datasets/checksums.sha256 holds the same
 * sums for `make data` (a unit test keeps the two equal).
 *
 * Checksums: SHA-256 of the files as distributed (MNIST's .gz files are the published
 * ones, whose MD5s LeCun's page lists). Fashion-MNIST's sums are those of Debian's
 * dataset-fashion-mnist package, whose .gz files are recompressed (same content, other
 * bytes than the upstream .gz). No sum is recorded for files dperm never had a verified
 * copy of (CIFAR-10, SVHN, ULB creditcard.csv) nor for the credit-default CSV, an export of
 * the original .xls: those are validated by format and row count only, and say so.
 */
#include <string.h>

#include "datasets/data.h"

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

static const dp_data_info DATASETS[] = {
    {"mnist", DP_FMT_IDX, "handwritten digits, 28x28 grey, 10 classes; 60000 train + 10000 test",
     "LeCun, Cortes, Burges; LeCun et al. 1998", "CC BY-SA 3.0",
     "mnist",
     {{"train-images-idx3-ubyte.gz",
       "440fcabf73cc546fa21475e81ea370265605f56be210a4024d2ca8f203523609", 60000},
      {"train-labels-idx1-ubyte.gz",
       "3552534a0a558bbed6aed32b30c495cca23d567ec52cac8be1a0730e8010255c", 60000},
      {"t10k-images-idx3-ubyte.gz",
       "8d422c7b0a1c1c79245a5bcf07fe86e33eeafee792b84584aec276f5a2dbc4e6", 10000},
      {"t10k-labels-idx1-ubyte.gz",
       "f7ae60f92e00ec6debd23a6088c31dbd2371eca3ffa0defaefb259924204aec6", 10000}},
     4, 70000, 1, 0, "run `make data` or pass --data-dir"},
    {"fashion_mnist", DP_FMT_IDX,
     "Zalando article images, 28x28 grey, 10 classes; 60000 train + 10000 test",
     "Xiao, Rasul, Vollgraf 2017 (arXiv:1708.07747)", "MIT",
     "fashion_mnist:fashion-mnist",
     {{"train-images-idx3-ubyte.gz",
       "b0564c3eedabfbf835052cff8503ea422014ce006caf5b757f851416ee8300c7", 60000},
      {"train-labels-idx1-ubyte.gz",
       "0ae29f65d86684f32d1b9c85147786c547b9c6aebcaf235f0400a0cce308b056", 60000},
      {"t10k-images-idx3-ubyte.gz",
       "cc1d090a38ace84dfa1aa66e3ada7c336ef481a96936906477e6dd344da56eaa", 10000},
      {"t10k-labels-idx1-ubyte.gz",
       "8d3605d196f4be44669e46906da9733c8131fef761fdbfec72c424d5222f1a05", 10000}},
     4, 70000, 1, 0, "run `make deps` (installs Debian's dataset-fashion-mnist) or pass --data-dir"},
    {"cifar10", DP_FMT_CIFAR, "32x32 colour images, 10 classes; 50000 train + 10000 test",
     "Krizhevsky 2009, Learning Multiple Layers of Features from Tiny Images",
     "no explicit license (cite the report)",
     "cifar10:cifar-10-batches-bin:cifar10/cifar-10-batches-bin",
     {{"data_batch_1.bin", NULL, 10000}, {"data_batch_2.bin", NULL, 10000},
      {"data_batch_3.bin", NULL, 10000}, {"data_batch_4.bin", NULL, 10000},
      {"data_batch_5.bin", NULL, 10000}, {"test_batch.bin", NULL, 10000}},
     6, 60000, 1, 0, "run `make data` (the binary version, cifar-10-binary.tar.gz) or pass --data-dir"},
    {"svhn", DP_FMT_MAT,
     "house-number digits from Street View, 32x32 colour, 10 classes; 73257 train + 26032 test",
     "Netzer, Wang, Coates, Bissacco, Wu, Ng 2011, Reading Digits in Natural Images with "
     "Unsupervised Feature Learning",
     "non-commercial use only (see the dataset page)", "svhn",
     {{"train_32x32.mat", NULL, 73257}, {"test_32x32.mat", NULL, 26032}},
     2, 99289, 1, 0,
     "download train_32x32.mat and test_32x32.mat (format 2, cropped digits) from "
     "http://ufldl.stanford.edu/housenumbers/ into datasets/data/svhn/ or pass --data-dir"},
    {"adult", DP_FMT_CSV, "census income > 50K, 14 attributes (8 categorical); 32561 + 16281",
     "Becker & Kohavi 1996 (UCI); Kohavi 1996", "CC BY 4.0",
     "uci/adult:adult",
     {{"adult.data", "5b00264637dbfec36bdeaab5676b0b309ff9eb788d63554ca0a249491c86603d", 32561},
      {"adult.test", "a2a9044bc167a35b2361efbabec64e89d69ce82d9790d2980119aac5fd7e9c05", 16281}},
     2, 48842, 1, 0, "run `make data` or pass --data-dir"},
    {"bank", DP_FMT_CSV, "bank marketing: term deposit subscribed, 16 attributes; 45211 rows",
     "Moro, Cortez, Rita 2014 (UCI)", "CC BY 4.0", "uci/bank:bank",
     {{"bank-full.csv", "d1513ec63b385506f7cfce9f2c5caa9fe99e7ba4e8c3fa264b3aaf0f849ed32d", 45211}},
     1, 45211, 0, 0, "run `make data` or pass --data-dir"},
    {"bank_additional", DP_FMT_CSV,
     "bank marketing with 5 social/economic indicators, 20 attributes; 41188 rows",
     "Moro, Cortez, Rita 2014 (UCI)", "CC BY 4.0", "uci/bank:bank",
     {{"bank-additional-full.csv.gz",
       "25ef5a7f820659c9010405d079b068761b9e4a75c232a6271ee6a77fc3de52ae", 41188}},
     1, 41188, 0, 0, "run `make data` or pass --data-dir"},
    {"credit_default", DP_FMT_CSV,
     "default of credit card clients (Taiwan 2005), 23 attributes; 30000 rows",
     "Yeh & Lien 2009 (UCI)", "CC BY 4.0", "uci/credit_default:credit_default",
     {{"default of credit card clients.csv", NULL, 30000}},
     1, 30000, 0, 0,
     "run `make data` (it downloads the .xls: save it as CSV, 'default of credit card "
     "clients.csv') or pass --data-dir"},
    {"wine_quality", DP_FMT_CSV,
     "red + white vinho verde, 11 inputs, quality score 0..10; 6497 rows (regression: "
     "model.type squared or huber)",
     "Cortez et al. 2009 (UCI)", "CC BY 4.0", "uci/wine_quality:wine_quality",
     {{"winequality-red.csv", "4a402cf041b025d4566d954c3b9ba8635a3a8a01e039005d97d6a710278cf05e", 1599},
      {"winequality-white.csv", "76c3f809815c17c07212622f776311faeb31e87610d52c26d87d6e361b169836", 4898}},
     2, 6497, 0, 1, "run `make data` or pass --data-dir"},
    {"bike", DP_FMT_CSV, "hourly bike rentals with weather, count; 17379 rows (regression: model.type "
     "squared or huber)",
     "Fanaee-T & Gama 2013 (UCI)", "CC BY 4.0", "uci/bike:bike",
     {{"hour.csv", "e03de4ee4ef4dc376ac6e04bf829673c6269e8eba5c60fa121640fa2f829504f", 17379}},
     1, 17379, 0, 1, "run `make data` or pass --data-dir"},
    {"kddcup99", DP_FMT_CSV,
     "network connections, 41 features, 23 labels (normal + attacks); 494021 rows (10%)",
     "Stolfo et al. 2000; KDD Cup 1999 (UCI KDD Archive)", "CC BY 4.0",
     "uci/kddcup99:kddcup99",
     {{"kddcup.data_10_percent.gz",
       "8045aca0d84e70e622d1148d7df782496f6333bf6eb979a1b0837c42a9fd9561", 494021}},
     1, 494021, 0, 0, "run `make data` or pass --data-dir"},
    {"breast_cancer", DP_FMT_CSV,
     "Wisconsin breast cancer (original), 9 cytology features, benign/malignant; 699 rows",
     "Wolberg & Mangasarian 1990 (UCI)", "CC BY 4.0", "uci/breast_cancer:breast_cancer",
     {{"breast-cancer-wisconsin.data",
       "402c585309c399237740f635ef9919dc512cca12cbeb20de5e563a4593f22b64", 699}},
     1, 699, 0, 0, "run `make data` or pass --data-dir"},
    {"iris", DP_FMT_CSV, "iris flowers, 4 measurements, 3 species; 150 rows",
     "Fisher 1936 (UCI)", "CC BY 4.0", "uci/iris:iris",
     {{"iris.data", "6f608b71a7317216319b4d27b4d9bc84e6abd734eda7872b71a458569e2656c0", 150}},
     1, 150, 0, 0, "run `make data` or pass --data-dir"},
    {"credit_fraud", DP_FMT_CSV,
     "card transactions (ULB), 30 features (PCA V1..V28, Time, Amount), fraud; 284807 rows",
     "Dal Pozzolo et al. 2015 (ULB Machine Learning Group)", "ODbL 1.0",
     "credit_fraud:creditcard",
     {{"creditcard.csv", NULL, 284807}},
     1, 284807, 0, 0, "download creditcard.csv (Kaggle, mlg-ulb/creditcardfraud; login needed) into "
     "datasets/data/credit_fraud/ or pass --data-dir"},
};

const dp_data_info *dp_data_list(size_t *n)
{
    *n = COUNT(DATASETS);
    return DATASETS;
}

const dp_data_info *dp_data_find(const char *name)
{
    for (size_t i = 0; i < COUNT(DATASETS); i++)
        if (strcmp(DATASETS[i].name, name) == 0) return &DATASETS[i];
    return NULL;
}
