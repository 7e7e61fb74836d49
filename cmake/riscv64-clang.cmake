# Cross toolchain: clang-19 for riscv64-linux-gnu against Debian's cross sysroot, linked by lld.
# VLAK_RISCV_MARCH picks rv64gcv (vector) or rv64gc (scalar only); VLEN sets the emulated vector
# length used when ctest/cmake run a cross-built binary under qemu-riscv64.
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR riscv64)

set(VLAK_RISCV_MARCH "rv64gcv" CACHE STRING "RISC-V -march: rv64gcv or rv64gc")
set(VLEN "256" CACHE STRING "Emulated RVV VLEN in bits for qemu-riscv64 (128, 256, 512, 1024)")
set_property(CACHE VLEN PROPERTY STRINGS 128 256 512 1024)
if(NOT VLEN MATCHES "^(128|256|512|1024)$")
  message(FATAL_ERROR "VLEN must be 128, 256, 512 or 1024 (got '${VLEN}')")
endif()

set(triple riscv64-linux-gnu)
set(CMAKE_C_COMPILER clang-19)
set(CMAKE_CXX_COMPILER clang++-19)
set(CMAKE_C_COMPILER_TARGET ${triple})
set(CMAKE_CXX_COMPILER_TARGET ${triple})
# Everything is compiled for the base ISA, rv64gc; only the library (whose instructions the budgets
# count: src/CMakeLists.txt), the rvv target's tests and the few other sources that use V get
# -march=${VLAK_RISCV_MARCH} (VLAK_FLAGS_rvv in CMakeLists.txt). Everything else (the tests, the
# lab, the CLI) then has the same flags in the rv64gcv and rv64gc builds, and ccache compiles it
# once for both.
# No auto-vectorisation here: Debian's qemu 7.2 aborts (decode_save_opc assertion) on vfcvt.rtz.*
# and vfncvt.rtz.* that start a translation block, which clang emits when it vectorises
# trunc/float->int loops. These flags hold only where no -O comes after them: in a Release build
# CMAKE_CXX_FLAGS_RELEASE's -O3 follows and turns the vectorisers back on, so the library's
# kernels are auto-vectorised (the RVV instruction budgets count that code). The library keeps
# the encodings out where they arose (src/CMakeLists.txt: the scalar target; quant_kernel.cc's
# truncating loops; src/simd/rvv.h), and ctest rvv.no_rtz checks libvlak.a for them.
set(CMAKE_C_FLAGS_INIT "-march=rv64gc -fno-vectorize -fno-slp-vectorize")
set(CMAKE_CXX_FLAGS_INIT "-march=rv64gc -fno-vectorize -fno-slp-vectorize")
set(CMAKE_EXE_LINKER_FLAGS_INIT "-fuse-ld=lld")
set(CMAKE_SHARED_LINKER_FLAGS_INIT "-fuse-ld=lld")
set(CMAKE_MODULE_LINKER_FLAGS_INIT "-fuse-ld=lld")

set(CMAKE_SYSROOT_LINK "")
set(CMAKE_FIND_ROOT_PATH /usr/${triple})
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)

if(VLAK_RISCV_MARCH MATCHES "^rv64[^_]*v")
  set(VLAK_QEMU_CPU "rv64,v=true,vlen=${VLEN},elen=64,vext_spec=v1.0")
else()
  # No V in the CPU either: a stray vector instruction in the scalar build traps instead of passing.
  set(VLAK_QEMU_CPU "rv64,v=false")
endif()
set(CMAKE_CROSSCOMPILING_EMULATOR qemu-riscv64 -L /usr/${triple} -cpu ${VLAK_QEMU_CPU})
