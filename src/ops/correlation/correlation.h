// Correlation internals shared by the API, tests and the lab.
#pragma once

#include <cstddef>
#include <cstdint>

namespace vlak {

// The definition of vlak.h in plain integers, one output at a time (int64 sums, reduced as the
// mode says): the lab's reference; the tests carry their own copy written from the issue text.
void CorrelationReferenceI8(size_t displacements, size_t channels, size_t height, size_t width, const int8_t* a,
                            const int8_t* b, unsigned shift, int8_t* out, unsigned flags);

}  // namespace vlak
