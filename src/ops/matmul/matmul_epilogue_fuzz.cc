// Differential fuzz target of vlak_matmul_ex_f32 and the packed product (see fuzz_util.h): on
// every target and thread count, the same bits as the composition vlak.h names (vlak_matmul_f32,
// the bias added in float, then vlak_activation_f32, each on that target), and
// vlak_matmul_packed_f32 on B packed by vlak_matmul_pack_b_f32 the same bits again; the status as
// vlak.h's rules say, nothing written on an error, the gaps of C untouched.
#include <algorithm>

#include "fuzz/fuzz_util.h"

using namespace vlak_fuzz;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  OpInput in(data, size);
  const size_t m = in.Size(40), n = in.Size(140), k = in.Size(70);
  const uint8_t fb = in.Byte();
  const unsigned flags = fb & 3;
  const bool trans = flags & VLAK_MATMUL_TRANS_B;
  // Epilogue: bias or not, the activation (0..5, a fast tier, none, or an invalid op or flag).
  const uint8_t eb = in.Byte(), ab = in.Byte();
  const bool with_bias = eb & 1, null_epilogue = eb == 0xFF;
  unsigned ep_flags = (eb & 2) ? VLAK_EPILOGUE_ACTIVATION : 0u;
  if (eb == 0xFE) ep_flags |= 0x4u;  // unknown epilogue flag
  const int act = (ab & 0x80) ? ((ab & 7) | VLAK_ACT_FAST) : (ab & 7);  // 6, 7: not ops
  const bool act_ok = (act & 0xff) < 6;
  const bool bad_epilogue = !null_epilogue && ((ep_flags & ~VLAK_EPILOGUE_ACTIVATION) != 0 ||
                                               ((ep_flags & VLAK_EPILOGUE_ACTIVATION) && !act_ok));
  const size_t b_rows = trans ? n : k, b_cols = trans ? k : n;
  const size_t lda = k + in.Size(3), ldb = b_cols + in.Size(3), ldc = n + in.Size(3);
  const size_t ae = Extent(m, k, lda), be = Extent(b_rows, b_cols, ldb), ce = Extent(m, n, ldc);
  if (ae > kMaxElems || be > kMaxElems || ce > kMaxElems) return 0;
  Buffer a(ae), b(be), c0(ce), bias(n);
  FillFloats(in, a.data(), a.size());
  FillFloats(in, b.data(), b.size());
  FillFloats(in, c0.data(), c0.size());
  FillFloats(in, bias.data(), bias.size());
  for (size_t i = 0; i < ce; ++i) {
    if (i % std::max<size_t>(ldc, 1) >= n) c0[i] = kSentinel;
  }
  vlak_matmul_epilogue ep{};
  ep.bias = with_bias ? bias.data() : nullptr;
  ep.flags = ep_flags;
  ep.activation = static_cast<vlak_activation>(act);
  const bool applies = !null_epilogue && !bad_epilogue;
  Describe("vlak_matmul_ex_f32(m %zu, n %zu, k %zu, lda %zu, ldb %zu, ldc %zu, flags 0x%x, bias %d, ep flags 0x%x, "
           "act 0x%x%s) threads %d",
           m, n, k, lda, ldb, ldc, flags, with_bias, ep_flags, act, null_epilogue ? ", NULL epilogue" : "",
           vlak_get_num_threads());
  std::vector<float> first;
  for (vlak_target t : Targets()) {
    vlak_set_target(t);
    Buffer c(ce), want(ce);
    std::copy(c0.data(), c0.data() + ce, c.data());
    std::copy(c0.data(), c0.data() + ce, want.data());
    const vlak_status st = vlak_matmul_ex_f32(m, n, k, a.data(), lda, b.data(), ldb, c.data(), ldc, flags,
                                              null_epilogue ? nullptr : &ep);
    if (!HasResults(st, bad_epilogue, /*empty=*/false, t, c, c0)) continue;
    // The composition, by the public functions on this target.
    Check(vlak_matmul_f32(m, n, k, a.data(), lda, b.data(), ldb, want.data(), ldc, flags) == VLAK_OK,
          "vlak_matmul_f32 failed", t);
    for (size_t i = 0; i < m && n > 0 && applies; ++i) {
      float* row = want.data() + i * ldc;
      if (with_bias)
        for (size_t j = 0; j < n; ++j) row[j] += bias[j];
      if (ep_flags & VLAK_EPILOGUE_ACTIVATION) vlak_activation_f32(n, row, row, ep.activation);
    }
    for (size_t i = 0; i < ce; ++i) Check(SameValue(c[i], want[i]), "differs from the composition", t, i, c[i], want[i]);
    // B packed once, then the packed product: the same bits (ACCUMULATE only; TRANS_B is the pack's).
    const size_t pbytes = vlak_matmul_packed_size_f32(k, n);
    std::vector<float> packed(pbytes / sizeof(float) + 1);
    Check(vlak_matmul_pack_b_f32(k, n, b.data(), ldb, flags & VLAK_MATMUL_TRANS_B, packed.data(), pbytes) == VLAK_OK,
          "vlak_matmul_pack_b_f32 failed", t);
    Buffer cp(ce);
    std::copy(c0.data(), c0.data() + ce, cp.data());
    Check(vlak_matmul_packed_f32(m, n, k, a.data(), lda, packed.data(), cp.data(), ldc, flags & VLAK_MATMUL_ACCUMULATE,
                                 null_epilogue ? nullptr : &ep) == VLAK_OK,
          "vlak_matmul_packed_f32 failed", t);
    for (size_t i = 0; i < ce; ++i) Check(SameValue(cp[i], c[i]), "packed differs from vlak_matmul_ex_f32", t, i, cp[i], c[i]);
    // Across targets the bits are the same (vlak.h: within an architecture, and x86's targets are
    // one), but for the fast sigmoid and silu, whose AVX2 and AVX-512 forms have bits of their own
    // (vlak.h).
    if (act == (VLAK_ACT_SIGMOID | VLAK_ACT_FAST) || act == (VLAK_ACT_SILU | VLAK_ACT_FAST)) continue;
    if (!first.empty()) {
      for (size_t i = 0; i < ce; ++i) Check(SameValue(c[i], first[i]), "targets differ (vlak.h: same bits)", t, i, c[i], first[i]);
    } else {
      first = c.Copy();
    }
  }
  return 0;
}
