// The SFPI kernel table of one target, and running a kernel over many tiles.
#include "sfpi/kernels/kernels.h"

#include "sfpi/kernels/common.h"
#include "sfpi/kernels/references.h"

namespace vlak::VLAK_NS::sfpi_kernels {

void ExpAccurateBody();
void ExpBf16Body();
void ExpApproxInit();
void ExpApproxBody();
void ExpFastInit();
void ExpFastBody();
void RecipInit();
void RecipBody();
void TanhBody();
void SigmoidBody();
void GeluApproxBody();
void GeluAccurateBody();
void LogInit();
void LogBody();
void SqrtInit();
void SqrtBody();
void SillyInit();
void SillyBody();
void SillyAbsBody();

namespace {
using ::vlak::sfpi::KernelInfo;
constexpr KernelInfo kKernels[] = {
    {"exp-accurate", nullptr, ExpAccurateBody, ::vlak::sfpi::RefExp, "<= 1 ULP (fp32)"},
    {"exp-bf16", nullptr, ExpBf16Body, ::vlak::sfpi::RefExp, "1 bf16 ULP on [-87, 88.5]"},
    {"exp-approx", ExpApproxInit, ExpApproxBody, ::vlak::sfpi::RefExp, "720,000 ULP"},
    {"exp-fast", ExpFastInit, ExpFastBody, ::vlak::sfpi::RefExp, "380,000 ULP"},
    {"recip", RecipInit, RecipBody, ::vlak::sfpi::RefRecip, "0.89 ULP"},
    {"tanh", nullptr, TanhBody, ::vlak::sfpi::RefTanh, "37 bf16 ULP"},
    {"sigmoid", nullptr, SigmoidBody, ::vlak::sfpi::RefSigmoid, "older 3-segment path ~0.12 abs"},
    {"gelu-approx", nullptr, GeluApproxBody, ::vlak::sfpi::RefGelu, "see tt-eltwise-accuracy-report"},
    {"gelu-accurate", nullptr, GeluAccurateBody, ::vlak::sfpi::RefGelu, "see tt-eltwise-accuracy-report"},
    {"log", LogInit, LogBody, ::vlak::sfpi::RefLog, "none published"},
    {"sqrt", SqrtInit, SqrtBody, ::vlak::sfpi::RefSqrt, "~1 ULP"},
    {"seed-silly", SillyInit, SillyBody, nullptr, "-"},
    {"seed-silly-abs", SillyInit, SillyAbsBody, nullptr, "-"},
};
}  // namespace

const KernelInfo* Kernels(size_t* count) {
  *count = sizeof(kKernels) / sizeof(kKernels[0]);
  return kKernels;
}

}  // namespace vlak::VLAK_NS::sfpi_kernels

namespace vlak::VLAK_NS {

// Tiles [0, n) of kernel k; tile t runs with PRNG seed `seed + t` mixed per lane (RunTile), so the
// bits do not depend on how tiles are split over threads. Returns the Error bits or'ed.
uint32_t SfpiRunTiles(size_t k, float* tiles, size_t begin, size_t end, uint32_t seed) {
  size_t count;
  const ::vlak::sfpi::KernelInfo* table = sfpi_kernels::Kernels(&count);
  if (k >= count) return ~0u;
  return sfpi::RunTiles(table[k].body, tiles, begin, end, table[k].init, seed);
}

VLAK_KERNELS_DEFINED(VLAK_SFPI_KERNELS)

}  // namespace vlak::VLAK_NS
