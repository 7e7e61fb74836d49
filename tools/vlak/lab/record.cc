#include "lab/record.h"

#include <cmath>
#include <fstream>
#include <sstream>

namespace vlak::lab {

namespace {

Json Num(double v) { return Json(v); }  // non-finite numbers become null in the file

double NumOr(const Json& j, double fallback) {
  if (j.IsString()) {  // infinities are written as strings ("inf") so SNR of exact results survives
    if (j.Str() == "inf") return INFINITY;
    if (j.Str() == "-inf") return -INFINITY;
  }
  return j.Num(fallback);
}

Json NumInf(double v) {
  if (std::isinf(v)) return Json(v > 0 ? "inf" : "-inf");
  return Json(v);
}

Json SummaryJson(const Summary& s) {
  Json j = Json::Object();
  j.Set("median", Num(s.median));
  j.Set("q1", Num(s.q1));
  j.Set("q3", Num(s.q3));
  j.Set("min", Num(s.min));
  j.Set("max", Num(s.max));
  j.Set("samples", Json(static_cast<double>(s.n)));
  return j;
}

Summary SummaryFromJson(const Json& j) {
  Summary s;
  s.median = j["median"].Num();
  s.q1 = j["q1"].Num();
  s.q3 = j["q3"].Num();
  s.min = j["min"].Num();
  s.max = j["max"].Num();
  s.n = static_cast<size_t>(j["samples"].Num(0));
  return s;
}

}  // namespace

Json ToJson(const Record& r) {
  Json j = Json::Object();
  j.Set("suite", r.suite);
  j.Set("op", r.op);
  j.Set("shape", r.shape);
  Json dims = Json::Array();
  for (size_t d : r.dims) dims.Push(Json(static_cast<double>(d)));
  j.Set("dims", dims);
  j.Set("elements", Json(static_cast<double>(r.elements)));
  j.Set("threads", r.threads);
  j.Set("impl", r.impl);
  j.Set("kind", r.kind);
  j.Set("description", r.description);
  j.Set("status", r.status);
  if (!r.detail.empty()) j.Set("detail", r.detail);
  j.Set("target", r.target);
  j.Set("mode", r.mode);
  j.Set("bytes_per_run", Num(r.bytes_per_run));
  j.Set("bytes_formula", r.bytes_formula);
  if (r.mode == "time") {
    Json t = SummaryJson(r.time);
    t.Set("unit", "seconds per run");
    t.Set("runs", Json(static_cast<double>(r.runs)));
    j.Set("time", t);
    j.Set("gbps", Num(r.gbps));
    j.Set("elements_per_s", Num(r.elements_per_s));
    j.Set("norm_unit", Num(r.norm_unit));
  }
  j.Set("baseline", r.baseline);
  j.Set("speedup", Num(r.speedup));
  Json ratios = Json::Object();
  for (const auto& [k, v] : r.ratios) ratios.Set(k, Num(v));
  j.Set("ratios", ratios);
  Json a = Json::Object();
  // No output, no accuracy: a missing implementation has nulls, not zeros.
  a.Set("max_rel", r.Ok() ? NumInf(r.acc.max_rel) : Json());
  a.Set("max_abs", r.Ok() ? NumInf(r.acc.max_abs) : Json());
  a.Set("snr_db", r.Ok() ? NumInf(r.acc.snr_db) : Json());
  a.Set("nonfinite", Json(static_cast<double>(r.acc.nonfinite)));
  a.Set("bound", r.bound);
  a.Set("bound_ok", r.acc.bound_ok < 0 ? Json() : Json(r.acc.bound_ok == 1));
  j.Set("accuracy", a);
  if (r.mode == "icount") {
    Json ic = Json::Object();
    ic.Set("instructions", Num(r.instructions));
    ic.Set("per_element", Num(r.instr_per_element));
    ic.Set("vlen", r.vlen);
    ic.Set("vtype", r.vtype);
    j.Set("icount", ic);
  }
  j.Set("lmul", r.lmul);
  return j;
}

Record RecordFromJson(const Json& j) {
  Record r;
  r.suite = j["suite"].Str();
  r.op = j["op"].Str();
  r.shape = j["shape"].Str();
  for (const auto& d : j["dims"].Items()) r.dims.push_back(static_cast<size_t>(d.Num(0)));
  r.elements = static_cast<size_t>(j["elements"].Num(0));
  r.threads = static_cast<int>(j["threads"].Num(1));
  r.impl = j["impl"].Str();
  r.kind = j["kind"].Str();
  r.description = j["description"].Str();
  r.status = j["status"].Str();
  r.detail = j["detail"].Str();
  r.target = j["target"].Str();
  r.mode = j["mode"].Str();
  r.bytes_per_run = j["bytes_per_run"].Num(0);
  r.bytes_formula = j["bytes_formula"].Str();
  if (j.Has("time")) {
    r.time = SummaryFromJson(j["time"]);
    r.runs = static_cast<size_t>(j["time"]["runs"].Num(0));
  }
  r.gbps = j["gbps"].Num();
  r.elements_per_s = j["elements_per_s"].Num();
  r.norm_unit = j["norm_unit"].Num();
  r.baseline = j["baseline"].Str();
  r.speedup = j["speedup"].Num();
  for (const auto& [k, v] : j["ratios"].Members()) r.ratios[k] = v.Num();
  const Json& a = j["accuracy"];
  r.acc.max_rel = NumOr(a["max_rel"], NAN);
  r.acc.max_abs = NumOr(a["max_abs"], NAN);
  r.acc.snr_db = NumOr(a["snr_db"], NAN);
  r.acc.nonfinite = static_cast<size_t>(a["nonfinite"].Num(0));
  r.bound = a["bound"].Str();
  r.acc.bound_ok = a["bound_ok"].IsNull() ? -1 : a["bound_ok"].Bool() ? 1 : 0;
  if (j.Has("icount")) {
    r.instructions = j["icount"]["instructions"].Num();
    r.instr_per_element = j["icount"]["per_element"].Num();
    r.vlen = static_cast<int>(j["icount"]["vlen"].Num(0));
    r.vtype = j["icount"]["vtype"].Str();
  }
  r.lmul = static_cast<int>(j["lmul"].Num(0));
  return r;
}

Json ToJson(const Results& res) {
  Json j = Json::Object();
  j.Set("format", "vlak-lab-results/1");
  j.Set("suite", res.suite);
  const Machine& m = res.machine;
  Json mj = Json::Object();
  mj.Set("cpu", m.cpu);
  mj.Set("arch", m.arch);
  mj.Set("isa", m.isa);
  mj.Set("cores", m.cores);
  mj.Set("vlen", m.vlen);
  mj.Set("vlak_version", m.vlak_version);
  mj.Set("vlak_target", m.vlak_target);
  mj.Set("compiler", m.compiler);
  Json comp = Json::Object();
  for (const auto& [k, v] : m.compilers) comp.Set(k, v);
  mj.Set("compilers", comp);
  Json libs = Json::Object();
  for (const auto& [k, v] : m.libraries) libs.Set(k, v);
  mj.Set("libraries", libs);
  mj.Set("commit", m.commit);
  mj.Set("date", m.date);
  mj.Set("host", m.host);
  mj.Set("omp_blocktime", m.omp_blocktime);
  mj.Set("load", m.load);
  j.Set("machine", mj);
  j.Set("settings", res.settings);
  Json recs = Json::Array();
  for (const auto& r : res.records) recs.Push(ToJson(r));
  j.Set("records", recs);
  return j;
}

bool ResultsFromJson(const Json& j, Results* out, std::string* err) {
  if (!j.IsObject() || j["format"].Str().rfind("vlak-lab-results/", 0) != 0) {
    *err = "not a vlak bench results file (no \"format\": \"vlak-lab-results/...\")";
    return false;
  }
  *out = Results();
  out->suite = j["suite"].Str();
  const Json& mj = j["machine"];
  Machine& m = out->machine;
  m.cpu = mj["cpu"].Str();
  m.arch = mj["arch"].Str();
  m.isa = mj["isa"].Str();
  m.cores = static_cast<int>(mj["cores"].Num(0));
  m.vlen = static_cast<int>(mj["vlen"].Num(0));
  m.vlak_version = mj["vlak_version"].Str();
  m.vlak_target = mj["vlak_target"].Str();
  m.compiler = mj["compiler"].Str();
  for (const auto& [k, v] : mj["compilers"].Members()) m.compilers[k] = v.Str();
  for (const auto& [k, v] : mj["libraries"].Members()) m.libraries[k] = v.Str();
  m.commit = mj["commit"].Str();
  m.date = mj["date"].Str();
  m.host = mj["host"].Str();
  m.omp_blocktime = mj["omp_blocktime"].Str();
  m.load = mj["load"].Str();
  out->settings = j["settings"];
  for (const auto& r : j["records"].Items()) out->records.push_back(RecordFromJson(r));
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
  if (!Json::Parse(ss.str(), &j, &e)) {
    *err = path + ":" + e;
    return false;
  }
  if (!ResultsFromJson(j, out, &e)) {
    *err = path + ": " + e;
    return false;
  }
  return true;
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
         "instructions,instr_per_element,vlen,lmul,vtype\n";
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
      std::fprintf(out, "\n");
      if (ic) {
        std::fprintf(out, "  %-24s %5s %6s %12s %10s %11s %9s %9s %7s  %s\n", "impl", "LMUL", "vtype", "instructions",
                     "instr/elem", ("vs " + r.baseline).substr(0, 11).c_str(), "max rel", "max abs", "SNR dB", "bound");
      } else {
        std::fprintf(out, "  %-24s %-7s %10s %6s %8s %9s %8s %11s %9s %9s %7s  %s\n", "impl", "target", "median", "+-",
                     "GB/s", "Melem/s", "norm", ("vs " + r.baseline).substr(0, 11).c_str(), "max rel", "max abs", "SNR dB",
                     "bound");
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
      std::fprintf(out, "  %-24s %-7s %10s %6s %8s %9s %8s %11s %9s %9s %7s  %s\n", r.impl.c_str(),
                   r.target.empty() ? "-" : r.target.c_str(), FormatSeconds(r.time.median).c_str(), spread,
                   FormatNumber(r.gbps).c_str(), FormatNumber(r.elements_per_s / 1e6).c_str(),
                   FormatNumber(r.norm_unit).c_str(), speed.c_str(), FormatSci(r.acc.max_rel).c_str(),
                   FormatSci(r.acc.max_abs).c_str(), FormatNumber(r.acc.snr_db, 4).c_str(), flag);
    }
  }
}

}  // namespace vlak::lab
