#include "lab/record.h"

#include <cmath>
#include <fstream>
#include <iterator>
#include <sstream>

namespace vlak::lab {

namespace {

const Json& NullJson() {
  static const Json null;
  return null;
}

}  // namespace

const Json& JGet(const Json& j, const char* key) {
  if (!j.is_object()) return NullJson();
  const auto it = j.find(key);
  return it == j.end() ? NullJson() : *it;
}

double JNum(const Json& j, const char* key, double fallback) {
  const Json& v = JGet(j, key);
  if (v.is_number()) return v.get<double>();
  if (v.is_string()) {
    const auto& s = v.get_ref<const std::string&>();
    if (s == "inf") return INFINITY;
    if (s == "-inf") return -INFINITY;
  }
  return fallback;
}

std::string JStr(const Json& j, const char* key) {
  const Json& v = JGet(j, key);
  return v.is_string() ? v.get<std::string>() : std::string();
}

namespace {
// A SAX consumer that keeps only the parse error's message: nlohmann hands it the error instead of
// throwing it.
struct ErrorOnlySax : nlohmann::json_sax<Json> {
  std::string message;
  bool null() override { return true; }
  bool boolean(bool) override { return true; }
  bool number_integer(number_integer_t) override { return true; }
  bool number_unsigned(number_unsigned_t) override { return true; }
  bool number_float(number_float_t, const string_t&) override { return true; }
  bool string(string_t&) override { return true; }
  bool binary(binary_t&) override { return true; }
  bool start_object(std::size_t) override { return true; }
  bool key(string_t&) override { return true; }
  bool end_object() override { return true; }
  bool start_array(std::size_t) override { return true; }
  bool end_array() override { return true; }
  bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception& e) override {
    message = e.what();
    return false;
  }
};
}  // namespace

// Without C++ exceptions: on rv64gcv, libgcc's unwinder cannot walk frames whose CFI uses the
// vector length (clang's RVV stack slots), so a thrown parse error aborts the process under qemu.
bool ParseJson(const std::string& text, Json* out, std::string* err) {
  Json parsed = Json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (!parsed.is_discarded()) {
    *out = std::move(parsed);
    return true;
  }
  ErrorOnlySax sax;
  Json::sax_parse(text, &sax);
  *err = sax.message.empty() ? std::string("invalid JSON") : sax.message;
  return false;
}

// ---- the file's members ----------------------------------------------------------------------
//
// VisitResults, VisitMachine and VisitRecord name every member of a results file once, in the
// order the file has them. JsonWriter walks them over a const Results and builds the JSON;
// JsonReader walks them over a Results and fills it, loosely (JNum, JStr). A member is one of:
//   Str      a string; missing: ""
//   Num      a number, null when not finite (JSON has no NaN or inf); missing: the fallback
//   Inf      the same, but infinities as "inf" / "-inf" (the SNR of an exact result), and null
//            when `known` is false
//   Int, Count  an integer (int, size_t); missing: the fallback, 0
//   Dims     an array of integers
//   Map      an object of strings or of numbers
//   Tri      true, false or null for 1, 0, -1 (a bound verdict)
//   Text     a constant the writer writes and the reader skips
//   Settings a JSON object kept as it is
//   List     an array of objects, each visited
//   Object   an object always written; a file without it reads as an empty one (fallbacks)
//   Optional an object written when `present`, read only where the file has it: without it, the
//            fields keep the Record's defaults
// A member written under a condition stands behind `if (v.When(condition))`: the writer tests the
// condition, the reader reads the member regardless (absent, it gives the fallback, which for
// these members is the Record's default).
namespace {

Json NumJson(double v) { return std::isfinite(v) ? Json(v) : Json(); }
Json MapValueJson(double v) { return NumJson(v); }
Json MapValueJson(const std::string& v) { return v; }
void MapValueFromJson(const Json& j, double* v) { *v = j.is_number() ? j.get<double>() : NAN; }
void MapValueFromJson(const Json& j, std::string* v) { *v = j.is_string() ? j.get<std::string>() : std::string(); }

struct JsonWriter {
  Json out = Json::object();

  static bool When(bool condition) { return condition; }
  void Str(const char* key, const std::string& s) { out[key] = s; }
  void Num(const char* key, double v, double /*fallback*/ = NAN) { out[key] = NumJson(v); }
  void Inf(const char* key, double v, bool known) {
    out[key] = !known ? Json() : std::isinf(v) ? Json(v > 0 ? "inf" : "-inf") : NumJson(v);
  }
  void Int(const char* key, int v, int /*fallback*/ = 0) { out[key] = v; }
  void Count(const char* key, size_t v) { out[key] = v; }
  void Dims(const char* key, const std::vector<size_t>& v) { out[key] = v; }
  template <class T>
  void Map(const char* key, const std::map<std::string, T>& m) {
    Json o = Json::object();
    for (const auto& [k, v] : m) o[k] = MapValueJson(v);
    out[key] = std::move(o);
  }
  void Tri(const char* key, int v) { out[key] = v < 0 ? Json() : Json(v == 1); }
  void Text(const char* key, const char* text) { out[key] = text; }
  void Settings(const char* key, const Json& v) { out[key] = v.is_object() ? v : Json::object(); }
  template <class T, class Visit>
  void List(const char* key, const std::vector<T>& items, Visit visit) {
    Json a = Json::array();
    for (const T& item : items) {
      JsonWriter w;
      visit(w, item);
      a.push_back(std::move(w.out));
    }
    out[key] = std::move(a);
  }
  template <class Visit>
  void Object(const char* key, Visit visit) {
    JsonWriter w;
    visit(w);
    out[key] = std::move(w.out);
  }
  template <class Visit>
  void Optional(const char* key, bool present, Visit visit) {
    if (present) Object(key, visit);
  }
};

struct JsonReader {
  const Json& in;

  static bool When(bool) { return true; }
  void Str(const char* key, std::string& s) const { s = JStr(in, key); }
  void Num(const char* key, double& v, double fallback = NAN) const { v = JNum(in, key, fallback); }
  void Inf(const char* key, double& v, bool /*known*/) const { v = JNum(in, key); }
  void Int(const char* key, int& v, int fallback = 0) const { v = static_cast<int>(JNum(in, key, fallback)); }
  void Count(const char* key, size_t& v) const { v = static_cast<size_t>(JNum(in, key, 0)); }
  void Dims(const char* key, std::vector<size_t>& v) const {
    for (const auto& d : JGet(in, key)) {
      if (d.is_number()) v.push_back(d.get<size_t>());
    }
  }
  template <class T>
  void Map(const char* key, std::map<std::string, T>& m) const {
    const Json& o = JGet(in, key);
    if (!o.is_object()) return;
    for (const auto& [k, v] : o.items()) MapValueFromJson(v, &m[k]);
  }
  void Tri(const char* key, int& v) const {
    const Json& b = JGet(in, key);
    v = b.is_boolean() ? (b.get<bool>() ? 1 : 0) : -1;
  }
  void Text(const char*, const char*) const {}
  void Settings(const char* key, Json& v) const {
    if (const Json& o = JGet(in, key); o.is_object()) v = o;
  }
  template <class T, class Visit>
  void List(const char* key, std::vector<T>& items, Visit visit) const {
    for (const auto& o : JGet(in, key)) {
      if (!o.is_object()) continue;
      JsonReader r{o};
      visit(r, items.emplace_back());
    }
  }
  template <class Visit>
  void Object(const char* key, Visit visit) const {
    JsonReader r{JGet(in, key)};
    visit(r);
  }
  template <class Visit>
  void Optional(const char* key, bool /*present*/, Visit visit) const {
    if (JGet(in, key).is_object()) Object(key, visit);
  }
};

// The Visit functions take the struct non-const for the reader, const for the writer.
template <class V, class S>
void VisitSummary(V& v, S& s) {
  v.Num("median", s.median);
  v.Num("q1", s.q1);
  v.Num("q3", s.q3);
  v.Num("min", s.min);
  v.Num("max", s.max);
  v.Count("samples", s.n);
}

template <class V, class R>
void VisitRecord(V& v, R& r) {
  v.Str("suite", r.suite);
  v.Str("op", r.op);
  v.Str("shape", r.shape);
  v.Dims("dims", r.dims);
  v.Count("elements", r.elements);
  v.Int("threads", r.threads, 1);
  v.Str("impl", r.impl);
  v.Str("kind", r.kind);
  v.Str("description", r.description);
  v.Str("status", r.status);
  if (v.When(!r.detail.empty())) v.Str("detail", r.detail);
  v.Str("target", r.target);
  v.Str("mode", r.mode);
  v.Num("bytes_per_run", r.bytes_per_run, 0);
  v.Str("bytes_formula", r.bytes_formula);
  if (v.When(r.flops_per_run > 0)) v.Num("flops_per_run", r.flops_per_run, 0);
  v.Optional("time", r.mode == "time", [&](auto& t) {
    VisitSummary(t, r.time);
    t.Text("unit", "seconds per run");
    t.Count("runs", r.runs);
  });
  if (v.When(r.mode == "time")) {
    v.Num("gbps", r.gbps);
    v.Num("elements_per_s", r.elements_per_s);
    v.Num("norm_unit", r.norm_unit);
    if (v.When(r.flops_per_run > 0)) v.Num("gflops", r.gflops);
  }
  v.Optional("roofline", !r.bound_kind.empty(), [&](auto& rl) {
    rl.Str("kind", r.bound_kind);
    if (rl.When(r.bound_kind == "memory")) rl.Num("copy_gbps", r.copy_gbps);
    if (rl.When(r.bound_kind != "memory")) {
      rl.Num("peak_gflops", r.peak_gflops);
      rl.Str("peak_target", r.peak_target);
    }
    rl.Num("pct_of_bound", r.pct_of_bound);
  });
  v.Str("baseline", r.baseline);
  v.Num("speedup", r.speedup);
  v.Map("ratios", r.ratios);
  v.Object("accuracy", [&](auto& a) {
    // No output, no accuracy: a missing implementation has nulls, not zeros.
    a.Inf("max_rel", r.acc.max_rel, r.Ok());
    a.Inf("max_abs", r.acc.max_abs, r.Ok());
    a.Inf("snr_db", r.acc.snr_db, r.Ok());
    a.Count("nonfinite", r.acc.nonfinite);
    a.Str("bound", r.bound);
    a.Tri("bound_ok", r.acc.bound_ok);
  });
  v.Optional("icount", r.mode == "icount", [&](auto& ic) {
    ic.Num("instructions", r.instructions);
    ic.Num("per_element", r.instr_per_element);
    ic.Num("cycles", r.cycles);
    ic.Num("cycles_per_element", r.cycles_per_element);
    ic.Str("cycle_model", r.cycle_model);
    ic.Int("vlen", r.vlen);
    ic.Str("vtype", r.vtype);
  });
  v.Int("lmul", r.lmul);
}

template <class V, class M>
void VisitMachine(V& v, M& m) {
  v.Str("cpu", m.cpu);
  v.Str("arch", m.arch);
  v.Str("isa", m.isa);
  v.Int("cores", m.cores);
  v.Int("vlen", m.vlen);
  v.Str("vlak_version", m.vlak_version);
  v.Str("vlak_target", m.vlak_target);
  v.Str("compiler", m.compiler);
  v.Map("compilers", m.compilers);
  v.Map("libraries", m.libraries);
  v.Str("commit", m.commit);
  v.Str("date", m.date);
  v.Str("host", m.host);
  v.Str("omp_blocktime", m.omp_blocktime);
  v.Str("load", m.load);
}

template <class V, class R>
void VisitResults(V& v, R& res) {
  v.Text("format", kResultsFormat);  // the reader checks it first (ResultsFromJson)
  v.Str("suite", res.suite);
  v.Object("machine", [&](auto& m) { VisitMachine(m, res.machine); });
  v.Settings("settings", res.settings);
  v.List("records", res.records, [](auto& rv, auto& r) { VisitRecord(rv, r); });
}

}  // namespace

Json ToJson(const Record& r) {
  JsonWriter w;
  VisitRecord(w, r);
  return std::move(w.out);
}

Record RecordFromJson(const Json& j) {
  Record r;
  JsonReader reader{j};
  VisitRecord(reader, r);
  return r;
}

Json ToJson(const Results& res) {
  JsonWriter w;
  VisitResults(w, res);
  return std::move(w.out);
}

bool ResultsFromJson(const Json& j, Results* out, std::string* err) {
  const std::string format = JStr(j, "format");
  if (format != "vlak-lab-results/1" && format != "vlak-lab-results/2") {
    *err = format.rfind("vlak-lab-results/", 0) == 0
               ? "results format " + format + " is newer than this vlak reads (vlak-lab-results/1 and /2)"
               : "not a vlak bench results file (no \"format\": \"vlak-lab-results/...\")";
    return false;
  }
  *out = Results();
  JsonReader reader{j};
  VisitResults(reader, *out);
  return true;
}

bool ReadResultsFile(const std::string& path, Results* out, std::string* err) {
  std::ifstream f(path);
  if (!f) {
    *err = path + ": cannot open";
    return false;
  }
  std::stringstream ss;
  ss << f.rdbuf();
  Json j;
  std::string e;
  if (!ParseJson(ss.str(), &j, &e)) {
    *err = path + ": " + e;
    return false;
  }
  if (!ResultsFromJson(j, out, &e)) {
    *err = path + ": " + e;
    return false;
  }
  return true;
}

std::string DumpJson(const Json& j) {
  // replace: a stray non-UTF-8 byte (a CPU name, a compiler banner) must not abort the write.
  return j.dump(1, ' ', false, Json::error_handler_t::replace);
}

bool WriteTextFile(const std::string& path, const std::string& text, std::string* err) {
  std::ofstream f(path, std::ios::binary);
  f << text;
  f.close();
  if (!f) {
    *err = "cannot write " + path;
    return false;
  }
  return true;
}

// ---- formatting ------------------------------------------------------------------------------

std::string FormatNumber(double v, int sig) {
  if (std::isnan(v)) return "-";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  char buf[48];
  const double a = std::fabs(v);
  if (a != 0 && (a >= 1e7 || a < 1e-3)) {
    std::snprintf(buf, sizeof buf, "%.*e", sig - 1, v);
  } else {
    const int digits = a == 0 ? 0 : static_cast<int>(std::floor(std::log10(a))) + 1;
    std::snprintf(buf, sizeof buf, "%.*f", std::max(0, sig - digits), v);
  }
  return buf;
}

std::string FormatSci(double v) {
  if (std::isnan(v)) return "-";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  if (v == 0) return "0";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1e", v);
  return buf;
}

std::string FormatPercent(double pct) {
  if (!std::isfinite(pct)) return "-";
  char buf[32];
  std::snprintf(buf, sizeof buf, pct < 10 ? "%.1f%%" : "%.0f%%", pct);
  return buf;
}

std::string FormatSeconds(double s) {
  if (std::isnan(s)) return "-";
  if (s < 1e-6) return FormatNumber(s * 1e9) + " ns";
  if (s < 1e-3) return FormatNumber(s * 1e6) + " us";
  if (s < 1) return FormatNumber(s * 1e3) + " ms";
  return FormatNumber(s) + " s";
}

// ---- CSV ---------------------------------------------------------------------------------

namespace {

std::string CsvField(const std::string& s) {
  if (s.find_first_of(",\"\n") == std::string::npos) return s;
  std::string out = "\"";
  for (char c : s) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

std::string CsvNum(double v) {
  if (std::isnan(v)) return "";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.6g", v);
  return buf;
}

// Time columns only for a timed result, accuracy columns only for one that ran.
bool CsvTimed(const Record& r) { return r.mode == "time" && r.Ok(); }

// The columns in order: the header's name and the record's cell.
const struct {
  const char* name;
  std::string (*cell)(const Record& r);
} kCsvColumns[] = {
    {"suite", [](const Record& r) { return CsvField(r.suite); }},
    {"op", [](const Record& r) { return CsvField(r.op); }},
    {"shape", [](const Record& r) { return CsvField(r.shape); }},
    {"elements", [](const Record& r) { return std::to_string(r.elements); }},
    {"threads", [](const Record& r) { return std::to_string(r.threads); }},
    {"impl", [](const Record& r) { return CsvField(r.impl); }},
    {"kind", [](const Record& r) { return CsvField(r.kind); }},
    {"target", [](const Record& r) { return CsvField(r.target); }},
    {"status", [](const Record& r) { return CsvField(r.status); }},
    {"detail", [](const Record& r) { return CsvField(r.detail); }},
    {"mode", [](const Record& r) { return CsvField(r.mode); }},
    {"median_s", [](const Record& r) { return CsvTimed(r) ? CsvNum(r.time.median) : ""; }},
    {"q1_s", [](const Record& r) { return CsvTimed(r) ? CsvNum(r.time.q1) : ""; }},
    {"q3_s", [](const Record& r) { return CsvTimed(r) ? CsvNum(r.time.q3) : ""; }},
    {"min_s", [](const Record& r) { return CsvTimed(r) ? CsvNum(r.time.min) : ""; }},
    {"max_s", [](const Record& r) { return CsvTimed(r) ? CsvNum(r.time.max) : ""; }},
    {"samples", [](const Record& r) { return CsvTimed(r) ? std::to_string(r.time.n) : ""; }},
    {"runs", [](const Record& r) { return CsvTimed(r) ? std::to_string(r.runs) : ""; }},
    {"gbps", [](const Record& r) { return CsvNum(r.gbps); }},
    {"elements_per_s", [](const Record& r) { return CsvNum(r.elements_per_s); }},
    {"norm_unit", [](const Record& r) { return CsvNum(r.norm_unit); }},
    {"baseline", [](const Record& r) { return CsvField(r.baseline); }},
    {"speedup", [](const Record& r) { return CsvNum(r.speedup); }},
    {"max_rel", [](const Record& r) { return r.Ok() ? CsvNum(r.acc.max_rel) : ""; }},
    {"max_abs", [](const Record& r) { return r.Ok() ? CsvNum(r.acc.max_abs) : ""; }},
    {"snr_db", [](const Record& r) { return r.Ok() ? CsvNum(r.acc.snr_db) : ""; }},
    {"bound", [](const Record& r) { return CsvField(r.bound); }},
    {"bound_ok",
     [](const Record& r) {
       return std::string(r.acc.bound_ok < 0 ? "" : r.acc.bound_ok ? "true" : "false");
     }},
    {"instructions", [](const Record& r) { return CsvNum(r.instructions); }},
    {"instr_per_element", [](const Record& r) { return CsvNum(r.instr_per_element); }},
    {"cycles", [](const Record& r) { return CsvNum(r.cycles); }},
    {"cycles_per_element", [](const Record& r) { return CsvNum(r.cycles_per_element); }},
    {"cycle_model", [](const Record& r) { return CsvField(r.cycle_model); }},
    {"vlen", [](const Record& r) { return r.vlen ? std::to_string(r.vlen) : ""; }},
    {"lmul", [](const Record& r) { return r.lmul ? std::to_string(r.lmul) : ""; }},
    {"vtype", [](const Record& r) { return CsvField(r.vtype); }},
    {"gflops", [](const Record& r) { return CsvNum(r.gflops); }},
    {"bound_kind", [](const Record& r) { return CsvField(r.bound_kind); }},
    {"copy_gbps", [](const Record& r) { return CsvNum(r.copy_gbps); }},
    {"peak_gflops", [](const Record& r) { return CsvNum(r.peak_gflops); }},
    {"peak_target", [](const Record& r) { return CsvField(r.peak_target); }},
    {"pct_of_bound", [](const Record& r) { return CsvNum(r.pct_of_bound); }},
};

}  // namespace

std::string CsvHeader() {
  std::string s;
  for (size_t i = 0; i < std::size(kCsvColumns); ++i) s += (i ? "," : "") + std::string(kCsvColumns[i].name);
  return s + "\n";
}

std::string CsvRow(const Record& r) {
  std::string s;
  for (size_t i = 0; i < std::size(kCsvColumns); ++i) s += (i ? "," : "") + kCsvColumns[i].cell(r);
  return s + "\n";
}

// ---- console table -------------------------------------------------------------------------

void PrintTable(FILE* out, const std::vector<Record>& records) {
  std::string last;
  for (const Record& r : records) {
    const bool ic = r.mode == "icount";
    if (r.CaseKey() != last) {
      last = r.CaseKey();
      std::fprintf(out, "\n%s %s, %d thread%s%s; %s", r.op.c_str(), r.shape.c_str(), r.threads, r.threads == 1 ? "" : "s",
                   ic ? (", VLEN " + std::to_string(r.vlen)).c_str() : "", r.bytes_formula.c_str());
      if (!r.baseline.empty()) std::fprintf(out, "; vs %s = %s / this", r.baseline.c_str(), ic ? "its instructions" : "its time");
      // The case's bound, from the first record that has one (all share it, except the peaks of
      // forced vlak targets, which their rows' %bound already use).
      for (const Record& o : records) {
        if (o.CaseKey() != r.CaseKey() || o.bound_kind.empty()) continue;
        if (o.bound_kind == "memory") std::fprintf(out, "; bound: copy %s GB/s", FormatNumber(o.copy_gbps).c_str());
        else if (o.bound_kind == "int8-mac") std::fprintf(out, "; bound: int8 MAC peak %s G MAC/s (%s)", FormatNumber(o.peak_gflops).c_str(), o.peak_target.c_str());
        else std::fprintf(out, "; bound: FMA peak %s GFLOP/s (%s)", FormatNumber(o.peak_gflops).c_str(), o.peak_target.c_str());
        break;
      }
      std::fprintf(out, "\n");
      if (ic) {
        std::fprintf(out, "  %-24s %5s %6s %12s %10s %10s %11s %9s %9s %7s  %s\n", "impl", "LMUL", "vtype", "instructions",
                     "instr/elem", "cyc/elem", ("vs " + r.baseline).substr(0, 11).c_str(), "max rel", "max abs", "SNR dB",
                     "bound");
      } else {
        std::fprintf(out, "  %-24s %-7s %10s %6s %8s %6s %9s %8s %11s %9s %9s %7s  %s\n", "impl", "target", "median", "+-",
                     r.flops_per_run > 0 ? (r.bound_kind == "int8-mac" ? "G MAC/s" : "GFLOP/s") : "GB/s", "%bound", "Melem/s", "norm",
                     ("vs " + r.baseline).substr(0, 11).c_str(), "max rel", "max abs", "SNR dB", "bound");
      }
    }
    if (!r.Ok()) {
      std::fprintf(out, "  %-24s %s%s%s\n", r.impl.c_str(), r.status.c_str(), r.detail.empty() ? "" : ": ", r.detail.c_str());
      continue;
    }
    const char* flag = r.acc.bound_ok < 0 ? "-" : r.acc.bound_ok ? "ok" : "FAIL";
    const std::string speed = std::isnan(r.speedup) ? "-" : FormatNumber(r.speedup) + "x";
    if (ic) {
      const std::string lmul = r.lmul ? std::to_string(r.lmul) : "-";
      char count_buf[32];
      std::snprintf(count_buf, sizeof count_buf, "%.0f", r.instructions);
      const std::string count = std::isnan(r.instructions) ? "n/a" : count_buf;
      std::fprintf(out, "  %-24s %5s %6s %12s %10s %10s %11s %9s %9s %7s  %s\n", r.impl.c_str(), lmul.c_str(),
                   r.vtype.empty() ? "-" : r.vtype.c_str(), count.c_str(), FormatNumber(r.instr_per_element).c_str(),
                   std::isnan(r.cycles_per_element) ? "-" : FormatNumber(r.cycles_per_element).c_str(), speed.c_str(), FormatSci(r.acc.max_rel).c_str(), FormatSci(r.acc.max_abs).c_str(),
                   FormatNumber(r.acc.snr_db, 4).c_str(), flag);
    } else {
      char spread[16];
      std::snprintf(spread, sizeof spread, "%.1f%%", 100 * r.time.RelSpread());
      std::fprintf(out, "  %-24s %-7s %10s %6s %8s %6s %9s %8s %11s %9s %9s %7s  %s\n", r.impl.c_str(),
                   r.target.empty() ? "-" : r.target.c_str(), FormatSeconds(r.time.median).c_str(), spread,
                   FormatNumber(r.flops_per_run > 0 ? r.gflops : r.gbps).c_str(), FormatPercent(r.pct_of_bound).c_str(),
                   FormatNumber(r.elements_per_s / 1e6).c_str(),
                   FormatNumber(r.norm_unit).c_str(), speed.c_str(), FormatSci(r.acc.max_rel).c_str(),
                   FormatSci(r.acc.max_abs).c_str(), FormatNumber(r.acc.snr_db, 4).c_str(), flag);
    }
  }
}

}  // namespace vlak::lab
