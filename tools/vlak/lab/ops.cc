#include "lab/ops.h"

#include <cmath>
#include <cstdlib>
#include <thread>

#include "vlak/vlak.h"

#if defined(_OPENMP)
#include <omp.h>
#endif

namespace vlak::lab {

std::string Shape::Text() const {
  std::string s;
  for (size_t i = 0; i < dims.size(); ++i) s += (i ? "x" : "") + std::to_string(dims[i]);
  return s;
}

size_t Shape::Elements() const {
  size_t n = 1;
  for (size_t d : dims) n *= d;
  return n;
}

bool ParseDims(const std::string& text, std::vector<size_t>* dims, std::string* err) {
  dims->clear();
  size_t p = 0;
  while (p <= text.size()) {
    const size_t x = text.find('x', p);
    const std::string part = text.substr(p, x == std::string::npos ? std::string::npos : x - p);
    char* end = nullptr;
    const unsigned long long v = part.empty() ? 0 : std::strtoull(part.c_str(), &end, 10);
    unsigned long long mult = 1;
    if (end && *end == 'K' && end[1] == '\0') mult = 1024, ++end;
    else if (end && *end == 'M' && end[1] == '\0') mult = 1024 * 1024, ++end;
    if (part.empty() || end == nullptr || *end != '\0' || v == 0 || part[0] == '-' || part[0] == '+') {
      *err = "bad shape '" + text + "' (dims are positive integers joined by x, e.g. 256x2048 or 1M)";
      return false;
    }
    dims->push_back(static_cast<size_t>(v * mult));
    if (x == std::string::npos) break;
    p = x + 1;
  }
  return true;
}

const ImplDef* OpDef::Find(const std::string& impl) const {
  for (const auto& i : impls) if (i.name == impl) return &i;
  return nullptr;
}

std::string OpDef::ImplNames() const {
  std::string s;
  for (const auto& i : impls) s += (s.empty() ? "" : " ") + i.name;
  return s;
}

const std::vector<OpDef>& Operators() {
  static const std::vector<OpDef> ops = {MakeSoftmaxOp(), MakeExpOp()};
  return ops;
}

const OpDef* FindOp(const std::string& name) {
  for (const auto& op : Operators()) if (op.name == name) return &op;
  return nullptr;
}

std::string OpNames() {
  std::string s;
  for (const auto& op : Operators()) s += (s.empty() ? "" : " ") + op.name;
  return s;
}

int CpuCount() {
  const unsigned n = std::thread::hardware_concurrency();
  return n == 0 ? 1 : static_cast<int>(n);
}

void ParallelBlocks(int threads, size_t count, const std::function<void(size_t, size_t)>& fn) {
  if (threads <= 1 || count <= 1) {
    fn(0, count);
    return;
  }
  const size_t t = static_cast<size_t>(threads) < count ? static_cast<size_t>(threads) : count;
  const auto block = [&](size_t i) { fn(count * i / t, count * (i + 1) / t); };
#if defined(_OPENMP)
#pragma omp parallel for num_threads(static_cast<int>(t)) schedule(static, 1)
  for (size_t i = 0; i < t; ++i) block(i);
#else
  std::vector<std::thread> pool;
  for (size_t i = 1; i < t; ++i) pool.emplace_back(block, i);
  block(0);
  for (auto& th : pool) th.join();
#endif
}

int DefaultVlakTarget() {
  // Read once, before the runner forces anything: what a user of the library gets.
  static const int t = static_cast<int>(vlak_active_target());
  return t;
}

Accuracy ElementwiseAccuracy(const std::vector<double>& ref, const float* y, double rel_floor) {
  Accuracy a;
  double sig = 0, noise = 0;
  for (size_t i = 0; i < ref.size(); ++i) {
    const double r = ref[i], v = y[i];
    if (!std::isfinite(r)) continue;  // special values are the tests' business, not the lab's
    if (!std::isfinite(v)) {
      ++a.nonfinite;
      a.max_rel = a.max_abs = INFINITY;
      noise = INFINITY;
      continue;
    }
    const double d = std::fabs(v - r);
    a.max_abs = std::fmax(a.max_abs, d);
    if (std::fabs(r) >= rel_floor) a.max_rel = std::fmax(a.max_rel, d / std::fabs(r));
    sig += r * r;
    noise += d * d;
  }
  a.snr_db = noise == 0 ? INFINITY : 10.0 * std::log10(sig / noise);
  return a;
}

}  // namespace vlak::lab
