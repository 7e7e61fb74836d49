// The NPU model's interpreter: one instruction at a time, destination := f(sources).
//
// Lane semantics follow chisel-npu's alu/vec/vec.scala: integer ops sign-extend their
// operands, compute exactly, then saturate (sat) or keep the low bits of the destination width;
// reductions broadcast a sign-extended result into every lane of a VR; vsra shifts by the low
// log2(width) bits of b. Results are computed into scratch lanes before any write, so a
// destination may alias a source (as the hardware's one-cycle output register allows).
#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <string>

#include "npu/npu.h"
#include "npu/npu_lanes.h"

namespace vlak::npu {
namespace {

int Bits(RegClass c) { return c == RegClass::kVX ? 8 : c == RegClass::kVE ? 16 : 32; }

int64_t SignExtend(uint32_t v, int bits) {
  const uint32_t m = bits == 32 ? 0xFFFFFFFFu : (1u << bits) - 1;
  v &= m;
  const uint32_t sign = 1u << (bits - 1);
  return static_cast<int64_t>(static_cast<int32_t>(bits == 32 ? v : ((v ^ sign) - sign)));
}

uint32_t SatOrTrunc(int64_t v, bool sat, int bits) {
  if (sat) {
    const int64_t hi = (int64_t{1} << (bits - 1)) - 1, lo = -(int64_t{1} << (bits - 1));
    v = std::clamp(v, lo, hi);
  }
  return static_cast<uint32_t>(static_cast<uint64_t>(v) & (bits == 32 ? 0xFFFFFFFFull : ((1ull << bits) - 1)));
}

const char* ClassName(RegClass c) { return c == RegClass::kVX ? "vx" : c == RegClass::kVE ? "ve" : c == RegClass::kVR ? "vr" : "s"; }

}  // namespace

Machine::Machine(int k, int l) : k_(k), l_(l), rows_(static_cast<size_t>(k) * l, 0) {
  tmp_a_.resize(k);
  tmp_b_.resize(k);
  tmp_r_.resize(k);
}

uint16_t Machine::VE(int i, int lane) const {
  return static_cast<uint16_t>(VX(2 * i, lane) | VX(2 * i + 1, lane) << 8);
}
uint32_t Machine::VR(int i, int lane) const {
  return static_cast<uint32_t>(VX(4 * i, lane)) | static_cast<uint32_t>(VX(4 * i + 1, lane)) << 8 |
         static_cast<uint32_t>(VX(4 * i + 2, lane)) << 16 | static_cast<uint32_t>(VX(4 * i + 3, lane)) << 24;
}
void Machine::SetVE(int i, int lane, uint16_t v) {
  SetVX(2 * i, lane, static_cast<uint8_t>(v));
  SetVX(2 * i + 1, lane, static_cast<uint8_t>(v >> 8));
}
void Machine::SetVR(int i, int lane, uint32_t v) {
  for (int b = 0; b < 4; ++b) SetVX(4 * i + b, lane, static_cast<uint8_t>(v >> (8 * b)));
}

bool Machine::Run(const Program& prog, size_t start, std::string* error, std::string* trace) {
  for (size_t pc = start; pc < prog.code.size(); ++pc) {
    if (!Step(prog.code[pc], error, trace)) return false;
  }
  return true;
}

bool Machine::Step(const Instr& in, std::string* error, std::string* trace) {
  const int k = k_;
  auto fail = [&](const std::string& msg) {
    if (error) *error = "line " + std::to_string(in.line) + ": " + msg;
    return false;
  };
  // Reads lane values of register r of class c (zero-extended raw bits).
  auto read = [&](RegClass c, int r, std::vector<uint32_t>& v) {
    for (int i = 0; i < k; ++i) v[i] = c == RegClass::kVX ? VX(r, i) : c == RegClass::kVE ? VE(r, i) : VR(r, i);
  };
  auto write = [&](RegClass c, int r, const std::vector<uint32_t>& v) {
    for (int i = 0; i < k; ++i) {
      if (c == RegClass::kVX) SetVX(r, i, static_cast<uint8_t>(v[i]));
      else if (c == RegClass::kVE) SetVE(r, i, static_cast<uint16_t>(v[i]));
      else SetVR(r, i, v[i]);
    }
  };
  std::vector<uint32_t>& a = tmp_a_;
  std::vector<uint32_t>& b = tmp_b_;
  std::vector<uint32_t>& r = tmp_r_;
  RegClass dst_cls = in.cls;
  int dst = in.d;
  bool wrote = true;
  bool fp = false;
  const int w = Bits(in.cls);

  switch (in.op) {
    case Op::kVbcastImm:
      std::fill(r.begin(), r.end(), static_cast<uint32_t>(in.imm) & 0xFF);
      write(RegClass::kVX, in.d, r);
      break;
    case Op::kVcvtS8F32:
      read(RegClass::kVX, in.a, a);
      for (int i = 0; i < k; ++i) r[i] = S32ToF32(static_cast<int8_t>(a[i]));
      write(RegClass::kVR, in.d, r);
      fp = true;
      break;
    case Op::kVcvtF32S8:
      read(RegClass::kVR, in.a, a);
      for (int i = 0; i < k; ++i) r[i] = static_cast<uint8_t>(F32ToS8(a[i]));
      write(RegClass::kVX, in.d, r);
      if (in.d2 >= 0) write(RegClass::kVR, in.d2, r);  // the VR view gets the zero-extended byte, last
      break;
    case Op::kVcvtF32S32:
      read(RegClass::kVR, in.a, a);
      for (int i = 0; i < k; ++i) r[i] = static_cast<uint32_t>(F32ToS32Rtz(a[i]));
      write(RegClass::kVR, in.d, r);
      break;
    case Op::kVcvtS32F32:
      read(RegClass::kVR, in.a, a);
      for (int i = 0; i < k; ++i) r[i] = S32ToF32(static_cast<int32_t>(a[i]));
      write(RegClass::kVR, in.d, r);
      fp = true;
      break;
    case Op::kVcvtS32S8:
      read(RegClass::kVR, in.a, a);
      for (int i = 0; i < k; ++i) r[i] = SatOrTrunc(static_cast<int32_t>(a[i]), in.sat, 8);
      write(RegClass::kVR, in.d, r);
      break;
    case Op::kVfmul:
      read(RegClass::kVR, in.a, a);
      read(RegClass::kVR, in.b, b);
      for (int i = 0; i < k; ++i) r[i] = Fmul32(a[i], b[i]);
      write(RegClass::kVR, in.d, r);
      fp = true;
      break;
    case Op::kVadd: case Op::kVsub: case Op::kVrsub: case Op::kVmul:
    case Op::kVmax: case Op::kVmin: case Op::kVsra:
      read(in.cls, in.a, a);
      read(in.cls, in.b, b);
      LaneArith(in.op, w, in.sat, k, a.data(), b.data(), r.data());
      write(in.cls, in.d, r);
      break;
    case Op::kVrmax: case Op::kVsum: {
      read(in.a_cls, in.a, a);
      const int sw = Bits(in.a_cls);
      int64_t acc = in.op == Op::kVsum ? 0 : SignExtend(a[0], sw);
      for (int i = 0; i < k; ++i) {
        const int64_t x = SignExtend(a[i], sw);
        if (in.op == Op::kVsum) acc = static_cast<int32_t>(static_cast<uint32_t>(acc) + static_cast<uint32_t>(x));
        else acc = std::max(acc, x);
      }
      std::fill(r.begin(), r.end(), static_cast<uint32_t>(acc));
      dst_cls = RegClass::kVR;
      write(RegClass::kVR, in.d, r);
      break;
    }
    case Op::kVlut:
      read(RegClass::kVX, in.a, a);
      LaneLut(wide_[in.bank], k, a.data(), r.data());
      write(RegClass::kVX, in.d, r);
      break;
    case Op::kVsetlut:
      for (int i = 0; i < k; ++i) {
        const uint32_t v = VR(in.a, i);
        for (int by = 0; by < 4; ++by) {
          const int64_t idx = in.imm * 4 * k + 4 * i + by;
          if (idx < 256) {
            banks_[in.bank][idx] = static_cast<uint8_t>(v >> (8 * by));
            wide_[in.bank][idx] = banks_[in.bank][idx];
          }
        }
      }
      wrote = false;
      break;
    case Op::kMma: {
      const int row = static_cast<int>(in.imm2);
      for (int j = 0; j < k; ++j) r[j] = 0;
      for (int m = 0; m < in.imm; ++m) {
        const int32_t bq = static_cast<int8_t>(VX(in.b + m, row));
        for (int j = 0; j < k; ++j) {
          r[j] += static_cast<uint32_t>(bq * static_cast<int8_t>(VX(in.a + m, j)));  // wraps mod 2^32
        }
      }
      write(RegClass::kVR, in.d, r);
      break;
    }
    case Op::kIn:
      if (input_.size() - in_pos_ < static_cast<size_t>(k)) return fail("input stream exhausted");
      for (int i = 0; i < k; ++i) r[i] = static_cast<uint8_t>(input_[in_pos_ + i]);
      in_pos_ += k;
      write(RegClass::kVX, in.d, r);
      break;
    case Op::kOut:
      read(in.a_cls, in.a, a);
      for (int i = 0; i < k; ++i) {
        output_.push_back(in.imm == 1 ? static_cast<int64_t>(static_cast<int32_t>(a[i])) : static_cast<int8_t>(a[i]));
      }
      wrote = false;
      break;
    case Op::kExt:
      for (int i = 0; i < k; ++i) r[i] = static_cast<uint8_t>(in.values.size() == 1 ? in.values[0] : in.values[i]);
      write(RegClass::kVX, in.d, r);
      break;
    case Op::kExtS:
      std::fill(r.begin(), r.end(), static_cast<uint8_t>(s_[in.a]));
      write(RegClass::kVX, in.d, r);
      break;
    case Op::kExtVr:
      std::fill(r.begin(), r.end(), static_cast<uint32_t>(s_[in.a]));
      write(RegClass::kVR, in.d, r);
      break;
    case Op::kSread:
      s_[in.d] = static_cast<int32_t>(VR(in.a, 0));
      break;
    case Op::kSli:
      s_[in.d] = in.imm;
      break;
    case Op::kSadd:
      s_[in.d] = s_[in.a] + (in.b_is_imm ? in.imm : s_[in.b]);
      break;
    case Op::kSshl: {
      const int64_t sh = in.b_is_imm ? in.imm : s_[in.b];
      if (sh < 0 || sh > 62) return fail("sshl by " + std::to_string(sh));
      s_[in.d] = static_cast<int64_t>(static_cast<uint64_t>(s_[in.a]) << sh);
      break;
    }
    case Op::kSclamp:
      s_[in.d] = std::clamp(s_[in.a], in.imm, in.imm2);
      break;
    case Op::kSrecip: {
      // M = floor((2^sh 256 + S/2) / S) with the smallest sh giving M >= 2^13 (then M <= 2^14):
      // the sequencer's exact reciprocal, relative error <= 2^-14.
      const int64_t s = s_[in.a];
      if (s <= 0 || s >= (int64_t{1} << 40)) return fail("srecip of " + std::to_string(s));
      int sh = 0;
      int64_t m = 0;
      for (; sh < 62; ++sh) {
        m = ((int64_t{256} << sh) + s / 2) / s;
        if (m >= (1 << 13)) break;
      }
      s_[in.d] = m;
      s_[in.d2] = sh;
      break;
    }
    case Op::kLutload:
      for (int64_t seg = 0; seg * 4 * k < 256; ++seg) {
        for (int i = 0; i < k; ++i) {
          uint32_t v = 0;
          for (int by = 0; by < 4; ++by) {
            const int64_t idx = seg * 4 * k + 4 * i + by;
            if (idx < 256) v |= static_cast<uint32_t>(in.table[idx]) << (8 * by);
          }
          SetVR(in.d, i, v);
        }
        Instr set{};
        set.op = Op::kVsetlut;
        set.a = in.d;
        set.imm = seg;
        set.bank = in.bank;
        Step(set, error, nullptr);
      }
      dst_cls = RegClass::kVR;
      break;
  }

  if (trace != nullptr) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%4d  ", in.line);
    *trace += buf;
    *trace += in.text;
    *trace += "\n";
    const bool scalar = in.op == Op::kSread || in.op == Op::kSli || in.op == Op::kSadd || in.op == Op::kSshl ||
                        in.op == Op::kSclamp || in.op == Op::kSrecip;
    if (scalar) {
      std::snprintf(buf, sizeof buf, "      -> s%d = %" PRId64, in.d, s_[in.d]);
      *trace += buf;
      if (in.op == Op::kSrecip) {
        std::snprintf(buf, sizeof buf, ", s%d = %" PRId64, in.d2, s_[in.d2]);
        *trace += buf;
      }
      *trace += "\n";
    } else if (wrote) {
      if (in.op == Op::kVcvtS8F32 || in.op == Op::kVcvtF32S32 || in.op == Op::kVcvtS32F32 || in.op == Op::kVcvtS32S8 ||
          in.op == Op::kVfmul || in.op == Op::kMma || in.op == Op::kExtVr || in.op == Op::kLutload) {
        dst_cls = RegClass::kVR;
      } else if (in.op == Op::kVbcastImm || in.op == Op::kVcvtF32S8 || in.op == Op::kVlut || in.op == Op::kIn ||
                 in.op == Op::kExt || in.op == Op::kExtS) {
        dst_cls = RegClass::kVX;
      }
      std::snprintf(buf, sizeof buf, "      -> %s%d = [", ClassName(dst_cls), dst);
      *trace += buf;
      for (int i = 0; i < k; ++i) {
        const uint32_t v = dst_cls == RegClass::kVX ? VX(dst, i) : dst_cls == RegClass::kVE ? VE(dst, i) : VR(dst, i);
        if (fp) std::snprintf(buf, sizeof buf, "%s0x%08X", i ? " " : "", v);
        else std::snprintf(buf, sizeof buf, "%s%" PRId64, i ? " " : "", SignExtend(v, Bits(dst_cls)));
        *trace += buf;
      }
      *trace += "]\n";
      if (in.op == Op::kVcvtF32S8 && in.d2 >= 0) {
        std::snprintf(buf, sizeof buf, "      -> vr%d = [", in.d2);
        *trace += buf;
        for (int i = 0; i < k; ++i) {
          std::snprintf(buf, sizeof buf, "%s%" PRId64, i ? " " : "", SignExtend(VR(in.d2, i), 32));
          *trace += buf;
        }
        *trace += "]\n";
      }
    }
  }
  return true;
}

}  // namespace vlak::npu
