// The lab's threads: GNU libgomp, the only OpenMP runtime in the lab's process.
//
// An OpenMP thread count only reaches the runtime it is set in: omp_set_num_threads sets that
// runtime's nthreads-var ICV (OpenMP 5.2, sections 2.4 and 18.2.1), and each runtime keeps its own.
// The threaded libraries the lab compares against use GNU libgomp: Debian's oneDNN and libtorch
// (their .so NEEDs libgomp.so.1) and Eigen's GEMM, which lab.cmake builds with g++ -fopenmp. clang's
// -fopenmp links LLVM libomp instead, and with both runtimes loaded the lab's thread count went to
// libomp while oneDNN ran on every core: a "1-thread" oneDNN softmax 2048x8192 took 2.68 ms on a
// 16-core Xeon, 15.9 ms with OMP_NUM_THREADS=1. So the lab is compiled without -fopenmp and its own
// parallel loops call libgomp's entry points directly: GOMP_parallel is what GCC emits for
// `#pragma omp parallel` (libgomp manual, "The libgomp ABI": "Implementing PARALLEL construct"),
// which clang cannot emit. Built without libgomp (VLAK_LAB_HAVE_GOMP unset) the loops use fresh
// std::threads and the OpenMP thread count is a no-op.
#pragma once

#include <functional>

namespace vlak::lab {

// "libgomp" or "std::thread": what runs the lab's own parallel loops.
const char* LabThreadRuntime();

// Sets libgomp's thread count for regions this thread starts (omp_set_num_threads): oneDNN,
// libtorch's ATen, Eigen's GEMM and the lab's own loops follow it.
void SetOmpThreads(int threads);

// Calls fn(i) once for every i in [0, n) on a team of up to n threads (the caller among them) and
// returns when every call has returned.
void RunOnThreads(int n, const std::function<void(int)>& fn);

}  // namespace vlak::lab
