// The lab's roofline: what bounds an operator on this machine, measured in the same run.
//
// Memory-bound operators (softmax, exp, rope, the norms): the copy bandwidth of the case's own
// working set, a copy of bytes_per_run / 2 from one buffer to another (so the copy moves exactly
// the bytes the operator must move, in the same cache level), on the case's thread count.
// % of bound = the operator's GB/s / the copy's GB/s = copy time / operator time.
// Compute-bound operators (matmul): the FMA peak of a target (peak_kernel.cc, compiled per
// target) on the case's thread count; a vlak row is held to the peak of the target it ran on,
// other code (libraries, -march=native C) to the widest target the CPU has.
#pragma once

#include <cstddef>
#include <string>

namespace vlak::lab {

// GB/s of copying bytes / 2 bytes on `threads` threads, the faster of memcpy and a plain vector
// load/store loop on the widest target (peak_kernel.cc: memcpy's streaming stores can make an
// in-cache copy run at DRAM speed); each the median over batches of ~1 ms during seconds / 2.
// Buffers are kept between calls.
double MeasureCopyGbps(double bytes, int threads, double seconds);

// GFLOP/s of the FMA loop of a vlak target (vlak_target value) on `threads` threads, the best of
// a few runs of ~2 ms (a peak is what the machine can do, so the fastest run is the measure);
// cached per (target, threads) for the process. NaN if the target cannot run here.
double MeasurePeakGflops(int target, int threads);

// int8 operators (correlation, roofline kind "int8-mac"): multiply-accumulates per second against
// the int8 MAC peak of the row's target (peak_i8_x86.cc: AVX-512 VNNI's vpdpbusd where the CPU has
// it, else vpmaddubsw + vpmaddwd), on the case's thread count.
struct I8MacKernel {
  double (*run)(size_t iters, int seed) = nullptr;  // returns a checksum
  double macs_per_iter = 0;
  const char* what = "";
};
I8MacKernel I8MacPeakKernel(int target);
// G MAC/s of I8MacPeakKernel(target) on `threads` threads (best of a few ~2 ms runs, cached); NaN
// if the target has no int8 peak kernel or cannot run here.
double MeasurePeakGmacsI8(int target, int threads);

// The widest vlak target compiled in and supported by the CPU (the peak native code can use).
int WidestTarget();

}  // namespace vlak::lab
