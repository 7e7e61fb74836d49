// The LUT contents: the tutorial's Qfmt tables (regenerated from their definition) and the
// corrected pipeline's 16-bit exp table.
//
// The tutorial's (chisel-npu alu/vec/vec.scala, object Qfmt; Scala Math.round(x) = floor(x + 0.5)):
//   sq16(r)      = (r < 128 ? r : r - 256) / 64                     SQ1.6 input
//   lutExp[r]    = clamp(round(256 min(exp(sq16(r)), 255/256)), 0, 255) as a signed byte
//   lutRecip[r]  = r == 0 ? 127 : clamp(round(64 / sq16(r)), -128, 127)
// The exp table's UQ0.8 bytes >= 128 read back as negative (172 of 256 entries): the first of
// the tutorial pipeline's defects.
//
// Corrected: E[d] = min(65535, floor(65535 exp(-scale d) + 0.5)) in float64, d = 0..255 the
// distance to the row's maximum in input steps. 16 bits keep the small exps: at d with
// exp(-scale d) >= 2^-17 the entry is non-zero, where an 8-bit table is 0 below 2^-9.
#include <algorithm>
#include <cmath>

#include "npu/npu.h"

namespace vlak::npu {
namespace {

long ScalaRound(double x) { return static_cast<long>(std::floor(x + 0.5)); }
double Sq16(int r) { return (r < 128 ? r : r - 256) / 64.0; }

}  // namespace

std::vector<int> SeedExpTable() {
  std::vector<int> t(256);
  for (int r = 0; r < 256; ++r) {
    const double e = std::min(std::exp(Sq16(r)), 255.0 / 256.0);
    const long u = std::clamp(ScalaRound(e * 256), 0L, 255L);
    t[r] = static_cast<int>(u > 127 ? u - 256 : u);
  }
  return t;
}

std::vector<int> SeedRecipTable() {
  std::vector<int> t(256);
  for (int r = 0; r < 256; ++r) {
    const double x = Sq16(r);
    t[r] = x == 0.0 ? 127 : static_cast<int>(std::clamp(ScalaRound(64.0 / x), -128L, 127L));
  }
  return t;
}

std::vector<uint32_t> Exp16Table(double scale) {
  std::vector<uint32_t> t(256);
  for (int d = 0; d < 256; ++d) {
    t[d] = static_cast<uint32_t>(std::min(65535.0, std::floor(65535.0 * std::exp(-scale * d) + 0.5)));
  }
  return t;
}

std::vector<uint32_t> Exp8Table(double scale) {
  std::vector<uint32_t> t(256);
  for (int d = 0; d < 256; ++d) t[d] = static_cast<uint32_t>(std::floor(255.0 * std::exp(-scale * d) + 0.5));
  return t;
}

bool NamedTable(const std::string& name, double scale, std::vector<uint8_t>* bytes) {
  bytes->assign(256, 0);
  if (name == "seed_exp" || name == "seed_recip") {
    const std::vector<int> t = name == "seed_exp" ? SeedExpTable() : SeedRecipTable();
    for (int i = 0; i < 256; ++i) (*bytes)[i] = static_cast<uint8_t>(t[i]);
    return true;
  }
  if (name == "exp16_hi" || name == "exp16_lo" || name == "exp16z_hi" || name == "exp16z_lo") {
    std::vector<uint32_t> t = Exp16Table(scale);
    // exp16z: entry 255 is 0, "255 steps or more": for an index clamped to 255 (GEMM + softmax),
    // where a far logit must vanish instead of weighing exp(-255 step).
    if (name[5] == 'z') t[255] = 0;
    const bool hi = name.size() > 3 && name.compare(name.size() - 3, 3, "_hi") == 0;
    for (int i = 0; i < 256; ++i) (*bytes)[i] = static_cast<uint8_t>(hi ? t[i] >> 8 : t[i] & 0xFF);
    return true;
  }
  if (name == "exp8") {
    const std::vector<uint32_t> t = Exp8Table(scale);
    for (int i = 0; i < 256; ++i) (*bytes)[i] = static_cast<uint8_t>(t[i]);
    return true;
  }
  return false;
}

}  // namespace vlak::npu
