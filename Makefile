# SPDX-License-Identifier: MIT
# Thin wrapper over CMake. `make demo` and `make test` are the README's two
# commands; both install their own dependencies (scripts/deps.sh).
PREFIX ?= /usr/local
JOBS ?= $(shell nproc 2>/dev/null || echo 2)
CMAKE_FLAGS ?=
ifeq ($(CI),true)
CMAKE_FLAGS += -DSTINT_WERROR=ON
endif
CTEST_FLAGS ?= --output-on-failure -j$(JOBS)

.PHONY: all build deps deps-test demo test test-asan test-tsan bench fuzz install clean

all: build

deps:
	@bash scripts/deps.sh build

deps-test:
	@bash scripts/deps.sh test

build/CMakeCache.txt:
	cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo $(CMAKE_FLAGS) >/dev/null

build: deps build/CMakeCache.txt
	@if [ -n "$(CMAKE_FLAGS)" ]; then cmake -S . -B build $(CMAKE_FLAGS) >/dev/null; fi
	cmake --build build -j$(JOBS)

demo: build
	bash examples/run_demo.sh build

test: deps-test build/CMakeCache.txt
	@# (flags given now, CI's -Werror among them, apply to a build folder configured before too)
	@if [ -n "$(CMAKE_FLAGS)" ]; then cmake -S . -B build $(CMAKE_FLAGS) >/dev/null; fi
	cmake --build build -j$(JOBS)
	cd build && ctest $(CTEST_FLAGS)

# All tests under AddressSanitizer + UndefinedBehaviorSanitizer, gzip through
# zlib (the other builds take ISA-L when installed: both paths are tested).
test-asan: deps-test
	cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=Debug -DSTINT_SANITIZE=address,undefined -DSTINT_WITH_ISAL=OFF $(CMAKE_FLAGS) >/dev/null
	cmake --build build-asan -j$(JOBS)
	cd build-asan && ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1 ctest $(CTEST_FLAGS)

# The threaded tests under ThreadSanitizer.
test-tsan: deps-test
	cmake -S . -B build-tsan -DCMAKE_BUILD_TYPE=Debug -DSTINT_SANITIZE=thread $(CMAKE_FLAGS) >/dev/null
	cmake --build build-tsan -j$(JOBS)
	cd build-tsan && TSAN_OPTIONS=halt_on_error=1:die_after_fork=0 ctest $(CTEST_FLAGS) -L threads

# Benchmarks: never part of `make test`; they print medians and ratios.
bench: deps-test build/CMakeCache.txt
	cmake --build build -j$(JOBS) --target benches
	bash bench/run.sh build

fuzz: deps-test
	CC=clang CXX=clang++ cmake -S . -B build-fuzz -DCMAKE_BUILD_TYPE=Debug -DSTINT_FUZZ=ON -DSTINT_TESTS=OFF >/dev/null
	cmake --build build-fuzz -j$(JOBS)
	bash tests/fuzz/run.sh build-fuzz $${FUZZ_SECONDS:-300}

install: build
	cmake --install build --prefix $(PREFIX)

clean:
	rm -rf build build-asan build-tsan build-fuzz
