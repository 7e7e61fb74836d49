# The two commands a newcomer needs (see README.md):
#   make bench   install what is missing, build, run the main job (vlak info + the lab's quick suite + report)
#   make test    install what is missing, build host + host-asan (with the fuzz targets) + rv64gcv + rv64gc, run every test
#                but the exhaustive sweeps
#   make test-exhaustive  the exhaustive sweeps (every float of exp; the int8 softmax's full error table)
#   make cycles  llvm-mca loop-body cycle estimates of the RVV kernels (needs llvm-22), see scripts/rvv-cycles
#   make x86-cycles  the same for the AVX2 / AVX-512 kernels on Zen 3, Zen 4, Sapphire Rapids, see scripts/x86-cycles
#   make fuzz    the libFuzzer targets for FUZZ_SECONDS each (default 60), see scripts/fuzz
#   make peers   llama.cpp / ggml from the llama-cpp-python sdist, host and rv64gcv, for the lab's ggml rows
#                (scripts/peers/llama-cpp; minutes, once), then configures host (and rv64gcv) to link it
JOBS ?= $(shell nproc)
VLENS ?= 128;256;512

.PHONY: all bootstrap build test test-exhaustive bench bench-rvv cycles x86-cycles fuzz peers clean

all: build

bootstrap:
	@./scripts/bootstrap

build: bootstrap
	@cmake --preset host >/dev/null
	@cmake --build --preset host -j $(JOBS)

# Only what the main job runs: the CLI, its lab and the Python module (vlak_bench_deps).
bench:
	@./scripts/bootstrap bench
	@cmake --preset host >/dev/null
	@cmake --build --preset host -j $(JOBS) --target vlak_bench_deps
	@./scripts/bench

# The lab's rvv suite cross-built and run under qemu with the instruction-count plugin.
bench-rvv: bootstrap
	@JOBS=$(JOBS) VLENS="$(VLENS)" ./scripts/bench rvv

# Cycles per element of the RVV kernels' loop bodies on LLVM's X60 / X280 / P670 models.
cycles: bootstrap
	@cmake --preset rv64gcv >/dev/null
	@cmake --build build/rv64gcv -j $(JOBS) --target vlak_static
	@./scripts/rvv-cycles

# Cycles per element of the AVX2 / AVX-512 kernels' loop bodies on LLVM's znver3 / znver4 /
# sapphirerapids models (the host build's libvlak.a).
x86-cycles: bootstrap
	@cmake --preset host >/dev/null
	@cmake --build --preset host -j $(JOBS) --target vlak_static
	@./scripts/x86-cycles

test: bootstrap
	@JOBS=$(JOBS) VLENS="$(VLENS)" ./scripts/test-all

# The tests labelled "exhaustive" (host preset): minutes each, so apart from make test.
test-exhaustive: bootstrap
	@cmake --preset host >/dev/null
	@cmake --build --preset host -j $(JOBS)
	@ctest --preset host-exhaustive -j $(JOBS)

FUZZ_SECONDS ?= 60
fuzz: bootstrap
	@JOBS=$(JOBS) FUZZ_SECONDS=$(FUZZ_SECONDS) ./scripts/fuzz

peers:
	@JOBS=$(JOBS) ./scripts/peers/llama-cpp host rv64gcv
	@cmake --preset host >/dev/null
	@if [ -d build/rv64gcv ]; then cmake --preset rv64gcv >/dev/null; fi

clean:
	rm -rf build
