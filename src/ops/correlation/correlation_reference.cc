// Reference correlation: vlak.h's definition, one output at a time.
#include "ops/correlation/correlation.h"

#include "vlak/vlak.h"

namespace vlak {

void CorrelationReferenceI8(size_t displacements, size_t channels, size_t height, size_t width, const int8_t* a,
                            const int8_t* b, unsigned shift, int8_t* out, unsigned flags) {
  const size_t plane = height * width;
  for (size_t d = 0; d < displacements; ++d) {
    for (size_t i = 0; i < height; ++i) {
      for (size_t j = 0; j < width; ++j) {
        int8_t result = 0;
        if (j >= d) {
          int64_t sum = 0;
          for (size_t k = 0; k < channels; ++k) {
            sum += int64_t{a[k * plane + i * width + j]} * b[k * plane + i * width + j - d];
          }
          if (flags & VLAK_CORRELATION_WRAP16) {
            const int32_t s16 = static_cast<int16_t>(static_cast<uint16_t>(static_cast<uint64_t>(sum) & 0xFFFF));
            result = static_cast<int8_t>(static_cast<uint8_t>(static_cast<uint32_t>(s16 >> shift) & 0xFF));
          } else {
            const int32_t s32 = static_cast<int32_t>(static_cast<uint32_t>(static_cast<uint64_t>(sum)));
            const int32_t shifted = s32 >> shift;
            result = static_cast<int8_t>(shifted < -128 ? -128 : shifted > 127 ? 127 : shifted);
          }
        }
        out[d * plane + i * width + j] = result;
      }
    }
  }
}

}  // namespace vlak
