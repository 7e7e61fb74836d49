// vlak_correlation_i8: argument checks, (displacement, row) pairs over threads.
#include <cstdint>
#include <cstring>

#include "dispatch/dispatch.h"
#include "dispatch/specialisation.h"
#include "ops/correlation/correlation.h"
#include "ops/correlation/correlation_kernels.h"
#include "ops/parallel_rows.h"

namespace vlak {
VLAK_PER_TARGET_TABLES(VLAK_CORRELATION_KERNELS)

namespace {
bool CpuVnni() {
#if defined(__x86_64__) && defined(VLAK_HAVE_TARGET_AVX512)
  return CpuHasAvx512Vnni();
#else
  return false;
#endif
}
}  // namespace

VLAK_SPECIALISATION_SWITCH(CorrelationVnni, "VLAK_AVX512_VNNI", CpuVnni)
VLAK_SPECIALISATION_SWITCH(CorrelationAvx2Madd, "VLAK_AVX2_MADD", CpuRunsAvx2Target)

}  // namespace vlak

extern "C" vlak_status vlak_correlation_i8(size_t displacements, size_t channels, size_t height, size_t width,
                                           const int8_t* a, const int8_t* b, unsigned shift, int8_t* out,
                                           unsigned flags) {
  using namespace vlak;
  if ((flags & ~VLAK_CORRELATION_WRAP16) != 0 || shift > 31) return VLAK_ERROR_INVALID_ARGUMENT;
  if (displacements == 0 || height == 0 || width == 0) return VLAK_OK;
  if (out == nullptr || (channels != 0 && (a == nullptr || b == nullptr))) return VLAK_ERROR_NULL_POINTER;
  if (height > SIZE_MAX / width) return VLAK_ERROR_OVERFLOW;
  const size_t plane = height * width;
  if (displacements > SIZE_MAX / plane || (channels != 0 && channels > SIZE_MAX / plane)) return VLAK_ERROR_OVERFLOW;
  if (const vlak_status error = TargetError(); error != VLAK_OK) return error;
  if (channels == 0) {  // every sum is 0; a and b may be NULL, so the kernel never sees them
    std::memset(out, 0, displacements * plane);
    return VLAK_OK;
  }
  const Target target = ActiveTarget();
  auto* const kernel = Dispatch(kCorrelationRows, target);
  using Special = bool (*)(size_t, size_t, size_t, size_t, size_t, size_t, const int8_t*, const int8_t*, unsigned,
                           int8_t*, unsigned);
  Special special = nullptr;
#if defined(__x86_64__) && defined(VLAK_HAVE_TARGET_AVX512)
  if (target == Target::kAvx512 && CorrelationVnniEnabled()) special = CorrelationRowsI8Avx512Vnni;
#endif
#if defined(__x86_64__) && defined(VLAK_HAVE_TARGET_AVX2)
  if (target == Target::kAvx2 && CorrelationAvx2MaddEnabled()) special = CorrelationRowsI8Avx2Madd;
#endif
  if (special != nullptr) {
    // Rows i with all their displacements (the packing of row i is shared by them).
    ForEachRowChunk(height, displacements * channels * width, [&](int, size_t begin, size_t end) {
                      if (special(begin, end, displacements, channels, height, width, a, b, shift, out, flags)) return;
                      for (size_t d = 0; d < displacements; ++d) {  // no memory for the packed rows: the generic kernel
                        kernel(d * height + begin, d * height + end, channels, height, width, a, b, shift, out, flags);
                      }
                    });
    return VLAK_OK;
  }
  const size_t rows = displacements * height;
  ForEachRowChunk(rows, channels * width, [&](int, size_t begin, size_t end) {
    kernel(begin, end, channels, height, width, a, b, shift, out, flags);
  });
  return VLAK_OK;
}
