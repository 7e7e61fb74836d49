// Differential fuzz target of vlak_quantize_f32, vlak_dequantize_f32, vlak_matmul_q_f32 and its packed form (see
// fuzz_util.h). The first byte picks the call. Quantize: ggml's bytes (the reference's) on every
// target, or VLAK_ERROR_INVALID_ARGUMENT for a non-finite input with nothing written. Dequantize
// of fuzzed blocks (any fp16 scale: subnormal, inf, NaN): the reference's floats on every target.
// Matmul with fuzzed blocks: vlak.h's bound of its mode, non-finite where the reference is; W
// repacked, the same bits (exact weights) or the same bound.
// Everywhere: the status of vlak.h's rules, nothing written on error or in the gaps.
#include <algorithm>
#include <limits>
#include <vector>

#include "fuzz/fuzz_util.h"
#include "ops/quant/quant.h"

using namespace vlak_fuzz;

namespace {

constexpr vlak_qtype kTypes[] = {VLAK_Q8_0, VLAK_Q4_0, VLAK_Q4_1};

void FillBytes(Input& in, std::vector<uint8_t>& b) {
  Rng rng(in.Bits(4) + 1);
  for (auto& v : b) v = static_cast<uint8_t>(rng.Next());
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  OpInput in(data, size);
  const uint8_t op = in.Byte() % 3;
  const uint8_t tb = in.Byte();
  const vlak_qtype t = tb < 250 ? kTypes[tb % 3] : static_cast<vlak_qtype>(tb & 15);
  const bool known = vlak::QBlockBytes(t) != 0;
  size_t k = 32 * in.Size(20);
  if (in.Byte() == 7) k += 1 + in.Size(30);  // not a multiple of 32
  const size_t rb = known && k % 32 == 0 ? vlak_qtype_row_bytes(t, k) : 0;
  const uint8_t nulls = in.Byte() % 8;

  if (op < 2) {
    const size_t rows = in.Size(6);
    const size_t xs = Stride(in, rows, k);
    const uint8_t qsb = in.Byte();
    const size_t qs = qsb < 200 ? rb + (qsb & 7) : qsb < 220 ? (rb > 0 ? rb - 1 : 0) : SIZE_MAX / 2 + qsb;
    const bool empty = rows == 0 || k == 0;
    bool expect_error = !known || k % 32 != 0 ||
                        (!empty && (nulls == 1 || nulls == 2 || xs < k || qs < rb || ExtentOverflows(rows, k, xs) ||
                                    (rows > 1 && (rows - 1) > (SIZE_MAX - rb) / std::max<size_t>(qs, 1))));
    const size_t xe = xs >= k ? Extent(rows, k, xs) : 0;
    const size_t qe = (!expect_error && !empty) ? (rows - 1) * qs + rb : 0;
    if (xe > kMaxElems || qe > 4 * kMaxElems) return 0;
    Buffer x(xe);
    FillFloats(in, x.data(), x.size());
    std::vector<uint8_t> q0(qe);
    FillBytes(in, q0);
    Describe("%s(t %d, rows %zu, k %zu, x_stride %zu, q_stride %zu, nulls %d)", op == 0 ? "vlak_quantize_f32" : "vlak_dequantize_f32",
             static_cast<int>(t), rows, k, xs, qs, nulls);
    if (op == 0) {
      bool finite = true;
      for (size_t i = 0; i < rows && !expect_error; ++i)
        for (size_t p = 0; p < k; ++p) finite = finite && std::isfinite(x[i * xs + p]);
      if (!finite) expect_error = true;
      std::vector<uint8_t> want(qe);
      if (!expect_error && !empty) {
        want = q0;
        for (size_t i = 0; i < rows; ++i) vlak::QuantizeRowReference(t, k, x.data() + i * xs, want.data() + i * qs);
      }
      for (vlak_target tg : Targets()) {
        vlak_set_target(tg);
        std::vector<uint8_t> q = q0;
        const vlak_status st = vlak_quantize_f32(t, rows, k, nulls == 1 ? nullptr : x.data(), xs,
                                                 nulls == 2 ? nullptr : q.data(), qs);
        CheckStatus(st, expect_error, tg);
        const std::vector<uint8_t>& ref = st == VLAK_OK && !empty ? want : q0;
        for (size_t i = 0; i < qe; ++i) Check(q[i] == ref[i], "bytes differ from ggml's (or written on error)", tg, i, q[i], ref[i]);
      }
    } else {
      // Dequantize: q0 holds the blocks; x is the output.
      std::vector<double> want(k);
      for (vlak_target tg : Targets()) {
        vlak_set_target(tg);
        Buffer y(xe);
        y.Fill(kSentinel);
        const vlak_status st = vlak_dequantize_f32(t, rows, k, nulls == 1 ? nullptr : q0.data(), qs,
                                                   nulls == 2 ? nullptr : y.data(), xs);
        CheckStatus(st, expect_error, tg);
        for (size_t i = 0; i < xe; ++i) {
          const size_t r = i / std::max<size_t>(xs, 1), p = i % std::max<size_t>(xs, 1);
          if (st != VLAK_OK || empty || p >= k) {
            Check(Bits(y[i]) == Bits(kSentinel), "written on error or in a gap", tg, i, y[i]);
            continue;
          }
          if (p == 0) vlak::DequantizeRowReference(t, k, q0.data() + r * qs, want.data());
          Check(std::isnan(want[p]) ? std::isnan(y[i]) : static_cast<double>(y[i]) == want[p], "not ggml's float", tg, i,
                y[i], want[p]);
        }
      }
    }
    return 0;
  }

  // Matmul.
  const size_t m = in.Size(20), n = in.Size(40);
  const uint8_t fb = in.Byte();
  const unsigned flags = fb < 240 ? (fb & 1) : 0x2u << (fb & 7);
  const size_t lda = Stride(in, m, k), ldc = Stride(in, m, n);
  const uint8_t wsb = in.Byte();
  const size_t ws = wsb < 220 ? rb + (wsb & 3) : (rb > 0 ? rb - 1 : 0);
  const bool empty = m == 0 || n == 0;
  const bool expect_error =
      (flags & ~1u) != 0 || !known || k % 32 != 0 ||
      (!empty && (nulls == 3 || (k != 0 && (nulls == 1 || nulls == 2)) || lda < k || ldc < n || (k != 0 && ws < rb) ||
                  ExtentOverflows(m, k, lda) || ExtentOverflows(m, n, ldc)));
  const size_t ae = lda >= k ? Extent(m, k, lda) : 0;
  const size_t ce = ldc >= n ? Extent(m, n, ldc) : 0;
  const size_t we = (known && n > 0) ? (n - 1) * ws + rb : 0;
  if (ae > kMaxElems || ce > kMaxElems || we > 4 * kMaxElems) return 0;
  Buffer a(ae);
  FillFloats(in, a.data(), a.size());
  std::vector<uint8_t> w(we);
  FillBytes(in, w);
  // Tame scales unless asked: the byte says which blocks keep raw fp16 bits.
  const uint8_t raw = in.Byte();
  if (known && rb > 0) {
    const size_t bb = vlak::QBlockBytes(t);
    for (size_t j = 0; j < n; ++j) {
      for (size_t b = 0; b < k / 32; ++b) {
        uint8_t* blk = w.data() + j * ws + b * bb;
        if ((j * 7 + b) % 8 >= (raw & 7)) {
          blk[1] &= 0x3F;  // |d| < 2: finite, subnormal to normal
          if (t == VLAK_Q4_1) blk[3] &= 0x3F;
        }
      }
    }
  }
  Describe("vlak_matmul_q_f32(m %zu, n %zu, k %zu, lda %zu, t %d, ws %zu, ldc %zu, flags 0x%x, nulls %d) threads %d", m, n,
           k, lda, static_cast<int>(t), ws, ldc, flags, nulls, vlak_get_num_threads());
  Buffer c0(ce);
  for (size_t i = 0; i < ce; ++i) c0[i] = kSentinel;
  std::vector<double> c64, abs64, err64, s64;
  const bool qa = flags & VLAK_MATMUL_Q_QUANTIZE_A;
  if (!expect_error && !empty && k > 0) {
    c64.resize(m * n), abs64.resize(m * n), err64.resize(m * n), s64.resize(m * n);
    const vlak::QMatmulArgs g{m, n, k, a.data(), lda, t, w.data(), ws, c0.data(), ldc};
    vlak::MatmulQReferenceF64(g, false, c64.data(), abs64.data(), nullptr, nullptr);
    if (qa) {
      std::vector<double> cq(m * n);
      vlak::MatmulQReferenceF64(g, true, cq.data(), nullptr, err64.data(), s64.data());
    }
  }
  for (vlak_target tg : Targets()) {
    vlak_set_target(tg);
    Buffer c(ce);
    std::copy(c0.data(), c0.data() + ce, c.data());
    const vlak_status st = vlak_matmul_q_f32(m, n, k, nulls == 1 ? nullptr : a.data(), lda, t,
                                             nulls == 2 ? nullptr : w.data(), ws, nulls == 3 ? nullptr : c.data(), ldc,
                                             flags, nullptr);
    CheckStatus(st, expect_error, tg);
    // W repacked (vlak_matmul_q_pack) gives the same C where vlak.h says so, else the same bound.
    Buffer cp(ce);
    std::copy(c0.data(), c0.data() + ce, cp.data());
    bool packed_run = false;
    if (st == VLAK_OK && !empty && k > 0) {
      const size_t bytes = vlak_matmul_q_packed_size(t, n, k);
      std::vector<uint8_t> packed(bytes);
      Check(vlak_matmul_q_pack(t, n, k, w.data(), ws, packed.data(), bytes) == VLAK_OK, "pack failed", tg, 0);
      Check(vlak_matmul_q_packed_f32(m, n, k, a.data(), lda, packed.data(), cp.data(), ldc, flags, nullptr) == VLAK_OK,
            "packed product failed", tg, 0);
      packed_run = true;
    }
    for (const Buffer* out : {&c, &cp}) {
      if (out == &cp && !packed_run) break;
      for (size_t i = 0; i < ce; ++i) {
        const float ci = (*out)[i];
        const size_t r = i / std::max<size_t>(ldc, 1), j = i % std::max<size_t>(ldc, 1);
        if (st != VLAK_OK || empty || j >= n) {
          Check(Bits(ci) == Bits(kSentinel), "written on error or in a gap", tg, i, ci);
          continue;
        }
        if (k == 0) {
          Check(ci == 0.0f, "k == 0 must give 0", tg, i, ci);
          continue;
        }
        if (out == &cp && !qa) {
          Check(Bits(ci) == Bits(c[i]), "packed exact weights differ from the rows' bits", tg, i, ci, c[i]);
          continue;
        }
        const double ref = c64[r * n + j], scale = abs64[r * n + j];
        if (!std::isfinite(ref) || !std::isfinite(scale)) {
          // A non-finite weight or activation: the result is not finite either (vlak.h).
          if (!std::isfinite(ref) && std::isnan(scale)) Check(!std::isfinite(ci), "finite despite a NaN", tg, i, ci, ref);
          continue;
        }
        if (qa) {
          if (!(s64[r * n + j] < 1e30) || !std::isfinite(err64[r * n + j])) continue;  // d_a overflowed fp16
          const double bound = err64[r * n + j] + 2.0 * k * 0x1p-24 * s64[r * n + j];
          Check(Within(ci, ref, bound, 4.0 * k), "C outside vlak.h's quantized-activations bound", tg, i, ci, ref);
        } else {
          if (!(scale < std::numeric_limits<float>::max())) continue;
          Check(Within(ci, ref, 2.0 * k * 0x1p-24 * scale, 2.0 * k), "C outside vlak.h's bound", tg, i, ci, ref);
        }
      }
    }
  }
  return 0;
}
