// Scratch buffers kept between calls in a small process-wide pool (matmul's packing, attention's
// and resize's per-thread scratch): a call takes one buffer (all its threads' slices) before
// anything is written, so a failed allocation leaves the output untouched, and hands it back
// after; once warm, a call allocates nothing, so its time and its instruction count (the RVV
// budgets) do not depend on the state of the heap. Concurrent calls from different threads take
// different buffers. Plain atomics (no destructor, no thread_local object with one): buffers still
// pooled at exit stay reachable, not leaked. A buffer's size sits in its first 64 bytes; the data,
// 64-byte aligned, starts kPoolHeaderFloats floats after its base.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>

namespace vlak {

inline constexpr int kPoolSlots = 8;
inline constexpr size_t kPoolHeaderFloats = 16;
inline std::atomic<float*> g_buffer_pool[kPoolSlots];

inline size_t PooledFloats(float* base) {
  size_t n;
  std::memcpy(&n, base, sizeof n);
  return n;
}

// A buffer of at least `floats` floats (its base; data at base + kPoolHeaderFloats), or null.
inline float* AcquireBuffer(size_t floats) {
  for (auto& slot : g_buffer_pool) {
    float* base = slot.exchange(nullptr, std::memory_order_acquire);
    if (base == nullptr) continue;
    if (PooledFloats(base) >= floats) return base;
    std::free(base);
  }
  if (floats > (SIZE_MAX - 64) / sizeof(float) - kPoolHeaderFloats) return nullptr;
  const size_t bytes = ((floats + kPoolHeaderFloats) * sizeof(float) + 63) / 64 * 64;
  auto* base = static_cast<float*>(std::aligned_alloc(64, bytes));
  if (base != nullptr) std::memcpy(base, &floats, sizeof floats);
  return base;
}

inline void ReleaseBuffer(float* base) {
  for (auto& slot : g_buffer_pool) {
    float* expected = nullptr;
    if (slot.compare_exchange_strong(expected, base, std::memory_order_release, std::memory_order_relaxed)) return;
  }
  std::free(base);
}

// A pooled buffer for one call's scope: data() is null when the allocation failed.
class PooledBuffer {
 public:
  explicit PooledBuffer(size_t floats) : base_(AcquireBuffer(floats)) {}
  ~PooledBuffer() {
    if (base_ != nullptr) ReleaseBuffer(base_);
  }
  PooledBuffer(const PooledBuffer&) = delete;
  PooledBuffer& operator=(const PooledBuffer&) = delete;
  float* data() const { return base_ != nullptr ? base_ + kPoolHeaderFloats : nullptr; }

 private:
  float* base_;
};

}  // namespace vlak
