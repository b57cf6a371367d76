# Thin wrapper over CMake + Ninja. `make demo` and `make test` are the README's two commands:
# each installs what is missing (scripts/setup.sh), builds, then runs.
BUILD ?= build
PY    ?= /usr/bin/python3
JOBS  ?= $(shell nproc)

.PHONY: all setup configure build test demo bench clean format
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

format:
	find recorder sync sim timeline ui app python bench examples tests -name '*.h' -o -name '*.cpp' | xargs clang-format -i

clean:
	rm -rf $(BUILD)
