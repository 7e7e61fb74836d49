#include "lab/k1_published.h"

namespace vlak::lab {

// Source: a public Triton-on-RISC-V study measured on the SpacemiT K1 ("Triton kernel performance
// on RISC-V CPU"; its operators are Terapines AI-Benchmark's), the T1 rows of its tables.
const std::vector<K1Published>& K1PublishedT1() {
  static const std::vector<K1Published> rows = {
      {"RoPE", {"rope"}, 0.01874, 0.01871, 0.01825, ""},
      {"Matmul", {"matmul"}, 0.03113, 0.02568, 0.03716, "16 x 16 blocked C"},
      {"Softmax", {"softmax"}, 0.00200, 0.00202, 0.00207, "f32, safe softmax"},
      {"Layernorm", {"layernorm", "layernorm-bwd"}, 0.0047, 0.0057, 0.0053,
       "forward plus backward: vlak's two cycles per element added"},
      {"Resize", {"resize"}, 0.0011, 0.0036, 0.0035, ""},
      {"Warp", {"warp"}, 0.007, 0.012, 0.015, ""},
      {"Correlation", {"correlation-wrap16"}, 0.0043, 0.0040, 0.0039, "AI-Benchmark's 16-bit wrapping sum"},
  };
  return rows;
}

}  // namespace vlak::lab
