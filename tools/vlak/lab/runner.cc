#include "lab/runner.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <limits>
#include <cstring>
#include <ctime>
#include <memory>

#include <dirent.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "icount_marker.h"
#include "lab/machine.h"
#include "lab/roofline.h"
#include "vlak/vlak.h"

namespace vlak::lab {
namespace {

double Now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

struct Live {
  const ImplDef* def;
  Prepared prep;
  Record rec;
  size_t batch = 1;
  double total = 0;
  std::vector<double> samples;  // seconds per run, one per round
  bool failed = false;
};

Record BaseRecord(const Case& c, const ImplDef& d, const std::string& suite) {
  Record r;
  r.suite = suite;
  r.op = c.op->name;
  r.shape = c.shape.Text();
  r.dims = c.shape.dims;
  r.elements = c.op->elements ? c.op->elements(c.shape) : c.shape.Elements();
  r.threads = c.threads;
  r.impl = d.name;
  r.kind = d.kind;
  r.description = d.description;
  r.bytes_per_run = c.op->bytes_per_run(c.shape);
  r.flops_per_run = c.op->flops_per_run ? c.op->flops_per_run(c.shape) : 0;
  r.bytes_formula = c.op->bytes_formula;
  r.baseline = c.baseline;
  r.lmul = d.lmul;
  if (!std::isnan(d.bound)) r.bound = c.op->bound_text(d.bound);
  return r;
}

// Whether a thread of this process other than the caller is running or runnable (state R in
// /proc/self/task/*/stat). The state, not CPU time: a thread's CPU time on another core is only
// accounted at scheduler ticks (4 ms at HZ=250), so a short poll of CPU time misses a spinner.
bool OtherThreadsRunning() {
  DIR* dir = opendir("/proc/self/task");
  if (dir == nullptr) return false;
  const long self = syscall(SYS_gettid);
  bool running = false;
  while (dirent* e = readdir(dir)) {
    if (e->d_name[0] == '.' || std::atol(e->d_name) == self) continue;
    char path[64], buf[512];
    std::snprintf(path, sizeof path, "/proc/self/task/%s/stat", e->d_name);
    FILE* f = std::fopen(path, "r");
    if (f == nullptr) continue;
    const size_t n = std::fread(buf, 1, sizeof buf - 1, f);
    std::fclose(f);
    buf[n] = 0;
    const char* close = std::strrchr(buf, ')');  // the name may hold spaces and parentheses
    if (close != nullptr && close[1] == ' ' && close[2] == 'R') {
      running = true;
      break;
    }
  }
  closedir(dir);
  return running;
}

}  // namespace

// Waits, untimed, until no other thread of the process runs, seen twice 100 us apart; at most
// 250 ms. Every threaded runtime keeps its workers spinning for a while after a call (libgomp
// about 8 ms on the 2-core CI machine, by default 300,000 spins; vlak's pool 0.2 ms; OpenBLAS's
// workers call sched_yield in a loop for 2^28 TSC ticks, about 0.1 s, by default), and on a
// machine with few cores the spinners of the implementation just timed take the core that the
// next implementation's second thread needs (measured: docs/lab.md). Each implementation's turn
// starts from a quiet process, as a
// call between two of a user's own calls would; within its turn, each runtime keeps the benefit
// of its own spinning.
void WaitForIdleThreads() {
  const double deadline = Now() + 0.25;
  int quiet = 0;
  while (quiet < 2 && Now() < deadline) {
    quiet = OtherThreadsRunning() ? 0 : quiet + 1;
    const timespec nap{0, 100000};
    if (quiet < 2) nanosleep(&nap, nullptr);
  }
}

namespace {

// Runs `batch` calls back to back and returns the seconds per call (NaN on failure).
double TimeBatch(Live& l) {
  l.prep.select();
  const double t0 = Now();
  for (size_t k = 0; k < l.batch; ++k) {
    if (!l.prep.run()) return std::nan("");
  }
  return (Now() - t0) / static_cast<double>(l.batch);
}

void TimeCase(const Case& c, std::vector<Live>& live, const RunOptions& opt) {
  // Samples of at most ~1 ms: on a shared machine a sample that spans a scheduler time slice is
  // spoiled, and short ones let the median find the clean majority (a run longer than that is
  // its own sample). At least 20 us, so the clock's cost stays below 0.5 %.
  const double sample_target = std::clamp(c.min_time / opt.samples_target, 2e-5, 1e-3);
  // Warm-up and calibration: batches of doubling size until 2 calls and min(sample_target, 50 ms)
  // have passed; the per-call estimate is the fastest batch's (an interrupted batch only errs
  // slow, and a too-small batch is corrected during the rounds).
  for (Live& l : live) {
    l.batch = 1;
    double spent = 0, best = INFINITY;
    int calls = 0;
    while (calls < 2 || spent < std::min(sample_target, 0.05)) {
      const double t = TimeBatch(l);
      if (std::isnan(t)) {
        l.failed = true;
        break;
      }
      best = std::min(best, t);
      spent += t * static_cast<double>(l.batch);
      calls += static_cast<int>(l.batch);
      l.batch = std::min<size_t>(l.batch * 2, 1u << 20);
    }
    if (live.size() > 1) l.prep.leave();
    const double per_call = std::isfinite(best) ? std::max(best, 1e-9) : 1.0;
    l.batch = static_cast<size_t>(std::clamp(std::ceil(sample_target / per_call), 1.0, double(1u << 24)));
  }
  const double case_cap = std::max(2.0, 20.0 * c.min_time * static_cast<double>(live.size()));
  // Several implementations on several threads: each takes its turn for a block of a third of
  // the samples, from a quiet process (WaitForIdleThreads; a runtime whose pollers outlast that
  // wait is put to sleep by its Prepared::leave when its turn ends) and after one untimed call
  // that wakes its own threads (waking an idle core costs tens to hundreds of microseconds on a
  // virtual machine, which a ~1 ms batch would otherwise be charged). Waiting for quiet costs up
  // to the previous runtime's spin (libgomp ~8 ms, pthreadpool and Debian's libtorch ~30-50 ms on
  // the 2-core CI machine), so turns are blocks, not single batches; samples stay paired by index
  // (MedianRatio), a block apart at most.
  const bool turns = live.size() > 1 && c.threads != 1;
  const int block = turns ? std::max(1, opt.samples_target / 3) : 1;
  const double start = Now();
  for (int round = 0; round < opt.max_rounds; round += block) {
    bool all_done = round >= opt.min_rounds;
    for (Live& l : live) all_done = all_done && (l.failed || l.total >= c.min_time);
    if (all_done || Now() - start > case_cap) break;
    for (Live& l : live) {
      if (turns && !l.failed) {
        WaitForIdleThreads();
        l.prep.select();
        l.prep.run();
      }
      for (int b = 0; b < block; ++b) {
        if (l.failed) {
          l.samples.push_back(std::nan(""));
          continue;
        }
        const double t = TimeBatch(l);
        if (opt.trace) opt.trace->push_back(l.def->name);
        if (std::isnan(t)) l.failed = true;
        l.samples.push_back(t);
        l.total += t * static_cast<double>(l.batch);
        // A batch well under the sample target (calibration fooled by a slow first call): grow it.
        if (t * static_cast<double>(l.batch) < sample_target / 3 && l.batch < (1u << 24)) l.batch *= 2;
      }
      if (turns) l.prep.leave();  // its pollers, if any, sleep through the others' turns
    }
  }
}

void CountCase(std::vector<Live>& live) {
  for (Live& l : live) {
    l.prep.select();
    l.prep.run();  // warm: first-call set-up is not the kernel's cost
    ResetVtype();  // so code without vector instructions is not credited with the last one's vtype
    vlak_icount_begin();
    const bool ok = l.prep.run();
    vlak_icount_end();
    const long vtype = ReadVtype();  // what the kernel's last vsetvli left
    unsigned long long count = 0;
    if (!ok) {
      l.failed = true;
      continue;
    }
    double cycles = NAN;
    std::string model;
    if (ReadIcountLive(&count, &cycles, &model)) {
      l.rec.instructions = static_cast<double>(count);
      l.rec.instr_per_element = static_cast<double>(count) / static_cast<double>(l.rec.elements);
      l.rec.cycles = cycles;
      l.rec.cycles_per_element = cycles / static_cast<double>(l.rec.elements);
      l.rec.cycle_model = model;
    }
    l.rec.vtype = VtypeText(vtype);
  }
}

int TargetId(const std::string& name) {
  for (int t = VLAK_TARGET_SCALAR; t <= VLAK_TARGET_RVV; ++t) {
    if (name == vlak_target_name(static_cast<vlak_target>(t))) return t;
  }
  return -1;
}

// Roofline of the case's timed records (roofline.h): the copy bandwidth of the same working set
// on the same threads, measured right after the case's rounds, or the FMA peak of each row's
// target.
void Roofline(const Case& c, std::vector<Live>& live) {
  const std::string& kind = c.op->roofline;
  if (kind != "memory" && kind != "compute" && kind != "int8-mac") return;
  double copy = std::nan("");
  for (Live& l : live) {
    Record& r = l.rec;
    if (l.failed || !(r.time.median > 0)) continue;
    r.bound_kind = kind;
    if (r.flops_per_run > 0) r.gflops = r.flops_per_run / r.time.median / 1e9;
    if (kind == "memory") {
      if (std::isnan(copy)) copy = MeasureCopyGbps(r.bytes_per_run, c.threads, std::clamp(c.min_time / 2, 0.02, 0.1));
      r.copy_gbps = copy;
      r.pct_of_bound = 100.0 * r.gbps / copy;
    } else {
      const int t = r.target.empty() ? WidestTarget() : TargetId(r.target);
      if (t < 0) continue;
      r.peak_target = vlak_target_name(static_cast<vlak_target>(t));
      r.peak_gflops = kind == "int8-mac" ? MeasurePeakGmacsI8(t, c.threads) : MeasurePeakGflops(t, c.threads);
      r.pct_of_bound = 100.0 * r.gflops / r.peak_gflops;
    }
  }
}

}  // namespace

double MedianRatio(const std::vector<double>& a, const std::vector<double>& b) {
  std::vector<double> q;
  for (size_t r = 0; r < a.size() && r < b.size(); ++r) {
    if (std::isfinite(a[r]) && std::isfinite(b[r]) && b[r] > 0) q.push_back(a[r] / b[r]);
  }
  return q.empty() ? std::nan("") : Quantile(q, 0.5);
}

std::vector<Record> RunCases(const std::vector<Case>& cases, const RunOptions& opt) {
  std::vector<Record> out;
  std::unique_ptr<Problem> problem;
  std::string problem_key;
  for (size_t ci = 0; ci < cases.size(); ++ci) {
    const Case& c = cases[ci];
    const std::string key = c.op->name + " " + c.shape.Text();
    if (opt.progress) opt.progress(ci, cases.size(), key + " t" + std::to_string(c.threads));
    if (key != problem_key) {  // thread variants of a shape share the input and reference
      problem = std::make_unique<Problem>();
      problem->shape = c.shape;
      c.op->make_problem(problem.get());
      problem_key = key;
    }
    const Problem& p = *problem;
    Outputs outs = p.MakeOutputs();

    std::vector<Live> live;
    std::vector<Record> skipped;
    for (const ImplDef* d : c.impls) {
      Record r = BaseRecord(c, *d, opt.suite);
      r.mode = opt.icount ? "icount" : "time";
      if (opt.icount) r.vlen = ReadVlenBits();
      const std::string why = d->unavailable();
      if (!why.empty()) {
        r.status = why.rfind("not built", 0) == 0 ? "not built" : "unavailable";
        r.detail = why.rfind("not built", 0) == 0 ? why.substr(std::min<size_t>(why.size(), 10)) : why;
        if (!r.detail.empty() && r.detail[0] == '(') r.detail = r.detail.substr(1, r.detail.size() - 2);
        skipped.push_back(r);
        continue;
      }
      if (opt.icount && c.threads > 1) {
        r.status = "unavailable";
        r.detail = "instruction counts are single-threaded (the plugin counts one guest thread)";
        skipped.push_back(r);
        continue;
      }
      std::string err;
      Live l;
      l.def = d;
      l.prep = d->prepare(p, outs, c.threads, &err);
      l.rec = r;
      if (!l.prep.run) {
        l.rec.status = "failed";
        l.rec.detail = err.empty() ? "set-up failed" : err;
        skipped.push_back(l.rec);
        continue;
      }
      l.rec.target = l.prep.target;
      // Accuracy from a first run into a poisoned buffer, so an implementation that writes
      // nothing cannot inherit the previous one's output.
      for (Tensor& t : outs) t.Poison();
      l.prep.select();
      if (!l.prep.run()) {
        l.rec.status = "failed";
        l.rec.detail = "returned an error";
        skipped.push_back(l.rec);
        continue;
      }
      l.prep.leave();
      l.rec.acc = c.op->accuracy(p, outs, d->bound);
      live.push_back(std::move(l));
    }

    if (opt.icount) CountCase(live);
    else TimeCase(c, live, opt);

    // Ratios within the case: against the baseline and every non-vlak implementation.
    const Live* base = nullptr;
    for (const Live& l : live) if (l.def->name == c.baseline && !l.failed) base = &l;
    for (Live& l : live) {
      Record& r = l.rec;
      if (l.failed) {
        r.status = "failed";
        r.detail = "returned an error while being measured";
        continue;
      }
      if (opt.icount) {
        if (base && base->rec.instructions > 0) r.speedup = base->rec.instructions / r.instructions;
        for (const Live& o : live) {
          if (o.def->kind != "vlak" && &o != &l && !o.failed && o.rec.instructions > 0) r.ratios[o.def->name] = o.rec.instructions / r.instructions;
        }
        continue;
      }
      r.time = Summarize(l.samples);
      r.runs = 0;
      for (double s : l.samples) if (std::isfinite(s)) r.runs += l.batch;
      r.gbps = GigabytesPerSecond(r.bytes_per_run, r.time.median);
      r.elements_per_s = static_cast<double>(r.elements) / r.time.median;
      r.norm_unit = NormalisedUnit(static_cast<double>(r.elements), r.time.median);
      if (base) r.speedup = &l == base ? 1.0 : MedianRatio(base->samples, l.samples);
      for (const Live& o : live) {
        if (o.def->kind != "vlak" && &o != &l && !o.failed) r.ratios[o.def->name] = MedianRatio(o.samples, l.samples);
      }
    }
    if (!opt.icount) Roofline(c, live);
    if (!base) {
      for (Live& l : live) l.rec.baseline.clear();
      for (Record& r : skipped) r.baseline.clear();
    }
    // Records in the case's implementation order.
    for (const ImplDef* d : c.impls) {
      for (const Live& l : live) if (l.def == d) out.push_back(l.rec);
      for (const Record& r : skipped) if (r.impl == d->name) out.push_back(r);
    }
  }
  if (opt.progress) opt.progress(cases.size(), cases.size(), "");
  return out;
}

// ---- progress -----------------------------------------------------------------------------

ProgressLine::ProgressLine(bool enabled, const std::vector<Case>& cases) : enabled_(enabled), start_(Now()) {
  for (const Case& c : cases) {
    // Each implementation: min_time of rounds plus warm-up and set-up; plus the reference.
    weight_.push_back(static_cast<double>(c.impls.size()) * (c.min_time * 1.2 + 0.01) +
                      static_cast<double>(c.shape.Elements()) * 5e-8);
  }
}

namespace {
std::string Clock(double s) {
  const long t = std::lround(std::max(0.0, s));
  char buf[32];
  std::snprintf(buf, sizeof buf, "%ld:%02ld", t / 60, t % 60);
  return buf;
}
}  // namespace

void ProgressLine::Update(size_t done, size_t total, const std::string& label) {
  if (!enabled_) return;
  const double elapsed = Now() - start_;
  double done_w = 0, left_w = 0;
  for (size_t i = 0; i < weight_.size(); ++i) (i < done ? done_w : left_w) += weight_[i];
  const double rate = done_w > 0 && elapsed > 0.5 ? elapsed / done_w : 1.0;
  std::string line = "[" + std::to_string(std::min(done + 1, total)) + "/" + std::to_string(total) + "] " + label +
                     "  " + Clock(elapsed) + " elapsed, ~" + Clock(left_w * rate) + " left";
  if (line.size() < width_) line += std::string(width_ - line.size(), ' ');
  width_ = line.size();
  std::fprintf(stderr, "\r%s", line.c_str());
  std::fflush(stderr);
}

void ProgressLine::Finish() {
  if (!enabled_ || width_ == 0) return;
  std::fprintf(stderr, "\r%s\r", std::string(width_, ' ').c_str());
  std::fflush(stderr);
}

}  // namespace vlak::lab
