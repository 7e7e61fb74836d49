// SFPI on the CPU: running a kernel over a tile (the LLK face loop).
//
// RunTile loads a row-major 32 x 32 fp32 tile into Dst (lane order, sfpi.h's DstLaneToTile), calls
// `init` once (where tt-llk kernels program vConst*Prgm*), then the kernel once per 16 x 16 face with
// dst_reg at that face's first index (0, 8, 16, 24: the kernel walks the face's 8 indices with
// dst_reg++), and stores Dst back. Each call has its own SFPU state (thread-safe; the state lives
// on the caller's stack), every lane enabled, the condition stack empty, the programmable constants
// zero and the PRNG seeded with `seed`. Returns the ::vlak::sfpi::Error bits seen (0: none).
// RunTiles does the same for a range of tiles, tile t seeded with seed + t, so that the bits do not
// depend on how a caller splits the tiles over threads.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

namespace vlak::VLAK_NS::sfpi {

namespace impl {
// tile index of (slot, lane) for the 32 slots of one tile.
struct TileMap {
  uint16_t index[32 * kLanes];
  TileMap() {
    for (int s = 0; s < 32; ++s) {
      for (int l = 0; l < kLanes; ++l) {
        int r, c;
        DstLaneToTile(s, l, &r, &c);
        index[s * kLanes + l] = static_cast<uint16_t>(r * 32 + c);
      }
    }
  }
};
inline const TileMap& Map() {
  static const TileMap m;
  return m;
}
// The PRNG state of lane i for a seed: distinct non-zero states per lane (splitmix-style mixing).
inline uint32_t LaneSeed(uint32_t seed, int lane) {
  uint32_t z = seed + 0x9e3779b9u * static_cast<uint32_t>(lane + 1);
  z = (z ^ (z >> 16)) * 0x85ebca6bu;
  z = (z ^ (z >> 13)) * 0xc2b2ae35u;
  z ^= z >> 16;
  return z != 0 ? z : 1;
}
}  // namespace impl

// The SFPU state of RunTile, made current on this thread for code that drives vFloat & co.
// directly (tests, tools): every lane enabled, Dst zero.
class Session {
 public:
  explicit Session(uint32_t seed = 1) {
    ctx_.bh = GetArch() == Arch::kBlackhole;
    ctx_.flags = impl::Splat(~0u);
    for (auto& p : ctx_.prgm) p = impl::Splat(0);
    for (auto& s : ctx_.dst) s = impl::Splat(0);
    for (int l = 0; l < kLanes; ++l) ctx_.lfsr.u[l] = impl::LaneSeed(seed, l);
    prev_ = impl::t_ctx;
    impl::t_ctx = &ctx_;
  }
  ~Session() { impl::t_ctx = prev_; }
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;
  impl::Context& ctx() { return ctx_; }

 private:
  impl::Context ctx_;
  impl::Context* prev_;
};

inline uint32_t RunTile(void (*kernel)(), float* tile, void (*init)() = nullptr, uint32_t seed = 1) {
  impl::Context ctx;
  ctx.bh = GetArch() == Arch::kBlackhole;
  ctx.flags = impl::Splat(~0u);
  for (auto& p : ctx.prgm) p = impl::Splat(0);
  for (int l = 0; l < kLanes; ++l) ctx.lfsr.u[l] = impl::LaneSeed(seed, l);
  const impl::TileMap& map = impl::Map();
  for (int s = 0; s < 32; ++s) {
    for (int l = 0; l < kLanes; ++l) std::memcpy(&ctx.dst[s].u[l], tile + map.index[s * kLanes + l], 4);
  }
  for (int s = 32; s < impl::kDstSlots; ++s) ctx.dst[s] = impl::Splat(0);
  impl::Context* const prev = impl::t_ctx;
  impl::t_ctx = &ctx;
  if (init != nullptr) init();
  for (int face = 0; face < 4; ++face) {
    ctx.base = 8 * face;
    kernel();
    if (ctx.depth != 0) {
      ctx.error |= ::vlak::sfpi::kUnclosed;
      ctx.depth = 0;
      ctx.flags = impl::Splat(~0u);
    }
  }
  impl::t_ctx = prev;
  for (int s = 0; s < 32; ++s) {
    for (int l = 0; l < kLanes; ++l) std::memcpy(tile + map.index[s * kLanes + l], &ctx.dst[s].u[l], 4);
  }
  return ctx.error;
}

// Tiles [begin, end) of the row-major 32 x 32 tiles at `tiles`, in place: RunTile on each, tile t
// with PRNG seed seed + t. Returns the Error bits or'ed over the tiles.
inline uint32_t RunTiles(void (*kernel)(), float* tiles, size_t begin, size_t end, void (*init)() = nullptr,
                         uint32_t seed = 1) {
  uint32_t err = 0;
  for (size_t t = begin; t < end; ++t) err |= RunTile(kernel, tiles + t * 1024, init, seed + static_cast<uint32_t>(t));
  return err;
}

}  // namespace vlak::VLAK_NS::sfpi
