// Warp internals shared by the API, tests and the lab.
#pragma once

#include <cstddef>
#include <cstdint>

namespace vlak {

// The definition of vlak.h, one pixel at a time in plain integers (the lab's and the docs'
// reference; the tests carry their own copy written from the issue text).
void WarpReferenceI8(size_t channels, size_t height, size_t width, const int8_t* src, const int16_t* offsets,
                     int8_t* dst);

}  // namespace vlak
