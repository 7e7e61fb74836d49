#include "lab/record.h"

#include <cmath>
#include <fstream>
#include <sstream>

namespace vlak::lab {

namespace {

const Json& NullJson() {
  static const Json null;
  return null;
}

Json Num(double v) { return std::isfinite(v) ? Json(v) : Json(); }  // JSON has no NaN/inf: null

Json NumInf(double v) {  // infinities as strings, so the SNR of an exact result survives
  if (std::isinf(v)) return Json(v > 0 ? "inf" : "-inf");
  return Num(v);
}

Json SummaryJson(const Summary& s) {
  Json j = Json::object();
  j["median"] = Num(s.median);
  j["q1"] = Num(s.q1);
  j["q3"] = Num(s.q3);
  j["min"] = Num(s.min);
  j["max"] = Num(s.max);
  j["samples"] = s.n;
  return j;
}

Summary SummaryFromJson(const Json& j) {
  Summary s;
  s.median = JNum(j, "median");
  s.q1 = JNum(j, "q1");
  s.q3 = JNum(j, "q3");
  s.min = JNum(j, "min");
  s.max = JNum(j, "max");
  s.n = static_cast<size_t>(JNum(j, "samples", 0));
  return s;
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

Json ToJson(const Record& r) {
  Json j = Json::object();
  j["suite"] = r.suite;
  j["op"] = r.op;
  j["shape"] = r.shape;
  j["dims"] = r.dims;
  j["elements"] = r.elements;
  j["threads"] = r.threads;
  j["impl"] = r.impl;
  j["kind"] = r.kind;
  j["description"] = r.description;
  j["status"] = r.status;
  if (!r.detail.empty()) j["detail"] = r.detail;
  j["target"] = r.target;
  j["mode"] = r.mode;
  j["bytes_per_run"] = Num(r.bytes_per_run);
  j["bytes_formula"] = r.bytes_formula;
  if (r.flops_per_run > 0) j["flops_per_run"] = Num(r.flops_per_run);
  if (r.mode == "time") {
    Json t = SummaryJson(r.time);
    t["unit"] = "seconds per run";
    t["runs"] = r.runs;
    j["time"] = t;
    j["gbps"] = Num(r.gbps);
    j["elements_per_s"] = Num(r.elements_per_s);
    j["norm_unit"] = Num(r.norm_unit);
    if (r.flops_per_run > 0) j["gflops"] = Num(r.gflops);
  }
  if (!r.bound_kind.empty()) {
    Json rl = Json::object();
    rl["kind"] = r.bound_kind;
    if (r.bound_kind == "memory") {
      rl["copy_gbps"] = Num(r.copy_gbps);
    } else {
      rl["peak_gflops"] = Num(r.peak_gflops);
      rl["peak_target"] = r.peak_target;
    }
    rl["pct_of_bound"] = Num(r.pct_of_bound);
    j["roofline"] = rl;
  }
  j["baseline"] = r.baseline;
  j["speedup"] = Num(r.speedup);
  Json ratios = Json::object();
  for (const auto& [k, v] : r.ratios) ratios[k] = Num(v);
  j["ratios"] = ratios;
  Json a = Json::object();
  // No output, no accuracy: a missing implementation has nulls, not zeros.
  a["max_rel"] = r.Ok() ? NumInf(r.acc.max_rel) : Json();
  a["max_abs"] = r.Ok() ? NumInf(r.acc.max_abs) : Json();
  a["snr_db"] = r.Ok() ? NumInf(r.acc.snr_db) : Json();
  a["nonfinite"] = r.acc.nonfinite;
  a["bound"] = r.bound;
  a["bound_ok"] = r.acc.bound_ok < 0 ? Json() : Json(r.acc.bound_ok == 1);
  j["accuracy"] = a;
  if (r.mode == "icount") {
    Json ic = Json::object();
    ic["instructions"] = Num(r.instructions);
    ic["per_element"] = Num(r.instr_per_element);
    ic["vlen"] = r.vlen;
    ic["vtype"] = r.vtype;
    j["icount"] = ic;
  }
  j["lmul"] = r.lmul;
  return j;
}

Record RecordFromJson(const Json& j) {
  Record r;
  r.suite = JStr(j, "suite");
  r.op = JStr(j, "op");
  r.shape = JStr(j, "shape");
  for (const auto& d : JGet(j, "dims")) {
    if (d.is_number()) r.dims.push_back(d.get<size_t>());
  }
  r.elements = static_cast<size_t>(JNum(j, "elements", 0));
  r.threads = static_cast<int>(JNum(j, "threads", 1));
  r.impl = JStr(j, "impl");
  r.kind = JStr(j, "kind");
  r.description = JStr(j, "description");
  r.status = JStr(j, "status");
  r.detail = JStr(j, "detail");
  r.target = JStr(j, "target");
  r.mode = JStr(j, "mode");
  r.bytes_per_run = JNum(j, "bytes_per_run", 0);
  r.bytes_formula = JStr(j, "bytes_formula");
  r.flops_per_run = JNum(j, "flops_per_run", 0);
  if (const Json& t = JGet(j, "time"); t.is_object()) {
    r.time = SummaryFromJson(t);
    r.runs = static_cast<size_t>(JNum(t, "runs", 0));
  }
  r.gbps = JNum(j, "gbps");
  r.elements_per_s = JNum(j, "elements_per_s");
  r.norm_unit = JNum(j, "norm_unit");
  r.gflops = JNum(j, "gflops");
  if (const Json& rl = JGet(j, "roofline"); rl.is_object()) {
    r.bound_kind = JStr(rl, "kind");
    r.copy_gbps = JNum(rl, "copy_gbps");
    r.peak_gflops = JNum(rl, "peak_gflops");
    r.peak_target = JStr(rl, "peak_target");
    r.pct_of_bound = JNum(rl, "pct_of_bound");
  }
  r.baseline = JStr(j, "baseline");
  r.speedup = JNum(j, "speedup");
  if (const Json& ratios = JGet(j, "ratios"); ratios.is_object()) {
    for (const auto& [k, v] : ratios.items()) r.ratios[k] = v.is_number() ? v.get<double>() : NAN;
  }
  const Json& a = JGet(j, "accuracy");
  r.acc.max_rel = JNum(a, "max_rel");
  r.acc.max_abs = JNum(a, "max_abs");
  r.acc.snr_db = JNum(a, "snr_db");
  r.acc.nonfinite = static_cast<size_t>(JNum(a, "nonfinite", 0));
  r.bound = JStr(a, "bound");
  const Json& ok = JGet(a, "bound_ok");
  r.acc.bound_ok = ok.is_boolean() ? (ok.get<bool>() ? 1 : 0) : -1;
  if (const Json& ic = JGet(j, "icount"); ic.is_object()) {
    r.instructions = JNum(ic, "instructions");
    r.instr_per_element = JNum(ic, "per_element");
    r.vlen = static_cast<int>(JNum(ic, "vlen", 0));
    r.vtype = JStr(ic, "vtype");
  }
  r.lmul = static_cast<int>(JNum(j, "lmul", 0));
  return r;
}

Json ToJson(const Results& res) {
  Json j = Json::object();
  j["format"] = kResultsFormat;
  j["suite"] = res.suite;
  const Machine& m = res.machine;
  Json mj = Json::object();
  mj["cpu"] = m.cpu;
  mj["arch"] = m.arch;
  mj["isa"] = m.isa;
  mj["cores"] = m.cores;
  mj["vlen"] = m.vlen;
  mj["vlak_version"] = m.vlak_version;
  mj["vlak_target"] = m.vlak_target;
  mj["compiler"] = m.compiler;
  mj["compilers"] = Json::object();
  for (const auto& [k, v] : m.compilers) mj["compilers"][k] = v;
  mj["libraries"] = Json::object();
  for (const auto& [k, v] : m.libraries) mj["libraries"][k] = v;
  mj["commit"] = m.commit;
  mj["date"] = m.date;
  mj["host"] = m.host;
  mj["omp_blocktime"] = m.omp_blocktime;
  mj["load"] = m.load;
  j["machine"] = mj;
  j["settings"] = res.settings.is_object() ? res.settings : Json::object();
  Json recs = Json::array();
  for (const auto& r : res.records) recs.push_back(ToJson(r));
  j["records"] = recs;
  return j;
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
  out->suite = JStr(j, "suite");
  const Json& mj = JGet(j, "machine");
  Machine& m = out->machine;
  m.cpu = JStr(mj, "cpu");
  m.arch = JStr(mj, "arch");
  m.isa = JStr(mj, "isa");
  m.cores = static_cast<int>(JNum(mj, "cores", 0));
  m.vlen = static_cast<int>(JNum(mj, "vlen", 0));
  m.vlak_version = JStr(mj, "vlak_version");
  m.vlak_target = JStr(mj, "vlak_target");
  m.compiler = JStr(mj, "compiler");
  for (const char* key : {"compilers", "libraries"}) {
    const Json& o = JGet(mj, key);
    if (!o.is_object()) continue;
    auto& dst = std::string(key) == "compilers" ? m.compilers : m.libraries;
    for (const auto& [k, v] : o.items()) dst[k] = v.is_string() ? v.get<std::string>() : std::string();
  }
  m.commit = JStr(mj, "commit");
  m.date = JStr(mj, "date");
  m.host = JStr(mj, "host");
  m.omp_blocktime = JStr(mj, "omp_blocktime");
  m.load = JStr(mj, "load");
  if (const Json& st = JGet(j, "settings"); st.is_object()) out->settings = st;
  for (const auto& r : JGet(j, "records")) {
    if (r.is_object()) out->records.push_back(RecordFromJson(r));
  }
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

}  // namespace

std::string CsvHeader() {
  return "suite,op,shape,elements,threads,impl,kind,target,status,detail,mode,median_s,q1_s,q3_s,min_s,max_s,"
         "samples,runs,gbps,elements_per_s,norm_unit,baseline,speedup,max_rel,max_abs,snr_db,bound,bound_ok,"
         "instructions,instr_per_element,vlen,lmul,vtype,gflops,bound_kind,copy_gbps,peak_gflops,peak_target,"
         "pct_of_bound\n";
}

std::string CsvRow(const Record& r) {
  std::string s;
  bool first = true;
  const auto add = [&](const std::string& f) {
    s += (first ? "" : ",") + f;
    first = false;
  };
  add(CsvField(r.suite));
  add(CsvField(r.op));
  add(CsvField(r.shape));
  add(std::to_string(r.elements));
  add(std::to_string(r.threads));
  add(CsvField(r.impl));
  add(CsvField(r.kind));
  add(CsvField(r.target));
  add(CsvField(r.status));
  add(CsvField(r.detail));
  add(CsvField(r.mode));
  const bool t = r.mode == "time" && r.Ok();
  add(t ? CsvNum(r.time.median) : "");
  add(t ? CsvNum(r.time.q1) : "");
  add(t ? CsvNum(r.time.q3) : "");
  add(t ? CsvNum(r.time.min) : "");
  add(t ? CsvNum(r.time.max) : "");
  add(t ? std::to_string(r.time.n) : "");
  add(t ? std::to_string(r.runs) : "");
  add(CsvNum(r.gbps));
  add(CsvNum(r.elements_per_s));
  add(CsvNum(r.norm_unit));
  add(CsvField(r.baseline));
  add(CsvNum(r.speedup));
  const bool a = r.Ok();
  add(a ? CsvNum(r.acc.max_rel) : "");
  add(a ? CsvNum(r.acc.max_abs) : "");
  add(a ? CsvNum(r.acc.snr_db) : "");
  add(CsvField(r.bound));
  add(r.acc.bound_ok < 0 ? "" : r.acc.bound_ok ? "true" : "false");
  add(CsvNum(r.instructions));
  add(CsvNum(r.instr_per_element));
  add(r.vlen ? std::to_string(r.vlen) : "");
  add(r.lmul ? std::to_string(r.lmul) : "");
  add(CsvField(r.vtype));
  add(CsvNum(r.gflops));
  add(CsvField(r.bound_kind));
  add(CsvNum(r.copy_gbps));
  add(CsvNum(r.peak_gflops));
  add(CsvField(r.peak_target));
  add(CsvNum(r.pct_of_bound));
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
        std::fprintf(out, "  %-24s %5s %6s %12s %10s %11s %9s %9s %7s  %s\n", "impl", "LMUL", "vtype", "instructions",
                     "instr/elem", ("vs " + r.baseline).substr(0, 11).c_str(), "max rel", "max abs", "SNR dB", "bound");
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
      std::fprintf(out, "  %-24s %5s %6s %12s %10s %11s %9s %9s %7s  %s\n", r.impl.c_str(), lmul.c_str(),
                   r.vtype.empty() ? "-" : r.vtype.c_str(), count.c_str(), FormatNumber(r.instr_per_element).c_str(),
                   speed.c_str(), FormatSci(r.acc.max_rel).c_str(), FormatSci(r.acc.max_abs).c_str(),
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
