// The NPU model's text assembler (syntax: programs/README.md).
//
// One instruction per line: `mnemonic op, op, ...`; `#` or `;` starts a comment; `name:` defines a
// label (Machine::Run can start there); `.set name v[, v...]` gives a symbol a default value
// (the caller's symbols win); `$name` uses one. Errors carry the line number and stop the
// assembly: unknown mnemonic, wrong operand count or kind, register out of range (VX < L,
// VE < L/2, VR < L/4, s < 16), immediate out of range, segment past the table, unknown table,
// undefined symbol.
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <string>
#include <vector>

#include "npu/npu.h"

namespace vlak::npu {
namespace {

std::string Trim(const std::string& s) {
  size_t b = 0, e = s.size();
  while (b < e && std::isspace(static_cast<unsigned char>(s[b]))) ++b;
  while (e > b && std::isspace(static_cast<unsigned char>(s[e - 1]))) --e;
  return s.substr(b, e - b);
}

std::vector<std::string> SplitOperands(const std::string& s) {
  std::vector<std::string> out;
  if (Trim(s).empty()) return out;
  size_t start = 0;
  for (size_t i = 0; i <= s.size(); ++i) {
    if (i == s.size() || s[i] == ',') {
      out.push_back(Trim(s.substr(start, i - start)));
      start = i + 1;
    }
  }
  return out;
}

bool ParseNumber(const std::string& s, double* v) {
  if (s.empty()) return false;
  char* end = nullptr;
  if (s.find_first_of(".eE") == std::string::npos || s.rfind("0x", 0) == 0 || s.rfind("-0x", 0) == 0) {
    const long long x = std::strtoll(s.c_str(), &end, 0);
    if (*end != '\0') return false;
    *v = static_cast<double>(x);
    return true;
  }
  *v = std::strtod(s.c_str(), &end);
  return *end == '\0';
}

class Assembler {
 public:
  Assembler(int k, int l, const Symbols& user) : k_(k), l_(l), user_(user) {}

  bool Run(const std::string& text, Program* out, std::string* error) {
    size_t pos = 0;
    int line_no = 0;
    while (pos <= text.size()) {
      size_t nl = text.find('\n', pos);
      if (nl == std::string::npos) nl = text.size();
      std::string line = text.substr(pos, nl - pos);
      pos = nl + 1;
      ++line_no;
      line_ = line_no;
      const size_t c = line.find_first_of("#;");
      if (c != std::string::npos) line.resize(c);
      line = Trim(line);
      if (!line.empty() && !Line(line, out)) {
        *error = "line " + std::to_string(line_no) + ": " + err_;
        return false;
      }
      if (nl == text.size()) break;
    }
    return true;
  }

 private:
  bool Fail(const std::string& m) {
    err_ = m;
    return false;
  }

  bool Line(std::string line, Program* prog) {
    // Labels.
    const size_t colon = line.find(':');
    if (colon != std::string::npos && line.find_first_of(" \t,") > colon) {
      const std::string label = Trim(line.substr(0, colon));
      if (label.empty()) return Fail("empty label");
      prog->labels[label] = prog->code.size();
      line = Trim(line.substr(colon + 1));
      if (line.empty()) return true;
    }
    size_t sp = line.find_first_of(" \t");
    const std::string mn = line.substr(0, sp);
    const std::vector<std::string> ops = SplitOperands(sp == std::string::npos ? "" : line.substr(sp));
    if (mn == ".set") {
      if (ops.empty()) return Fail(".set needs a name");
      const size_t s2 = ops[0].find_first_of(" \t");
      if (s2 == std::string::npos) return Fail(".set needs a value");
      const std::string name = ops[0].substr(0, s2);
      std::vector<std::string> vals = ops;
      vals[0] = Trim(ops[0].substr(s2));
      std::vector<double> v;
      for (const std::string& t : vals) {
        double x;
        if (!ParseNumber(t, &x)) return Fail("bad number '" + t + "' in .set");
        v.push_back(x);
      }
      if (defaults_.count(name) == 0) defaults_[name] = v;
      return true;
    }
    Instr in{};
    in.line = line_;
    in.text = line;
    ops_ = ops;
    if (!Encode(mn, &in)) return false;
    prog->code.push_back(std::move(in));
    return true;
  }

  bool Count(size_t lo, size_t hi) {
    if (ops_.size() < lo || ops_.size() > hi) {
      return Fail("expected " + (lo == hi ? std::to_string(lo) : std::to_string(lo) + " to " + std::to_string(hi)) +
                  " operands, got " + std::to_string(ops_.size()));
    }
    return true;
  }

  // A register operand of one of the classes in `allowed` ("xer" letters for VX/VE/VR, "s").
  bool Reg(size_t i, const char* allowed, RegClass* cls, int* idx) {
    const std::string& t = ops_[i];
    RegClass c;
    size_t p;
    if (t.rfind("vx", 0) == 0) { c = RegClass::kVX; p = 2; }
    else if (t.rfind("ve", 0) == 0) { c = RegClass::kVE; p = 2; }
    else if (t.rfind("vr", 0) == 0) { c = RegClass::kVR; p = 2; }
    else if (t.rfind("s", 0) == 0 && t.size() > 1 && std::isdigit(static_cast<unsigned char>(t[1]))) { c = RegClass::kScalar; p = 1; }
    else return Fail("operand " + std::to_string(i + 1) + ": expected a register, got '" + t + "'");
    const char letter = c == RegClass::kVX ? 'x' : c == RegClass::kVE ? 'e' : c == RegClass::kVR ? 'r' : 's';
    if (std::string(allowed).find(letter) == std::string::npos) {
      return Fail("operand " + std::to_string(i + 1) + ": register '" + t + "' is of the wrong class");
    }
    if (p >= t.size()) return Fail("bad register '" + t + "'");
    for (size_t j = p; j < t.size(); ++j) {
      if (!std::isdigit(static_cast<unsigned char>(t[j]))) return Fail("bad register '" + t + "'");
    }
    const long n = std::strtol(t.c_str() + p, nullptr, 10);
    const long limit = c == RegClass::kVX ? l_ : c == RegClass::kVE ? l_ / 2 : c == RegClass::kVR ? l_ / 4 : 16;
    if (n >= limit) {
      const char* name = c == RegClass::kVX ? "VX" : c == RegClass::kVE ? "VE" : c == RegClass::kVR ? "VR" : "the sequencer";
      return Fail("register " + t + " out of range (" + name + " has " + std::to_string(limit) + " registers)");
    }
    *cls = c;
    *idx = static_cast<int>(n);
    return true;
  }
  bool Reg(size_t i, const char* allowed, int* idx) {
    RegClass c;
    return Reg(i, allowed, &c, idx);
  }

  bool Values(const std::string& t, std::vector<double>* v) {
    if (!t.empty() && t[0] == '$') {
      const std::string name = t.substr(1);
      if (const auto u = user_.find(name); u != user_.end()) {
        *v = u->second;
        return true;
      }
      if (const auto d = defaults_.find(name); d != defaults_.end()) {
        *v = d->second;
        return true;
      }
      return Fail("undefined symbol '" + t + "'");
    }
    double x;
    if (!ParseNumber(t, &x)) return Fail("expected a number, got '" + t + "'");
    *v = {x};
    return true;
  }
  bool Number(size_t i, double* x) {
    std::vector<double> v;
    if (!Values(ops_[i], &v)) return false;
    if (v.size() != 1) return Fail("operand " + std::to_string(i + 1) + ": '" + ops_[i] + "' is a list, expected one number");
    *x = v[0];
    return true;
  }
  bool Int(size_t i, int64_t lo, int64_t hi, int64_t* out, const char* what = "immediate") {
    double x;
    if (!Number(i, &x)) return false;
    if (x != std::floor(x)) return Fail(std::string(what) + " '" + ops_[i] + "' is not an integer");
    if (x < static_cast<double>(lo) || x > static_cast<double>(hi)) {
      return Fail(std::string(what) + " " + ops_[i] + " out of range [" + std::to_string(lo) + ", " + std::to_string(hi) + "]");
    }
    *out = static_cast<int64_t>(x);
    return true;
  }
  bool Bank(size_t i, int* bank) {
    if (ops_[i] == "A" || ops_[i] == "a") *bank = 0;
    else if (ops_[i] == "B" || ops_[i] == "b") *bank = 1;
    else return Fail("expected bank A or B, got '" + ops_[i] + "'");
    return true;
  }
  bool SatFlag(size_t i, bool* sat) {
    if (i >= ops_.size()) return true;
    if (ops_[i] != "sat") return Fail("expected 'sat', got '" + ops_[i] + "'");
    *sat = true;
    return true;
  }

  bool Encode(const std::string& mn, Instr* in) {
    int64_t v = 0;
    if (mn == "vbcastImm" || mn == "vbcast.imm") {
      in->op = Op::kVbcastImm;
      return Count(2, 2) && Reg(0, "x", &in->d) && Int(1, -2048, 2047, &in->imm, "12-bit immediate");
    }
    if (mn == "vcvt_s8_f32") {
      in->op = Op::kVcvtS8F32;
      return Count(2, 2) && Reg(0, "r", &in->d) && Reg(1, "x", &in->a);
    }
    if (mn == "vcvt_f32_s8") {
      in->op = Op::kVcvtF32S8;
      if (!Count(2, 3) || !Reg(0, "x", &in->d) || !Reg(1, "r", &in->a)) return false;
      return ops_.size() < 3 || Reg(2, "r", &in->d2);
    }
    if (mn == "vcvt_f32_s32" || mn == "vcvt_s32_f32") {
      in->op = mn == "vcvt_f32_s32" ? Op::kVcvtF32S32 : Op::kVcvtS32F32;
      in->cls = RegClass::kVR;
      return Count(2, 2) && Reg(0, "r", &in->d) && Reg(1, "r", &in->a);
    }
    if (mn == "vcvt_s32_s8") {
      in->op = Op::kVcvtS32S8;
      in->cls = RegClass::kVR;
      return Count(2, 3) && Reg(0, "r", &in->d) && Reg(1, "r", &in->a) && SatFlag(2, &in->sat);
    }
    if (mn == "vfmul") {
      in->op = Op::kVfmul;
      in->cls = RegClass::kVR;
      return Count(3, 3) && Reg(0, "r", &in->d) && Reg(1, "r", &in->a) && Reg(2, "r", &in->b);
    }
    static const std::pair<const char*, Op> kArith[] = {{"vadd", Op::kVadd}, {"vsub", Op::kVsub}, {"vrsub", Op::kVrsub},
                                                        {"vmul", Op::kVmul}, {"vmax", Op::kVmax}, {"vmin", Op::kVmin},
                                                        {"vsra", Op::kVsra}};
    for (const auto& [name, op] : kArith) {
      if (mn != name) continue;
      in->op = op;
      RegClass ca, cb;
      if (!Count(3, 4) || !Reg(0, "xer", &in->cls, &in->d) || !Reg(1, "xer", &ca, &in->a) || !Reg(2, "xer", &cb, &in->b)) return false;
      if (ca != in->cls || cb != in->cls) return Fail("operands of " + mn + " must be of one class");
      return SatFlag(3, &in->sat);
    }
    if (mn == "vrmax" || mn == "vsum") {
      in->op = mn == "vrmax" ? Op::kVrmax : Op::kVsum;
      in->cls = RegClass::kVR;
      return Count(2, 2) && Reg(0, "r", &in->d) && Reg(1, "xer", &in->a_cls, &in->a);
    }
    if (mn == "vlut") {
      in->op = Op::kVlut;
      return Count(3, 3) && Reg(0, "x", &in->d) && Reg(1, "x", &in->a) && Bank(2, &in->bank);
    }
    const int64_t segments = (256 + 4 * k_ - 1) / (4 * k_);
    if (mn == "vsetlut") {
      in->op = Op::kVsetlut;
      if (!Count(3, 3) || !Reg(0, "r", &in->a) || !Bank(2, &in->bank)) return false;
      double x;
      if (!Number(1, &x)) return false;
      if (x < 0 || x != std::floor(x) || x >= static_cast<double>(segments)) {
        return Fail("segment " + ops_[1] + " past the table (256 entries = " + std::to_string(segments) +
                    " segments of 4K = " + std::to_string(4 * k_) + " bytes)");
      }
      in->imm = static_cast<int64_t>(x);
      return true;
    }
    if (mn == "mma") {
      in->op = Op::kMma;
      in->cls = RegClass::kVR;
      if (!Count(5, 5) || !Reg(0, "r", &in->d) || !Reg(1, "x", &in->a) || !Reg(2, "x", &in->b) ||
          !Int(3, 1, l_, &in->imm, "depth") || !Int(4, 0, k_ - 1, &in->imm2, "row")) {
        return false;
      }
      if (in->a + in->imm > l_ || in->b + in->imm > l_) return Fail("mma operands run past VX" + std::to_string(l_ - 1));
      return true;
    }
    if (mn == "in") {
      in->op = Op::kIn;
      return Count(1, 1) && Reg(0, "x", &in->d);
    }
    if (mn == "out") {
      in->op = Op::kOut;
      if (!Count(1, 2) || !Reg(0, "xr", &in->a_cls, &in->a)) return false;
      if (ops_.size() == 2) {
        if (ops_[1] == "s32") in->imm = 1;
        else if (ops_[1] != "s8") return Fail("out format must be s8 or s32");
      }
      return true;
    }
    if (mn == "ext") {
      if (!Count(2, 1 + static_cast<size_t>(k_)) || !Reg(0, "x", &in->d)) return false;
      if (ops_.size() == 2 && ops_[1].size() > 1 && ops_[1][0] == 's' && std::isdigit(static_cast<unsigned char>(ops_[1][1]))) {
        in->op = Op::kExtS;
        return Reg(1, "s", &in->a);
      }
      in->op = Op::kExt;
      for (size_t i = 1; i < ops_.size(); ++i) {
        std::vector<double> v;
        if (!Values(ops_[i], &v)) return false;
        for (double x : v) {
          if (x != std::floor(x) || x < -128 || x > 255) return Fail("ext value " + std::to_string(x) + " is not a byte");
          in->values.push_back(static_cast<int64_t>(x));
        }
      }
      if (in->values.size() != 1 && in->values.size() != static_cast<size_t>(k_)) {
        return Fail("ext needs 1 or K = " + std::to_string(k_) + " values, got " + std::to_string(in->values.size()));
      }
      return true;
    }
    if (mn == "ext.vr") {
      in->op = Op::kExtVr;
      return Count(2, 2) && Reg(0, "r", &in->d) && Reg(1, "s", &in->a);
    }
    if (mn == "sread") {
      in->op = Op::kSread;
      return Count(2, 2) && Reg(0, "s", &in->d) && Reg(1, "r", &in->a);
    }
    if (mn == "sli") {
      in->op = Op::kSli;
      return Count(2, 2) && Reg(0, "s", &in->d) && Int(1, INT32_MIN, INT32_MAX, &in->imm);
    }
    if (mn == "sadd" || mn == "sshl") {
      in->op = mn == "sadd" ? Op::kSadd : Op::kSshl;
      if (!Count(3, 3) || !Reg(0, "s", &in->d) || !Reg(1, "s", &in->a)) return false;
      if (ops_[2].size() > 1 && ops_[2][0] == 's' && std::isdigit(static_cast<unsigned char>(ops_[2][1]))) return Reg(2, "s", &in->b);
      in->b_is_imm = true;
      return Int(2, INT32_MIN, INT32_MAX, &in->imm);
    }
    if (mn == "sclamp") {
      in->op = Op::kSclamp;
      return Count(4, 4) && Reg(0, "s", &in->d) && Reg(1, "s", &in->a) && Int(2, INT32_MIN, INT32_MAX, &in->imm) &&
             Int(3, INT32_MIN, INT32_MAX, &in->imm2);
    }
    if (mn == "srecip") {
      in->op = Op::kSrecip;
      return Count(3, 3) && Reg(0, "s", &in->d) && Reg(1, "s", &in->d2) && Reg(2, "s", &in->a);
    }
    if (mn == "lutload") {
      in->op = Op::kLutload;
      if (!Count(3, 4) || !Bank(0, &in->bank) || !Reg(2, "r", &in->d)) return false;
      double scale = 0;
      if (ops_.size() == 4 && !Number(3, &scale)) return false;
      if (!NamedTable(ops_[1], scale, &in->table)) return Fail("unknown table '" + ops_[1] + "'");
      (void)v;
      return true;
    }
    return Fail("unknown mnemonic '" + mn + "'");
  }

  int k_, l_;
  const Symbols& user_;
  Symbols defaults_;
  std::vector<std::string> ops_;
  std::string err_;
  int line_ = 0;
};

}  // namespace

bool Assemble(const std::string& text, int k, int l, const Symbols& symbols, Program* out, std::string* error) {
  *out = Program{};
  if (k < 1 || l < 4 || l % 4 != 0) {
    *error = "line 0: K must be >= 1 and L a multiple of 4";
    return false;
  }
  Assembler a(k, l, symbols);
  return a.Run(text, out, error);
}

}  // namespace vlak::npu
