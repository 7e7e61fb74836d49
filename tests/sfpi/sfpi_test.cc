// SFPI on the CPU, one binary per vector target: every primitive against the per-lane scalar
// model of sfpi_model.h (written from the spec, no code shared with src/sfpi).
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <new>
#include <vector>

#include "sfpi/sfpi.h"
#include "sfpi/sfpi_model.h"

namespace vlak::VLAK_NS::sfpi_test {
namespace {

using namespace ::vlak::VLAK_NS::sfpi;
namespace m = ::sfpi_model;
using ::vlak::sfpi::Arch;

struct Rng {
  uint64_t s;
  uint32_t Next() {
    s ^= s << 13;
    s ^= s >> 7;
    s ^= s << 17;
    return static_cast<uint32_t>(s >> 16);
  }
};

Lanes32 FromArray(const uint32_t* p) {
  Lanes32 l;
  std::memcpy(l.u, p, sizeof(l.u));
  return l;
}

class ArchTest : public ::testing::TestWithParam<Arch> {
 protected:
  void SetUp() override { SetArch(GetParam()); }
  void TearDown() override { SetArch(Arch::kWormhole); }
  bool bh() const { return GetParam() == Arch::kBlackhole; }
};

// ---- SFPMAD ----------------------------------------------------------------------------------------
std::vector<uint32_t> EdgeValues() {
  return {0x00000000u, 0x80000000u,                           // +-0
          0x00000001u, 0x007fffffu, 0x80400000u,              // denormals
          0x00800000u, 0x80800000u, 0x00800001u,              // smallest normals
          0x3f800000u, 0xbf800000u, 0x3f800001u, 0x3f7fffffu, // 1, -1, 1 +- ulp
          0x3fc00000u, 0x40400000u, 0xc0a00000u,              // 1.5, 3, -5
          0x1f800000u, 0x20000000u, 0x1f000000u, 0x9f800000u, // ~2^-64: products underflow
          0x5f800000u, 0x5f000000u, 0xdf800000u,              // ~2^64: products overflow
          0x7f7fffffu, 0xff7fffffu, 0x7f000000u,              // max finite
          0x7f800000u, 0xff800000u,                           // +-inf
          0x7fc00000u, 0xffc00000u, 0x7f800001u, 0xff812345u, // NaNs (quiet, signalling)
          0x3eaaaaabu, 0xbeaaaaabu, 0x33800000u, 0x4b400000u};
}

void CheckMadBatch(const uint32_t* x, const uint32_t* y, const uint32_t* z, bool bh, int* failures) {
  const Lanes32 a = FromArray(x), b = FromArray(y), c = FromArray(z);
  const Lanes32 r = impl::Lanewise([bh](auto d, auto p, auto q, auto s) { return sfpi_lanes::Mad(d, p, q, s, bh); }, a, b, c);
  for (int l = 0; l < kLanes; ++l) {
    const uint32_t want = m::Mad(x[l], y[l], z[l], bh);
    if (r.u[l] != want && ++*failures <= 10) {
      ADD_FAILURE() << std::hex << (bh ? "bh" : "wh") << " mad(0x" << x[l] << ", 0x" << y[l] << ", 0x" << z[l]
                    << ") = 0x" << r.u[l] << ", model 0x" << want;
    }
  }
}

TEST_P(ArchTest, MadEdgeTriples) {
  const auto v = EdgeValues();
  std::vector<uint32_t> xs, ys, zs;
  for (uint32_t x : v) for (uint32_t y : v) for (uint32_t z : v) { xs.push_back(x); ys.push_back(y); zs.push_back(z); }
  while (xs.size() % kLanes != 0) { xs.push_back(0); ys.push_back(0); zs.push_back(0); }
  int failures = 0;
  for (size_t i = 0; i < xs.size(); i += kLanes) CheckMadBatch(&xs[i], &ys[i], &zs[i], bh(), &failures);
  EXPECT_EQ(failures, 0);
}

// 10^6 random triples: a third raw bit patterns, a third near-cancelling (z ~ -x*y), a third
// with exponents near the underflow / overflow edges of the product.
TEST_P(ArchTest, MadRandomTriples) {
  Rng rng{0x1234567887654321ull + static_cast<uint64_t>(bh())};
  int failures = 0;
  uint32_t x[kLanes], y[kLanes], z[kLanes];
  constexpr int kBatches = 1000000 / kLanes + 1;
  for (int b = 0; b < kBatches; ++b) {
    for (int l = 0; l < kLanes; ++l) {
      x[l] = rng.Next();
      y[l] = rng.Next();
      z[l] = rng.Next();
      switch (b % 3) {
        case 1: {
          const float p = m::U2F(x[l] & 0xbfffffffu) * m::U2F(y[l] & 0xbfffffffu);
          z[l] = (m::F2U(-p) + (rng.Next() % 64) - 32);
          x[l] &= 0xbfffffffu;
          y[l] &= 0xbfffffffu;
          break;
        }
        case 2: {
          const uint32_t ex = 40 + rng.Next() % 60, ey = (b & 4) ? 254 - ex + rng.Next() % 8 : 127 - ex + rng.Next() % 8 - 4;
          x[l] = (x[l] & 0x807fffffu) | (ex << 23);
          y[l] = (y[l] & 0x807fffffu) | ((ey & 255) << 23);
          if (rng.Next() & 1) z[l] = (z[l] & 0x80ffffffu) & 0x807fffffu;  // small or denormal z
          break;
        }
        default: break;
      }
    }
    CheckMadBatch(x, y, z, bh(), &failures);
  }
  EXPECT_EQ(failures, 0);
}

// ---- operators and compares through the language -------------------------------------------------------
TEST_P(ArchTest, OperatorsRouteThroughMad) {
  Session s;
  Rng rng{99};
  uint32_t a[kLanes], b[kLanes], c[kLanes];
  for (int rep = 0; rep < 200; ++rep) {
    for (int l = 0; l < kLanes; ++l) {
      a[l] = rng.Next(); b[l] = rng.Next(); c[l] = rng.Next();
      if (l % 4 == 0) b[l] = a[l];                       // equal operands: compares and x - x
      if (l % 4 == 1) b[l] = a[l] ^ 0x80000000u;         // opposite signs
      if (l % 8 == 2) a[l] = 0x80000000u;                // -0
    }
    const vFloat va = vFloat::FromLanes(FromArray(a)), vb = vFloat::FromLanes(FromArray(b)), vc = vFloat::FromLanes(FromArray(c));
    const vFloat sum = va + vb, diff = va - vb, prod = va * vb, mad = va * vb + vc, mad2 = vc + va * vb, msub = va * vb - vc;
    const vFloat neg = -va;
    const vBool lt = va < vb, ge = va >= vb, eq = va == vb, ne = va != vb, gt = va > vb, le = va <= vb;
    const vBool lt0 = va < 0.0f, ne0 = va != 0.0f, eq0 = va == 0.0f, gt0 = va > 0.0f;
    for (int l = 0; l < kLanes; ++l) {
      const bool h = bh();
      ASSERT_EQ(sum.v.u[l], m::Add(a[l], b[l], h)) << l;
      ASSERT_EQ(diff.v.u[l], m::Sub(a[l], b[l], h)) << l;
      ASSERT_EQ(prod.v.u[l], m::Mul(a[l], b[l], h)) << l;
      ASSERT_EQ(mad.v.u[l], m::Mad(a[l], b[l], c[l], h)) << l;
      ASSERT_EQ(mad2.v.u[l], m::Mad(a[l], b[l], c[l], h)) << l;
      ASSERT_EQ(msub.v.u[l], m::Mad(a[l], b[l], c[l] ^ 0x80000000u, h)) << l;
      ASSERT_EQ(neg.v.u[l], a[l] ^ 0x80000000u);
      ASSERT_EQ(lt.m.u[l] != 0, m::CmpF(a[l], b[l], m::Cmp::kLt, h)) << l;
      ASSERT_EQ(ge.m.u[l] != 0, m::CmpF(a[l], b[l], m::Cmp::kGe, h)) << l;
      ASSERT_EQ(eq.m.u[l] != 0, m::CmpF(a[l], b[l], m::Cmp::kEq, h)) << l;
      ASSERT_EQ(ne.m.u[l] != 0, m::CmpF(a[l], b[l], m::Cmp::kNe, h)) << l;
      ASSERT_EQ(gt.m.u[l] != 0, m::CmpF(a[l], b[l], m::Cmp::kGt, h)) << l;
      ASSERT_EQ(le.m.u[l] != 0, m::CmpF(a[l], b[l], m::Cmp::kLe, h)) << l;
      ASSERT_EQ(lt0.m.u[l] != 0, m::Test(a[l], m::Cmp::kLt));
      ASSERT_EQ(ne0.m.u[l] != 0, m::Test(a[l], m::Cmp::kNe));
      ASSERT_EQ(eq0.m.u[l] != 0, m::Test(a[l], m::Cmp::kEq));
      ASSERT_EQ(gt0.m.u[l] != 0, m::Test(a[l], m::Cmp::kGt));
    }
  }
}

TEST_P(ArchTest, CompareQuirks) {
  Session s;
  // -0.0 against the literal 0: no subtraction, the sign bit decides.
  const vFloat mz = vFloat(-0.0f);
  EXPECT_NE((mz < 0.0f).m.u[0], 0u);
  EXPECT_NE((mz != 0.0f).m.u[0], 0u);
  EXPECT_EQ((mz == 0.0f).m.u[0], 0u);
  // Against a vector zero it goes through SFPMAD: -0 - (+0) = +0 on Wormhole (zeros are +0) and
  // -0 on Blackhole (IEEE sign), so "<" differs by architecture.
  const vFloat pz = vFloat(0.0f);
  EXPECT_EQ((mz < pz).m.u[0] != 0, m::CmpF(0x80000000u, 0, m::Cmp::kLt, bh()));
  EXPECT_EQ((mz == pz).m.u[0] != 0, m::CmpF(0x80000000u, 0, m::Cmp::kEq, bh()));
  // Denormals read as zero in the subtraction: a denormal == 0.0 vector.
  const vFloat den = vFloat::FromLanes(impl::Splat(0x00000005u));
  EXPECT_NE((den == pz).m.u[0], 0u);
  // Integer compares subtract and test the sign: they wrap.
  const vInt big = vInt(0x7fffffff), minus1 = vInt(-1);
  EXPECT_NE((big < minus1).m.u[0], 0u);  // INT_MAX - (-1) wraps negative: "less"
  // Unsigned: right while the difference fits in 31 bits, wrong beyond (sfpi_lib.h documents it).
  EXPECT_NE((vUInt(0x80000000u) > vUInt(1u)).m.u[0], 0u);  // 0x7fffffff: sign clear
  EXPECT_EQ((vUInt(0xffffffffu) > vUInt(1u)).m.u[0], 0u);  // 0xfffffffe: "negative"
  EXPECT_NE((vUInt(0xffffffffu) < vUInt(1u)).m.u[0], 0u);
}

// Known answers worked out by hand from the documented model (not from either implementation).
TEST_P(ArchTest, MadKnownAnswers) {
  auto mad = [this](uint32_t x, uint32_t y, uint32_t z) {
    const Lanes32 r = impl::Lanewise([this](auto d, auto p, auto q, auto s) { return sfpi_lanes::Mad(d, p, q, s, bh()); },
                                     impl::Splat(x), impl::Splat(y), impl::Splat(z));
    return r.u[0];
  };
  // (1 + 2^-23)^2 - 1: the product keeps 27 bits plus a sticky bit, which cancellation promotes:
  // 2^-22 * (1 + 2^-4) = 0x34880000 (IEEE fma: 2^-22 = 0x34800000).
  EXPECT_EQ(mad(0x3f800001u, 0x3f800001u, 0xbf800000u), 0x34880000u);
  // Denormal input reads as 0; a denormal result is flushed.
  EXPECT_EQ(mad(0x00000001u, 0x3f800000u, 0x00000000u), 0u);
  EXPECT_EQ(mad(0x00800000u, 0x3f000000u, 0x00000000u), 0u);  // 2^-126 * 0.5
  // x - x = +0 on both; (-0) * 1 + (-0): Wormhole +0, Blackhole -0.
  EXPECT_EQ(mad(0x40400000u, 0xbf800000u, 0x40400000u), 0u);
  EXPECT_EQ(mad(0x80000000u, 0x3f800000u, 0x80000000u), bh() ? 0x80000000u : 0u);
  // Inf - Inf: Blackhole's canonical NaN; Wormhole's sign | 0x7f800001 (mantissa bits may leak).
  const uint32_t nan = mad(0x7f800000u, 0x3f800000u, 0xff800000u);
  if (bh()) {
    EXPECT_EQ(nan, 0x7fc00000u);
  } else {
    EXPECT_EQ(nan & 0x7f800001u, 0x7f800001u);
  }
  // 1.5 * 2 + 0.25 exact.
  EXPECT_EQ(mad(0x3fc00000u, 0x40000000u, 0x3e800000u), 0x40500000u);
  // A product that alone overflows is Inf even if z would bring it back (not fully fused).
  EXPECT_EQ(mad(0x7f000000u, 0x40800000u, 0xff7fffffu), 0x7f800000u);
}

// ---- Dst lane geometry ---------------------------------------------------------------------------------
int g_slot = 0;
void StampSlots() {
  for (int i = 0; i < 8; ++i) {
    dst_reg[0] = vInt(vConstTileId) + vInt(g_slot * 64);
    ++g_slot;
    dst_reg++;
  }
}

TEST(SfpiDst, LaneMapAndTileId) {
  alignas(64) float tile[1024];
  std::memset(tile, 0xff, sizeof(tile));
  g_slot = 0;
  EXPECT_EQ(RunTile(StampSlots, tile), 0u);
  std::vector<int> seen(1024, 0);
  for (int s = 0; s < 32; ++s) {
    for (int l = 0; l < kLanes; ++l) {
      int r, c;
      m::LaneToTile(s, l, &r, &c);
      ASSERT_LT(r, 32);
      ASSERT_LT(c, 32);
      ++seen[r * 32 + c];
      uint32_t got;
      std::memcpy(&got, &tile[r * 32 + c], 4);
      EXPECT_EQ(got, static_cast<uint32_t>(s * 64 + 2 * l)) << "slot " << s << " lane " << l;
    }
  }
  for (int i = 0; i < 1024; ++i) ASSERT_EQ(seen[i], 1) << i;  // the map is a bijection
}

void SquarePlusOne() {
  for (int i = 0; i < 8; ++i) {
    vFloat x = dst_reg[0];
    dst_reg[0] = x * x + 1.0f;
    dst_reg++;
  }
}

TEST_P(ArchTest, RunTileFaceLoop) {
  alignas(64) float tile[1024];
  Rng rng{7};
  for (float& f : tile) f = m::U2F((rng.Next() & 0x3fffffffu) | 0x3c000000u);
  float orig[1024];
  std::memcpy(orig, tile, sizeof(tile));
  EXPECT_EQ(RunTile(SquarePlusOne, tile), 0u);
  for (int i = 0; i < 1024; ++i) {
    const uint32_t a = m::F2U(orig[i]);
    ASSERT_EQ(m::F2U(tile[i]), m::Mad(a, a, 0x3f800000u, bh())) << i;
  }
}

// ---- predication -------------------------------------------------------------------------------------
vInt LaneIds() {
  Lanes32 l;
  for (int i = 0; i < kLanes; ++i) l.u[i] = static_cast<uint32_t>(i);
  return vInt::FromLanes(l);
}

TEST(SfpiPredication, IfElseifElseAndLocals) {
  Session s;
  const vInt a = LaneIds();
  vInt x = -1;
  vFloat f = 0.5f;
  v_if (a < 4) {
    x = 10;
  } v_elseif (a < 8) {
    x = 20;
    v_if (a == 5) { x = 25; f = 2.0f; } v_endif;
  } v_elseif (a < 12) {
    x = 30;
  } v_else {
    v_if (a >= 30) { x = 40; } v_endif;
  } v_endif;
  EXPECT_EQ(s.ctx().depth, 0);
  for (int l = 0; l < kLanes; ++l) {
    const int want = l < 4 ? 10 : l < 8 ? (l == 5 ? 25 : 20) : l < 12 ? 30 : l >= 30 ? 40 : -1;
    EXPECT_EQ(static_cast<int32_t>(x.v.u[l]), want) << l;
    EXPECT_EQ(f.v.u[l], l == 5 ? 0x40000000u : 0x3f000000u) << l;  // inactive lanes untouched
    EXPECT_EQ(s.ctx().flags.u[l], ~0u);
  }
  EXPECT_EQ(s.ctx().error, 0u);
}

// Eight levels, each a v_if: lanes reach level min(lane, 8).
TEST(SfpiPredication, NestEightDeep) {
  Session s;
  const vInt a = LaneIds();
  vInt x = 0;
  v_if (a >= 1) { x = 1;
    v_if (a >= 2) { x = 2;
      v_if (a >= 3) { x = 3;
        v_if (a >= 4) { x = 4;
          v_if (a >= 5) { x = 5;
            v_if (a >= 6) { x = 6;
              v_if (a >= 7) { x = 7;
                v_if (a >= 8) { x = 8; } v_endif;
              } v_endif;
            } v_endif;
          } v_endif;
        } v_endif;
      } v_endif;
    } v_endif;
  } v_endif;
  for (int l = 0; l < kLanes; ++l) EXPECT_EQ(static_cast<int32_t>(x.v.u[l]), l < 8 ? l : 8) << l;
  EXPECT_EQ(s.ctx().error, 0u);
}

// v_elseif pushes too: four levels of v_if / v_elseif use all 8 entries; a fifth level overflows.
template <bool kFifth>
uint32_t ElseifChainDepth(vInt* out) {
  Session s;
  const vInt a = LaneIds();
  vInt x = 0;
  v_if (a < 2) { x = 100; } v_elseif (a >= 2) {
    v_if (a < 4) { x = 200; } v_elseif (a >= 4) {
      v_if (a < 6) { x = 300; } v_elseif (a >= 6) {
        v_if (a < 8) { x = 400; } v_elseif (a >= 8) {
          x = 500;
          if constexpr (kFifth) {
            v_if (a >= 16) { x = 600; } v_endif;
          }
        } v_endif;
      } v_endif;
    } v_endif;
  } v_endif;
  *out = x;
  return s.ctx().error;
}

TEST(SfpiPredication, ElseifChainsToDepthEight) {
  vInt x;
  EXPECT_EQ(ElseifChainDepth<false>(&x), 0u);
  for (int l = 0; l < kLanes; ++l) EXPECT_EQ(static_cast<int32_t>(x.v.u[l]), 100 * (l / 2 + 1) > 500 ? 500 : 100 * (l / 2 + 1)) << l;
  EXPECT_EQ(ElseifChainDepth<true>(&x), static_cast<uint32_t>(::vlak::sfpi::kStackOverflow));
  // The CPU keeps going past the hardware's depth: the results are still the intended ones.
  for (int l = 0; l < kLanes; ++l) {
    const int want = l >= 16 ? 600 : (100 * (l / 2 + 1) > 500 ? 500 : 100 * (l / 2 + 1));
    EXPECT_EQ(static_cast<int32_t>(x.v.u[l]), want) << l;
  }
}

TEST(SfpiPredication, NinthPushReported) {
  Session s;
  const vInt a = LaneIds();
  vInt x = 0;
  v_if (a >= 1) { v_if (a >= 2) { v_if (a >= 3) { v_if (a >= 4) {
    v_if (a >= 5) { v_if (a >= 6) { v_if (a >= 7) { v_if (a >= 8) {
      EXPECT_EQ(s.ctx().error, 0u);
      v_if (a >= 9) { x = 9; } v_endif;
    } v_endif; } v_endif; } v_endif; } v_endif;
  } v_endif; } v_endif; } v_endif; } v_endif;
  EXPECT_EQ(s.ctx().error, static_cast<uint32_t>(::vlak::sfpi::kStackOverflow));
  for (int l = 0; l < kLanes; ++l) EXPECT_EQ(static_cast<int32_t>(x.v.u[l]), l >= 9 ? 9 : 0);
}

TEST(SfpiPredication, OrCostsAPush) {
  Session s;
  const vInt a = LaneIds();
  vInt x = 0;
  // Depth 7 + one push for || = 8: fine.
  v_if (a >= 0) { v_if (a >= 0) { v_if (a >= 0) { v_if (a >= 0) { v_if (a >= 0) { v_if (a >= 0) {
    v_if ((a < 3) || (a > 28)) { x = 1; } v_endif;
  } v_endif; } v_endif; } v_endif; } v_endif; } v_endif; } v_endif;
  EXPECT_EQ(s.ctx().error, 0u);
  for (int l = 0; l < kLanes; ++l) EXPECT_EQ(static_cast<int32_t>(x.v.u[l]), (l < 3 || l > 28) ? 1 : 0);
  // Depth 8 + || = 9: reported.
  v_if (a >= 0) { v_if (a >= 0) { v_if (a >= 0) { v_if (a >= 0) { v_if (a >= 0) { v_if (a >= 0) { v_if (a >= 0) {
    v_if ((a < 3) || (a > 28)) { x = 2; } v_endif;
  } v_endif; } v_endif; } v_endif; } v_endif; } v_endif; } v_endif; } v_endif;
  EXPECT_EQ(s.ctx().error, static_cast<uint32_t>(::vlak::sfpi::kStackOverflow));
}

TEST(SfpiPredication, BooleanOperators) {
  Session s;
  const vInt a = LaneIds();
  vInt x = 0;
  v_if (((a >= 4) && (a < 8)) || !(a < 20)) { x = 1; } v_endif;
  for (int l = 0; l < kLanes; ++l) EXPECT_EQ(static_cast<int32_t>(x.v.u[l]), ((l >= 4 && l < 8) || l >= 20) ? 1 : 0) << l;
}

TEST(SfpiPredication, BlockAndNarrows) {
  Session s;
  const vInt a = LaneIds();
  vInt v1 = a, v2 = 1;
  v_block {
    for (int k = 0; k < 3; ++k) {
      v1 = v1 - 1;
      v_and(v1 >= 0);
      v2 = v2 + v2;
    }
  }
  v_endblock;
  for (int l = 0; l < kLanes; ++l) {
    int w1 = l, w2 = 1;
    bool en = true;
    for (int k = 0; k < 3; ++k) {
      if (en) w1 -= 1;
      en = en && w1 >= 0;
      if (en) w2 += w2;
    }
    EXPECT_EQ(static_cast<int32_t>(v1.v.u[l]), w1) << l;
    EXPECT_EQ(static_cast<int32_t>(v2.v.u[l]), w2) << l;
  }
  EXPECT_EQ(s.ctx().depth, 0);
}

void Unbalanced() {
  const vFloat x = dst_reg[0];
  // A push whose CC is never destroyed: the kernel returns with the stack non-empty.
  alignas(impl::CC) static unsigned char storage[sizeof(impl::CC)];
  impl::CC* leak = new (storage) impl::CC;
  leak->Push();
  leak->Cond(x < 0.0f);
}

TEST(SfpiPredication, UnclosedReported) {
  alignas(64) float tile[1024] = {};
  EXPECT_EQ(RunTile(Unbalanced, tile) & ::vlak::sfpi::kUnclosed, static_cast<uint32_t>(::vlak::sfpi::kUnclosed));
}

// ---- library functions ------------------------------------------------------------------------------------
std::vector<uint32_t> LutInputs() {
  return {0x3e99999au, 0xbf333333u, 0x3f99999au, 0xbff33333u, 0x40200000u, 0xc2c80000u, 0x00000000u, 0x80000000u,
          0x7fc00000u, 0x7f800000u, 0xff800000u, 0x00000003u, 0x3f800000u, 0x40000000u, 0x3f7fffffu, 0x3fffffffu,
          0xbf800000u, 0xc0000000u, 0x3f000000u, 0x3fc00000u, 0x40400000u, 0x40800000u, 0xbf7fffffu, 0x3effffffu,
          0x3fbfffffu, 0x403fffffu, 0x407fffffu, 0xc0400000u, 0x4b000000u, 0x3a000000u, 0xff7fffffu, 0x7f7fffffu};
}

TEST_P(ArchTest, LutEveryCode) {
  Session s;
  const auto in = LutInputs();
  const vFloat v = vFloat::FromLanes(FromArray(in.data()));
  for (uint32_t code = 0; code < 256; ++code) {
    const uint32_t l[3] = {(code << 8) | (255 - code), ((code ^ 0x5a) << 8) | code, ((255 - code) << 8) | (code ^ 0xa5)};
    const vFloat r = lut(v, vUInt(l[0]), vUInt(l[1]), vUInt(l[2]));
    const vFloat rs = lut_sign(v, vUInt(l[0]), vUInt(l[1]), vUInt(l[2]));
    for (int i = 0; i < kLanes; ++i) {
      ASSERT_EQ(r.v.u[i], m::Lut(in[i], l, true, bh())) << std::hex << code << " " << in[i];
      ASSERT_EQ(rs.v.u[i], m::Lut(in[i], l, false, bh())) << std::hex << code << " " << in[i];
    }
  }
}

TEST_P(ArchTest, Lut2Breakpoints) {
  Session s;
  Rng rng{5};
  const auto in = LutInputs();
  const vFloat v = vFloat::FromLanes(FromArray(in.data()));
  for (int rep = 0; rep < 64; ++rep) {
    uint32_t a[3], b[3];
    for (int i = 0; i < 3; ++i) { a[i] = rng.Next(); b[i] = rng.Next(); }
    if (rep == 0) { a[0] = 0x7c007c00u; b[0] = 0x00000000u; }  // exponent fields 31 (zero) and 0 (normal)
    const vFloat r3 = lut2(v, vUInt(a[0]), vUInt(a[1]), vUInt(a[2]));
    const vFloat r3s = lut2_sign(v, vUInt(a[0]), vUInt(a[1]), vUInt(a[2]));
    for (int i = 0; i < kLanes; ++i) {
      ASSERT_EQ(r3.v.u[i], m::Lut2(in[i], a, true, bh())) << i;
      ASSERT_EQ(r3s.v.u[i], m::Lut2(in[i], a, false, bh())) << i;
    }
    for (int mode = 1; mode <= 2; ++mode) {
      const vFloat r6 = lut2(v, vUInt(a[0]), vUInt(a[1]), vUInt(a[2]), vUInt(b[0]), vUInt(b[1]), vUInt(b[2]), mode);
      const vFloat r6s = lut2_sign(v, vUInt(a[0]), vUInt(a[1]), vUInt(a[2]), vUInt(b[0]), vUInt(b[1]), vUInt(b[2]), mode);
      for (int i = 0; i < kLanes; ++i) {
        ASSERT_EQ(r6.v.u[i], m::Lut2x6(in[i], a, b, mode, true, bh())) << i << " mode " << mode;
        ASSERT_EQ(r6s.v.u[i], m::Lut2x6(in[i], a, b, mode, false, bh())) << i << " mode " << mode;
      }
    }
  }
}

TEST_P(ArchTest, Fp16NearestTiesAway) {
  Session s;
  auto fp16b = [](float x) { return float_to_fp16b(vFloat(x), RoundMode::NearestAway).v.u[0]; };
  auto fp16a = [](float x) { return float_to_fp16a(vFloat(x), RoundMode::NearestAway).v.u[0]; };
  EXPECT_EQ(fp16b(128.5f), m::F2U(129.0f));   // a tie: away from zero (IEEE would give 128)
  EXPECT_EQ(fp16b(-128.5f), m::F2U(-129.0f));
  EXPECT_EQ(fp16b(127.75f), m::F2U(128.0f));  // a tie carrying into the exponent
  EXPECT_EQ(fp16b(128.49f), m::F2U(128.0f));
  EXPECT_EQ(fp16a(1.0f + 1.0f / 2048), m::F2U(1.0f + 1.0f / 1024));  // fp16a tie at 2^-11
  EXPECT_EQ(fp16b(-0.0f), 0u);                                        // -0 -> +0
  EXPECT_EQ(fp16b(m::U2F(0x00000123u)), 0u);                          // denormal -> +0
  EXPECT_EQ(fp16b(m::U2F(0x80400000u)), 0u);
  EXPECT_EQ(fp16b(m::U2F(0x7fc00001u)), 0x7f800000u);                 // NaN -> Inf
  EXPECT_EQ(fp16b(m::U2F(0xffc00000u)), 0xff800000u);
  EXPECT_EQ(fp16b(m::U2F(0x7f7fffffu)), 0x7f800000u);                 // rounds up into Inf
  Rng rng{11};
  uint32_t x[kLanes];
  for (int rep = 0; rep < 500; ++rep) {
    for (uint32_t& u : x) u = rng.Next();
    const vFloat v = vFloat::FromLanes(FromArray(x));
    const vFloat a = float_to_fp16a(v, RoundMode::NearestAway), b = float_to_fp16b(v, RoundMode::NearestAway);
    for (int i = 0; i < kLanes; ++i) {
      ASSERT_EQ(a.v.u[i], m::ToFp16(x[i], 10, 0x400000u, bh()));
      ASSERT_EQ(b.v.u[i], m::ToFp16(x[i], 7, 0x400000u, bh()));
    }
  }
}

TEST_P(ArchTest, StochasticRoundingFollowsThePrng) {
  for (uint32_t seed : {1u, 2u, 12345u}) {
    Session s(seed);
    uint32_t state[kLanes];
    std::memcpy(state, s.ctx().lfsr.u, sizeof(state));
    Rng rng{seed};
    uint32_t x[kLanes];
    for (int rep = 0; rep < 300; ++rep) {
      for (uint32_t& u : x) u = rng.Next();
      const vFloat v = vFloat::FromLanes(FromArray(x));
      const int kind = rep % 4;
      const vFloat a = kind == 0 ? float_to_fp16a(v, RoundMode::NearestStochastic)
                     : kind == 1 ? float_to_fp16b(v, RoundMode::NearestStochastic)
                                 : float_to_fp16b(v, RoundMode::NearestAway);
      for (int i = 0; i < kLanes; ++i) {
        const bool stoch = kind <= 1;
        const uint32_t p = stoch ? (state[i] & 0x7fffffu) : 0x400000u;
        ASSERT_EQ(a.v.u[i], m::ToFp16(x[i], kind == 0 ? 10 : 7, p, bh())) << "seed " << seed << " rep " << rep;
        if (stoch || bh()) state[i] = m::PrngStep(state[i]);
      }
    }
    for (int i = 0; i < kLanes; ++i) ASSERT_EQ(s.ctx().lfsr.u[i], state[i]);
  }
}

// The mean of stochastic rounding is the value (plus the documented bias of the >= compare);
// measured over the lanes' PRNG sequences.
TEST_P(ArchTest, StochasticRoundingIsUnbiasedEnough) {
  Session s(777);
  // 1 + 0.25 ulp(bf16) and 1 + 0.75 ulp: round up with frequency ~0.25 / ~0.75.
  for (double frac : {0.25, 0.75}) {
    const uint32_t x = 0x3f800000u + static_cast<uint32_t>(frac * 65536.0);
    int up = 0, n = 0;
    for (int rep = 0; rep < 2000; ++rep) {
      const vFloat r = float_to_fp16b(vFloat::FromLanes(impl::Splat(x)), RoundMode::NearestStochastic);
      for (int i = 0; i < kLanes; ++i, ++n) up += r.v.u[i] == 0x3f810000u;
    }
    EXPECT_NEAR(static_cast<double>(up) / n, frac, 0.02) << frac;
  }
}

TEST_P(ArchTest, IntConversions) {
  Session s(3);
  uint32_t state[kLanes];
  std::memcpy(state, s.ctx().lfsr.u, sizeof(state));
  Rng rng{21};
  uint32_t x[kLanes];
  for (int rep = 0; rep < 400; ++rep) {
    for (int i = 0; i < kLanes; ++i) {
      // Exponents around the interesting range (|x| from 0.1 to 10^5), some NaN/Inf/denormals.
      x[i] = (rng.Next() & 0x807fffffu) | ((120u + rng.Next() % 30u) << 23);
      if (i == 0) x[i] = 0x7fc00000u;
      if (i == 1) x[i] = 0xff800000u;
      if (i == 2) x[i] = 0x80000001u;
      if (i == 3) x[i] = 0x3f000000u;  // 0.5: a tie
      if (i == 4) x[i] = 0xbfc00000u;  // -1.5
    }
    const vFloat v = vFloat::FromLanes(FromArray(x));
    const bool stoch = rep & 1;
    const RoundMode mode = stoch ? RoundMode::NearestStochastic : RoundMode::NearestAway;
    const int kind = (rep / 2) % 4;
    const Lanes32 r = kind == 0 ? float_to_uint8(v, mode).v : kind == 1 ? float_to_int8(v, mode).v
                    : kind == 2 ? float_to_uint16(v, mode).v : float_to_int16(v, mode).v;
    const uint32_t max_mag = kind == 0 ? 255 : kind == 1 ? 127 : kind == 2 ? 65535 : 32767;
    for (int i = 0; i < kLanes; ++i) {
      const uint32_t p = stoch ? (state[i] & 0x7fffffu) : 0x400000u;
      ASSERT_EQ(r.u[i], m::ToInt(x[i], max_mag, kind & 1, p)) << std::hex << x[i] << " kind " << kind;
      if (stoch || bh()) state[i] = m::PrngStep(state[i]);
    }
  }
  // int32 (sign-magnitude) -> float.
  for (int rep = 0; rep < 400; ++rep) {
    for (int i = 0; i < kLanes; ++i) x[i] = rng.Next() >> (rng.Next() % 32) | (rng.Next() & 0x80000000u);
    x[0] = 0x80000000u;  // -0
    x[1] = 0;
    x[2] = 0x7fffffffu;
    x[3] = 0x01000001u;  // 2^24 + 1: a tie
    const bool stoch = rep & 1;
    const vFloat r = int32_to_float(vInt::FromLanes(FromArray(x)), stoch ? RoundMode::NearestStochastic : RoundMode::Nearest);
    for (int i = 0; i < kLanes; ++i) {
      ASSERT_EQ(r.v.u[i], m::Cast(x[i], stoch, state[i])) << std::hex << x[i];
      if (stoch) state[i] = m::PrngStep(state[i]);
    }
  }
}

TEST(SfpiLib, BitFunctions) {
  Session s;
  Rng rng{8};
  uint32_t x[kLanes], y[kLanes];
  for (int rep = 0; rep < 100; ++rep) {
    for (int i = 0; i < kLanes; ++i) { x[i] = rng.Next(); y[i] = rng.Next(); }
    x[0] = 0; x[1] = 0xffc00000u; x[2] = 0x80000000u; x[3] = 1;
    const vFloat v = vFloat::FromLanes(FromArray(x));
    const vInt w = vInt::FromLanes(FromArray(y));
    const vInt ex = exexp(v), exn = exexp_nodebias(v), m8 = exman8(v), m9 = exman9(v), l = lz(reinterpret<vInt>(v));
    const vFloat se = setexp(v, w), sm = setman(v, w), ss = setsgn(v, w), ss1 = setsgn(v, 1), ae = addexp(v, 5), ab = abs(v);
    const vInt ai = abs(reinterpret<vInt>(v));
    const vUInt sh = shft(reinterpret<vUInt>(v), w);
    for (int i = 0; i < kLanes; ++i) {
      const uint32_t e = (x[i] >> 23) & 255;
      ASSERT_EQ(ex.v.u[i], e - 127);
      ASSERT_EQ(exn.v.u[i], e);
      ASSERT_EQ(m8.v.u[i], (x[i] & 0x7fffffu) | 0x800000u);
      ASSERT_EQ(m9.v.u[i], x[i] & 0x7fffffu);
      ASSERT_EQ(l.v.u[i], static_cast<uint32_t>(m::Clz32(x[i])));
      ASSERT_EQ(se.v.u[i], (x[i] & 0x807fffffu) | ((y[i] & 255) << 23));
      ASSERT_EQ(sm.v.u[i], (x[i] & 0xff800000u) | (y[i] & 0x7fffffu));
      ASSERT_EQ(ss.v.u[i], (x[i] & 0x7fffffffu) | (y[i] & 0x80000000u));
      ASSERT_EQ(ss1.v.u[i], x[i] | 0x80000000u);
      ASSERT_EQ(ae.v.u[i], e == 255 ? x[i] : (x[i] & 0x807fffffu) | (((e + 5) & 255) << 23));
      const bool nan = (x[i] & 0x7fffffffu) > 0x7f800000u;
      ASSERT_EQ(ab.v.u[i], nan ? x[i] : x[i] & 0x7fffffffu);
      ASSERT_EQ(ai.v.u[i], static_cast<int32_t>(x[i]) < 0 ? 0u - x[i] : x[i]);
      const int32_t n = static_cast<int32_t>(y[i]);
      ASSERT_EQ(sh.v.u[i], n >= 0 ? x[i] << (n & 31) : x[i] >> ((0u - static_cast<uint32_t>(n)) & 31));
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Arch, ArchTest, ::testing::Values(Arch::kWormhole, Arch::kBlackhole),
                         [](const auto& info) { return info.param == Arch::kWormhole ? "wh" : "bh"; });

}  // namespace
}  // namespace vlak::VLAK_NS::sfpi_test
