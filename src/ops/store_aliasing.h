// x86's 4K aliasing, the one rule the row kernels follow for it. A load whose address matches an
// older, still pending store in bits 0-11 is taken as dependent on it and waits. A pass that walks
// forward, storing at s[i] as it loads l[i], meets that when s lies 1 to 511 bytes after l modulo
// 4 KiB: each load then matches a store of the strips just before it. (Measured by offset on Zen 4:
// docs/ops/rmsnorm.md, "y's offset from x modulo 4 KiB".) Used by output_strips.h's
// OutputBackward and by the layernorm backward's placement of its column partials.
#pragma once

#include <cstdint>

namespace vlak {

// Whether a store stream at `store` trails a load stream at `load` by 1 to 511 bytes modulo 4 KiB.
inline bool StoreTrailsLoad(const void* store, const void* load) {
  const uintptr_t delta = (reinterpret_cast<uintptr_t>(store) - reinterpret_cast<uintptr_t>(load)) % 4096;
  return delta > 0 && delta < 512;
}

}  // namespace vlak
