// Correlation internals shared by the API, tests and the lab.
#pragma once

#include <cstddef>
#include <cstdint>

namespace vlak {

// The definition of vlak.h in plain integers, one output at a time (int64 sums, reduced as the
// mode says): the lab's reference; the tests carry their own copy written from the issue text.
void CorrelationReferenceI8(size_t displacements, size_t channels, size_t height, size_t width, const int8_t* a,
                            const int8_t* b, unsigned shift, int8_t* out, unsigned flags);

// The avx512 target's VNNI specialisation (correlation_avx512vnni.cc): output rows i in
// [begin, end) for every displacement. False (nothing written) if its packing buffers cannot be
// allocated. Only in x86 builds with the avx512 target.
bool CorrelationRowsI8Avx512Vnni(size_t begin, size_t end, size_t displacements, size_t channels, size_t height,
                                 size_t width, const int8_t* a, const int8_t* b, unsigned shift, int8_t* out,
                                 unsigned flags);
bool CpuHasAvx512Vnni();

// The avx2 target's vpmaddwd specialisation (correlation_avx2madd.cc), same contract. Only in x86
// builds with the avx2 target.
bool CorrelationRowsI8Avx2Madd(size_t begin, size_t end, size_t displacements, size_t channels, size_t height,
                               size_t width, const int8_t* a, const int8_t* b, unsigned shift, int8_t* out,
                               unsigned flags);

// Whether the avx512 target uses the VNNI kernel: the CPU has AVX512_VNNI and the environment does
// not say VLAK_AVX512_VNNI=0. The setter (tests, the lab's generic row) can only turn it off or
// back on where the CPU has it; it returns the previous setting.
bool CorrelationVnniEnabled();
bool SetCorrelationVnni(bool enabled);

// Whether the avx2 target uses the vpmaddwd kernel: the CPU runs the avx2 target and the
// environment does not say VLAK_AVX2_MADD=0. The setter works as SetCorrelationVnni's.
bool CorrelationAvx2MaddEnabled();
bool SetCorrelationAvx2Madd(bool enabled);

}  // namespace vlak
