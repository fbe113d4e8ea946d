# fenec's front door. `make bench` and `make test` are all a new machine needs:
# each installs missing Debian packages (scripts/setup.sh), configures and
# builds with meson/ninja, then benchmarks or tests.
#
#   make test                 build and run every test (what CI runs)
#   make bench                quick mode of every scenario, then results/REPORT.md
#   make <name>-bench         one scenario in full; QUICK=1 for its quick mode
#   make report               rebuild results/REPORT.md from results/*/
#   make stability RUNS=K     the quick suite K times; results/stability/STABILITY.md marks verdicts that differ
#   make ci-charts            CI regression charts vs results/baseline/ (make record appends history)
#   make postgres-up|postgres-down   the optional PostgreSQL arm on loopback

BUILD ?= build
QUICK ?=
ARGS ?=
RUNS ?= 5
QFLAG := $(if $(filter 1 yes true,$(QUICK)),--quick,)
SCENARIOS := io concurrency growth recon journals commit smaps micro vector conns

.PHONY: all setup build test bench report stability clean postgres-up postgres-down ci-charts record ci-baseline \
        $(addsuffix -bench,$(SCENARIOS))

all: build

setup:
	@bash scripts/setup.sh

$(BUILD)/build.ninja:
	@bash scripts/setup.sh
	meson setup $(BUILD)

build: setup $(BUILD)/build.ninja
	ninja -C $(BUILD)

test: build
	@bash scripts/run-tests.sh $(BUILD)

# Each scenario's quick mode, in turn; a scenario not built yet is reported, not faked.
bench: build
	@bash scripts/bench-all.sh $(BUILD)

$(addsuffix -bench,$(SCENARIOS)): %-bench: build
	@bash scripts/run-bench.sh $(BUILD) $* $(QFLAG) $(ARGS)

report:
	@bash scripts/report.sh

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
