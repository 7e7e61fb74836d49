// Test sets, references and error statistics of the NPU softmax programs.
#include "npu/softmax_eval.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <random>

namespace vlak::npu {

bool RunRows(const std::string& program, int k, const Symbols& symbols, const std::vector<int8_t>& rows,
             std::vector<int64_t>* out, std::string* error) {
  Program prog;
  if (!Assemble(program, k, 32, symbols, &prog, error)) return false;
  const auto it = prog.labels.find("row");
  if (it == prog.labels.end()) {
    *error = "program has no 'row:' label";
    return false;
  }
  Machine m(k);
  Program setup;
  setup.code.assign(prog.code.begin(), prog.code.begin() + static_cast<std::ptrdiff_t>(it->second));
  if (!m.Run(setup, 0, error)) return false;
  m.SetInput(rows);
  const size_t n = rows.size() / static_cast<size_t>(k);
  for (size_t r = 0; r < n; ++r) {
    if (!m.Run(prog, it->second, error)) return false;
  }
  if (m.Output().size() != rows.size()) {
    *error = "program wrote " + std::to_string(m.Output().size()) + " outputs for " + std::to_string(rows.size()) + " inputs";
    return false;
  }
  *out = std::move(m.Output());
  return true;
}

bool RunSeedRows(int k, const std::vector<int8_t>& rows, std::vector<int64_t>* out, std::string* error) {
  Program prog;
  if (!Assemble(ProgramText("seed_softmax"), k, 32, {}, &prog, error)) return false;
  const size_t start = prog.labels.at("row");
  Machine m(k);
  Program setup;
  setup.code.assign(prog.code.begin(), prog.code.begin() + static_cast<std::ptrdiff_t>(start));
  if (!m.Run(setup, 0, error)) return false;
  const size_t n = rows.size() / static_cast<size_t>(k);
  for (size_t r = 0; r < n; ++r) {
    for (int i = 0; i < k; ++i) m.SetVX(0, i, static_cast<uint8_t>(rows[r * k + i]));
    if (!m.Run(prog, start, error)) return false;
  }
  *out = std::move(m.Output());
  return true;
}

void ReferenceI8(const int8_t* q, int k, double scale, int* y) {
  int mx = q[0];
  for (int i = 1; i < k; ++i) mx = std::max(mx, static_cast<int>(q[i]));
  double s = 0;
  for (int i = 0; i < k; ++i) s += std::exp(scale * (q[i] - mx));
  for (int i = 0; i < k; ++i) {
    const double p = std::exp(scale * (q[i] - mx)) / s;
    y[i] = static_cast<int>(std::clamp(std::floor(256.0 * p + 0.5) - 128.0, -128.0, 127.0));
  }
}

void ReferenceSeed(const int8_t* q, int k, int* y) {
  int mx = q[0];
  for (int i = 1; i < k; ++i) mx = std::max(mx, static_cast<int>(q[i]));
  double s = 0;
  for (int i = 0; i < k; ++i) s += std::exp((q[i] - mx) / 64.0);
  for (int i = 0; i < k; ++i) y[i] = static_cast<int>(std::floor(128.0 * std::exp((q[i] - mx) / 64.0) / s + 0.5));
}

void ErrorStats::Add(int64_t d) {
  ++n;
  sum += static_cast<double>(d);
  sum_abs += static_cast<double>(d < 0 ? -d : d);
  max_abs = std::max(max_abs, d < 0 ? -d : d);
  ++hist[static_cast<size_t>(std::clamp<int64_t>(d, -511, 511) + 511)];
}

void ErrorStats::Merge(const ErrorStats& o) {
  n += o.n;
  sum += o.sum;
  sum_abs += o.sum_abs;
  max_abs = std::max(max_abs, o.max_abs);
  for (size_t i = 0; i < hist.size(); ++i) hist[i] += o.hist[i];
}

int64_t ErrorStats::Median() const {
  int64_t seen = 0;
  for (size_t i = 0; i < hist.size(); ++i) {
    seen += hist[i];
    if (2 * seen >= n) return static_cast<int64_t>(i) - 511;
  }
  return 0;
}

std::vector<int8_t> AllPairsK2() {
  std::vector<int8_t> r;
  r.reserve(2 * 65536);
  for (int a = -128; a < 128; ++a) {
    for (int b = -128; b < 128; ++b) {
      r.push_back(static_cast<int8_t>(a));
      r.push_back(static_cast<int8_t>(b));
    }
  }
  return r;
}

std::vector<int8_t> DifferencePairsK3(int stride) {
  std::vector<int8_t> r;
  for (int a = -255; a <= 255; a += stride) {
    for (int b = -255; b <= 255; b += stride) {
      const int lo = std::min({0, a, b}), hi = std::max({0, a, b});
      if (hi - lo > 255) continue;
      const int c = -128 - lo;  // the lowest lane at -128
      r.push_back(static_cast<int8_t>(c));
      r.push_back(static_cast<int8_t>(c + a));
      r.push_back(static_cast<int8_t>(c + b));
    }
  }
  return r;
}

std::vector<int8_t> TwoLevel(int k, int stride) {
  std::vector<int8_t> r;
  for (int j = 1; j < k; j += (k > 16 && j >= 8 ? stride : 1)) {
    for (int g = 1; g <= 255; g += stride) {
      for (int i = 0; i < k; ++i) r.push_back(static_cast<int8_t>(i < j ? 127 : 127 - g));
    }
  }
  return r;
}

std::vector<int8_t> Bimodal(int k, size_t rows, uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<int8_t> r(rows * k);
  for (size_t row = 0; row < rows; ++row) {
    const int hi = static_cast<int>(rng() % 256) - 128;
    const int gap = 1 + static_cast<int>(rng() % 255);
    for (int i = 0; i < k; ++i) {
      const int centre = (rng() & 1) ? hi : hi - gap;
      const int v = centre + static_cast<int>(rng() % 9) - 4;
      r[row * k + i] = static_cast<int8_t>(std::clamp(v, -128, 127));
    }
  }
  return r;
}

std::vector<int8_t> RandomRows(int k, size_t rows, uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<int8_t> r(rows * k);
  for (auto& v : r) v = static_cast<int8_t>(rng() & 0xFF);
  return r;
}

std::vector<int8_t> SaturationRow(int k) {
  std::vector<int8_t> r(k, -128);
  r[0] = 127;
  return r;
}

bool Measure(const std::string& program, int k, double scale, const std::vector<int8_t>& rows, ErrorStats* stats,
             std::string* error) {
  std::vector<int64_t> y;
  if (!RunRows(program, k, {{"scale", {scale}}}, rows, &y, error)) return false;
  std::vector<int> ref(k);
  for (size_t r = 0; r < rows.size() / k; ++r) {
    ReferenceI8(&rows[r * k], k, scale, ref.data());
    for (int i = 0; i < k; ++i) stats->Add(y[r * k + i] - ref[i]);
  }
  return true;
}

std::string GemmSoftmaxProgram(int k, int depth, double scale, double step) {
  // VX16.. = K^T (lane j = key j, row m = feature m), VX24.. = Q^T (lane r = query r): mma gives
  // VR0 lane j = sum_m Q[r][m] K[j][m] for output row r. Index = round((max - acc) scale / step),
  // clamped to 255, computed as ((RTZ(fp(max - acc) * 2c) + 1) >> 1) with 2c = 2 scale / step
  // (max - acc >= 0, so RTZ is floor). VR2 holds 2c for the whole program.
  const float c2 = static_cast<float>(2.0 * scale / step);
  uint32_t c2_bits;
  std::memcpy(&c2_bits, &c2, 4);
  std::string p;
  p += "# GEMM + softmax: softmax(Q K^T * " + std::to_string(scale) + ") over mma, K = " + std::to_string(k) +
       ", depth " + std::to_string(depth) + ", index step " + std::to_string(step) + "\n";
  p += "lutload A, exp16z_hi, vr3, " + std::to_string(step) + "\n";
  p += "lutload B, exp16z_lo, vr3, " + std::to_string(step) + "\n";
  for (int m = 0; m < depth; ++m) p += "in vx" + std::to_string(16 + m) + "   # K^T row " + std::to_string(m) + "\n";
  for (int m = 0; m < depth; ++m) p += "in vx" + std::to_string(24 + m) + "   # Q^T row " + std::to_string(m) + "\n";
  p += "sli s6, " + std::to_string(static_cast<int32_t>(c2_bits)) + "   # 2 scale / step as fp32 bits\n";
  p += "ext.vr vr2, s6\nsli s7, 1\nsli s8, 255\nsli s5, 128\n";
  for (int r = 0; r < k; ++r) {
    const std::string rs = std::to_string(r);
    p += "# query row " + rs + "\n";
    p += "mma vr0, vx16, vx24, " + std::to_string(depth) + ", " + rs + "\n";
    p += "vrmax vr1, vr0\n"
         "vsub vr0, vr1, vr0          # max - acc >= 0\n"
         "vcvt_s32_f32 vr0, vr0\n"
         "vfmul vr0, vr0, vr2\n"
         "vcvt_f32_s32 vr0, vr0       # floor(2 (max - acc) c)\n"
         "ext.vr vr1, s7\n"
         "vadd vr0, vr0, vr1\n"
         "vsra vr0, vr0, vr1          # round((max - acc) c)\n"
         "ext.vr vr1, s8\n"
         "vmin vr0, vr0, vr1          # index <= 255: VX0 = the index byte\n"
         "vlut vx5, vx0, A\n"
         "vlut vx4, vx0, B\n"
         "vbcastImm vx6, 0\n"
         "vbcastImm vx7, 0            # VR1 = E\n"
         "vsum vr3, vr1\n"
         "sread s0, vr3\n"
         "srecip s1, s2, s0\n"
         "ext.vr vr3, s1\n"
         "vmul vr1, vr1, vr3\n"
         "sadd s3, s2, -1\n"
         "sli s4, 1\n"
         "sshl s4, s4, s3\n"
         "ext.vr vr3, s4\n"
         "vadd vr1, vr1, vr3\n"
         "ext.vr vr3, s2\n"
         "vsra vr1, vr1, vr3\n"
         "ext.vr vr3, s5\n"
         "vsub vr1, vr1, vr3\n"
         "vcvt_s32_s8 vr1, vr1, sat\n"
         "out vr1\n";
  }
  return p;
}

bool MeasureGemm(int k, int depth, double scale, double step, int trials, uint32_t seed, ErrorStats* stats,
                 std::string* error) {
  Program prog;
  if (!Assemble(GemmSoftmaxProgram(k, depth, scale, step), k, 32, {}, &prog, error)) return false;
  std::mt19937 rng(seed);
  std::vector<int8_t> kt(static_cast<size_t>(depth) * k), qt(static_cast<size_t>(depth) * k);
  std::vector<double> e(k);
  for (int t = 0; t < trials; ++t) {
    for (auto& v : kt) v = static_cast<int8_t>(rng() & 0xFF);
    for (auto& v : qt) v = static_cast<int8_t>(rng() & 0xFF);
    std::vector<int8_t> in(kt);
    in.insert(in.end(), qt.begin(), qt.end());
    Machine m(k);
    m.SetInput(in);
    if (!m.Run(prog, 0, error)) return false;
    const std::vector<int64_t>& y = m.Output();
    for (int r = 0; r < k; ++r) {
      // acc[j] = sum_m Q[r][m] K[j][m], exact in int64; float64 softmax of scale * acc.
      double mx = -1e300;
      for (int j = 0; j < k; ++j) {
        int64_t acc = 0;
        for (int mm = 0; mm < depth; ++mm) acc += int64_t{qt[mm * k + r]} * kt[mm * k + j];
        e[j] = scale * static_cast<double>(acc);
        mx = std::max(mx, e[j]);
      }
      double s = 0;
      for (int j = 0; j < k; ++j) s += (e[j] = std::exp(e[j] - mx));
      for (int j = 0; j < k; ++j) {
        const double ref = std::clamp(std::floor(256.0 * e[j] / s + 0.5) - 128.0, -128.0, 127.0);
        stats->Add(y[static_cast<size_t>(r) * k + j] - static_cast<int64_t>(ref));
      }
    }
  }
  return true;
}

}  // namespace vlak::npu
