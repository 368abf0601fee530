/* spec.h: validating one resolved run config into a typed run description.
 *
 * Every key is checked: unknown keys are errors with a did-you-mean suggestion, wrong
 * types and out-of-range values are errors at the value's FILE:LINE:COL. The schema is
 * documented in docs/yaml.md. The top-level document keys grid, scales
 * and report are checked by spec_check_document (report's shape included).
 */
#ifndef DPERM_SPEC_H
#define DPERM_SPEC_H

#include <stdint.h>

#include "algorithms/models/model.h"
#include "algorithms/privacy/accountant.h"
#include "algorithms/train.h"
#include "datasets/data.h"
#include "datasets/dataset.h"
#include "algorithms/privacy/pate_votes.h"
#include "harness/config/config.h"

#define SPEC_MAX_HIDDEN 8
#define SPEC_MAX_LAYERS 32
/* The reference epochs of `optimality_gap: true` on a deep model (sweep/optimality.h). */
#define OPTIMALITY_REFERENCE_EPOCHS 50

/* How the harness runs an algorithm: the first-order loop of algorithms/train.h (most of
 * them), or its own driver (harness/drivers/) (linear-model algorithms whose structure is
 * not a gradient loop: exact ERM, output/objective/input perturbation, RRPSGD, ...). */
typedef enum { SPEC_KIND_FIRST_ORDER = 0, SPEC_KIND_DRIVER = 1 } spec_algorithm_kind;

/* The neighbour relation a private run's guarantee is for (privacy.neighbours,
 * spec_neighbours.c). */
typedef enum { SPEC_NEIGHBOURS_ADD_REMOVE = 1, SPEC_NEIGHBOURS_REPLACE_ONE = 2 } spec_neighbours;

/* One algorithm dperm runs (spec_algorithm.c holds the table; `dperm list algorithms`
 * prints it). */
typedef struct spec_algorithm {
    const char *name, *description, *source;
    int private_;      /* spends privacy: needs epsilon (or noise_multiplier where taken) */
    dp_update update;  /* first-order kind: plain step or Adam */
    int smoothing;     /* takes algorithm.smoothing (DP-LSSGD's A_sigma^{-1}) */
    int full_batch;    /* every step the whole training set (gd, dp_gd) */
    spec_algorithm_kind kind;
    const char *keys;  /* the algorithm.* keys it takes besides name, space-separated */
    int student;       /* a driver whose privacy is an output of its own settings (no
                          epsilon target) and whose train block trains a model non-
                          privately on privately labelled data: PATE's student */
} spec_algorithm;

/* The algorithm table, *n entries. */
const spec_algorithm *spec_algorithm_list(size_t *n);

/* One read-out of a run (train.readout, spec_readout.c): the model evaluated at the end
 * of an epoch. */
#define SPEC_MAX_READOUTS 32
typedef struct spec_readout {
    int epoch;                        /* read at the end of this epoch (1..train.epochs) */
    double epsilon_target;            /* an epsilon read-out: the epsilon it asked for
                                         (train.readout.epsilon); NAN for an epoch one */
} spec_readout;

typedef struct run_spec {
    char experiment[128];
    char protocol[48];                /* `protocol` (grid.c merged its overrides in), or "" */
    /* dataset */
    char dataset[64];                 /* "synthetic" or a real dataset's name */
    dp_synthetic_params synthetic;    /* dataset.{n,d,classes,margin,label_noise,seed};
                                         for real data d and n_classes once bound */
    double test_fraction;             /* dataset.test_fraction in (0, 1), default 0.2 */
    int in_c, in_h, in_w;             /* dataset.shape, default 1 x 1 x d */
    int real;                         /* a named real dataset (spec_data.c) */
    dp_data_opts data;                /* its options, paper defaults filled in */
    size_t n_train, n_test;           /* examples trained on / evaluated on (real data:
                                         known once bound) */
    const dp_data *bound;             /* real data: loaded once per sweep, not owned */
    void *bound_record;               /* json_t * describing it for records, not owned */
    int data_optional;                /* dataset.required false: when the files are not
                                         found the run is recorded as failed, not fatal */
    char data_missing[DP_ERR_MSG_MAX]; /* then: why (the run is not executed); else "" */
    /* model (spec_model.c) */
    char model_name[32];              /* model.type */
    int deep;                         /* 1: a deep model by name (dp_train_model) */
    dp_loss_kind loss;                /* linear models: logistic | softmax | squared | huber */
    int regression;                   /* squared or huber: a real target */
    double huber_delta;               /* model.huber_delta (huber), default 1 */
    double l2;                        /* model.l2 >= 0, default 0 */
    int hidden[SPEC_MAX_HIDDEN];      /* mlp: model.hidden, n_hidden of them (0: default) */
    size_t n_hidden;
    char activation[24];              /* deep models: model.activation, default relu */
    dp_layer_spec layers[SPEC_MAX_LAYERS]; /* model.type custom: model.layers */
    size_t n_layers;                  /* 0: a model by name */
    /* privacy */
    double delta;                     /* privacy.delta in (0, 1), default 1e-5 */
    char accountant[32];              /* privacy.accountant, default "rdp" */
    dp_accountant accountant_kind;    /* the same as an enum */
    dp_accountant also_report[8];     /* privacy.also_report: accountants whose epsilon */
    size_t n_also_report;             /* the record adds as metrics.epsilon_NAME */
    spec_neighbours neighbours;       /* privacy.neighbours, or the mechanism's default */
    int secure_noise;                 /* privacy.secure_noise of a private run: noise from
                                         getrandom on a grid (base/noise_source.h) */
    double epsilon;                   /* target epsilon > 0; INFINITY when not given */
    int has_noise_multiplier;         /* algorithm.noise_multiplier given explicitly */
    /* algorithm + train (cfg.noise_multiplier is 0 until calibrated when epsilon given) */
    char algorithm[32];               /* algorithm.name (spec_algorithm_list) */
    const spec_algorithm *algo;       /* its table entry */
    dp_train_cfg train;
    /* train.readout: the epoch read-outs, then (plan_readouts) the epsilon ones
     * merged in, ordered by epoch; the epsilon targets as given until then */
    spec_readout readouts[SPEC_MAX_READOUTS * 2];
    size_t n_readouts;
    double readout_epsilons[SPEC_MAX_READOUTS];
    size_t n_readout_epsilons;
    uint64_t seed;                    /* run seed (top-level `seed`, default 1) */
    int optimality_gap;               /* 0, or the reference epochs of optimality_gap */
    double f_star;                    /* its F(w*), set by the parent (optimality_prepare) */
    /* pate: the teachers' votes on the public set, set by the parent
     * (sweep/pate_teachers.c) before the workers start; not owned */
    const dp_pate_votes *teacher_votes;
    char teacher_folder[160];         /* where their label files are, under the results */
    char teacher_votes_sha256[65];    /* of the label files, in teacher order */
} run_spec;

/* Build the deep model of s (by name, or its layer list for model.type custom) for data
 * of s's shape with n_classes outputs, workspaces for max_batch examples, weights from
 * s->seed. Errors as dp_model_build. */
int spec_build_model(const run_spec *s, int n_classes, size_t max_batch, dp_model *m,
                     dp_err *err);

/* Check the document-level keys (experiment present and a safe folder name; only known
 * top-level keys; grid/scales/report shapes). DP_ECONFIG with a position on error. */
int spec_check_document(const cfg_node *root, dp_err *err);

/* Validate a resolved run config into *out. Cross-field checks included (batch size
 * <= training examples, logistic needs 2 classes, dp_sgd needs clip and either epsilon
 * or noise_multiplier, ...). DP_ECONFIG with a position on error. An algorithm with a
 * driver of its own (SPEC_KIND_DRIVER) has its own keys checked by that driver: callers
 * above spec/ validate with sweep/plan.h's plan_check, which does both. */
int spec_from_config(const cfg_node *resolved, run_spec *out, dp_err *err);

/* PATE (spec_teachers.c): the top-level teachers block of run config root: its count
 * (and seed, may be NULL); DP_ECONFIG at the block. */
int spec_read_teachers(const cfg_node *root, size_t *count, long *seed, dp_err *err);
/* The run config of teacher `index` of root's teachers block (the caller cfg_free's it). */
int spec_teacher_config(const cfg_node *root, size_t index, cfg_node **out, dp_err *err);
/* Validate the teachers' config (teacher 0's) into *teacher: a non-private first-order
 * trainer. DP_ECONFIG at the offending key. */
int spec_check_teacher(const cfg_node *root, run_spec *teacher, dp_err *err);

/* Real datasets: attach the loaded data d to s (validated by spec_from_config from the
 * run config root) and do the checks that need it: shape, classes, batch size <= the
 * training examples, the model's fit. DP_ECONFIG at the config's position on error. */
int spec_bind_data(run_spec *s, const cfg_node *root, const dp_data *d, dp_err *err);

/* The batch sampling an accountant's analysis assumes: DP_SAMPLING_WOR for rdp_wor,
 * pld_wor and lssgd_theorem1, DP_SAMPLING_FULL for lecture15_gd, DP_SAMPLING_POISSON for
 * every other. */
dp_sampling spec_accountant_sampling(dp_accountant a);

/* 1 if accountant a analyses batches drawn by s: its own sampling, or the full batch
 * (q = 1, which every subsampling analysis covers). */
int spec_accountant_fits(dp_accountant a, dp_sampling s);

/* privacy.neighbours of a validated run (algorithm, accountant and sampling known): the
 * relation given, or the default of the paper behind the mechanism; DP_ECONFIG at the key
 * when the mechanism has no analysis for the relation given (spec_neighbours.c). */
int spec_read_neighbours(const cfg_node *root, run_spec *out, dp_err *err);

/* "add_remove" | "replace_one". */
const char *spec_neighbours_name(spec_neighbours nb);

/* The relation accountant a's analysis is for: replace-one for the wor accountants and
 * lecture15_gd, add/remove for the others. */
spec_neighbours spec_accountant_neighbours(dp_accountant a);

/* What accountant a is given for s's noise multiplier: 0.5 when s is replace-one and a
 * analyses add/remove (the clipped sum moves by 2C), else 1. */
double spec_accountant_noise_factor(const run_spec *s, dp_accountant a);

/* For `dperm list algorithms`: the relation an algorithm's guarantee is for. */
const char *spec_algorithm_neighbours(const spec_algorithm *a);

#endif
