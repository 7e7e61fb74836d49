# The lab behind `vlak bench` and `vlak report`, included by tools/CMakeLists.txt:
# a static library the CLI and tests/lab link, the built-in suites, the plain C reference kernels
# compiled by gcc and by clang, and the optional library baselines.
set(_lab ${CMAKE_CURRENT_SOURCE_DIR}/vlak/lab)
set(_ref ${PROJECT_SOURCE_DIR}/bench/ref)

# ---- built-in suites: bench/suites/*.txt compiled in -------------------------------------------
file(GLOB _suite_files CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/bench/suites/*.txt)
set(_suites_cc ${CMAKE_CURRENT_BINARY_DIR}/lab_suites.cc)
add_custom_command(OUTPUT ${_suites_cc}
  COMMAND ${CMAKE_COMMAND} -DDIR=${PROJECT_SOURCE_DIR}/bench/suites -DOUT=${_suites_cc} -P ${_lab}/embed_suites.cmake
  DEPENDS ${_suite_files} ${_lab}/embed_suites.cmake
  COMMENT "Embedding the lab's built-in suites" VERBATIM)

add_library(vlak_lab STATIC
  ${_lab}/baselines.cc ${_lab}/gomp.cc ${_lab}/machine.cc ${_lab}/op_exp.cc ${_lab}/op_sfpi.cc ${_lab}/op_softmax.cc ${_lab}/op_rope.cc
  ${_lab}/op_layernorm.cc ${_lab}/op_layernorm_bwd.cc ${_lab}/op_rmsnorm.cc ${_lab}/op_matmul.cc ${_lab}/op_resize.cc ${_lab}/op_softmax_i8.cc ${_lab}/op_warp.cc ${_lab}/op_correlation.cc
  ${_lab}/ops.cc ${_lab}/peak_i8_x86.cc ${_lab}/record.cc ${_lab}/report.cc ${_lab}/roofline.cc ${_lab}/runner.cc ${_lab}/stats.cc ${_lab}/suite.cc
  ${_lab}/svg.cc ${_suites_cc})
target_include_directories(vlak_lab PUBLIC ${CMAKE_CURRENT_SOURCE_DIR}/vlak ${PROJECT_SOURCE_DIR}/src
                                           ${CMAKE_CURRENT_SOURCE_DIR}/qemu-icount)
target_link_libraries(vlak_lab PUBLIC vlak_static)
# The roofline's FMA loop, compiled once per target with that target's flags (as the kernels are).
vlak_target_objects(vlak_lab_peak ${_lab}/peak_kernel.cc)
foreach(t IN LISTS VLAK_TARGETS)
  target_sources(vlak_lab PRIVATE $<TARGET_OBJECTS:vlak_lab_peak_${t}>)
endforeach()
target_compile_definitions(vlak_lab PRIVATE ${VLAK_TARGET_DEFINES})
# Results files are JSON (nlohmann-json3-dev). The riscv64 cross sysroot has no copy of it, but it
# is header-only and architecture-independent, so a cross build uses the host's headers, through a
# directory that holds only them (putting the host's whole /usr/include on a cross compile's path
# would shadow the sysroot's libc headers).
if(CMAKE_CROSSCOMPILING)
  find_path(VLAK_NLOHMANN_DIR nlohmann/json.hpp NO_CMAKE_FIND_ROOT_PATH REQUIRED)
  set(_nl ${CMAKE_CURRENT_BINARY_DIR}/nlohmann_only)
  file(MAKE_DIRECTORY ${_nl})
  file(CREATE_LINK ${VLAK_NLOHMANN_DIR}/nlohmann ${_nl}/nlohmann SYMBOLIC)
  target_include_directories(vlak_lab SYSTEM PUBLIC ${_nl})
else()
  find_package(nlohmann_json 3.2 REQUIRED)
  target_link_libraries(vlak_lab PUBLIC nlohmann_json::nlohmann_json)
endif()
# the RISC-V hackathon softmax's kernels (also linked into the CLI itself) for the seed-scalar /
# seed-rvv rows
target_sources(vlak_lab PRIVATE ${CMAKE_CURRENT_SOURCE_DIR}/vlak/hackathon_softmax.cc)

execute_process(COMMAND git rev-parse --short=12 HEAD WORKING_DIRECTORY ${PROJECT_SOURCE_DIR}
                OUTPUT_VARIABLE _commit OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET RESULT_VARIABLE _git_rc)
if(NOT _git_rc EQUAL 0)
  set(_commit "unknown")
endif()
target_compile_definitions(vlak_lab PRIVATE VLAK_LAB_SOURCE_DIR="${PROJECT_SOURCE_DIR}" VLAK_LAB_GIT_COMMIT="${_commit}")

# ---- the plain C reference, built by gcc and by clang with auto-vectorisation for the target ----
# Called directly (not through CMake's C compiler settings) so each gets exactly the flags a
# programmer would give it: -O3 for this ISA, and -fopenmp-simd for the loops' `omp simd`.
if(CMAKE_CROSSCOMPILING AND CMAKE_SYSTEM_PROCESSOR MATCHES "riscv64")
  set(_isa -march=${VLAK_RISCV_MARCH} -mabi=lp64d)
  find_program(VLAK_LAB_GCC NAMES riscv64-linux-gnu-gcc riscv64-linux-gnu-gcc-12 NO_CMAKE_FIND_ROOT_PATH)
  set(VLAK_LAB_CLANG ${CMAKE_C_COMPILER})
  set(_clang_target --target=riscv64-linux-gnu)
elseif(NOT CMAKE_CROSSCOMPILING)
  set(_isa -march=native)
  find_program(VLAK_LAB_GCC NAMES gcc gcc-12)
  find_program(VLAK_LAB_CLANG NAMES clang-19 clang)
  set(_clang_target "")
endif()
set(_cref_gcc_flags -O3 ${_isa} -fopenmp-simd)
# -march=native on AVX10 CPUs makes clang-19 warn that avx10.1-256 becomes avx10.1-512: noise.
set(_cref_clang_flags ${_clang_target} -O3 ${_isa} -fopenmp-simd -Wno-invalid-feature-combination)
foreach(cc gcc clang)
  string(TOUPPER ${cc} CC)
  if(NOT VLAK_LAB_${CC})
    message(STATUS "vlak lab: no ${cc} for the C reference: c-${cc} will show as not built")
    continue()
  endif()
  set(_objs "")
  foreach(src softmax exp rope layernorm rmsnorm matmul resize softmax_i8 warp correlation)
    set(_o ${CMAKE_CURRENT_BINARY_DIR}/cref_${cc}_${src}.o)
    set(_extra "")
    if(cc STREQUAL "clang")
      set(_extra -Wno-pass-failed)  # an `omp simd` loop it cannot vectorise is a result, not a build problem
    endif()
    add_custom_command(OUTPUT ${_o}
      COMMAND ${VLAK_LAB_${CC}} ${_cref_${cc}_flags} -fPIC ${_extra} -DVLAK_REF_PREFIX=vlak_ref_${cc}_
              -c ${_ref}/${src}_ref.c -o ${_o}
      DEPENDS ${_ref}/${src}_ref.c ${_ref}/ref_common.h
      COMMENT "C reference ${src}_ref.c by ${cc}" VERBATIM)
    list(APPEND _objs ${_o})
  endforeach()
  set_source_files_properties(${_objs} PROPERTIES EXTERNAL_OBJECT TRUE GENERATED TRUE)
  target_sources(vlak_lab PRIVATE ${_objs})
  string(REPLACE ";" " " _flags_text "${_cref_${cc}_flags}")
  target_compile_definitions(vlak_lab PRIVATE VLAK_LAB_HAVE_CREF_${CC}=1 "VLAK_LAB_CREF_${CC}_FLAGS=\"${_flags_text}\"")
  message(STATUS "vlak lab: C reference by ${VLAK_LAB_${CC}} ${_flags_text}")
endforeach()

# ---- the lab's threads: GNU libgomp (lab/gomp.h says why) ---------------------------------------
# The lab is not compiled with -fopenmp (clang's would bring LLVM libomp, a second runtime that
# the libraries' thread counts do not reach); its loops call libgomp, the runtime oneDNN, libtorch
# and the Eigen row use, found where gcc keeps it. Without it the loops use std::thread.
if(VLAK_LAB_GCC)
  execute_process(COMMAND ${VLAK_LAB_GCC} -print-file-name=libgomp.so OUTPUT_VARIABLE _gomp
                  OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
  if(IS_ABSOLUTE "${_gomp}" AND EXISTS "${_gomp}")
    set(VLAK_LAB_GOMP "${_gomp}" CACHE FILEPATH "GNU libgomp, the lab's only OpenMP runtime")
  endif()
endif()
if(VLAK_LAB_GOMP)
  target_compile_definitions(vlak_lab PRIVATE VLAK_LAB_HAVE_GOMP=1)
  target_link_libraries(vlak_lab PUBLIC ${VLAK_LAB_GOMP})
  message(STATUS "vlak lab: threads on GNU libgomp (${VLAK_LAB_GOMP})")
else()
  message(STATUS "vlak lab: no libgomp next to ${VLAK_LAB_GCC}: the lab's loops use std::thread, and oneDNN/Eigen "
                 "thread counts cannot be set")
endif()

# ---- library baselines (optional: a missing one is reported as not built) ----------------------
# Not find_package(dnnl): Debian's dnnl-config.cmake demands OpenCL, which the CPU API never uses.
find_path(XNNPACK_INCLUDE_DIR xnnpack.h)
find_library(XNNPACK_LIBRARY XNNPACK)
find_library(PTHREADPOOL_LIBRARY pthreadpool)
if(XNNPACK_INCLUDE_DIR AND XNNPACK_LIBRARY AND PTHREADPOOL_LIBRARY)
  target_compile_definitions(vlak_lab PRIVATE VLAK_LAB_HAVE_XNNPACK=1)
  target_include_directories(vlak_lab SYSTEM PRIVATE ${XNNPACK_INCLUDE_DIR})
  target_link_libraries(vlak_lab PUBLIC ${XNNPACK_LIBRARY} ${PTHREADPOOL_LIBRARY})
  execute_process(COMMAND dpkg-query -W -f=\${Version} libxnnpack-dev OUTPUT_VARIABLE _xv ERROR_QUIET)
  if(_xv)
    target_compile_definitions(vlak_lab PRIVATE "VLAK_LAB_XNNPACK_VERSION=\"Debian ${_xv}\"")
  endif()
endif()
# OpenCV imgproc (libopencv-imgproc-dev: no CMake package needed, no .pc): cv::resize for resize,
# cv::remap for warp.
find_path(OPENCV_INCLUDE_DIR opencv2/imgproc.hpp PATH_SUFFIXES opencv4)
find_library(OPENCV_IMGPROC_LIBRARY opencv_imgproc)
find_library(OPENCV_CORE_LIBRARY opencv_core)
if(OPENCV_INCLUDE_DIR AND OPENCV_IMGPROC_LIBRARY AND OPENCV_CORE_LIBRARY)
  target_compile_definitions(vlak_lab PRIVATE VLAK_LAB_HAVE_OPENCV=1)
  target_include_directories(vlak_lab SYSTEM PRIVATE ${OPENCV_INCLUDE_DIR})
  target_link_libraries(vlak_lab PUBLIC ${OPENCV_IMGPROC_LIBRARY} ${OPENCV_CORE_LIBRARY})
  execute_process(COMMAND dpkg-query -W -f=\${Version} libopencv-imgproc-dev OUTPUT_VARIABLE _cvv ERROR_QUIET)
  if(_cvv)
    target_compile_definitions(vlak_lab PRIVATE "VLAK_LAB_OPENCV_VERSION=\"Debian ${_cvv}\"")
  endif()
else()
  message(STATUS "vlak lab: OpenCV imgproc not found: opencv rows will show as not built (install libopencv-imgproc-dev)")
endif()
find_path(DNNL_INCLUDE_DIR oneapi/dnnl/dnnl.hpp)
find_library(DNNL_LIBRARY dnnl)
if(DNNL_INCLUDE_DIR AND DNNL_LIBRARY)
  target_compile_definitions(vlak_lab PRIVATE VLAK_LAB_HAVE_ONEDNN=1)
  target_include_directories(vlak_lab SYSTEM PRIVATE ${DNNL_INCLUDE_DIR})
  target_link_libraries(vlak_lab PUBLIC ${DNNL_LIBRARY})
endif()
find_path(SLEEF_INCLUDE_DIR sleef.h)
find_library(SLEEF_LIBRARY sleef)
if(SLEEF_INCLUDE_DIR AND SLEEF_LIBRARY)
  target_compile_definitions(vlak_lab PRIVATE VLAK_LAB_HAVE_SLEEF=1)
  target_include_directories(vlak_lab SYSTEM PRIVATE ${SLEEF_INCLUDE_DIR})
  target_link_libraries(vlak_lab PUBLIC ${SLEEF_LIBRARY})
endif()
# OpenBLAS: the pthread flavour Debian installs by default (cblas.h in a flavour directory).
find_path(OPENBLAS_INCLUDE_DIR cblas.h PATH_SUFFIXES openblas-pthread openblas openblas-openmp)
find_library(OPENBLAS_LIBRARY openblas)
if(OPENBLAS_INCLUDE_DIR AND OPENBLAS_LIBRARY)
  target_compile_definitions(vlak_lab PRIVATE VLAK_LAB_HAVE_OPENBLAS=1)
  target_include_directories(vlak_lab SYSTEM PRIVATE ${OPENBLAS_INCLUDE_DIR})
  target_link_libraries(vlak_lab PUBLIC ${OPENBLAS_LIBRARY})
endif()
# Eigen: header-only, built as its users build it: g++ -O3 -march=native -fopenmp (its GEMM threads
# only through OpenMP, and the lab's OpenMP is libgomp, which clang cannot target), into one object
# with a C interface (eigen_kernels.cc). Without g++ or libgomp the eigen row is not built rather
# than silently single-threaded.
find_path(EIGEN3_INCLUDE_DIR Eigen/Core PATH_SUFFIXES eigen3)
if(EIGEN3_INCLUDE_DIR AND NOT CMAKE_CROSSCOMPILING)
  find_program(VLAK_LAB_GXX NAMES g++ g++-12)
  if(VLAK_LAB_GXX AND VLAK_LAB_GOMP)
    set(_eigen_o ${CMAKE_CURRENT_BINARY_DIR}/eigen_kernels_gxx.o)
    add_custom_command(OUTPUT ${_eigen_o}
      COMMAND ${VLAK_LAB_GXX} -std=c++17 -O3 -DNDEBUG -march=native -fopenmp -fPIC -isystem ${EIGEN3_INCLUDE_DIR}
              -c ${_lab}/eigen_kernels.cc -o ${_eigen_o}
      DEPENDS ${_lab}/eigen_kernels.cc
      COMMENT "Eigen baseline eigen_kernels.cc by g++ -fopenmp" VERBATIM)
    set_source_files_properties(${_eigen_o} PROPERTIES EXTERNAL_OBJECT TRUE GENERATED TRUE)
    target_sources(vlak_lab PRIVATE ${_eigen_o})
    target_compile_definitions(vlak_lab PRIVATE VLAK_LAB_HAVE_EIGEN=1)
  else()
    target_compile_definitions(vlak_lab PRIVATE "VLAK_LAB_EIGEN_NEEDS=\"g++ and libgomp\"")
  endif()
endif()
# PyTorch's C++ library (libtorch-dev): the `torch` rows. Found by its files, not find_package(Torch):
# its imported target puts /usr/include on the -isystem path, which breaks libstdc++'s
# #include_next of the C headers; the ATen headers are on the default path anyway.
if(NOT CMAKE_CROSSCOMPILING)
  find_path(TORCH_ATEN_INCLUDE_DIR ATen/native/layer_norm.h)
  find_library(TORCH_CPU_LIBRARY torch_cpu)
  find_library(TORCH_C10_LIBRARY c10)
endif()
target_sources(vlak_lab PRIVATE ${_lab}/torch_kernels.cc)
if(TORCH_ATEN_INCLUDE_DIR AND TORCH_CPU_LIBRARY AND TORCH_C10_LIBRARY)
  execute_process(COMMAND dpkg-query -W -f=\${Version} libtorch-dev OUTPUT_VARIABLE _tv ERROR_QUIET)
  if(NOT _tv)
    set(_tv "unknown version")
  endif()
  # C++17: libtorch 1.13's headers fail as C++20 (torch_kernels.cc).
  set_source_files_properties(${_lab}/torch_kernels.cc PROPERTIES COMPILE_OPTIONS "-std=c++17" COMPILE_DEFINITIONS
                              "VLAK_LAB_HAVE_TORCH=1;VLAK_LAB_TORCH_VERSION=\"libtorch ${_tv}\"")
  target_compile_definitions(vlak_lab PRIVATE VLAK_LAB_HAVE_TORCH=1)
  target_link_libraries(vlak_lab PUBLIC ${TORCH_CPU_LIBRARY} ${TORCH_C10_LIBRARY})
else()
  message(STATUS "vlak lab: no libtorch (libtorch-dev): the torch rows will show as not built")
endif()
message(STATUS "vlak lab baselines: torch=${TORCH_CPU_LIBRARY} xnnpack=${XNNPACK_LIBRARY} onednn=${DNNL_LIBRARY} sleef=${SLEEF_LIBRARY} "
               "openblas=${OPENBLAS_LIBRARY} eigen=${EIGEN3_INCLUDE_DIR} opencv=${OPENCV_IMGPROC_LIBRARY}")

target_sources(vlak_cli PRIVATE ${CMAKE_CURRENT_SOURCE_DIR}/vlak/cmd_bench.cc ${CMAKE_CURRENT_SOURCE_DIR}/vlak/cmd_report.cc)
target_link_libraries(vlak_cli PRIVATE vlak_lab)
