// Target identifiers shared by the dispatcher, the CLI and the tests.
#pragma once

namespace vlak {

enum class Target : int { kScalar = 0, kAvx2 = 1, kAvx512 = 2, kRvv = 3 };
inline constexpr int kNumTargets = 4;

inline constexpr const char* TargetName(Target t) {
  switch (t) {
    case Target::kScalar: return "scalar";
    case Target::kAvx2: return "avx2";
    case Target::kAvx512: return "avx512";
    case Target::kRvv: return "rvv";
  }
  return "?";
}

}  // namespace vlak
