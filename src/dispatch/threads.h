// Thread count for kernels that split work over OpenMP threads (internal).
#pragma once

namespace vlak {

// vlak_set_num_threads's value if set, else OpenMP's default (OMP_NUM_THREADS or the cores);
// 1 in a build without OpenMP.
int NumThreads();

}  // namespace vlak
