// The stored all-MiniLM-L6-v2 references themselves: shapes, unit norms, and how close float64 and
// PyTorch are (the figures scripts/minilm-reference.py prints).
#include <gtest/gtest.h>

#include <cmath>

#include "models/minilm_reference.h"

namespace {

TEST(MiniLMReference, FilesAgree) {
  vlak_test::MiniLMReference ref;
  std::string err;
  ASSERT_TRUE(ref.Load(std::string(VLAK_SOURCE_DIR) + "/tests/models/minilm", &err)) << err;
  const size_t n = ref.sentences.size(), d = ref.kDim;
  EXPECT_GE(n, 50u);
  EXPECT_EQ(ref.max_length, 256u);
  size_t longest = 0, shortest = SIZE_MAX;
  for (const auto& ids : ref.ids) {
    longest = std::max(longest, ids.size());
    shortest = std::min(shortest, ids.size());
  }
  EXPECT_EQ(shortest, 3u);
  EXPECT_EQ(longest, 128u);
  double max_diff = 0, min_cos = 1;
  for (size_t s = 0; s < n; ++s) {
    double nf = 0, nt = 0, dot = 0;
    for (size_t i = 0; i < d; ++i) {
      const double a = ref.f64[s * d + i], b = ref.torch[s * d + i];
      nf += a * a, nt += b * b, dot += a * b;
      max_diff = std::max(max_diff, std::fabs(a - b));
    }
    EXPECT_NEAR(nf, 1.0, 1e-12) << s;
    EXPECT_NEAR(nt, 1.0, 1e-6) << s;
    min_cos = std::min(min_cos, dot / std::sqrt(nf * nt));
  }
  // The bar for vlak against PyTorch; the float64 pass is well inside it.
  EXPECT_LE(max_diff, 1e-6);
  EXPECT_GE(min_cos, 0.9999999);
  // The published example: "A man is eating food." vs "A man is eating a piece of bread.".
  double c01 = 0;
  for (size_t i = 0; i < d; ++i) c01 += ref.f64[i] * ref.f64[d + i];
  EXPECT_NEAR(c01, 0.7553, 1e-4);
}

}  // namespace
