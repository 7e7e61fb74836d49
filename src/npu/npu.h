// A functional model of the LUT NPU of the chisel-npu GEMM + softmax quantization tutorial,
// bit-exact with its Chisel code (alu/vec/vec.scala; internal to vlak: no C entry point).
//
// Machine: K lanes; a register file of L byte rows (default L = 32) seen three ways:
//   VX[i] lane k = byte row i, lane k                      (i < L)
//   VE[i] lane k = VX[2i+1][k] : VX[2i][k]   (16 bits)     (i < L/2)
//   VR[i] lane k = VX[4i+3..4i][k]           (32 bits, little-endian)   (i < L/4)
// Writing one view writes the aliased rows; an instruction's net effect is destination := f(sources)
// (when one instruction writes two views, VR is applied last: the hardware's priority VR > VE > VX).
// Two LUT banks A and B of 256 bytes. A scalar sequencer (host) with 16 int64 registers s0..s15,
// the role the tutorial's Scala harness plays between instructions (reading a reduction, clamping,
// broadcasting it back with the external write port).
//
// Programs are text (assembler.cc, syntax in programs/README.md); Run executes them.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace vlak::npu {

enum class RegClass : uint8_t { kVX, kVE, kVR, kScalar };

enum class Op : uint8_t {
  // vector ALU
  kVbcastImm,   // vxD <- imm12 low byte in every lane
  kVcvtS8F32,   // vrD <- float(int8 vxA), exact
  kVcvtF32S8,   // vxD <- sat8(RTZ(vrA)); optional vrO <- that byte zero-extended
  kVcvtF32S32,  // vrD <- RTZ(vrA), saturating at +-2^31
  kVcvtS32F32,  // vrD <- float(vrA), mantissa truncated (the Chisel s32ToF32)
  kVcvtS32S8,   // vrD <- zero-extended byte of sat8(vrA) (sat) or low byte (no sat)
  kVfmul,       // vrD <- vrA * vrB, fp32 with truncated product, FTZ, NaN/Inf as 0, overflow to max
  kVadd, kVsub, kVrsub, kVmul,  // a+b, a-b, b-a, a*b at the destination's width, saturated or wrapped
  kVmax, kVmin,                  // signed
  kVsra,                         // a >> (b & (width-1)), arithmetic
  kVrmax, kVsum,                 // reduction of the source class, broadcast into vrD (sign-extended)
  kVlut,                         // vxD[k] <- bank[vxA[k] as unsigned]
  kVsetlut,                      // bank[seg*4K + 4k + b] <- byte b of vrA lane k
  kMma,                          // vrD[j] <- sum_{m<depth} VX[B+m][row] * VX[A+m][j], wrapping int32
  // host / sequencer
  kIn,       // vxD <- next K bytes of the input stream
  kOut,      // append vxA / vrA (as bytes or int32) to the output stream
  kExt,      // vxD <- K immediates (or one, broadcast)
  kExtS,     // vxD <- low byte of sA in every lane
  kExtVr,    // vrD <- sA (32 bits) in every lane
  kSread,    // sD <- vrA lane 0 (int32)
  kSli,      // sD <- imm
  kSadd,     // sD <- sA + (sB | imm)
  kSshl,     // sD <- sA << (sB | imm)
  kSclamp,   // sD <- clamp(sA, lo, hi)
  kSrecip,   // (sD, sD2) <- (M, sh): M = floor((2^sh*256 + S/2) / S) in [2^13, 2^14), S = sA > 0
  kLutload,  // host macro: table -> bank through VR scratch + vsetlut per segment
};

struct Operand {
  RegClass cls = RegClass::kVX;
  int index = 0;
};

struct Instr {
  Op op{};
  RegClass cls = RegClass::kVX;  // width of arithmetic ops (the destination's class)
  int d = 0, a = 0, b = 0, d2 = -1;  // register numbers (d2: second destination / optional vr out)
  RegClass a_cls = RegClass::kVX;    // source class of reductions, out
  bool sat = false;
  bool b_is_imm = false;
  int64_t imm = 0, imm2 = 0, imm3 = 0;
  int bank = 0;
  std::vector<int64_t> values;  // ext immediates
  std::vector<uint8_t> table;   // lutload: the 256 table bytes
  int line = 0;
  std::string text;             // source line, for traces
};

struct Program {
  std::vector<Instr> code;
  std::map<std::string, size_t> labels;  // label -> index of the next instruction
};

// Symbols for `$name` operands: each a list of numbers (an input row, a scale).
using Symbols = std::map<std::string, std::vector<double>>;

// Assembles `text` for a machine of k lanes and l byte rows. On error returns false and sets
// *error to "line N: message" (unknown mnemonic, register out of range, segment past the table,
// bad operand, unknown table, undefined symbol).
bool Assemble(const std::string& text, int k, int l, const Symbols& symbols, Program* out, std::string* error);

class Machine {
 public:
  explicit Machine(int k, int l = 32);

  int K() const { return k_; }
  int L() const { return l_; }

  // Register views (lane k).
  uint8_t VX(int i, int lane) const { return rows_[static_cast<size_t>(i) * k_ + lane]; }
  uint16_t VE(int i, int lane) const;
  uint32_t VR(int i, int lane) const;
  void SetVX(int i, int lane, uint8_t v) { rows_[static_cast<size_t>(i) * k_ + lane] = v; }
  void SetVE(int i, int lane, uint16_t v);
  void SetVR(int i, int lane, uint32_t v);
  const uint8_t* Bank(int b) const { return banks_[b]; }
  int64_t S(int i) const { return s_[i]; }

  // Host side of the streams.
  void SetInput(std::vector<int8_t> in) { input_ = std::move(in); in_pos_ = 0; }
  std::vector<int64_t>& Output() { return output_; }

  // Runs prog from instruction `start` to its end. Returns false with *error on a runtime
  // error (input stream exhausted, srecip of a sum <= 0). trace != null: one line per
  // instruction with its destination lanes.
  bool Run(const Program& prog, size_t start = 0, std::string* error = nullptr, std::string* trace = nullptr);
  bool Step(const Instr& in, std::string* error, std::string* trace);

 private:
  int k_, l_;
  std::vector<uint8_t> rows_;
  uint8_t banks_[2][256] = {};
  int32_t wide_[2][256] = {};  // the banks zero-extended: the vector gather's table
  int64_t s_[16] = {};
  std::vector<int8_t> input_;
  size_t in_pos_ = 0;
  std::vector<int64_t> output_;
  std::vector<uint32_t> tmp_a_, tmp_b_, tmp_r_;
};

// ---- fp32 of the Chisel VALU (fp.scala), on raw bit patterns ------------------------------------
uint32_t Fmul32(uint32_t a, uint32_t b);   // truncated product, FTZ, NaN/Inf -> 0, overflow -> +-max
uint32_t S32ToF32(int32_t s);              // mantissa truncated above 2^24
int32_t F32ToS32Rtz(uint32_t f);           // RTZ, saturating (NaN/Inf/subnormal -> 0)
int8_t F32ToS8(uint32_t f);                // RTZ then saturate to int8

// ---- tables ---------------------------------------------------------------------------------------
// The tutorial's Qfmt tables as signed bytes: exp SQ1.6 -> UQ0.8 (sum 2665), recip SQ1.6 -> SQ1.6 (sum 63).
std::vector<int> SeedExpTable();
std::vector<int> SeedRecipTable();
// E[d] = min(65535, floor(65535 exp(-scale d) + 0.5)) in float64 for d = 0..255; the corrected
// program's banks hold E >> 8 (hi) and E & 0xFF (lo).
std::vector<uint32_t> Exp16Table(double scale);
// The negative control: E8[d] = floor(255 exp(-scale d) + 0.5), one byte.
std::vector<uint32_t> Exp8Table(double scale);
// A named table's 256 bytes ("seed_exp", "seed_recip", "exp16_hi", "exp16_lo", "exp16z_hi", "exp16z_lo"
// (entry 255 = 0), "exp8"), false if unknown.
bool NamedTable(const std::string& name, double scale, std::vector<uint8_t>* bytes);

// ---- programs (programs/*.s, compiled in) --------------------------------------------------------
// "seed_softmax", "softmax16", "softmax8", "gemm_softmax"; empty if unknown.
const std::string& ProgramText(const std::string& name);
std::vector<std::string> ProgramNames();

}  // namespace vlak::npu
