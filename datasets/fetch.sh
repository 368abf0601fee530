#!/bin/sh
# fetch.sh: `make data`. Downloads the real datasets from their canonical public sources
# into datasets/data/ (the layout dperm searches: mnist/, uci/NAME/, cifar10/), verifies
# each file against datasets/checksums.sha256, and skips what is already there and good.
#
# Without network every download fails fast (5 s connect timeout, no retries) with a
# message saying so; the script goes on with the next file and exits 1 at the end if
# anything is missing. Fashion-MNIST is not downloaded: `make deps` installs Debian's
# dataset-fashion-mnist, which dperm finds in /usr/share/datasets.
set -u
here="$(cd "$(dirname "$0")" && pwd)"
DATA="${DPERM_FETCH_DIR:-$here/data}"
SUMS="$here/checksums.sha256"
UCI=https://archive.ics.uci.edu/ml/machine-learning-databases
failed=0
fetched=0
present=0

if command -v curl >/dev/null 2>&1; then
  get() { curl -fsSL --connect-timeout 5 --retry 0 --max-time 900 -o "$2" "$1"; }
elif command -v wget >/dev/null 2>&1; then
  get() { wget -q -T 5 -t 1 -O "$2" "$1"; }
else
  echo "fetch: neither curl nor wget is installed (apt-get install curl)" >&2
  exit 1
fi

# Expected sum of a path relative to DATA, or "" when none is published.
sum_of() { awk -v p="$1" '$1 !~ /^#/ && $2 == p { print $1 }' "$SUMS"; }

ok_file() { # PATH SUM: 0 when present and (no sum or matching)
  [ -s "$DATA/$1" ] || return 1
  [ -z "$2" ] && return 0
  [ "$(sha256sum "$DATA/$1" | cut -d' ' -f1)" = "$2" ]
}

# fetch REL URL [URL...]: one file, verified.
fetch() {
  rel=$1; shift
  sum=$(sum_of "$rel")
  if ok_file "$rel" "$sum"; then present=$((present + 1)); return 0; fi
  mkdir -p "$(dirname "$DATA/$rel")"
  for url in "$@"; do
    if get "$url" "$DATA/$rel.part"; then
      if [ -n "$sum" ] && [ "$(sha256sum "$DATA/$rel.part" | cut -d' ' -f1)" != "$sum" ]; then
        echo "fetch: $rel from $url: SHA-256 differs from datasets/checksums.sha256; not kept" >&2
        rm -f "$DATA/$rel.part"
        continue
      fi
      mv "$DATA/$rel.part" "$DATA/$rel"
      echo "fetch: $rel ${sum:+verified}${sum:-(no published sum; the loader validates it)}"
      fetched=$((fetched + 1))
      return 0
    fi
    rm -f "$DATA/$rel.part"
    echo "fetch: cannot download $rel from $url (no network, or the source moved)" >&2
  done
  failed=$((failed + 1))
  return 1
}

# from_zip REL URL MEMBER: REL extracted from a downloaded zip (needs unzip).
from_zip() {
  rel=$1 url=$2 member=$3
  sum=$(sum_of "$rel")
  if ok_file "$rel" "$sum"; then present=$((present + 1)); return 0; fi
  if ! command -v unzip >/dev/null 2>&1; then
    echo "fetch: $rel comes in a zip; install unzip (make deps does)" >&2
    failed=$((failed + 1)); return 1
  fi
  tmp="$DATA/.zip.$$"
  mkdir -p "$(dirname "$DATA/$rel")"
  if get "$url" "$tmp" && unzip -p "$tmp" "$member" > "$DATA/$rel.part" && [ -s "$DATA/$rel.part" ]; then
    rm -f "$tmp"
    if [ -n "$sum" ] && [ "$(sha256sum "$DATA/$rel.part" | cut -d' ' -f1)" != "$sum" ]; then
      echo "fetch: $rel: SHA-256 differs from datasets/checksums.sha256; not kept" >&2
      rm -f "$DATA/$rel.part"; failed=$((failed + 1)); return 1
    fi
    mv "$DATA/$rel.part" "$DATA/$rel"
    echo "fetch: $rel ${sum:+verified}${sum:-(no published sum; the loader validates it)}"
    fetched=$((fetched + 1)); return 0
  fi
  rm -f "$tmp" "$DATA/$rel.part"
  echo "fetch: cannot download $rel from $url (no network, or the source moved)" >&2
  failed=$((failed + 1)); return 1
}

# MNIST: LeCun's page, then the mirror PyTorch uses (same bytes).
for f in train-images-idx3-ubyte.gz train-labels-idx1-ubyte.gz t10k-images-idx3-ubyte.gz t10k-labels-idx1-ubyte.gz; do
  fetch "mnist/$f" "http://yann.lecun.com/exdb/mnist/$f" "https://ossci-datasets.s3.amazonaws.com/mnist/$f"
done
fetch uci/adult/adult.data "$UCI/adult/adult.data"
fetch uci/adult/adult.test "$UCI/adult/adult.test"
from_zip uci/bank/bank-full.csv "$UCI/00222/bank.zip" bank-full.csv
# bank-additional-full.csv is kept plain (the published sum above is of a gzip of it).
from_zip uci/bank/bank-additional-full.csv "$UCI/00222/bank-additional.zip" bank-additional/bank-additional-full.csv
fetch uci/wine_quality/winequality-red.csv "$UCI/wine-quality/winequality-red.csv"
fetch uci/wine_quality/winequality-white.csv "$UCI/wine-quality/winequality-white.csv"
from_zip uci/bike/hour.csv "$UCI/00275/Bike-Sharing-Dataset.zip" hour.csv
fetch uci/kddcup99/kddcup.data_10_percent.gz "https://kdd.ics.uci.edu/databases/kddcup99/kddcup.data_10_percent.gz"
fetch uci/breast_cancer/breast-cancer-wisconsin.data "$UCI/breast-cancer-wisconsin/breast-cancer-wisconsin.data"
fetch uci/iris/iris.data "$UCI/iris/iris.data"
# The original is an .xls: dperm reads a CSV export of it (see docs/datasets.md).
if fetch "uci/credit_default/default of credit card clients.xls" "$UCI/00350/default%20of%20credit%20card%20clients.xls" &&
   [ ! -s "$DATA/uci/credit_default/default of credit card clients.csv" ]; then
  echo "fetch: credit_default: save 'default of credit card clients.xls' as CSV (comma separated," \
       "both header rows kept) next to it, named 'default of credit card clients.csv'" >&2
fi
fetch cifar10/cifar-10-binary.tar.gz "https://www.cs.toronto.edu/~kriz/cifar-10-binary.tar.gz"

echo "fetch: $fetched downloaded, $present already present, $failed failed (into $DATA)"
echo "fetch: Fashion-MNIST comes from Debian (make deps); ULB creditcard.csv needs a Kaggle login" \
     "(mlg-ulb/creditcardfraud): put it in $DATA/credit_fraud/"
[ "$failed" = 0 ]
