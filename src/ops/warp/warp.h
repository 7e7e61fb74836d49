// Warp internals shared by the API, tests and the lab.
#pragma once

#include <cstddef>
#include <cstdint>

namespace vlak {

// The definition of vlak.h, one pixel at a time in plain integers (the lab's and the docs'
// reference; the tests carry their own copy written from the issue text).
void WarpReferenceI8(size_t channels, size_t height, size_t width, const int8_t* src, const int16_t* offsets,
                     int8_t* dst);

// The avx2 target's specialisation (warp_avx2window.cc): one image row of every channel (rows at
// src + c * plane, c < channels, and the same in dst), sharing the offsets row, without gathers,
// when the displacements of every 32 pixels of that row lie within 47 columns of each other (a
// smooth field, however far); false otherwise (some outputs may be written: the caller redoes
// the row).
// Only in x86 builds with the avx2 target.
bool WarpRowsI8Avx2Window(const int8_t* src, int8_t* dst, size_t channels, size_t plane, const int16_t* offsets,
                          size_t width);

// Whether the avx2 target uses it: the CPU runs the avx2 target and the environment does not say
// VLAK_AVX2_WINDOW=0. The setter (tests, the lab's generic row) can only turn it off or back on
// where the CPU runs avx2; it returns the previous setting.
bool WarpAvx2WindowEnabled();
bool SetWarpAvx2Window(bool enabled);

}  // namespace vlak
