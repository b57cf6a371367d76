# Thin wrapper over CMake + Ninja. `make demo` and `make test` are the README's two commands:
# each installs what is missing (scripts/setup.sh), builds, then runs.
# Reliability (docs/reliability.md): `make sanitize` (the recorder and live tests under TSan in
# build-tsan, then the whole suite under ASan+UBSan in build-asan), `make fuzz [FUZZ_SECONDS=N]
# [FUZZ_PARALLEL=K]` (each libFuzzer harness N seconds, default an hour, K at a time, in
# build-fuzz; .ci/run runs both, the harnesses 60 s each, one per core).
# Packaging (docs/install.md): `make install [PREFIX=DIR]`, `make deb` (BUILD/syncline_*.deb),
# `make wheel` (BUILD/dist/*.whl), `make test-install` (scripts/test-install.sh on a temp prefix).
BUILD  ?= build
PY     ?= /usr/bin/python3
JOBS   ?= $(shell nproc)
PREFIX ?= /usr/local
FUZZ_SECONDS ?= 3600
FUZZ_PARALLEL ?= 1

.PHONY: all setup configure build test demo bench bench-scale clean format install deb wheel test-install sanitize fuzz
all: build

setup:
	@bash scripts/setup.sh

$(BUILD)/build.ninja: | setup
	cmake -S . -B $(BUILD) -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DPython_EXECUTABLE=$(PY)

configure: setup $(BUILD)/build.ninja

build: configure
	cmake --build $(BUILD) -j $(JOBS)

test: build
	bash scripts/run-tests.sh $(BUILD)

demo: build
	bash scripts/demo.sh $(BUILD)

bench: build
	bash scripts/run-benchmarks.sh $(BUILD)

# The 1,024-worker x 100k-event scale benchmark (docs/scale.md; ~24 GB of disk, many minutes;
# not in CI). WORKERS=128 make bench-scale for a smaller run.
bench-scale: build
	bash scripts/bench-scale.sh $(BUILD)

install: build
	cmake --install $(BUILD) --prefix $(PREFIX)

deb: build
	cd $(BUILD) && cpack -G DEB

# The module from the configured tree (only its target is built), packed by setuptools.
wheel: configure
	SYNCLINE_CMAKE_BUILD_DIR=$(BUILD) $(PY) -m build --wheel --no-isolation --outdir $(BUILD)/dist .

sanitize: setup
	JOBS=$(JOBS) bash scripts/sanitize.sh all

fuzz: setup
	JOBS=$(JOBS) FUZZ_SECONDS=$(FUZZ_SECONDS) FUZZ_PARALLEL=$(FUZZ_PARALLEL) bash scripts/fuzz.sh

test-install: build
	bash scripts/test-install.sh $(BUILD)

format:
	find recorder sync sim timeline ui app python bench examples tests -name '*.h' -o -name '*.cpp' | xargs clang-format -i

clean:
	rm -rf $(BUILD) build-asan build-tsan build-fuzz
