// Differential fuzz target of vlak_warp_i8 (see fuzz_util.h): every target must give the bytes of
// the oracle below, written from vlak.h's integer definition; the avx2 target runs twice, with its
// window kernel (rows of smooth displacements) and with its generic one.
#include <algorithm>

#include "fuzz/fuzz_util.h"
#include "ops/warp/warp.h"

using namespace vlak_fuzz;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  OpInput in(data, size);
  size_t c = in.Size(4), h = in.Size(12), w = in.Size(1500);
  const uint8_t huge = in.Byte();
  // channels * height * width overflows just past SIZE_MAX (a 1x1 plane cannot overflow: any channel
  // count is a valid size there).
  const bool too_big = huge == 0xEE && h * w > 1;
  if (too_big) c = SIZE_MAX / (h * w) + 1;
  const uint8_t nulls = in.Byte();
  const bool empty = c == 0 || h == 0 || w == 0;
  const bool expect_error = !empty && (too_big || (nulls >= 1 && nulls <= 3));
  const size_t n = too_big ? 1 : c * h * w, plane = too_big ? 1 : h * w;
  std::vector<int8_t> src(n);
  std::vector<int16_t> off(plane);
  {
    const uint8_t dist = in.Byte();
    Rng rng(in.Bits(4) + 1);
    for (auto& v : src) v = static_cast<int8_t>(dist < 128 ? rng.Next() : (rng.Next() & 1) ? 127 : -128);
    for (size_t i = 0; i < off.size(); ++i) {
      const uint64_t r = rng.Next();
      // Any 16-bit offset, or shifts within the row (|n| <= 8) with any fraction, or small shifts
      // (|n| <= 24), or far but smooth ones: per 32 columns a base in -128 .. 80 plus 0 .. 48 (the
      // avx2 window kernel takes groups whose spread is <= 47: rows in it and rows just out), or
      // the extremes.
      const size_t x = i % w, group = i / w * 7 + x / 32 * 13;
      const int smooth = (static_cast<int>(group % 209) - 128 + static_cast<int>((r >> 8) % 49)) * 256 + static_cast<int>(r & 0xFF);
      off[i] = static_cast<int16_t>(dist < 64    ? r
                                    : dist < 160 ? static_cast<int>((r % (16 * 256))) - 8 * 256
                                    : dist < 192 ? static_cast<int>((r % (49 * 256))) - 24 * 256
                                    : dist < 224 ? smooth
                                                 : ((r & 1) ? 32767 : -32768));
    }
  }
  Describe("vlak_warp_i8(channels %zu, height %zu, width %zu) threads %d", c, h, w, vlak_get_num_threads());
  std::vector<int8_t> want;
  if (!expect_error && !empty) {
    want.resize(n);
    for (size_t k = 0; k < c; ++k) {
      for (size_t y = 0; y < h; ++y) {
        const int8_t* row = src.data() + (k * h + y) * w;
        for (size_t x = 0; x < w; ++x) {
          const int o = off[y * w + x];
          const int shift = o >> 8;                         // arithmetic: floor(o / 256)
          const int f = static_cast<int8_t>(o & 0xFF);      // the low byte as a signed int8
          const long r = static_cast<long>(x) - shift, l = r - 1;
          const int R = (r >= 0 && r < static_cast<long>(w)) ? row[r] : 0;
          const int L = (l >= 0 && l < static_cast<long>(w)) ? row[l] : 0;
          want[(k * h + y) * w + x] = static_cast<int8_t>(static_cast<uint32_t>(R * 256 + (L - R) * f) >> 8);
        }
      }
    }
  }
  const bool window = vlak::WarpAvx2WindowEnabled();
  auto run = [&](vlak_target t) {
    std::vector<int8_t> dst(n, 0x5A);
    const vlak_status st = vlak_warp_i8(c, h, w, nulls == 1 ? nullptr : src.data(), nulls == 2 ? nullptr : off.data(),
                                        nulls == 3 ? nullptr : dst.data());
    CheckStatus(st, expect_error, t);
    for (size_t i = 0; i < n; ++i) {
      const int8_t expect = want.empty() ? 0x5A : want[i];
      Check(dst[i] == expect, want.empty() ? "written on error or empty call" : "bytes differ from vlak.h's definition",
            t, i, dst[i], expect);
    }
  };
  for (vlak_target t : Targets()) {
    vlak_set_target(t);
    run(t);
    if ((t == VLAK_TARGET_AVX2 || t == VLAK_TARGET_AVX512) && window) {  // the generic (gather) kernel too
      vlak::SetWarpAvx2Window(false);
      run(t);
      vlak::SetWarpAvx2Window(true);
    }
  }
  return 0;
}
