// ggml (llama.cpp's tensor library) as a lab baseline for the quantized-weights rows: GGUF's
// q4_0 / q4_1 / q8_0 blocks quantized, dequantized and multiplied the way ggml's CPU backend does.
//
// ggml is a peer built outside the vlak build, from the llama.cpp source in the llama-cpp-python
// sdist (`make peers`, scripts/peers/llama-cpp), into build/peers/llama.cpp-<host|rv64gcv>. Where
// that build is missing every function below prints "ggml not built: run make peers" (once) and
// returns false, and GgmlMissing() says so. CMake target: vlak_ggml_baseline (the lab links it).
//
// Layouts are GGUF's: a row of k values is k/32 blocks of ggml_type (GgmlRowBytes(type, k) bytes),
// rows one after the other. A is m×k f32 row-major, W is n×k quantized, C = A·Wᵀ is m×n row-major.
// Bad arguments (an unknown type, k not a multiple of 32, a zero size, a null pointer, threads < 1)
// return false and write nothing.
#pragma once

#include <cstddef>
#include <memory>
#include <string>

namespace vlak::lab {

// ggml's enum ggml_type values of the three formats.
inline constexpr int kGgmlQ4_0 = 2;
inline constexpr int kGgmlQ4_1 = 3;
inline constexpr int kGgmlQ8_0 = 8;

// "" when ggml is linked in, else "ggml not built: run make peers".
std::string GgmlMissing();
// One line naming the build: the sdist's version, the llama.cpp and ggml versions, the flags
// ggml's CPU backend was compiled with ("" when not built).
std::string GgmlVersion();
// Bytes of one row of k values of the type (0 for an unknown type or k not a multiple of 32).
size_t GgmlRowBytes(int ggml_type, size_t k);

// ggml_quantize_chunk with no importance matrix (the reference rounding GGUF files are made with).
bool GgmlQuantize(int ggml_type, size_t rows, size_t k, const float* x, void* q);
// The type's to_float (ggml's dequantize_row_*).
bool GgmlDequantize(int ggml_type, size_t rows, size_t k, const void* q, float* x);

// C = A·Wᵀ through ggml_mul_mat on ggml's CPU backend with `threads` threads, as llama.cpp runs a
// weight: A is quantized by ggml to the type's vec_dot type (q8_0 for q4_0 and q8_0, q8_1 for
// q4_1) and the products are integer dot products; W is placed as llama.cpp's loader places it
// (GgmlMatmul's layout "auto": repacked where ggml has a layout for this type, n and CPU).
// One-shot: it builds and frees ggml's graph and thread pool on every call; time GgmlMatmul.
bool GgmlMatmulQ(int ggml_type, size_t m, size_t n, size_t k, const float* a, const void* w, float* c, int threads);

// m = 1 without the graph: ggml's CPU type traits, from_float of the vec_dot type on a, then
// vec_dot per row of W (unrepacked), on the calling thread. The smallest code path that runs
// ggml's GEMV kernel, for counting its instructions under qemu.
bool GgmlGemvVecDot(int ggml_type, size_t n, size_t k, const float* a, const void* w, float* c);

// The prepared form of GgmlMatmulQ for timing: the weights are copied (and repacked) once, the
// graph and a ggml thread pool are made once, and Run() computes C from the A it holds. A() and
// C() are ggml's own tensors (m×k and m×n, row-major), so a timed Run() copies nothing.
class GgmlMatmul {
 public:
  // layout: "auto" places W as llama.cpp's loader does, in the first of ggml's extra CPU buffer
  // types that takes it (AMX where the CPU has AMX-INT8, then the repacked CPU_REPACK), else a
  // plain buffer; "CPU" keeps it plain (ggml's vec_dot kernels); "AMX" or "CPU_REPACK" asks for
  // that one and fails where it does not take W. copies > 1 (at most 1000): the graph holds that
  // many products, each with its own copy of W and the same A, run one after the other as a
  // model's layers are (weights streamed from DRAM once the copies exceed the last-level cache);
  // C() is the first one's. nullptr and *err on failure.
  static std::unique_ptr<GgmlMatmul> Create(int ggml_type, size_t m, size_t n, size_t k, const void* w,
                                            int threads, const std::string& layout, std::string* err,
                                            size_t copies = 1);
  virtual ~GgmlMatmul() = default;
  virtual float* A() = 0;
  virtual const float* C() const = 0;
  virtual bool Run() = 0;
  // Puts the thread pool's workers to sleep (ggml_threadpool_pause); the next Run() wakes them.
  virtual void Idle() = 0;
  // The weights' buffer type: "CPU", or ggml's name of the extra one ("AMX", "CPU_REPACK").
  virtual std::string Layout() const = 0;
};

}  // namespace vlak::lab
