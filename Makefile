# fenec's front door. `make bench` and `make test` are all a new machine needs:
# each installs missing Debian packages (scripts/setup.sh), configures and
# builds with meson/ninja, then benchmarks or tests.
#
#   make test                 build and run every test (what CI runs)
#   make test SANITIZE=address,undefined   the same under ASan+UBSan (-O0), in build-asan
#   make test SANITIZE=thread               under TSan (engine, ring, server suites), in build-tsan
#   make test SUITES="engine server"        only those suites, building only their tests
#   make fuzz FUZZ_SECONDS=N  build the libFuzzer targets with clang (build-fuzz) and run each N s
#   make bench                quick mode of every scenario, then results/REPORT.md
#   make <name>-bench         one scenario in full; QUICK=1 for its quick mode
#   make advise               iobench advise, verified against the engines (= make advise-bench)
#   make report               rebuild results/REPORT.md from results/*/
#   make stability RUNS=K     the quick suite K times; results/stability/STABILITY.md marks verdicts that differ
#   make verdict-table        results/baseline/verdicts.md from the last make bench (make bench prints what moved)
#   make ci-charts            CI regression charts vs results/baseline/ (the checkout stays clean; make record appends history)
#   make postgres-up|postgres-down   the optional PostgreSQL arm on loopback
#   make install [PREFIX=/usr/local]  iobench, fenec, fenec-server, libfenec, its headers and fenec.pc

comma := ,
# ccache (scripts/setup.sh) hashes the build folder into every compile that
# makes debug info (-g1), so a clone in another folder, as CI's is, missed
# every entry. The sources' paths are relative (../engine/...), so objects
# are the same wherever built; only DW_AT_comp_dir names the first folder.
# BASEDIR: the few absolute paths left (iobench's unity file includes its
# sources by one) are hashed relative to the checkout.
export CCACHE_NOHASHDIR := true
export CCACHE_BASEDIR := $(CURDIR)
BUILD ?= build
# A sanitized build lives in a folder of its own, so switching never rebuilds the normal one.
SANITIZE ?=
ifneq ($(SANITIZE),)
  ifneq ($(origin BUILD),command line)
    BUILD := $(if $(filter thread,$(SANITIZE)),build-tsan,$(if $(filter address$(comma)undefined,$(SANITIZE)),build-asan,build-san-$(subst $(comma),-,$(SANITIZE))))
  endif
endif
# Empty: every suite. TSan's default is the concurrent code: the engine (its
# concurrency, merger and group commit), the ring and the server.
SUITES ?= $(if $(filter thread,$(SANITIZE)),engine ring server,)
# ASan+UBSan at -O0: its compiles are several times faster than at the default
# -O2 (the Beast translation units most) and the tests it runs are short; TSan keeps -O2.
SAN_OPT := $(if $(filter address%,$(SANITIZE)),-Doptimization=0,)
# A warning fails the build that CI makes (the default and ASan+UBSan's, gcc
# both, each without one), so none comes back. Not TSan's: GCC 12 warns
# (-Wtsan) that TSan cannot see the atomic_thread_fence calls the ring and the
# vector index make on purpose. System headers' warnings stay silent either way.
WERROR := $(if $(filter thread,$(SANITIZE)),,-Dwerror=true)
FUZZ_BUILD ?= build-fuzz
FUZZ_SECONDS ?= 60
FUZZ_TARGETS ?=
QUICK ?=
ARGS ?=
RUNS ?= 5
PREFIX ?= /usr/local
QFLAG := $(if $(filter 1 yes true,$(QUICK)),--quick,)
# The scenarios (make NAME-bench): scenarios/scenarios.txt's names, in its
# order; the `scenarios` test fails when they differ.
SCENARIOS := io concurrency growth recon journals commit smaps micro vector conns requests load fs fleet soak advise

.PHONY: advise all setup build install fuzz test bench report stability verdict-table clean postgres-up postgres-down \
        ci-charts record ci-baseline \
        $(addsuffix -bench,$(SCENARIOS))

all: build

setup:
	@bash scripts/setup.sh

$(BUILD)/build.ninja:
	@bash scripts/setup.sh
	meson setup $(BUILD) $(if $(SANITIZE),-Db_sanitize=$(SANITIZE),) $(SAN_OPT) $(WERROR)

build: setup $(BUILD)/build.ninja
	ninja -C $(BUILD)

# meson's install (the tools, libfenec, its headers, fenec.pc) under PREFIX.
# The prefix is set first: the build after it rewrites the install plan for it.
install: setup $(BUILD)/build.ninja
	meson configure $(BUILD) -Dprefix=$(abspath $(PREFIX))
	ninja -C $(BUILD)
	meson install -C $(BUILD) --no-rebuild

# Builds what the chosen suites need (everything when SUITES is empty), then runs them.
test: setup $(BUILD)/build.ninja
	@SANITIZE="$(SANITIZE)" bash scripts/run-tests.sh $(BUILD) $(SUITES)

# libFuzzer targets (fuzz/): clang-14, ASan+UBSan, coverage on every file.
$(FUZZ_BUILD)/build.ninja:
	@bash scripts/setup.sh
	CC=clang-14 CXX=clang++-14 meson setup $(FUZZ_BUILD) -Dfuzzing=true -Db_sanitize=address,undefined -Db_lundef=false

fuzz: setup $(FUZZ_BUILD)/build.ninja
	@bash scripts/fuzz.sh $(FUZZ_BUILD) $(FUZZ_SECONDS) $(FUZZ_TARGETS)

# Each scenario's quick mode, in scenarios/scenarios.txt's order; one not built is reported
# (and makes the exit code non-zero), one left out says why.
bench: build
	@bash scripts/bench-all.sh $(BUILD)

$(addsuffix -bench,$(SCENARIOS)): %-bench: build
	@bash scripts/run-bench.sh $(BUILD) $* $(QFLAG) $(ARGS)

# iobench advise verified against the engines, on the scratch folder (QUICK=1 for its quick mode).
advise: advise-bench

report:
	@bash scripts/report.sh

# The verdict table of the last full `make bench`, kept in the repository (results/baseline/verdicts.md):
# `make bench` prints every finding whose verdict moved against it.
verdict-table:
	@python3 scripts/verdicts.py write

# The quick suite RUNS times in a row: every verdict per run, rows that differ marked.
stability: build
	@python3 scripts/stability.py $(BUILD) $(RUNS)

# CI regression charts: quick suite vs results/baseline/, charts in results/ci/ (index.html).
ci-charts: build
	@bash scripts/ci-charts/run.sh $(BUILD)

# Append this run to results/history.csv (commit it to keep the history).
record: build
	@bash scripts/ci-charts/run.sh $(BUILD) --record

# Record and make this run the new baseline (after an intended performance change).
ci-baseline: build
	@bash scripts/ci-charts/run.sh $(BUILD) --record --update-baseline

postgres-up:
	@bash scripts/postgres.sh up

postgres-down:
	@bash scripts/postgres.sh down

clean:
	rm -rf $(BUILD)
