# dperm: reproducible benchmark harness for differentially private ERM.
# `make help` lists the targets. Every build target first runs `deps`, which installs the
# Debian packages dperm needs when they are missing (apt-get as root, or through sudo).

# ---- variables ------------------------------------------------------------------------
CC      ?= cc
BUILD   := build
BIN     := bin
JOBS    ?= $(shell nproc 2>/dev/null || echo 2)

# Debian packages: BLAS, FFT, YAML, JSON, SHA-256 (run ids, checksums), gzip, unit tests,
# figures, the MNIST-shaped dataset every fresh Debian machine can have, curl + unzip
# for `make data`, and clang with its libFuzzer runtime for `make fuzz`.
# A|B: the first of the alternatives the distribution has (Debian 12 names first, then
# current Ubuntu LTS's); one already installed satisfies the entry.
DEB_PACKAGES := build-essential pkg-config libopenblas-dev libfftw3-dev libyaml-dev \
                libjansson-dev nettle-dev zlib1g-dev check libsubunit-dev gnuplot-nox \
                dataset-fashion-mnist jq curl unzip valgrind clang \
                'libclang-rt-14-dev|libclang-rt-18-dev|libclang-rt-dev'
PKGS     := openblas fftw3 yaml-0.1 jansson nettle zlib

# Recursively expanded on purpose: pkg-config must run after `deps` has installed the
# packages, not when make reads this file on a fresh machine.
PKG_CFLAGS = $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
PKG_LIBS   = $(shell pkg-config --libs $(PKGS) 2>/dev/null) -lm
CHECK_LIBS = $(shell pkg-config --libs check 2>/dev/null)

# No -ffast-math/-Ofast: they break NaN checks and bit-identical reruns (DESIGN.md).
WARN     := -Wall -Wextra -Wshadow -Wstrict-prototypes -Wmissing-prototypes -Wno-unused-parameter
CFLAGS   ?= -O2 -g
ALL_CFLAGS = -std=c11 -D_GNU_SOURCE -I. $(WARN) $(CFLAGS) $(PKG_CFLAGS) -MMD -MP
LDFLAGS  ?=

# ---- sources --------------------------------------------------------------------------
# libdperm.a: the numerical core (algorithms/) and the datasets layer.
LIB_SRC  := $(sort $(wildcard algorithms/*.c algorithms/*/*.c datasets/*.c))
# harness: everything around a run, one folder per layer (docs/layout.md); cli/main.c
# alone holds main().
HAR_SRC  := $(sort $(filter-out harness/cli/main.c,$(wildcard harness/*/*.c)))
TEST_SRC := $(sort $(wildcard tests/unit/test_*.c))

LIB_OBJ  := $(LIB_SRC:%.c=$(BUILD)/%.o)
HAR_OBJ  := $(HAR_SRC:%.c=$(BUILD)/%.o)
TEST_BIN := $(TEST_SRC:tests/unit/%.c=$(BUILD)/tests/%)
LIB      := $(BUILD)/libdperm.a
HARLIB   := $(BUILD)/libharness.a

GIT_REV  := $(shell git describe --always --dirty --abbrev=12 2>/dev/null || echo unknown)

.DEFAULT_GOAL := all

# ---- targets --------------------------------------------------------------------------
.PHONY: all help deps lib install uninstall test test-unit test-integration test-asan test-asan-all test-slurm memcheck fuzz test-fuzz-replay reproduce clean check-deps data

all: deps $(BIN)/dperm $(LIB) ## build bin/dperm and build/libdperm.a

help: ## list the targets
	@grep -hE '^[a-zA-Z_-]+:.*## ' Makefile | sed 's/:.*## /\t/' | expand -t 22
	@printf '%-22s%s\n' 'reproduce-PAPER' 'one paper at SCALE=quick|full; PAPER: $(PAPERS)'

deps: ## install missing Debian packages (apt-get; as root or through sudo; Debian 12 or Ubuntu LTS)
	@installed() { dpkg-query -W -f='$${Status}' "$$1" 2>/dev/null | grep -q 'ok installed'; }; \
	missing=""; for entry in $(DEB_PACKAGES); do \
	  ok=0; for p in $$(echo "$$entry" | tr '|' ' '); do installed $$p && ok=1; done; \
	  [ $$ok = 1 ] || missing="$$missing $$entry"; \
	done; \
	if [ -z "$$missing" ]; then exit 0; fi; \
	if [ "$$(id -u)" = 0 ]; then SUDO=""; \
	elif command -v sudo >/dev/null && sudo -n true 2>/dev/null; then SUDO="sudo -n"; \
	else echo "deps: missing packages:$$missing; install them as root: apt-get install$$(echo "$$missing" | sed 's/|[^ ]*//g')" >&2; exit 2; fi; \
	$$SUDO apt-get update -qq || { echo "deps: apt-get update failed; run it as root" >&2; exit 2; }; \
	pick=""; for entry in $$missing; do \
	  chosen=""; for p in $$(echo "$$entry" | tr '|' ' '); do \
	    [ -z "$$chosen" ] && apt-cache show $$p >/dev/null 2>&1 && chosen=$$p; done; \
	  [ -n "$$chosen" ] || { echo "deps: none of '$$entry' is in this distribution's package lists; install its equivalent by hand" >&2; exit 2; }; \
	  pick="$$pick $$chosen"; \
	done; \
	echo "deps: installing:$$pick"; \
	DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq $$pick >/dev/null \
	  || { echo "deps: apt-get failed; run as root: apt-get install$$pick" >&2; exit 2; }

lib: deps $(LIB) ## build build/libdperm.a only

$(BUILD)/%.o: %.c | deps
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -c $< -o $@

# The revision is compiled into one small file, rebuilt whenever it changes.
$(BUILD)/version.h: FORCE
	@mkdir -p $(BUILD)
	@echo '#define DPERM_GIT_REV "$(GIT_REV)"' > $@.tmp
	@cmp -s $@.tmp $@ && rm -f $@.tmp || mv $@.tmp $@
$(BUILD)/harness/env/version.o: $(BUILD)/version.h
$(BUILD)/harness/env/version.o: ALL_CFLAGS += -I$(BUILD)
FORCE:

$(LIB): $(LIB_OBJ)
	@rm -f $@
	ar rcs $@ $^

$(HARLIB): $(HAR_OBJ)
	@rm -f $@
	ar rcs $@ $^

$(BIN)/dperm: $(BUILD)/harness/cli/main.o $(HARLIB) $(LIB)
	@mkdir -p $(BIN)
	$(CC) $(LDFLAGS) -o $@ $^ $(PKG_LIBS)

$(BUILD)/tests/%: tests/unit/%.c $(HARLIB) $(LIB) | deps
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -o $@ $< $(HARLIB) $(LIB) $(PKG_LIBS) $(CHECK_LIBS)

# The tests of algorithms/ and datasets/ (no harness/ include, their own or their fixture
# headers') link the library alone: a call from the library up into harness/ cannot link.
TEST_LIB_ONLY := $(shell grep -L '\#include "harness/' $(TEST_SRC) | \
                   xargs grep -L '\#include "tests/unit/audit_fixture.h"' 2>/dev/null)
$(TEST_LIB_ONLY:tests/unit/%.c=$(BUILD)/tests/%): $(BUILD)/tests/%: tests/unit/%.c $(LIB) | deps
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -o $@ $< $(LIB) $(PKG_LIBS) $(CHECK_LIBS)

# The audit's broken-mechanism test: the files holding the mechanisms' noise call sites
# compiled again with -DDPERM_DEBUG_NOISE (algorithms/debug_noise.h) and linked before
# libdperm.a, so their copies replace the library's. No other program has the switch.
DEBUG_NOISE_SRC := algorithms/train_common.c algorithms/output_pert.c algorithms/input_pert.c \
                   algorithms/objective_pert.c
DEBUG_NOISE_OBJ := $(DEBUG_NOISE_SRC:%.c=$(BUILD)/debug-noise/%.o)
$(BUILD)/debug-noise/%.o: %.c | deps
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -DDPERM_DEBUG_NOISE -c $< -o $@
$(BUILD)/tests/test_audit_broken: tests/unit/test_audit_broken.c $(DEBUG_NOISE_OBJ) $(HARLIB) $(LIB) | deps
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -DDPERM_DEBUG_NOISE -o $@ $< $(DEBUG_NOISE_OBJ) $(HARLIB) $(LIB) $(PKG_LIBS) $(CHECK_LIBS)

# Builds use every core (the compiles are independent); the test programs run JOBS at a
# time, the slowest first, each into its own log, printed in order afterwards so the
# output reads as if serial.
SLOW_TESTS := %/test_pld %/test_pld_wor %/test_accountant %/test_pexgrad %/test_audit %/test_audit_broken
test: deps ## every test: unit + integration, the unit tests and fuzz corpora under ASan/UBSan, memcheck
	@$(MAKE) --no-print-directory -j$(JOBS) all $(TEST_BIN)
	@$(MAKE) --no-print-directory check-deps test-unit test-integration
	@$(MAKE) --no-print-directory test-asan
	@$(MAKE) --no-print-directory test-fuzz-replay | tee $(BUILD)/test-logs/fuzz-replay.log; \
	  [ "$$(grep -c '^replay .* replayed [0-9]* inputs$$' $(BUILD)/test-logs/fuzz-replay.log)" = $(words $(FUZZ_TARGETS)) ]
	@$(MAKE) --no-print-directory memcheck
	@sh tests/summary.sh $(BUILD) build-asan $(BUILD)/test-logs/fuzz-replay.log

test-unit: $(TEST_BIN) ## run the Check unit tests
	@mkdir -p $(BUILD)/test-logs; \
	printf '%s\n' $(filter $(SLOW_TESTS),$(TEST_BIN)) $(filter-out $(SLOW_TESTS),$(TEST_BIN)) | \
	  xargs -P $(JOBS) -I{} sh -c \
	  'n=$$(basename {}); {} > $(BUILD)/test-logs/$$n.log 2>&1; echo $$? > $(BUILD)/test-logs/$$n.rc'; \
	fail=0; for t in $(TEST_BIN); do n=$$(basename $$t); echo "== $$t"; cat $(BUILD)/test-logs/$$n.log; \
	  [ "$$(cat $(BUILD)/test-logs/$$n.rc)" = 0 ] || { fail=1; echo "FAILED: $$t"; }; done; \
	if [ $$fail != 0 ]; then echo "unit tests: FAILED"; exit 1; fi

test-integration: all ## run the integration scripts in tests/integration/
	@mkdir -p $(BUILD)/test-logs
	@DPERM=$(CURDIR)/$(BIN)/dperm DPERM_SUMMARY_FILE=$(CURDIR)/$(BUILD)/test-logs/integration.total \
	  sh tests/integration/run_all.sh

# The same tests built with AddressSanitizer and UBSan in a separate folder; any report
# (including a leak at exit) fails the run. `make test` runs the unit tests this way, with
# long reference tables sampled (tests/unit/test_util.h: test_case_stride) to keep it
# within its ten minutes; test-asan-all adds the integration scripts.
ASAN_FLAGS := -O1 -g -fno-omit-frame-pointer -fsanitize=address,undefined -fno-sanitize-recover=all
ASAN_MAKE = $(MAKE) --no-print-directory BUILD=build-asan BIN=build-asan/bin CFLAGS="$(ASAN_FLAGS)" \
	  LDFLAGS="-fsanitize=address,undefined"
test-asan: deps ## unit tests under -fsanitize=address,undefined (build-asan/)
	@$(ASAN_MAKE) -j$(JOBS) build-asan/libdperm.a $(TEST_SRC:tests/unit/%.c=build-asan/tests/%)
	@DPERM_TEST_SANITIZED=1 $(ASAN_MAKE) test-unit

test-asan-all: deps ## unit and integration tests under the sanitizers, every reference case
	@$(ASAN_MAKE) test-unit test-integration

# valgrind's memcheck on a small sweep, workers included (--trace-children): no leak, no
# invalid access. DPERM_BLAS_ENV_DONE skips dperm's one re-exec (blas_env.c), which under
# valgrind would exec the tool itself; OPENBLAS_CORETYPE and the thread count are set here
# instead.
memcheck: all ## valgrind memcheck of a small `dperm run`: no leaks, no invalid accesses
	@command -v valgrind >/dev/null || { [ "$$(id -u)" = 0 ] && apt-get install -y -qq valgrind >/dev/null; } \
	  || { echo "memcheck: valgrind is missing; install it: apt-get install valgrind" >&2; exit 2; }
	@rm -rf $(BUILD)/memcheck
	DPERM_BLAS_ENV_DONE=1 OPENBLAS_NUM_THREADS=1 OPENBLAS_CORETYPE=$${OPENBLAS_CORETYPE:-Haswell} \
	  valgrind --leak-check=full --show-leak-kinds=definite,indirect \
	  --errors-for-leak-kinds=definite,indirect --error-exitcode=3 --trace-children=yes -q \
	  $(BIN)/dperm run tests/fixtures/memcheck/small.yaml --out $(BUILD)/memcheck -j 1 --quiet
	@echo "memcheck: no leaks, no invalid accesses"

# ---- fuzzing ---------------------------------------------------------------------------
# libFuzzer targets, one per reader of outside input (tests/fuzz/fuzz_TARGET.c), built with
# clang into FUZZ_BUILD. `make fuzz` runs each for FUZZ_SECONDS on a copy of its seed
# corpus (tests/fuzz/corpus/TARGET/); an input that crashes or trips a sanitizer is saved
# in tests/fuzz/crashes/TARGET/ and fails the run. Units are reported slow only past the
# timeout: on a loaded machine wall time stretches, and every input here runs in 0.3 s. test-fuzz-replay (in `make test`) links
# the same targets with a plain main() (tests/fuzz/replay_main.c) under ASan+UBSan, no
# libFuzzer needed, and feeds them every corpus and crash file: a fixed crash stays fixed.
FUZZ_TARGETS := config grid idx cifar csv runs_jsonl svhn
FUZZ_SECONDS ?= 60
FUZZ_BUILD   ?= build-fuzz
FUZZ_CC      ?= clang
FUZZ_MAKE = $(MAKE) --no-print-directory CC=$(FUZZ_CC) BUILD=$(FUZZ_BUILD) BIN=$(FUZZ_BUILD)/bin \
	  CFLAGS="-O1 -g -fno-omit-frame-pointer -fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=all"
# The replay reuses test-asan's libraries (built just before it in `make test`).
REPLAY_BUILD ?= build-asan
REPLAY_MAKE = $(MAKE) --no-print-directory BUILD=$(REPLAY_BUILD) BIN=$(REPLAY_BUILD)/bin \
	  CFLAGS="$(ASAN_FLAGS)" LDFLAGS="-fsanitize=address,undefined"
FUZZ_COMMON := tests/fuzz/fuzz_file.c

$(BUILD)/fuzz/fuzz_%: tests/fuzz/fuzz_%.c $(FUZZ_COMMON) $(HARLIB) $(LIB) | deps
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -fsanitize=fuzzer -o $@ $< $(FUZZ_COMMON) $(HARLIB) $(LIB) $(PKG_LIBS)

$(BUILD)/fuzz/replay_%: tests/fuzz/fuzz_%.c tests/fuzz/replay_main.c $(FUZZ_COMMON) $(HARLIB) $(LIB) | deps
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(LDFLAGS) -o $@ $< tests/fuzz/replay_main.c $(FUZZ_COMMON) $(HARLIB) $(LIB) $(PKG_LIBS)

fuzz: deps ## run each libFuzzer target FUZZ_SECONDS (default 60) on a copy of its corpus (clang)
	@$(FUZZ_MAKE) -j$(JOBS) $(FUZZ_TARGETS:%=$(FUZZ_BUILD)/fuzz/fuzz_%)
	@fail=0; for t in $(FUZZ_TARGETS); do \
	  work=$(FUZZ_BUILD)/fuzz/work-$$t; rm -rf $$work; mkdir -p $$work tests/fuzz/crashes/$$t; \
	  cp tests/fuzz/corpus/$$t/* $$work/; \
	  $(FUZZ_BUILD)/fuzz/fuzz_$$t -max_total_time=$(FUZZ_SECONDS) -timeout=30 -report_slow_units=30 -print_final_stats=1 \
	    -artifact_prefix=tests/fuzz/crashes/$$t/ $(FUZZ_OPTIONS) $$work > $(FUZZ_BUILD)/fuzz/$$t.log 2>&1 \
	    && printf 'fuzz_%-11s %s executions, no crash\n' $$t \
	       "$$(sed -n 's/^stat::number_of_executed_units: *//p' $(FUZZ_BUILD)/fuzz/$$t.log)" \
	    || { fail=1; echo "fuzz_$$t: FAILED, input saved in tests/fuzz/crashes/$$t/; log: $(FUZZ_BUILD)/fuzz/$$t.log"; }; \
	done; exit $$fail

test-fuzz-replay: deps ## replay the fuzz corpora and crash files under ASan+UBSan (no libFuzzer)
	@$(REPLAY_MAKE) -j$(JOBS) $(FUZZ_TARGETS:%=$(REPLAY_BUILD)/fuzz/replay_%)
	@for t in $(FUZZ_TARGETS); do printf 'replay %-11s ' $$t; \
	  $(REPLAY_BUILD)/fuzz/replay_$$t tests/fuzz/corpus/$$t tests/fuzz/crashes/$$t || exit 1; done

# A real single-node Slurm cluster on this machine (root; installs slurm-wlm and munge
# when missing), a grid through `dperm slurm --submit`; five minutes at most.
test-slurm: all ## as root: the Slurm job-array workflow on a one-node cluster (tests/slurm/)
	@DPERM=$(CURDIR)/$(BIN)/dperm timeout -k 10 300 bash tests/slurm/test_slurm.sh

# The papers' tables and figures: each config runs at SCALE (quick: minutes on 2 cores,
# the same grid shape; full: the paper's) into results/SCALE/EXPERIMENT, then its report.
# One line per paper lists its configs; `make reproduce` runs every paper.
SCALE ?= quick
PAPERS := lssgd zhang17 dplis inputpert lecture15 pate
REPRO_CONFIGS_lssgd := configs/lssgd/table2.yaml configs/lssgd/fig3.yaml configs/lssgd/fig4.yaml \
  configs/lssgd/fig5.yaml configs/lssgd/fig6.yaml configs/lssgd/fig6_eps.yaml configs/lssgd/fig7.yaml
# REPRO_COMMANDS_<paper>: what a paper needs besides sweeps, run after them.
REPRO_COMMANDS_lssgd := $(BIN)/dperm smoothing --out results/$(SCALE)/lssgd_smoothing
REPRO_CONFIGS_zhang17 := configs/zhang17/table3.yaml configs/zhang17/table3_ambiguity.yaml \
  configs/zhang17/table3_huber_threshold.yaml \
  configs/zhang17/rrpsgd.yaml configs/zhang17/rrpsgd_mlp.yaml
REPRO_CONFIGS_dplis := configs/dplis/table2_mnist.yaml configs/dplis/fig3_mnist.yaml \
  configs/dplis/table10_mnist.yaml \
  configs/dplis/fig4_mnist.yaml configs/dplis/table2_cifar10.yaml configs/dplis/table10_cifar10.yaml \
  configs/dplis/table11.yaml
REPRO_CONFIGS_inputpert := configs/inputpert/fig2_3.yaml configs/inputpert/fig2_3_mlp.yaml configs/inputpert/fig4.yaml
REPRO_CONFIGS_lecture15 := configs/lecture15/accountants.yaml
# PATE (Papernot et al. 2017, 2018; Lecture15 §15.5.1; DPlis §5.7, Tables 12-13 on SVHN,
# data missing where SVHN is absent): quick under a minute
REPRO_CONFIGS_pate := configs/pate/mnist.yaml configs/dplis/table12.yaml
REPRO_TARGETS := $(addprefix reproduce-,$(PAPERS))
.PHONY: $(REPRO_TARGETS) demo
$(REPRO_TARGETS): reproduce-%: all ## a paper's tables and figures (lssgd, zhang17, dplis, inputpert, lecture15, pate), SCALE=quick|full
	@for c in $(REPRO_CONFIGS_$*); do \
	  out=results/$(SCALE)/$$(sed -n 's/^experiment: *//p' $$c); \
	  $(BIN)/dperm run $$c --scale $(SCALE) -j $(JOBS) --resume --out $$out && \
	  $(BIN)/dperm report $$out || exit $$?; \
	done
	@$(REPRO_COMMANDS_$*)

reproduce: $(REPRO_TARGETS) ## every paper's tables and figures at SCALE (quick: under 30 min on 2 cores)

# ---- install ---------------------------------------------------------------------------
# PREFIX/bin/dperm, its man page (generated from the commands' --help texts, so it says
# what the program says) and the configs under PREFIX/share/dperm/configs. An installed
# dperm also looks for datasets in PREFIX/share/dperm/datasets (docs/datasets.md).
PREFIX  ?= /usr/local
DESTDIR ?=
MAN_COMMANDS := run report merge slurm list privacy data bench audit smoothing
# roff: a backslash is \e, a line starting with '.' or "'" is shielded by \&
ROFF_TEXT := sed -e 's/\\/\\e/g' -e "s/^\([.']\)/\\\\\&\1/"

$(BUILD)/dperm.1: $(BIN)/dperm
	@{ printf '.TH DPERM 1 "" "%s" "User Commands"\n' "$$($(BIN)/dperm --version | head -n 1)"; \
	   printf '.SH NAME\ndperm \\- reproducible benchmark harness for differentially private ERM\n'; \
	   printf '.SH SYNOPSIS\n.nf\n'; $(BIN)/dperm --help | $(ROFF_TEXT); printf '.fi\n'; \
	   for c in $(MAN_COMMANDS); do \
	     printf '.SH "DPERM %s"\n.nf\n' "$$(echo $$c | tr a-z A-Z)"; \
	     $(BIN)/dperm $$c --help | $(ROFF_TEXT); printf '.fi\n'; done; \
	   printf '.SH SEE ALSO\nREADME.md and docs/ in the dperm source tree.\n'; } > $@.tmp && mv $@.tmp $@

install: all $(BUILD)/dperm.1 ## install bin/dperm, its man page and the configs under PREFIX (DESTDIR for staging)
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/share/man/man1 \
	  $(DESTDIR)$(PREFIX)/share/dperm/configs $(DESTDIR)$(PREFIX)/share/dperm/datasets
	install -m 755 $(BIN)/dperm $(DESTDIR)$(PREFIX)/bin/dperm
	install -m 644 $(BUILD)/dperm.1 $(DESTDIR)$(PREFIX)/share/man/man1/dperm.1
	cp -R configs/. $(DESTDIR)$(PREFIX)/share/dperm/configs/
	@echo "installed $(DESTDIR)$(PREFIX)/bin/dperm; datasets: copy datasets/data/* into $(DESTDIR)$(PREFIX)/share/dperm/datasets/ or set DPERM_DATA"

uninstall: ## remove what `make install` put under PREFIX
	rm -f $(DESTDIR)$(PREFIX)/bin/dperm $(DESTDIR)$(PREFIX)/share/man/man1/dperm.1
	rm -rf $(DESTDIR)$(PREFIX)/share/dperm/configs
	-rmdir $(DESTDIR)$(PREFIX)/share/dperm/datasets $(DESTDIR)$(PREFIX)/share/dperm 2>/dev/null

# The demo goes where the quick reproductions go (results/quick/<experiment>), so one
# index, results/quick/index.html, lists them all.
demo: all ## the quick end-to-end demo: configs/quick.yaml -> results/quick/demo (table + figure)
	$(BIN)/dperm run configs/quick.yaml -j $(JOBS) --resume --out results/quick/demo
	$(BIN)/dperm report results/quick/demo

data: deps ## download the real datasets into datasets/data/, verified against datasets/checksums.sha256
	@sh datasets/fetch.sh

check-deps: ## fail on an include against the layers of harness/layers.txt
	@sh tests/check_deps.sh

clean: ## remove build outputs (results/ is kept)
	rm -rf $(BUILD) $(BIN)

# A test program depends on the headers it includes (its fixture headers too): gcc -MMD
# writes build/tests/test_X.d beside it.
-include $(LIB_OBJ:.o=.d) $(HAR_OBJ:.o=.d) $(BUILD)/harness/cli/main.d $(DEBUG_NOISE_OBJ:.o=.d) \
  $(TEST_BIN:=.d)
