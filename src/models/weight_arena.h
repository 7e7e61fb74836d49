// WeightArena: one block of memory for a model's packed weights, 2 MiB-aligned and, on Linux,
// backed by transparent huge pages where the kernel grants them (madvise(MADV_HUGEPAGE)).
//
// Why: a forward pass at small batch streams every weight once (all-MiniLM-L6-v2's 42 MB per
// call). With 4 KiB pages that is a TLB miss per 4 KiB read; one 2 MiB page covers 512 of them.
// Debian's default THP mode is "madvise": a process gets huge pages only where it asks, so a
// plain std::vector never has them (the speed it buys: docs/models.md). Where the kernel refuses
// (THP "never", no memory to compact, another OS) the arena is ordinary memory and only the speed
// differs.
//
// Pieces are carved in order (Take), each at a 64-byte boundary (a cache line: the packed
// panels' vector loads do not split lines); their pointers stay valid when the arena is moved.
#ifndef VLAK_MODELS_WEIGHT_ARENA_H_
#define VLAK_MODELS_WEIGHT_ARENA_H_

#include <cstddef>
#include <cstdint>
#include <memory>

namespace vlak::models {

class WeightArena {
 public:
  // Bytes a piece of `bytes` takes in the arena (rounded up to 64); SIZE_MAX when that overflows.
  static size_t PieceBytes(size_t bytes);
  // Drops what the arena held and reserves `bytes` (the sum of PieceBytes of the pieces), zeroed.
  // False when the memory cannot be had (the arena is then empty).
  bool Reserve(size_t bytes);
  // The next piece of `bytes`; nullptr when the reservation has no room left for it.
  void* Take(size_t bytes);
  size_t size() const { return size_; }

 private:
  struct Free {
    void operator()(void* p) const;
  };
  std::unique_ptr<void, Free> base_;
  size_t size_ = 0, used_ = 0;
};

}  // namespace vlak::models

#endif  // VLAK_MODELS_WEIGHT_ARENA_H_
