// The SFPI kernels through vlak::sfpi::RunKernel: bit-identical on every target this machine (or
// qemu) runs, the same bits as a golden hash recorded on x86 (so RVV at every VLEN and rv64gc
// match the host too), and the seed's example kernel against the per-lane scalar model.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "sfpi/sfpi_model.h"
#include "vlak/sfpi.h"
#include "vlak/vlak.h"

namespace {

namespace m = ::sfpi_model;
using ::vlak::sfpi::Arch;

constexpr size_t kTiles = 6;

// Inputs: a ramp over [-100, 100], [-2, 2], [-90, 90]; random bit patterns; special values; and
// random values of moderate exponent.
std::vector<float> Inputs() {
  std::vector<float> x(kTiles * 1024);
  uint64_t s = 0x9e3779b97f4a7c15ull;
  auto next = [&s] { s ^= s << 13; s ^= s >> 7; s ^= s << 17; return static_cast<uint32_t>(s >> 16); };
  const uint32_t specials[] = {0x00000000u, 0x80000000u, 0x00000001u, 0x807fffffu, 0x7f800000u, 0xff800000u,
                               0x7fc00000u, 0xffc00000u, 0x7f7fffffu, 0xff7fffffu, 0x3f800000u, 0xbf800000u,
                               0x42b20000u, 0xc2b20000u, 0x42b00000u, 0xc2b10000u};
  for (size_t i = 0; i < 1024; ++i) {
    x[i] = -100.0f + 200.0f * static_cast<float>(i) / 1023.0f;
    x[1024 + i] = -2.0f + 4.0f * static_cast<float>(i) / 1023.0f;
    x[2048 + i] = -90.0f + 180.0f * static_cast<float>(i) / 1023.0f;
    x[3072 + i] = m::U2F(next());
    x[4096 + i] = m::U2F(specials[i % 16]);
    x[5120 + i] = m::U2F((next() & 0x807fffffu) | ((110u + next() % 26u) << 23));
  }
  return x;
}

uint64_t Fnv(const std::vector<float>& v) {
  uint64_t h = 1469598103934665603ull;
  for (float f : v) {
    const uint32_t u = m::F2U(f);
    for (int b = 0; b < 4; ++b) { h ^= (u >> (8 * b)) & 0xff; h *= 1099511628211ull; }
  }
  return h;
}

std::vector<float> RunOn(const char* name, Arch arch) {
  ::vlak::sfpi::SetArch(arch);
  std::vector<float> x = Inputs();
  EXPECT_EQ(::vlak::sfpi::RunKernel(name, x.data(), kTiles, 42), 0) << name;
  ::vlak::sfpi::SetArch(Arch::kWormhole);
  return x;
}

std::vector<vlak_target> Targets() {
  std::vector<vlak_target> t;
  for (vlak_target c : {VLAK_TARGET_SCALAR, VLAK_TARGET_AVX2, VLAK_TARGET_AVX512, VLAK_TARGET_RVV}) {
    if (vlak_target_compiled(c) && vlak_target_supported(c)) t.push_back(c);
  }
  return t;
}

// Golden FNV-1a hashes of every kernel's output on Inputs(), wormhole then blackhole, recorded
// with the avx512 target (and equal on every target: the cross-target test below).
struct Golden { const char* name; uint64_t wh, bh; };
constexpr Golden kGolden[] = {
#include "sfpi_kernels_golden.inc"
};

TEST(SfpiKernels, BitIdenticalAcrossTargetsAndGolden) {
  size_t count;
  const ::vlak::sfpi::KernelInfo* k = ::vlak::sfpi::Kernels(&count);
  ASSERT_EQ(count, sizeof(kGolden) / sizeof(kGolden[0]));
  const vlak_target saved = vlak_active_target();
  for (size_t i = 0; i < count; ++i) {
    ASSERT_STREQ(k[i].name, kGolden[i].name);
    for (Arch arch : {Arch::kWormhole, Arch::kBlackhole}) {
      const uint64_t want = arch == Arch::kWormhole ? kGolden[i].wh : kGolden[i].bh;
      for (vlak_target t : Targets()) {
        ASSERT_EQ(vlak_set_target(t), VLAK_OK);
        const std::vector<float> y = RunOn(k[i].name, arch);
        EXPECT_EQ(Fnv(y), want) << k[i].name << " on " << vlak_target_name(t)
                                << (arch == Arch::kWormhole ? " wh" : " bh") << ": 0x" << std::hex << Fnv(y);
      }
    }
  }
  vlak_set_target(saved);
}

TEST(SfpiKernels, BadArguments) {
  std::vector<float> x(1024, 1.0f);
  EXPECT_EQ(::vlak::sfpi::RunKernel("no-such-kernel", x.data(), 1), -1);
  EXPECT_EQ(::vlak::sfpi::RunKernel(nullptr, x.data(), 1), -1);
  EXPECT_EQ(::vlak::sfpi::RunKernel("exp-accurate", nullptr, 1), -1);
  EXPECT_EQ(x[0], 1.0f);  // nothing written
  EXPECT_EQ(::vlak::sfpi::RunKernel("exp-accurate", nullptr, 0), 0);
}

// The seed's `silly` kernel, per lane from the spec: the kernel reads dst_reg[0], [1] and writes
// [3] .. [8] relative to its face (so face f writes slot 8 f + 8, the next face's first slot,
// before that face runs; face 3 writes beyond the tile).
void SillyModel(std::vector<uint32_t>& dst, bool take_abs, bool bh) {
  const uint32_t prgm0 = m::F2U(0.25f);
  auto fp16a = [](float f) {  // sFloat16a from a float: exponent - 112, top 10 mantissa bits
    const uint32_t u = m::F2U(f), e = (u >> 23) & 255;
    const uint32_t e5 = e <= 112 ? 0 : (e >= 143 ? 31 : e - 112);
    const uint32_t h = ((u >> 16) & 0x8000) | (e5 << 10) | ((u >> 13) & 0x3ff);
    return ((h >> 15) << 31) | ((((h >> 10) & 31) + 112) << 23) | ((h & 0x3ff) << 13);
  };
  for (int face = 0; face < 4; ++face) {
    const int base = 8 * face;
    for (int l = 0; l < 32; ++l) {
      auto at = [&](int i) -> uint32_t& { return dst[static_cast<size_t>(base + i) * 32 + l]; };
      const uint32_t d0 = at(0), d1 = at(1);
      const uint32_t a = m::Add(d0, m::F2U(2.0f), bh);
      at(3) = m::Add(m::Mad(a, d1 ^ 0x80000000u, prgm0, bh), m::F2U(0.5f), bh);
      at(4) = m::Mad(a, d1, m::F2U(1.2f), bh);
      at(4) = m::Mad(a, m::F2U(1.5f), m::F2U(1.2f), bh);
      at(5) = m::Mad(a, fp16a(0.8125f), m::F2U(1.2f), bh);
      auto cmp = [&](float s, m::Cmp c) { return m::CmpF(a, m::F2U(s), c, bh); };
      const bool c1 = (cmp(4.0f, m::Cmp::kGe) && cmp(8.0f, m::Cmp::kLt)) || (cmp(12.0f, m::Cmp::kGe) && cmp(16.0f, m::Cmp::kLt));
      if (c1) {
        const uint32_t b = ((a >> 23) & 255) & 0xaa;
        if (m::CmpI(b, 130, m::Cmp::kGe)) at(6) = (a & 0x807fffffu) | (127u << 23);
      } else if (m::CmpF(a, fp16a(3.0f), m::Cmp::kEq, bh)) {
        const bool nan = (a & 0x7fffffffu) > 0x7f800000u;
        at(7) = take_abs ? (nan ? a : a & 0x7fffffffu) : a;
      } else {
        const uint32_t e = ~(static_cast<uint32_t>(m::Clz32(a)) - 19u);
        at(8) = ((a & 0x807fffffu) | ((e & 255) << 23)) ^ 0x80000000u;
      }
    }
  }
}

TEST(SfpiKernels, SeedExampleMatchesModel) {
  for (Arch arch : {Arch::kWormhole, Arch::kBlackhole}) {
    for (bool take_abs : {false, true}) {
      const std::vector<float> in = Inputs();
      std::vector<float> out = in;
      ::vlak::sfpi::SetArch(arch);
      ASSERT_EQ(::vlak::sfpi::RunKernel(take_abs ? "seed-silly-abs" : "seed-silly", out.data(), kTiles, 1), 0);
      ::vlak::sfpi::SetArch(Arch::kWormhole);
      for (size_t t = 0; t < kTiles; ++t) {
        // Dst in lane order (40 slots: the tile and the slots face 3 writes past it).
        std::vector<uint32_t> dst(40 * 32, 0);
        for (int s = 0; s < 32; ++s) {
          for (int l = 0; l < 32; ++l) {
            int r, c;
            m::LaneToTile(s, l, &r, &c);
            dst[static_cast<size_t>(s) * 32 + l] = m::F2U(in[t * 1024 + static_cast<size_t>(r) * 32 + c]);
          }
        }
        SillyModel(dst, take_abs, arch == Arch::kBlackhole);
        for (int s = 0; s < 32; ++s) {
          for (int l = 0; l < 32; ++l) {
            int r, c;
            m::LaneToTile(s, l, &r, &c);
            ASSERT_EQ(m::F2U(out[t * 1024 + static_cast<size_t>(r) * 32 + c]), dst[static_cast<size_t>(s) * 32 + l])
                << "tile " << t << " slot " << s << " lane " << l << (take_abs ? " abs" : "");
          }
        }
      }
    }
  }
}

}  // namespace
