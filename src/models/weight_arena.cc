#include "models/weight_arena.h"

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <new>

#if defined(__linux__)
#include <sys/mman.h>
#endif

namespace vlak::models {

namespace {
constexpr size_t kHugePage = size_t{2} << 20;
constexpr size_t kLine = 64;
}  // namespace

void WeightArena::Free::operator()(void* p) const { std::free(p); }

size_t WeightArena::PieceBytes(size_t bytes) {
  return bytes > SIZE_MAX - (kLine - 1) ? SIZE_MAX : (bytes + kLine - 1) / kLine * kLine;
}

bool WeightArena::Reserve(size_t bytes) {
  base_.reset();
  size_ = used_ = 0;
  if (bytes == 0) return true;
  if (bytes > SIZE_MAX - (kHugePage - 1)) return false;
  // A whole number of huge pages, so that the last one is not shared with other allocations.
  const size_t total = (bytes + kHugePage - 1) / kHugePage * kHugePage;
  void* p = std::aligned_alloc(kHugePage, total);
  if (p == nullptr) return false;
#if defined(__linux__) && defined(MADV_HUGEPAGE)
  // Before the first touch, so that the pages are huge from the start. A refusal is harmless.
  (void)madvise(p, total, MADV_HUGEPAGE);
#endif
  std::memset(p, 0, total);
  base_.reset(p);
  size_ = total;
  return true;
}

void* WeightArena::Take(size_t bytes) {
  const size_t piece = PieceBytes(bytes);
  if (base_ == nullptr || piece > size_ - used_) return nullptr;
  void* p = static_cast<char*>(base_.get()) + used_;
  used_ += piece;
  return p;
}

}  // namespace vlak::models
