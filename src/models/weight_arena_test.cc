// WeightArena: pieces in order, each on a cache line, inside one zeroed reservation.
#include "models/weight_arena.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>

namespace vlak::models {
namespace {

TEST(WeightArena, PiecesAreLineAlignedZeroedAndBounded) {
  EXPECT_EQ(WeightArena::PieceBytes(0), 0u);
  EXPECT_EQ(WeightArena::PieceBytes(1), 64u);
  EXPECT_EQ(WeightArena::PieceBytes(64), 64u);
  EXPECT_EQ(WeightArena::PieceBytes(65), 128u);
  EXPECT_EQ(WeightArena::PieceBytes(SIZE_MAX - 3), SIZE_MAX);

  WeightArena arena;
  EXPECT_EQ(arena.Take(1), nullptr);  // nothing reserved
  const size_t pieces[] = {100, 4, 1000};
  size_t total = 0;
  for (size_t p : pieces) total += WeightArena::PieceBytes(p);
  ASSERT_TRUE(arena.Reserve(total));
  EXPECT_GE(arena.size(), total);
  EXPECT_EQ(arena.size() % (size_t{2} << 20), 0u);  // whole huge pages
  char* prev = nullptr;
  for (size_t p : pieces) {
    char* q = static_cast<char*>(arena.Take(p));
    ASSERT_NE(q, nullptr);
    EXPECT_EQ(reinterpret_cast<uintptr_t>(q) % 64, 0u);
    if (prev != nullptr) EXPECT_GE(q, prev + 64);
    for (size_t i = 0; i < p; ++i) ASSERT_EQ(q[i], 0) << i;
    std::memset(q, 0x5a, p);
    prev = q;
  }
  // What is left is the rounding to whole huge pages; a piece larger than that is refused.
  EXPECT_EQ(arena.Take(arena.size() - total + 1), nullptr);
  EXPECT_NE(arena.Take(arena.size() - total), nullptr);
  EXPECT_EQ(arena.Take(1), nullptr);

  // A new reservation drops the old one and is zeroed again.
  ASSERT_TRUE(arena.Reserve(64));
  const char* q = static_cast<const char*>(arena.Take(64));
  ASSERT_NE(q, nullptr);
  for (size_t i = 0; i < 64; ++i) ASSERT_EQ(q[i], 0);
  EXPECT_TRUE(arena.Reserve(0));
  EXPECT_EQ(arena.size(), 0u);
  EXPECT_EQ(arena.Take(1), nullptr);
  EXPECT_FALSE(arena.Reserve(SIZE_MAX - 5));
}

}  // namespace
}  // namespace vlak::models
