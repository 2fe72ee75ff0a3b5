# The two commands of the README: `make run` and `make test`. Each installs what is missing
# (.ci/install-deps: apt-get + a project venv), configures, builds and runs.
PRESET ?= release
BUILD_DIR := $(if $(filter release,$(PRESET)),build,build-$(PRESET))
VENV := .venv

.PHONY: all deps build run test test-cpp test-python test-long test-regress bench debug asan tsan format clean

all: build

deps:
	@./.ci/install-deps

# Configures once; later builds let ninja re-run CMake when a CMakeLists.txt changed, so
# `make run` after `make test` (or the reverse) goes straight to "no work to do".
build: deps
	@test -f $(BUILD_DIR)/build.ninja || cmake --preset $(PRESET) >/dev/null
	@cmake --build --preset $(PRESET)

# The main job: the default experiment on the CPU backend, then its report (waterfall
# PNG/SVG and report.md beside the run directory).
# Absolute paths, so that what it prints works wherever the user stands (make -C too).
RUN_ID ?= make-run-$(shell date -u +%Y%m%dT%H%M%SZ)
RUNS := $(CURDIR)/results/runs
run: build
	$(BUILD_DIR)/bin/prooflab batch --config experiments/default-cpu.toml --out $(RUNS) --run-id $(RUN_ID)
	$(BUILD_DIR)/bin/prooflab report $(RUNS)/$(RUN_ID)
	@echo "waterfall: $(RUNS)/$(RUN_ID)/report/waterfall.png"

test: build
	@$(MAKE) --no-print-directory test-cpp test-python test-regress PRESET=$(PRESET)

# ctest's JUnit file keeps every test's output; .ci/ctest_skip_summary.py turns the skip
# messages in it into one line per reason ("skipped 58: no GPU: ...").
CTEST_JUNIT := $(CURDIR)/$(BUILD_DIR)/ctest-junit.xml
test-cpp:
	@rm -f $(CTEST_JUNIT)
	@ctest --preset $(PRESET) --output-on-failure -j 2 --output-junit $(CTEST_JUNIT) \
	  --test-output-size-passed 65536; rc=$$?; \
	  if [ -f $(CTEST_JUNIT) ]; then python3 .ci/ctest_skip_summary.py $(CTEST_JUNIT); fi; exit $$rc

# -rs: the reason of every skipped test, grouped by reason and place. -n 2 --dist loadfile:
# two pytest-xdist workers, each taking whole files (a module's fixtures, such as its Slurm
# cluster, stay on one worker); most tests wait on subprocesses, so two workers halve the
# wall time on the two-core CI machine (results/2026-12-02-fresh-make-test.md).
test-python:
	@if [ -d tests/python ]; then $(VENV)/bin/python -m pytest -q -rs -n 2 --dist loadfile tests/python; \
	else echo "no Python tests yet"; fi

# Fault tests that take minutes (docs/faults.md): RSS over a 20,000-partition batch.
test-long: build
	PROOFLAB_LONG_TESTS=1 $(VENV)/bin/python -m pytest -q -s tests/python/test_faults_long.py

# Per-commit regression check (docs/regress.md): instruction counts of the workloads under
# callgrind against results/baselines/cpu.json (deterministic, ~30 s on 2 cores). Counts are
# recorded for the release build's toolchain, so other presets skip it. Wall-clock too:
# `make test-regress REGRESS_AGAINST=DIR` (DIR: a release build of the baseline commit).
REGRESS_BASELINE ?= results/baselines/cpu.json
REGRESS_AGAINST ?=
test-regress:
	@if [ "$(PRESET)" != release ]; then \
	  echo "test-regress: instruction counts are recorded for the release build; skipped for PRESET=$(PRESET)"; \
	else $(BUILD_DIR)/bin/prooflab regress --baseline $(REGRESS_BASELINE) --json $(BUILD_DIR)/regress.json \
	  $(if $(REGRESS_AGAINST),--measure all --against-build $(REGRESS_AGAINST),--measure instructions); fi

bench: build
	$(BUILD_DIR)/bench/prooflab_bench

# Sanitizer and debug builds: `make test PRESET=asan`, `make test PRESET=tsan`.
debug asan tsan:
	@$(MAKE) --no-print-directory test PRESET=$@

format:
	find core gpu harness tests -name '*.[ch]pp' -o -name '*.cu' -o -name '*.cuh' | xargs clang-format -i

clean:
	rm -rf build build-debug build-asan build-tsan
