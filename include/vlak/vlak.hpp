// vlak C++ API: thin overloads of the C API over std::span (allocation-free, but PackB, which
// sizes the vector it is given).
#pragma once

#include <span>
#include <vector>

#include "vlak/vlak.h"

namespace vlak {

// Softmax of one contiguous row: y.size() must equal x.size().
inline vlak_status Softmax(std::span<const float> x, std::span<float> y, unsigned flags = 0) {
  if (x.size() != y.size()) return VLAK_ERROR_INVALID_ARGUMENT;
  if (x.empty()) return VLAK_OK;
  return vlak_softmax_f32(1, x.size(), x.data(), x.size(), y.data(), y.size(), flags);
}

// Row-wise softmax of a rows x cols matrix stored densely (stride = cols) in x and y.
inline vlak_status Softmax(std::span<const float> x, std::span<float> y, size_t rows, size_t cols,
                           unsigned flags = 0) {
  if (cols != 0 && rows > x.size() / cols) return VLAK_ERROR_INVALID_ARGUMENT;
  if (x.size() != rows * cols || y.size() != rows * cols) return VLAK_ERROR_INVALID_ARGUMENT;
  if (rows == 0 || cols == 0) return VLAK_OK;
  return vlak_softmax_f32(rows, cols, x.data(), cols, y.data(), cols, flags);
}

// INT8 / UINT8 softmax (vlak.h) of x viewed as dense rows of `cols` (cols > 0 divides x.size());
// y.size() must equal x.size(). Empty x: VLAK_OK.
inline vlak_status SoftmaxI8(std::span<const int8_t> x, std::span<int8_t> y, size_t cols, float input_scale,
                             unsigned flags = VLAK_SOFTMAX_I8_TFLITE) {
  if (x.size() != y.size() || cols == 0 || x.size() % cols != 0) return VLAK_ERROR_INVALID_ARGUMENT;
  return vlak_softmax_i8(x.size() / cols, cols, x.data(), cols, input_scale, y.data(), cols, flags);
}
inline vlak_status SoftmaxU8(std::span<const uint8_t> x, std::span<uint8_t> y, size_t cols, float input_scale,
                             unsigned flags = VLAK_SOFTMAX_I8_TFLITE) {
  if (x.size() != y.size() || cols == 0 || x.size() % cols != 0) return VLAK_ERROR_INVALID_ARGUMENT;
  return vlak_softmax_u8(x.size() / cols, cols, x.data(), cols, input_scale, y.data(), cols, flags);
}

// ---- activations ------------------------------------------------------------------------------
// y = act(x) element by element: y.size() must equal x.size() (y may be x's memory).
inline vlak_status Activation(std::span<const float> x, std::span<float> y, vlak_activation op) {
  if (x.size() != y.size()) return VLAK_ERROR_INVALID_ARGUMENT;
  return vlak_activation_f32(x.size(), x.data(), y.data(), op);
}
// In place: x = act(x).
inline vlak_status Activation(std::span<float> x, vlak_activation op) {
  return vlak_activation_f32(x.size(), x.data(), x.data(), op);
}

// y = act(gate) * up for gate, up and y viewed as dense rows of `cols` (cols > 0 divides the
// size; the three sizes equal). y may be gate's or up's memory.
inline vlak_status Glu(std::span<const float> gate, std::span<const float> up, std::span<float> y, size_t cols,
                       vlak_activation op) {
  if (gate.size() != up.size() || gate.size() != y.size()) return VLAK_ERROR_INVALID_ARGUMENT;
  if (cols == 0 || gate.size() % cols != 0) return VLAK_ERROR_INVALID_ARGUMENT;
  return vlak_glu_f32(gate.size() / cols, cols, gate.data(), cols, up.data(), cols, y.data(), cols, op);
}

// ---- transformer operators over dense rows (stride = cols). An empty optional span is NULL. ----
namespace detail {
// rows = size / cols when cols divides size (and cols > 0); false otherwise.
inline bool DenseRows(size_t size, size_t cols, size_t* rows) {
  if (cols == 0 || size % cols != 0) return false;
  *rows = size / cols;
  return true;
}
template <class T>
inline T* OrNull(std::span<T> s) { return s.empty() ? nullptr : s.data(); }
}  // namespace detail

// LayerNorm of x viewed as rows of `cols`; gamma/beta empty or cols long; mean/rstd empty or one
// per row.
inline vlak_status LayerNorm(std::span<const float> x, std::span<float> y, size_t cols,
                             std::span<const float> gamma = {}, std::span<const float> beta = {}, float eps = 1e-5f,
                             std::span<float> mean = {}, std::span<float> rstd = {}) {
  size_t rows;
  if (!detail::DenseRows(x.size(), cols, &rows) || y.size() != x.size()) return VLAK_ERROR_INVALID_ARGUMENT;
  if ((!gamma.empty() && gamma.size() != cols) || (!beta.empty() && beta.size() != cols)) return VLAK_ERROR_INVALID_ARGUMENT;
  if ((!mean.empty() && mean.size() != rows) || (!rstd.empty() && rstd.size() != rows)) return VLAK_ERROR_INVALID_ARGUMENT;
  return vlak_layernorm_f32(rows, cols, x.data(), cols, detail::OrNull(gamma), detail::OrNull(beta), eps, y.data(),
                            cols, detail::OrNull(mean), detail::OrNull(rstd));
}

// LayerNorm's gradient; dgamma/dbeta empty (not computed) or cols long.
inline vlak_status LayerNormBackward(std::span<const float> dy, std::span<const float> x, size_t cols,
                                     std::span<const float> gamma, std::span<const float> mean,
                                     std::span<const float> rstd, std::span<float> dx, std::span<float> dgamma = {},
                                     std::span<float> dbeta = {}) {
  size_t rows;
  if (!detail::DenseRows(x.size(), cols, &rows) || dy.size() != x.size() || dx.size() != x.size()) {
    return VLAK_ERROR_INVALID_ARGUMENT;
  }
  if (mean.size() != rows || rstd.size() != rows || (!gamma.empty() && gamma.size() != cols)) {
    return VLAK_ERROR_INVALID_ARGUMENT;
  }
  if ((!dgamma.empty() && dgamma.size() != cols) || (!dbeta.empty() && dbeta.size() != cols)) {
    return VLAK_ERROR_INVALID_ARGUMENT;
  }
  return vlak_layernorm_backward_f32(rows, cols, dy.data(), x.data(), cols, detail::OrNull(gamma), mean.data(),
                                     rstd.data(), dx.data(), detail::OrNull(dgamma), detail::OrNull(dbeta));
}

// RMSNorm of x viewed as rows of `cols`; gamma empty or cols long.
inline vlak_status RmsNorm(std::span<const float> x, std::span<float> y, size_t cols, std::span<const float> gamma = {},
                           float eps = 1e-6f) {
  size_t rows;
  if (!detail::DenseRows(x.size(), cols, &rows) || y.size() != x.size()) return VLAK_ERROR_INVALID_ARGUMENT;
  if (!gamma.empty() && gamma.size() != cols) return VLAK_ERROR_INVALID_ARGUMENT;
  return vlak_rmsnorm_f32(rows, cols, x.data(), cols, detail::OrNull(gamma), eps, y.data(), cols);
}

// LayerNorm(x + r) of dense rows of `cols`; y, sum (empty: not written) as long as x; gamma, beta
// empty or cols long. y or sum may be the same span as x or r (in place).
inline vlak_status AddLayerNorm(std::span<const float> x, std::span<const float> r, std::span<float> y, size_t cols,
                                std::span<const float> gamma = {}, std::span<const float> beta = {},
                                float eps = 1e-5f, std::span<float> sum = {}) {
  size_t rows;
  if (!detail::DenseRows(x.size(), cols, &rows) || r.size() != x.size() || y.size() != x.size()) {
    return VLAK_ERROR_INVALID_ARGUMENT;
  }
  if ((!sum.empty() && sum.size() != x.size()) || (!gamma.empty() && gamma.size() != cols) ||
      (!beta.empty() && beta.size() != cols)) {
    return VLAK_ERROR_INVALID_ARGUMENT;
  }
  return vlak_add_layernorm_f32(rows, cols, x.data(), cols, r.data(), cols, detail::OrNull(gamma),
                                detail::OrNull(beta), eps, y.data(), cols, detail::OrNull(sum), cols);
}

// RMSNorm(x + r) of dense rows of `cols`, as AddLayerNorm.
inline vlak_status AddRmsNorm(std::span<const float> x, std::span<const float> r, std::span<float> y, size_t cols,
                              std::span<const float> gamma = {}, float eps = 1e-6f, std::span<float> sum = {}) {
  size_t rows;
  if (!detail::DenseRows(x.size(), cols, &rows) || r.size() != x.size() || y.size() != x.size()) {
    return VLAK_ERROR_INVALID_ARGUMENT;
  }
  if ((!sum.empty() && sum.size() != x.size()) || (!gamma.empty() && gamma.size() != cols)) {
    return VLAK_ERROR_INVALID_ARGUMENT;
  }
  return vlak_add_rmsnorm_f32(rows, cols, x.data(), cols, r.data(), cols, detail::OrNull(gamma), eps, y.data(), cols,
                              detail::OrNull(sum), cols);
}

// RoPE of x = [positions][rows_per_position][head_dim] with dense tables (head_dim / 2 per
// position, as vlak_rope_tables_f32 fills them with table_stride = head_dim / 2).
inline vlak_status Rope(std::span<const float> x, std::span<const float> cos, std::span<const float> sin,
                        std::span<float> y, size_t positions, size_t rows_per_position, size_t head_dim,
                        unsigned flags = VLAK_ROPE_HALVES) {
  const size_t half = head_dim / 2;
  if (rows_per_position != 0 && positions > SIZE_MAX / rows_per_position) return VLAK_ERROR_OVERFLOW;
  const size_t rows = positions * rows_per_position;
  if (head_dim != 0 && rows > SIZE_MAX / head_dim) return VLAK_ERROR_OVERFLOW;
  if (x.size() != rows * head_dim || y.size() != x.size()) return VLAK_ERROR_INVALID_ARGUMENT;
  if (half != 0 && (cos.size() / half < positions || sin.size() / half < positions)) return VLAK_ERROR_INVALID_ARGUMENT;
  return vlak_rope_f32(positions, rows_per_position, head_dim, x.data(), cos.data(), sin.data(), half, y.data(), flags);
}

// ---- matmul -------------------------------------------------------------------------------
// C = A * B (or A * B^T with VLAK_MATMUL_TRANS_B, C += ... with VLAK_MATMUL_ACCUMULATE) for dense
// row-major A (m x k), B (k x n, or n x k) and C (m x n): each span's size must be exactly that.
inline vlak_status Matmul(std::span<const float> a, std::span<const float> b, std::span<float> c, size_t m, size_t n,
                          size_t k, unsigned flags = 0) {
  auto holds = [](size_t size, size_t rows, size_t cols) {
    return (cols == 0 || rows <= size / cols) && size == rows * cols;
  };
  if (!holds(a.size(), m, k) || !holds(b.size(), k, n) || !holds(c.size(), m, n)) return VLAK_ERROR_INVALID_ARGUMENT;
  const size_t ldb = (flags & VLAK_MATMUL_TRANS_B) != 0 ? k : n;
  return vlak_matmul_f32(m, n, k, a.data(), k, b.data(), ldb, c.data(), n, flags);
}

// The same with an epilogue (vlak_matmul_ex_f32): C = act(A * B + bias). A bias, when the
// epilogue has one, must hold n floats: the span form of a Linear layer is
// Matmul(x, w, y, tokens, out, in, VLAK_MATMUL_TRANS_B, {bias.data(), VLAK_EPILOGUE_ACTIVATION, VLAK_ACT_GELU}).
inline vlak_status Matmul(std::span<const float> a, std::span<const float> b, std::span<float> c, size_t m, size_t n,
                          size_t k, unsigned flags, const vlak_matmul_epilogue& epilogue) {
  auto holds = [](size_t size, size_t rows, size_t cols) {
    return (cols == 0 || rows <= size / cols) && size == rows * cols;
  };
  if (!holds(a.size(), m, k) || !holds(b.size(), k, n) || !holds(c.size(), m, n)) return VLAK_ERROR_INVALID_ARGUMENT;
  const size_t ldb = (flags & VLAK_MATMUL_TRANS_B) != 0 ? k : n;
  return vlak_matmul_ex_f32(m, n, k, a.data(), k, b.data(), ldb, c.data(), n, flags, &epilogue);
}

// B packed once (vlak_matmul_pack_b_f32) into `packed`, resized to fit: b holds B (k x n, or n x k
// with VLAK_MATMUL_TRANS_B, a Linear layer's [out][in]) densely.
inline vlak_status PackB(std::span<const float> b, size_t k, size_t n, unsigned flags, std::vector<float>& packed) {
  if ((n != 0 && k > SIZE_MAX / n) || b.size() != k * n) return VLAK_ERROR_INVALID_ARGUMENT;
  const size_t bytes = vlak_matmul_packed_size_f32(k, n);
  if (bytes == 0) return VLAK_ERROR_OVERFLOW;
  packed.assign((bytes + sizeof(float) - 1) / sizeof(float), 0.0f);
  const size_t ldb = (flags & VLAK_MATMUL_TRANS_B) != 0 ? k : n;
  return vlak_matmul_pack_b_f32(k, n, b.data(), ldb, flags, packed.data(), packed.size() * sizeof(float));
}

// C = act(A * B + bias) with B packed by PackB (vlak_matmul_packed_f32): a (m x k) and c (m x n)
// dense.
inline vlak_status MatmulPacked(std::span<const float> a, const std::vector<float>& packed, std::span<float> c,
                                size_t m, size_t n, size_t k, unsigned flags = 0,
                                const vlak_matmul_epilogue* epilogue = nullptr) {
  if ((k != 0 && m > SIZE_MAX / k) || (n != 0 && m > SIZE_MAX / n) || a.size() != m * k || c.size() != m * n ||
      packed.size() * sizeof(float) < vlak_matmul_packed_size_f32(k, n)) {
    return VLAK_ERROR_INVALID_ARGUMENT;
  }
  return vlak_matmul_packed_f32(m, n, k, a.data(), k, packed.data(), c.data(), n, flags, epilogue);
}

// ---- attention -----------------------------------------------------------------------------
// Fused attention (vlak_attention_f32) with the layout in p (sizes, strides, flags, bias, lse):
// each span must hold its tensor's last element (b, h, i, d at the largest indices), else
// VLAK_ERROR_INVALID_ARGUMENT; an empty k or v is NULL (allowed when kv_len == 0).
namespace detail {
// Elements from the base to the last element + 1 of a [dims] tensor, 0 if any extent is 0, or
// SIZE_MAX on overflow (no span holds that many).
inline size_t AttentionExtent(size_t d0, size_t d1, size_t d2, const size_t* strides, size_t last) {
  if (d0 == 0 || d1 == 0 || d2 == 0 || last == 0) return 0;
  const size_t dims[3] = {d0, d1, d2};
  size_t off = last;
  for (int i = 0; i < 3; ++i) {
    size_t t;
    if (__builtin_mul_overflow(dims[i] - 1, strides[i], &t) || __builtin_add_overflow(off, t, &off)) return SIZE_MAX;
  }
  return off;
}
}  // namespace detail
inline vlak_status Attention(const vlak_attention_params& p, std::span<const float> q, std::span<const float> k,
                             std::span<const float> v, std::span<float> o) {
  using detail::AttentionExtent;
  if (q.size() < AttentionExtent(p.batch, p.q_heads, p.q_len, p.q_strides, p.head_dim) ||
      k.size() < AttentionExtent(p.batch, p.kv_heads, p.kv_len, p.k_strides, p.head_dim) ||
      v.size() < AttentionExtent(p.batch, p.kv_heads, p.kv_len, p.v_strides, p.value_dim) ||
      o.size() < AttentionExtent(p.batch, p.q_heads, p.q_len, p.o_strides, p.value_dim)) {
    return VLAK_ERROR_INVALID_ARGUMENT;
  }
  return vlak_attention_f32(&p, q.empty() ? nullptr : q.data(), k.empty() ? nullptr : k.data(),
                            v.empty() ? nullptr : v.data(), o.empty() ? nullptr : o.data());
}

// ---- image operators (INT8): planar [channels][height][width], dense ------------------------
namespace detail {
// channels * h * w without overflow, or false.
inline bool PlaneElements(size_t channels, size_t h, size_t w, size_t* n) {
  size_t hw;
  return !__builtin_mul_overflow(h, w, &hw) && !__builtin_mul_overflow(channels, hw, n);
}
}  // namespace detail

// Bilinear resize (vlak_resize_bilinear_i8 / _u8): src holds channels x in_h x in_w, dst channels x
// out_h x out_w; each span's size must be exactly that.
inline vlak_status ResizeBilinear(std::span<const int8_t> src, std::span<int8_t> dst, size_t channels, size_t in_h,
                                  size_t in_w, size_t out_h, size_t out_w, unsigned flags = VLAK_RESIZE_ASYMMETRIC) {
  size_t n_in, n_out;
  if (!detail::PlaneElements(channels, in_h, in_w, &n_in) || !detail::PlaneElements(channels, out_h, out_w, &n_out)) {
    return VLAK_ERROR_OVERFLOW;
  }
  if (src.size() != n_in || dst.size() != n_out) return VLAK_ERROR_INVALID_ARGUMENT;
  return vlak_resize_bilinear_i8(channels, in_h, in_w, src.data(), out_h, out_w, dst.data(), flags);
}
inline vlak_status ResizeBilinear(std::span<const uint8_t> src, std::span<uint8_t> dst, size_t channels, size_t in_h,
                                  size_t in_w, size_t out_h, size_t out_w, unsigned flags = VLAK_RESIZE_ASYMMETRIC) {
  size_t n_in, n_out;
  if (!detail::PlaneElements(channels, in_h, in_w, &n_in) || !detail::PlaneElements(channels, out_h, out_w, &n_out)) {
    return VLAK_ERROR_OVERFLOW;
  }
  if (src.size() != n_in || dst.size() != n_out) return VLAK_ERROR_INVALID_ARGUMENT;
  return vlak_resize_bilinear_u8(channels, in_h, in_w, src.data(), out_h, out_w, dst.data(), flags);
}

// ---- Image operators (INT8) ---------------------------------------------------------------
namespace detail {
// a * b * c, or false on overflow.
inline bool Product3(size_t a, size_t b, size_t c, size_t* out) {
  if (b != 0 && a > SIZE_MAX / b) return false;
  if (c != 0 && a * b > SIZE_MAX / c) return false;
  *out = a * b * c;
  return true;
}
}  // namespace detail

// Horizontal warp of src = [channels][height][width] by offsets = [height][width] (8.8).
inline vlak_status Warp(std::span<const int8_t> src, std::span<const int16_t> offsets, std::span<int8_t> dst,
                        size_t channels, size_t height, size_t width) {
  size_t elements, plane;
  if (!detail::Product3(channels, height, width, &elements) || !detail::Product3(1, height, width, &plane)) {
    return VLAK_ERROR_OVERFLOW;
  }
  if (src.size() != elements || dst.size() != elements || offsets.size() != plane) return VLAK_ERROR_INVALID_ARGUMENT;
  return vlak_warp_i8(channels, height, width, src.data(), offsets.data(), dst.data());
}

// Correlation of a, b = [channels][height][width] into out = [displacements][height][width].
inline vlak_status Correlation(std::span<const int8_t> a, std::span<const int8_t> b, std::span<int8_t> out,
                               size_t displacements, size_t channels, size_t height, size_t width, unsigned shift,
                               unsigned flags = 0) {
  size_t in, outs;
  if (!detail::Product3(channels, height, width, &in) || !detail::Product3(displacements, height, width, &outs)) {
    return VLAK_ERROR_OVERFLOW;
  }
  if (a.size() != in || b.size() != in || out.size() != outs) return VLAK_ERROR_INVALID_ARGUMENT;
  return vlak_correlation_i8(displacements, channels, height, width, a.data(), b.data(), shift, out.data(), flags);
}

// ---- quantized weights ---------------------------------------------------------------------
// Dense rows: x / y hold rows x k floats (k = x.size() / rows), q rows x vlak_qtype_row_bytes(t, k)
// bytes; a span of another size is VLAK_ERROR_INVALID_ARGUMENT.
inline vlak_status Quantize(vlak_qtype t, std::span<const float> x, std::span<uint8_t> q, size_t k) {
  const size_t rb = vlak_qtype_row_bytes(t, k);
  if (k == 0 || x.size() % k != 0 || rb == 0 || q.size() != x.size() / k * rb) return VLAK_ERROR_INVALID_ARGUMENT;
  return vlak_quantize_f32(t, x.size() / k, k, x.data(), k, q.data(), rb);
}
inline vlak_status Dequantize(vlak_qtype t, std::span<const uint8_t> q, std::span<float> y, size_t k) {
  const size_t rb = vlak_qtype_row_bytes(t, k);
  if (k == 0 || y.size() % k != 0 || rb == 0 || q.size() != y.size() / k * rb) return VLAK_ERROR_INVALID_ARGUMENT;
  return vlak_dequantize_f32(t, y.size() / k, k, q.data(), rb, y.data(), k);
}
// C (m x n) = A (m x k) * W^T, W n dense rows of blocks of type t.
inline vlak_status MatmulQ(std::span<const float> a, vlak_qtype t, std::span<const uint8_t> w, std::span<float> c,
                           size_t m, size_t n, size_t k, unsigned flags = 0) {
  const size_t rb = vlak_qtype_row_bytes(t, k);
  auto holds = [](size_t size, size_t rows, size_t cols) { return (cols == 0 || rows <= size / cols) && size == rows * cols; };
  if ((k != 0 && rb == 0) || !holds(a.size(), m, k) || !holds(w.size(), n, rb) || !holds(c.size(), m, n)) {
    return VLAK_ERROR_INVALID_ARGUMENT;
  }
  return vlak_matmul_q_f32(m, n, k, a.data(), k, t, w.data(), rb, c.data(), n, flags, nullptr);
}

// W (n dense rows of blocks of type t) repacked once (vlak_matmul_q_pack) into `packed`, resized.
inline vlak_status PackQ(vlak_qtype t, std::span<const uint8_t> w, size_t n, size_t k, std::vector<uint8_t>& packed) {
  const size_t rb = vlak_qtype_row_bytes(t, k), bytes = vlak_matmul_q_packed_size(t, n, k);
  if ((k != 0 && rb == 0) || bytes == 0 || (rb != 0 && n > SIZE_MAX / rb) || w.size() != n * rb) {
    return VLAK_ERROR_INVALID_ARGUMENT;
  }
  packed.assign(bytes, 0);
  return vlak_matmul_q_pack(t, n, k, w.data(), rb, packed.data(), bytes);
}
// C (m x n) = act(A (m x k) * W^T + bias) with W packed by PackQ (vlak_matmul_q_packed_f32).
inline vlak_status MatmulQPacked(std::span<const float> a, const std::vector<uint8_t>& packed, std::span<float> c,
                                 size_t m, size_t n, size_t k, unsigned flags = 0,
                                 const vlak_matmul_epilogue* epilogue = nullptr) {
  if ((k != 0 && m > SIZE_MAX / k) || (n != 0 && m > SIZE_MAX / n) || a.size() != m * k || c.size() != m * n ||
      packed.size() < 64) {
    return VLAK_ERROR_INVALID_ARGUMENT;
  }
  return vlak_matmul_q_packed_f32(m, n, k, a.data(), k, packed.data(), c.data(), n, flags, epilogue);
}

}  // namespace vlak
