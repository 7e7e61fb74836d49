// Shared by the fuzz targets of the models' file readers (src/models/gguf_fuzz.cc,
// safetensors_fuzz.cc): the input is a whole file, held in a heap block of exactly its size, so that
// AddressSanitizer flags any read past it.
#pragma once

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

namespace vlak_fuzz {

// A failed check: what is wrong and where (a key or a tensor's name), then abort (libFuzzer saves
// the input as a crash).
[[noreturn]] inline void Finding(const char* what, std::string_view at) {
  std::fprintf(stderr, "vlak fuzz finding: %s\n  at: %.*s\n", what, static_cast<int>(at.size()), at.data());
  std::abort();
}

// After a reader's Parse of the input with the source name "fuzz": a failure must say why in a
// message naming the source, and leave the reader holding nothing. Returns whether it parsed.
inline bool Parsed(bool ok, const std::string& err, bool holds_nothing) {
  if (ok) return true;
  if (err.rfind("fuzz: ", 0) != 0) Finding("an error message that does not name the source", err);
  if (!holds_nothing) Finding("contents left after a failed parse", "");
  return false;
}

// The input as a reader's file: copied into *file (a heap block of exactly its size), parsed with
// reader->Parse(..., "fuzz"), and checked as Parsed does (holds_nothing(*reader): whether it is
// empty). Returns whether it parsed.
template <class Reader, class HoldsNothing>
bool ParseInput(const uint8_t* data, size_t size, std::vector<uint8_t>* file, Reader* reader,
                HoldsNothing holds_nothing) {
  *file = std::vector<uint8_t>(data, data + size);
  std::string err;
  const bool ok = reader->Parse(file->data(), file->size(), &err, "fuzz");
  return Parsed(ok, err, holds_nothing(*reader));
}

// Keeps the sum of every byte read alive, so that the reads are not optimised away.
inline void KeepSum(uint32_t sum) {
  volatile uint32_t sink = sum;
  (void)sink;
}

}  // namespace vlak_fuzz
