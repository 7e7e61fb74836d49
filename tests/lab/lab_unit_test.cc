// The lab's runner and report, without timing anything real: case expansion, interleaving,
// statistics, the JSON round trip, the normalised unit, the report from a fixed results file,
// and the SVG the charts are made of.
#include <gtest/gtest.h>

#include <atomic>
#include <cmath>
#include <string>
#include <vector>

#include "lab/record.h"
#include "lab/report.h"
#include "lab/runner.h"
#include "lab/stats.h"
#include "lab/suite.h"
#include "lab/summary.h"
#include "lab/svg.h"
#include "vlak/vlak.h"
#include "svg_check.h"

namespace vlak::lab {
namespace {

// ---- suites and case expansion -------------------------------------------------------------

TEST(LabSuite, ParsesDirectivesAndCases) {
  Suite s;
  std::string err;
  ASSERT_TRUE(ParseSuite("# comment\nmin-time 0.05\nthreads 1 2\nbaseline naive\n"
                         "case softmax shapes=1x256,4x1000 impls=vlak,naive threads=1 min-time=0.5\n"
                         "case exp shapes=1K impls=vlak-*   # trailing comment\n",
                         "t", &s, &err))
      << err;
  EXPECT_DOUBLE_EQ(s.min_time, 0.05);
  EXPECT_EQ(s.threads, (std::vector<std::string>{"1", "2"}));
  EXPECT_EQ(s.baseline, "naive");
  ASSERT_EQ(s.cases.size(), 2u);
  EXPECT_EQ(s.cases[0].shapes, (std::vector<std::string>{"1x256", "4x1000"}));
  EXPECT_DOUBLE_EQ(s.cases[0].min_time, 0.5);
  EXPECT_EQ(s.cases[1].impls, (std::vector<std::string>{"vlak-*"}));
}

TEST(LabSuite, BadLinesSayWhereAndWhat) {
  Suite s;
  std::string err;
  EXPECT_FALSE(ParseSuite("min-time 0.1\nfrobnicate 3\n", "bad", &s, &err));
  EXPECT_NE(err.find("bad:2:"), std::string::npos) << err;
  EXPECT_NE(err.find("valid: case min-time threads baseline"), std::string::npos) << err;
  EXPECT_FALSE(ParseSuite("case softmax shapes=1x8 impls=vlak colour=red\n", "bad", &s, &err));
  EXPECT_NE(err.find("unknown key 'colour'"), std::string::npos) << err;
  EXPECT_FALSE(ParseSuite("case softmax impls=vlak\n", "bad", &s, &err));
  EXPECT_FALSE(ParseSuite("threads 0\n", "bad", &s, &err));
}

TEST(LabSuite, BuiltinSuitesParseAndExpand) {
  for (const auto& [name, text] : BuiltinSuites()) {
    Suite s;
    std::string err;
    ASSERT_TRUE(ParseSuite(text, name, &s, &err)) << err;
    std::vector<Case> cases;
    EXPECT_TRUE(ExpandSuite(s, {}, &cases, &err)) << name << ": " << err;
    EXPECT_FALSE(cases.empty()) << name;
  }
  EXPECT_NE(BuiltinSuiteNames().find("quick"), std::string::npos);
  EXPECT_NE(BuiltinSuiteNames().find("full"), std::string::npos);
  EXPECT_NE(BuiltinSuiteNames().find("rvv"), std::string::npos);
}

TEST(LabSuite, GlobStopsAtTheTargetSeparator) {
  EXPECT_TRUE(GlobMatch("vlak-*", "vlak-accurate"));
  EXPECT_FALSE(GlobMatch("vlak-*", "vlak-accurate@avx2"));
  EXPECT_TRUE(GlobMatch("vlak-*@*", "vlak-accurate@avx2"));
  EXPECT_TRUE(GlobMatch("vlak@*", "vlak@scalar"));
  EXPECT_TRUE(GlobMatch("vlak-*-m*", "vlak-bittrick_p5-m8"));
  EXPECT_FALSE(GlobMatch("vlak-*-m*", "vlak-2pass"));
  EXPECT_TRUE(GlobMatch("naive", "naive"));
  EXPECT_FALSE(GlobMatch("naive", "naive2"));
}

TEST(LabSuite, ExpansionIsShapesTimesThreadsWithTheImplsInOrder) {
  Suite s;
  std::string err;
  ASSERT_TRUE(ParseSuite("threads 1,3\ncase softmax shapes=1x256,2x64 impls=naive,vlak,naive\n", "t", &s, &err));
  std::vector<Case> cases;
  ASSERT_TRUE(ExpandSuite(s, {}, &cases, &err)) << err;
  ASSERT_EQ(cases.size(), 4u);
  EXPECT_EQ(cases[0].shape.Text(), "1x256");
  EXPECT_EQ(cases[0].threads, 1);
  EXPECT_EQ(cases[1].threads, 3);
  EXPECT_EQ(cases[2].shape.Text(), "2x64");
  ASSERT_EQ(cases[0].impls.size(), 2u);  // duplicates dropped, first occurrence kept
  EXPECT_EQ(cases[0].impls[0]->name, "naive");
  EXPECT_EQ(cases[0].impls[1]->name, "vlak");
  EXPECT_EQ(cases[0].baseline, "naive");  // softmax's defaults: xnnpack, onednn, naive

  SuiteOverrides o;
  o.threads = {"2"};
  o.min_time = 0.01;
  ASSERT_TRUE(ExpandSuite(s, o, &cases, &err));
  ASSERT_EQ(cases.size(), 2u);
  EXPECT_EQ(cases[0].threads, 2);
  EXPECT_DOUBLE_EQ(cases[0].min_time, 0.01);
}

TEST(LabSuite, UnknownNamesListTheValidChoices) {
  Suite s;
  std::string err;
  std::vector<Case> cases;
  ASSERT_TRUE(ParseSuite("case softmax shapes=1x8 impls=vlak,xnnpak\n", "t", &s, &err));
  EXPECT_FALSE(ExpandSuite(s, {}, &cases, &err));
  EXPECT_NE(err.find("unknown implementation 'xnnpak' for softmax (valid: vlak "), std::string::npos) << err;
  ASSERT_TRUE(ParseSuite("case sofmax shapes=1x8 impls=vlak\n", "t", &s, &err));
  EXPECT_FALSE(ExpandSuite(s, {}, &cases, &err));
  EXPECT_NE(err.find("unknown operator 'sofmax' (valid: "), std::string::npos) << err;
  for (const OpDef& op : Operators()) EXPECT_NE(err.find(" " + op.name), std::string::npos) << op.name << ": " << err;
  ASSERT_TRUE(ParseSuite("case softmax shapes=1024 impls=vlak\n", "t", &s, &err));
  EXPECT_FALSE(ExpandSuite(s, {}, &cases, &err));
  EXPECT_NE(err.find("ROWSxCOLS"), std::string::npos) << err;
}

TEST(LabSuite, Dims) {
  std::vector<size_t> d;
  std::string err;
  ASSERT_TRUE(ParseDims("256x2048", &d, &err));
  EXPECT_EQ(d, (std::vector<size_t>{256, 2048}));
  ASSERT_TRUE(ParseDims("4K", &d, &err));
  EXPECT_EQ(d, (std::vector<size_t>{4096}));
  ASSERT_TRUE(ParseDims("1x1M", &d, &err));
  EXPECT_EQ(d, (std::vector<size_t>{1, 1 << 20}));
  for (const char* bad : {"", "x", "0", "1x", "-3", "12q", "1xx2"}) EXPECT_FALSE(ParseDims(bad, &d, &err)) << bad;
}

// ---- the transformer operators: shapes, tensors, accuracy ------------------------------------

TEST(LabOps, ShapesPerOperator) {
  std::string err;
  const auto ok = [&](const char* op, std::vector<size_t> dims) { return FindOp(op)->check_shape(dims, &err); };
  ASSERT_NE(FindOp("rope"), nullptr);
  EXPECT_TRUE(ok("rope", {512, 128, 1024}));      // POSITIONSxROWSxDIM
  EXPECT_TRUE(ok("rope", {512, 16, 8, 1024}));    // Terapines AI-Benchmark's SEQxBATCHxHEADSxDIM
  EXPECT_FALSE(ok("rope", {512, 128, 1023}));     // odd head_dim: no pairs
  EXPECT_NE(err.find("DIM even"), std::string::npos) << err;
  EXPECT_FALSE(ok("rope", {512, 1024}));
  size_t row_ops = 0;
  for (const OpDef& op : Operators()) {  // the row-wise operators: softmax, the norms, ...
    if (op.shape_syntax.rfind("ROWSxCOLS", 0) != 0) continue;
    ++row_ops;
    EXPECT_TRUE(ok(op.name.c_str(), {1151, 8192})) << op.name;
    EXPECT_FALSE(ok(op.name.c_str(), {8192})) << op.name;
    EXPECT_NE(err.find("ROWSxCOLS"), std::string::npos) << err;
  }
  EXPECT_GE(row_ops, 5u);
  EXPECT_TRUE(ok("matmul", {256, 512, 256}));
  EXPECT_FALSE(ok("matmul", {256, 512}));
  EXPECT_NE(err.find("MxNxK"), std::string::npos) << err;

  // Both rope forms are the same problem: 512x16x8x1024 is 512 positions of 128 rows.
  const OpDef& rope = *FindOp("rope");
  EXPECT_EQ(rope.bytes_per_run(Shape{{512, 16, 8, 1024}}), rope.bytes_per_run(Shape{{512, 128, 1024}}));
  EXPECT_EQ(rope.bytes_per_run(Shape{{2, 3, 8}}), 8.0 * 48 + 4.0 * 2 * 8);  // x, y; cos, sin
  const OpDef& mm = *FindOp("matmul");
  EXPECT_EQ(mm.roofline, "compute");
  EXPECT_EQ(mm.flops_per_run(Shape{{256, 512, 256}}), 2.0 * 256 * 512 * 256);
  EXPECT_EQ(FindOp("layernorm")->roofline, "memory");
}

TEST(LabOps, ProblemsOwnSeveralTypedTensors) {
  Problem p;
  p.shape.dims = {3, 8};
  FindOp("layernorm-bwd")->make_problem(&p);
  ASSERT_EQ(p.inputs.size(), 5u);
  EXPECT_EQ(p.inputs[0].spec().Text(), "dy f32 3x8");
  EXPECT_EQ(p.inputs[3].spec().Text(), "mean f32 3");
  ASSERT_EQ(p.outputs.size(), 3u);
  EXPECT_EQ(p.outputs[1].Text(), "dgamma f32 8");
  EXPECT_EQ(p.ref[1].size(), 8u);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(p.inputs[1].Raw()) % 64, 0u);  // aligned for every implementation
  EXPECT_EQ(p.InputBytes(), 4u * (24 + 24 + 8 + 3 + 3));
  // Any element type: a tensor is typed, poisoning fits the type.
  Tensor t(TensorSpec{"q", DType::kI8, {4}});
  t.Poison();
  EXPECT_EQ(t.Data<int8_t>()[3], static_cast<int8_t>(0xA5));
  EXPECT_EQ(t.Bytes(), 4u);
  Tensor f(TensorSpec{"y", DType::kF32, {2}});
  f.Poison();
  EXPECT_TRUE(std::isnan(f.F32()[1]));
}

// The operators' own tiny test shapes (OpDef::test_dims): (name, dims) pairs.
std::vector<std::pair<std::string, std::vector<size_t>>> TestCases() {
  std::vector<std::pair<std::string, std::vector<size_t>>> cases;
  for (const OpDef& op : Operators()) {
    for (const auto& dims : op.test_dims) cases.emplace_back(op.name, dims);
  }
  return cases;
}

// Each operator's accuracy function passes the reference rounded to float under vlak's bound and
// catches one wrong element (in every output) and an unwritten (NaN) output.
TEST(LabOps, AccuracyCatchesAWrongOutput) {
  const auto cases = TestCases();
  ASSERT_GE(cases.size(), 6u);
  for (const auto& [name, dims] : cases) {
    const OpDef& op = *FindOp(name);
    Problem p;
    p.shape.dims = dims;
    op.make_problem(&p);
    const double bound = op.impls[0].bound;  // "vlak"
    ASSERT_FALSE(std::isnan(bound)) << name;
    Outputs out = p.MakeOutputs();
    const auto fill = [&] {
      for (size_t o = 0; o < out.size(); ++o) {
        for (size_t i = 0; i < p.ref[o].size(); ++i) out[o].F32()[i] = static_cast<float>(p.ref[o][i]);
      }
    };
    fill();
    Accuracy a = op.accuracy(p, out, bound);
    EXPECT_EQ(a.bound_ok, 1) << name << " max_scaled " << a.max_scaled;
    EXPECT_LE(a.max_scaled, bound) << name;
    EXPECT_GT(a.snr_db, 100) << name;
    for (size_t o = 0; o < out.size(); ++o) {
      fill();
      const size_t i = p.ref[o].size() / 2;
      const double r = p.ref[o][i];
      out[o].F32()[i] = static_cast<float>(r + std::copysign(1e-3 * (1 + std::fabs(r)), r));  // >= 1e-3 off
      a = op.accuracy(p, out, bound);
      EXPECT_EQ(a.bound_ok, 0) << name << " output " << p.outputs[o].name;
      EXPECT_GT(a.max_abs, 9e-4) << name;
    }
    for (Tensor& t : out) t.Poison();
    a = op.accuracy(p, out, bound);
    EXPECT_EQ(a.bound_ok, 0) << name;
    EXPECT_GT(a.nonfinite, 0u) << name;
    EXPECT_EQ(op.accuracy(p, out, std::nan("")).bound_ok, -1) << name;  // no bound: measured, not judged
  }
}

// The vlak implementations the tree has, on a tiny shape, within their bound (the C references
// too, under the same bound: they compute the same formulas in float).
TEST(LabOps, ImplementationsThatExistAreWithinTheBound) {
  const auto cases = TestCases();
  ASSERT_GE(cases.size(), 6u);
  for (const auto& [name, dims] : cases) {
    const OpDef& op = *FindOp(name);
    Problem p;
    p.shape.dims = dims;
    op.make_problem(&p);
    for (const ImplDef& d : op.impls) {
      if (!d.unavailable().empty()) continue;
      for (int threads : {1, 2}) {
        Outputs out = p.MakeOutputs();
        std::string err;
        Prepared pr = d.prepare(p, out, threads, &err);
        ASSERT_TRUE(pr.run) << name << " " << d.name << ": " << err;
        for (Tensor& t : out) t.Poison();
        pr.select();
        ASSERT_TRUE(pr.run()) << name << " " << d.name;
        pr.leave();  // the end of a turn (a pool put to sleep); the next run wakes it and computes
        for (Tensor& t : out) t.Poison();
        ASSERT_TRUE(pr.run()) << name << " " << d.name << " after leave";
        const bool fixed_order = d.kind == "vlak" || d.kind == "compiler";
        // A vlak row with its own bound (a looser tier: vlak-fast) is held to it.
        const double own = d.kind == "vlak" && d.bound > op.impls[0].bound ? d.bound : op.impls[0].bound;
        const double bound = fixed_order ? own : 1e-4;  // libraries: loosely
        const Accuracy a = op.accuracy(p, out, bound);
        EXPECT_EQ(a.bound_ok, 1) << name << " " << d.name << " t" << threads << ": max_scaled " << a.max_scaled;
      }
    }
  }
  vlak_set_target(static_cast<vlak_target>(DefaultVlakTarget()));
}

// softmax-i8: the rows that claim TFLite's bits (vlak on each target, the C reference by each
// compiler) give the same bytes; vlak-lut is within its bound (< 1 LSB of 256 p); XNNPACK within 2.
TEST(LabOps, SoftmaxI8RowsAgree) {
  const OpDef& op = *FindOp("softmax-i8");
  Problem p;
  p.shape.dims = {5, 300};
  op.make_problem(&p);
  std::vector<uint8_t> first;
  int tflite_rows = 0;
  for (const ImplDef& d : op.impls) {
    if (!d.unavailable().empty()) continue;
    Outputs out = p.MakeOutputs();
    std::string err;
    Prepared pr = d.prepare(p, out, 1, &err);
    ASSERT_TRUE(pr.run) << d.name << ": " << err;
    for (Tensor& t : out) t.Poison();
    pr.select();
    ASSERT_TRUE(pr.run()) << d.name;
    const uint8_t* y = out[0].Data<uint8_t>();
    if (d.name == "vlak-lut") {
      EXPECT_EQ(op.accuracy(p, out, d.bound).bound_ok, 1) << d.name;
    } else if (d.name == "xnnpack") {
      EXPECT_LE(op.accuracy(p, out, std::nan("")).max_abs, 2.0) << d.name;
    } else {
      const std::vector<uint8_t> bytes(y, y + out[0].Elements());
      if (first.empty()) first = bytes;
      EXPECT_EQ(bytes, first) << d.name << " differs from " << op.impls[0].name;
      ++tflite_rows;
    }
  }
  EXPECT_GE(tflite_rows, 2);
  vlak_set_target(static_cast<vlak_target>(DefaultVlakTarget()));
}

// ---- the runner on a fake operator -----------------------------------------------------------

OpDef FakeOp(std::vector<std::string>* log) {
  OpDef op;
  op.name = "fake";
  op.bytes_formula = "8 bytes/element";
  op.check_shape = [](const std::vector<size_t>&, std::string*) { return true; };
  op.bytes_per_run = [](const Shape& s) { return 8.0 * static_cast<double>(s.Elements()); };
  op.make_problem = [](Problem* p) {
    Tensor& x = p->AddInput("x", {p->shape.Elements()});
    std::fill(x.F32(), x.F32() + x.Elements(), 1.0f);
    p->AddOutput("y", {p->shape.Elements()}).assign(p->shape.Elements(), 2.0);
  };
  op.accuracy = [](const Problem& p, const Outputs& out, double bound) {
    Accuracy a = ElementwiseAccuracy(p.ref[0], out[0].F32(), 1e-30);
    if (!std::isnan(bound)) a.bound_ok = a.max_rel <= bound;
    return a;
  };
  op.bound_text = [](double b) { return "rel<=" + std::to_string(b); };
  for (const char* name : {"A", "B", "C"}) {
    ImplDef d;
    d.name = name;
    d.kind = std::string(name) == "A" ? "vlak" : "library";
    d.bound = std::string(name) == "A" ? 1e-6 : std::nan("");
    const std::string n = name;
    // B is exact, A and C are off by 1e-3 relative; each run spins a little so batches are short.
    d.prepare = [n, log](const Problem& p, Outputs& out, int, std::string*) {
      Prepared pr;
      pr.run = [n, log, &p, &out] {
        float* y = out[0].F32();
        for (size_t i = 0; i < p.In(0).Elements(); ++i) y[i] = n == "B" ? 2.0f : 2.002f;
        volatile double spin = 0;
        for (int k = 0; k < 2000; ++k) spin = spin + k;
        if (log) log->push_back(n);
        return true;
      };
      return pr;
    };
    op.impls.push_back(d);
  }
  ImplDef missing;
  missing.name = "D";
  missing.kind = "library";
  missing.unavailable = [] { return std::string("not built (install libd-dev, reconfigure)"); };
  missing.prepare = [](const Problem&, Outputs&, int, std::string*) { return Prepared(); };
  op.impls.push_back(missing);
  op.baselines = {"B"};
  return op;
}

// A case of FakeOp's first `impls` implementations (baseline B) at `threads`, run with its trace
// of timed batches.
std::vector<Record> RunFakeCase(const OpDef& op, size_t impls, int threads, RunOptions* opt,
                                std::vector<std::string>* trace) {
  Case c;
  c.op = &op;
  c.shape.dims = {64};
  c.threads = threads;
  for (size_t i = 0; i < impls; ++i) c.impls.push_back(&op.impls[i]);
  c.min_time = 0.002;
  c.baseline = "B";
  opt->trace = trace;
  opt->suite = "unit";
  return RunCases({c}, *opt);
}

TEST(LabRunner, InterleavesImplementationsRoundByRound) {
  const OpDef op = FakeOp(nullptr);
  std::vector<std::string> trace;
  RunOptions opt;
  const auto recs = RunFakeCase(op, 4, 1, &opt, &trace);
  ASSERT_GE(trace.size(), 3u * static_cast<size_t>(opt.min_rounds));
  ASSERT_EQ(trace.size() % 3, 0u);
  for (size_t i = 0; i < trace.size(); ++i) EXPECT_EQ(trace[i], std::string(1, "ABC"[i % 3])) << "batch " << i;

  ASSERT_EQ(recs.size(), 4u);
  EXPECT_EQ(recs[0].impl, "A");
  EXPECT_EQ(recs[3].impl, "D");
  EXPECT_EQ(recs[3].status, "not built");
  EXPECT_EQ(recs[3].detail, "install libd-dev, reconfigure");
  EXPECT_TRUE(std::isnan(recs[3].gbps));
  for (int i = 0; i < 3; ++i) {
    EXPECT_EQ(recs[i].status, "ok");
    EXPECT_GT(recs[i].time.median, 0);
    EXPECT_GE(recs[i].time.n, static_cast<size_t>(opt.min_rounds));
    EXPECT_NEAR(recs[i].gbps, 8.0 * 64 / recs[i].time.median / 1e9, 1e-9 * recs[i].gbps);
    EXPECT_NEAR(recs[i].norm_unit, 64 / recs[i].time.median / 1e10, 1e-9 * recs[i].norm_unit);
  }
  EXPECT_DOUBLE_EQ(recs[1].speedup, 1.0);  // the baseline against itself
  EXPECT_TRUE(recs[0].ratios.count("B"));
  EXPECT_TRUE(recs[0].ratios.count("C"));
  EXPECT_FALSE(recs[1].ratios.count("B"));  // not against itself
  // Accuracy: A is 1e-3 off with a 1e-6 bound: flagged; B exact: SNR inf; C unbounded.
  EXPECT_NEAR(recs[0].acc.max_rel, 1e-3, 1e-6);
  EXPECT_EQ(recs[0].acc.bound_ok, 0);
  EXPECT_TRUE(recs[0].Failed());
  EXPECT_EQ(recs[1].acc.max_rel, 0);
  EXPECT_TRUE(std::isinf(recs[1].acc.snr_db));
  EXPECT_EQ(recs[2].acc.bound_ok, -1);
}

// At several threads, each implementation takes its turn for a block of a third of the samples
// (after waiting for the others' threads to go idle), still in the same order, turn by turn.
TEST(LabRunner, TakesTurnsInBlocksOnSeveralThreads) {
  const OpDef op = FakeOp(nullptr);
  std::vector<std::string> trace;
  RunOptions opt;
  const auto recs = RunFakeCase(op, 3, 2, &opt, &trace);
  const size_t block = static_cast<size_t>(opt.samples_target / 3);
  ASSERT_GE(block, 2u);
  ASSERT_GE(trace.size(), 3u * block);
  ASSERT_EQ(trace.size() % (3u * block), 0u);
  for (size_t i = 0; i < trace.size(); ++i) {
    EXPECT_EQ(trace[i], std::string(1, "ABC"[(i / block) % 3])) << "batch " << i;
  }
  ASSERT_EQ(recs.size(), 3u);
  for (const auto& r : recs) EXPECT_EQ(r.status, "ok") << r.impl;
}

TEST(LabRunner, AccuracyRunCannotInheritAnotherOutput) {
  // An implementation that writes nothing must not look exact because its predecessor was.
  OpDef op = FakeOp(nullptr);
  op.impls[2].prepare = [](const Problem&, Outputs&, int, std::string*) {
    Prepared pr;
    pr.run = [] { return true; };
    return pr;
  };
  Case c;
  c.op = &op;
  c.shape.dims = {16};
  c.impls = {&op.impls[1], &op.impls[2]};
  c.min_time = 0.001;
  const auto recs = RunCases({c}, RunOptions());
  ASSERT_EQ(recs.size(), 2u);
  EXPECT_EQ(recs[0].acc.max_rel, 0);
  EXPECT_GT(recs[1].acc.nonfinite, 0u);
}

// ---- statistics ----------------------------------------------------------------------------

TEST(LabStats, MedianQuartilesAndSpread) {
  const Summary s = Summarize({5, 1, 4, 2, 3});
  EXPECT_DOUBLE_EQ(s.median, 3);
  EXPECT_DOUBLE_EQ(s.q1, 2);
  EXPECT_DOUBLE_EQ(s.q3, 4);
  EXPECT_DOUBLE_EQ(s.min, 1);
  EXPECT_DOUBLE_EQ(s.max, 5);
  EXPECT_EQ(s.n, 5u);
  EXPECT_DOUBLE_EQ(s.RelSpread(), 1.0 / 3.0);
  EXPECT_DOUBLE_EQ(Summarize({1, 2, 3, 4}).median, 2.5);
  EXPECT_DOUBLE_EQ(Quantile({10, 20}, 0.25), 12.5);
  EXPECT_TRUE(std::isnan(Summarize({}).median));
}

TEST(LabStats, RatiosAreTakenRoundByRound) {
  // The machine slows down 10x halfway through; each round's ratio stays 2.
  const std::vector<double> base = {2, 2, 2, 20, 20, 20}, fast = {1, 1, 1, 10, 10, 10};
  EXPECT_DOUBLE_EQ(MedianRatio(base, fast), 2.0);
  EXPECT_DOUBLE_EQ(MedianRatio({4, std::nan("")}, {2, 1}), 2.0);  // a failed round is skipped
  EXPECT_TRUE(std::isnan(MedianRatio({}, {})));
}

TEST(LabStats, NormalisedUnitIsAiBenchmarks) {
  // Terapines AI-Benchmark's plot_benchmark.py: prod(R, C, RUN_COUNT) / total_time / 10e9 (= 1e10). A 1x2048 softmax run
  // 10 times in 20 us total is 2048 * 10 / 20e-6 / 1e10 = 0.1024.
  const double per_run = 20e-6 / 10;
  EXPECT_NEAR(NormalisedUnit(1 * 2048, per_run), 1.0 * 2048 * 10 / 20e-6 / 10e9, 1e-12);
  EXPECT_NEAR(NormalisedUnit(2048, per_run), 0.1024, 1e-12);
  EXPECT_NEAR(GigabytesPerSecond(8 * 2048, per_run), 8.192, 1e-9);
}

// ---- JSON ---------------------------------------------------------------------------------

TEST(LabJson, LooseReadsAndParseErrors) {
  Json j;
  std::string err;
  ASSERT_TRUE(ParseJson(R"({"a": [1, 2.5e-3, -4], "s": "q\"\\\n\u00e9\ud83d\ude00", "i": "inf", "m": "-inf",
                            "n": null, "k": 7})", &j, &err)) << err;
  EXPECT_EQ(JStr(j, "s"), "q\"\\\n\xc3\xa9\xf0\x9f\x98\x80");
  EXPECT_TRUE(std::isinf(JNum(j, "i")) && JNum(j, "i") > 0);
  EXPECT_TRUE(std::isinf(JNum(j, "m")) && JNum(j, "m") < 0);
  EXPECT_TRUE(std::isnan(JNum(j, "n")));          // null: the fallback
  EXPECT_EQ(JNum(j, "missing", 3.0), 3.0);
  EXPECT_EQ(JNum(j, "s", 4.0), 4.0);             // a string that is not an infinity
  EXPECT_EQ(JNum(j, "k"), 7.0);                  // integers read as numbers
  EXPECT_EQ(JStr(j, "k"), "");
  EXPECT_TRUE(JGet(j, "missing").is_null());
  EXPECT_FALSE(j.contains("missing"));           // a loose read does not insert
  EXPECT_TRUE(JGet(Json(3), "a").is_null());     // not an object
  Json back;
  ASSERT_TRUE(ParseJson(DumpJson(j), &back, &err)) << err;
  EXPECT_EQ(back, j);
  for (const char* bad : {"{", "[1,]", "{\"a\" 1}", "\"abc", "tru", "[1] x"}) {
    EXPECT_FALSE(ParseJson(bad, &j, &err)) << bad;
    EXPECT_FALSE(err.empty());
  }
}

TEST(LabJson, ResultsRoundTripExactly) {
  Results res;
  res.suite = "unit";
  res.machine.cpu = "Test CPU \"quoted\"";
  res.machine.cores = 2;
  res.machine.vlen = 256;
  res.machine.compilers["c-gcc"] = "gcc 12 -O3";
  res.machine.libraries["sleef"] = "3.5.1";
  res.machine.commit = "abc";
  res.settings["min_time_s"] = 0.2;
  Record r;
  r.suite = "unit";
  r.op = "softmax";
  r.shape = "2x3";
  r.dims = {2, 3};
  r.elements = 6;
  r.threads = 2;
  r.impl = "vlak";
  r.kind = "vlak";
  r.mode = "time";
  r.target = "avx512";
  r.time = Summarize({1.25e-7, 1.5e-7, 1.0e-7, 3.3e-7});
  r.runs = 1234;
  r.gbps = 0.1 + 0.2;  // not representable exactly: the writer must keep every bit
  r.elements_per_s = 4.8e7;
  r.norm_unit = 4.8e-3;
  r.baseline = "xnnpack";
  r.speedup = 2.5;
  r.ratios["xnnpack"] = 2.5;
  r.ratios["onednn"] = 1.0 / 3.0;
  r.acc.max_rel = 1.1e-6;
  r.acc.max_abs = 3e-10;
  r.acc.snr_db = INFINITY;
  r.acc.bound_ok = 1;
  r.bound = "rel<=1e-6";
  r.acc.max_scaled = 0.25;  // not in the file: the bound verdict is
  r.bound_kind = "memory";
  r.copy_gbps = 31.5;
  r.pct_of_bound = 100 * r.gbps / 31.5;
  Record mm = r;
  mm.op = "matmul";
  mm.flops_per_run = 2.0 * 8 * 8 * 8;
  mm.gflops = 123.456;
  mm.bound_kind = "compute";
  mm.copy_gbps = std::nan("");
  mm.peak_gflops = 230.1;
  mm.peak_target = "avx512";
  mm.pct_of_bound = 100 * 123.456 / 230.1;
  Record ic = r;
  ic.bound_kind.clear();
  ic.pct_of_bound = ic.copy_gbps = std::nan("");
  ic.mode = "icount";
  ic.instructions = 20480;
  ic.instr_per_element = 3413.3333333333335;
  ic.cycles = 40960.5;
  ic.cycles_per_element = 6826.75;
  ic.cycle_model = "spacemit-x60";
  ic.vlen = 256;
  ic.vtype = "e32m8";
  ic.lmul = 8;
  ic.acc.bound_ok = -1;
  Record nb = r;
  nb.status = "not built";
  nb.detail = "install libxnnpack-dev";
  nb.gbps = std::nan("");
  res.records = {r, ic, nb, mm};

  Results back;
  std::string err;
  Json parsed;
  ASSERT_TRUE(ParseJson(DumpJson(ToJson(res)), &parsed, &err)) << err;
  ASSERT_TRUE(ResultsFromJson(parsed, &back, &err)) << err;
  EXPECT_EQ(back.suite, "unit");
  EXPECT_EQ(back.machine.cpu, res.machine.cpu);
  EXPECT_EQ(back.machine.vlen, 256);
  EXPECT_EQ(back.machine.compilers, res.machine.compilers);
  EXPECT_DOUBLE_EQ(JNum(back.settings, "min_time_s"), 0.2);
  EXPECT_EQ(JStr(parsed, "format"), "vlak-lab-results/2");
  ASSERT_EQ(back.records.size(), 4u);
  // Roofline fields survive bit for bit; a record without one stays without.
  EXPECT_EQ(back.records[0].bound_kind, "memory");
  EXPECT_EQ(back.records[0].copy_gbps, 31.5);
  EXPECT_EQ(back.records[0].pct_of_bound, r.pct_of_bound);
  EXPECT_EQ(back.records[3].gflops, mm.gflops);
  EXPECT_EQ(back.records[3].peak_gflops, 230.1);
  EXPECT_EQ(back.records[3].peak_target, "avx512");
  EXPECT_EQ(back.records[3].flops_per_run, mm.flops_per_run);
  EXPECT_EQ(ToJson(back.records[3]), ToJson(mm));
  EXPECT_TRUE(back.records[1].bound_kind.empty());
  EXPECT_TRUE(std::isnan(back.records[1].pct_of_bound));
  const Record& b = back.records[0];
  EXPECT_EQ(b.dims, r.dims);
  EXPECT_EQ(b.threads, 2);
  EXPECT_EQ(b.time.median, r.time.median);
  EXPECT_EQ(b.time.q1, r.time.q1);
  EXPECT_EQ(b.time.max, r.time.max);
  EXPECT_EQ(b.time.n, 4u);
  EXPECT_EQ(b.runs, 1234u);
  EXPECT_EQ(b.gbps, r.gbps);
  EXPECT_EQ(b.ratios, r.ratios);
  EXPECT_EQ(b.acc.max_rel, r.acc.max_rel);
  EXPECT_TRUE(std::isinf(b.acc.snr_db));
  EXPECT_EQ(b.acc.bound_ok, 1);
  EXPECT_EQ(ToJson(b), ToJson(r));
  EXPECT_EQ(ToJson(back.records[1]), ToJson(ic));
  EXPECT_EQ(back.records[1].instr_per_element, ic.instr_per_element);
  EXPECT_EQ(back.records[1].vtype, "e32m8");
  EXPECT_EQ(back.records[1].cycles, 40960.5);
  EXPECT_EQ(back.records[1].cycles_per_element, 6826.75);
  EXPECT_EQ(back.records[1].cycle_model, "spacemit-x60");
  EXPECT_TRUE(std::isnan(back.records[0].cycles));
  EXPECT_EQ(back.records[2].status, "not built");
  EXPECT_TRUE(std::isnan(back.records[2].gbps));

  Json other;
  ASSERT_TRUE(ParseJson("{\"records\": []}", &other, &err));
  EXPECT_FALSE(ResultsFromJson(other, &back, &err));
  ASSERT_TRUE(ParseJson("{\"format\": \"vlak-lab-results/9\", \"records\": []}", &other, &err));
  EXPECT_FALSE(ResultsFromJson(other, &back, &err));
  EXPECT_NE(err.find("newer"), std::string::npos) << err;
}

TEST(LabJson, MembersInFileOrder) {
  // The file format member by member (compact): which members, in which order, which are left out
  // or null. A change here is a change of kResultsFormat.
  Record t;
  t.suite = "unit";
  t.op = "matmul";
  t.shape = "2x3x4";
  t.dims = {2, 3, 4};
  t.elements = 6;
  t.threads = 2;
  t.impl = t.kind = "vlak";
  t.description = "d";
  t.target = "avx2";
  t.mode = "time";
  t.bytes_per_run = 80;
  t.bytes_formula = "f";
  t.flops_per_run = 48;
  t.time.n = 3;
  t.time.median = 0.5;
  t.time.q1 = 0.25;
  t.time.q3 = 0.75;
  t.time.min = 0.125;
  t.time.max = INFINITY;
  t.runs = 7;
  t.gbps = 1.5;
  t.elements_per_s = 12;
  t.gflops = 96;
  t.bound_kind = "compute";
  t.peak_gflops = 192;
  t.peak_target = "avx2";
  t.pct_of_bound = 50;
  t.baseline = "openblas";
  t.speedup = 2;
  t.ratios["openblas"] = 2;
  t.ratios["eigen"] = std::nan("");
  t.acc.max_rel = 1e-6;
  t.acc.max_abs = -INFINITY;
  t.acc.snr_db = INFINITY;
  t.acc.bound_ok = 1;
  t.bound = "rel<=1e-5";
  Record ic = t;
  ic.mode = "icount";
  ic.flops_per_run = 0;
  ic.bound_kind.clear();
  ic.status = "not built";
  ic.detail = "note";
  ic.instructions = 1000;
  ic.instr_per_element = 166.5;
  ic.vlen = 256;
  ic.vtype = "e32m8";
  ic.lmul = 8;
  ic.acc.bound_ok = -1;
  Record mem = t;
  mem.op = "exp";
  mem.flops_per_run = 0;
  mem.bound_kind = "memory";
  mem.copy_gbps = 3;
  mem.pct_of_bound = std::nan("");
  mem.acc.bound_ok = 0;
  EXPECT_EQ(ToJson(t).dump(),
      R"({"suite":"unit","op":"matmul","shape":"2x3x4","dims":[2,3,4],"elements":6,"threads":2,)"
      R"("impl":"vlak","kind":"vlak","description":"d","status":"ok","target":"avx2","mode":"time",)"
      R"("bytes_per_run":80.0,"bytes_formula":"f","flops_per_run":48.0,"time":{"median":0.5,"q1":0.25,)"
      R"("q3":0.75,"min":0.125,"max":null,"samples":3,"unit":"seconds per run","runs":7},"gbps":1.5,)"
      R"("elements_per_s":12.0,"norm_unit":null,"gflops":96.0,"roofline":{"kind":"compute",)"
      R"("peak_gflops":192.0,"peak_target":"avx2","pct_of_bound":50.0},"baseline":"openblas",)"
      R"("speedup":2.0,"ratios":{"eigen":null,"openblas":2.0},"accuracy":{"max_rel":1e-06,)"
      R"("max_abs":"-inf","snr_db":"inf","nonfinite":0,"bound":"rel<=1e-5","bound_ok":true},"lmul":0})");
  EXPECT_EQ(ToJson(ic).dump(),
      R"({"suite":"unit","op":"matmul","shape":"2x3x4","dims":[2,3,4],"elements":6,"threads":2,)"
      R"("impl":"vlak","kind":"vlak","description":"d","status":"not built","detail":"note",)"
      R"("target":"avx2","mode":"icount","bytes_per_run":80.0,"bytes_formula":"f","baseline":"openblas",)"
      R"("speedup":2.0,"ratios":{"eigen":null,"openblas":2.0},"accuracy":{"max_rel":null,"max_abs":null,)"
      R"("snr_db":null,"nonfinite":0,"bound":"rel<=1e-5","bound_ok":null},"icount":{"instructions":1000.0,)"
      R"("per_element":166.5,"cycles":null,"cycles_per_element":null,"cycle_model":"","vlen":256,)"
      R"("vtype":"e32m8"},"lmul":8})");
  EXPECT_EQ(ToJson(mem).dump(),
      R"({"suite":"unit","op":"exp","shape":"2x3x4","dims":[2,3,4],"elements":6,"threads":2,"impl":"vlak",)"
      R"("kind":"vlak","description":"d","status":"ok","target":"avx2","mode":"time","bytes_per_run":80.0,)"
      R"("bytes_formula":"f","time":{"median":0.5,"q1":0.25,"q3":0.75,"min":0.125,"max":null,"samples":3,)"
      R"("unit":"seconds per run","runs":7},"gbps":1.5,"elements_per_s":12.0,"norm_unit":null,)"
      R"("roofline":{"kind":"memory","copy_gbps":3.0,"pct_of_bound":null},"baseline":"openblas",)"
      R"("speedup":2.0,"ratios":{"eigen":null,"openblas":2.0},"accuracy":{"max_rel":1e-06,)"
      R"("max_abs":"-inf","snr_db":"inf","nonfinite":0,"bound":"rel<=1e-5","bound_ok":false},"lmul":0})");
  for (const Record& r : {t, ic, mem}) EXPECT_EQ(ToJson(RecordFromJson(ToJson(r))), ToJson(r));
}

TEST(LabJson, VersionOneFilesStillRead) {
  // tests/lab/fixture_results.json is a version 1 file (hand-written JSON, no roofline).
  Results res;
  std::string err;
  ASSERT_TRUE(ReadResultsFile(std::string(VLAK_LAB_TEST_DIR) + "/fixture_results.json", &res, &err)) << err;
  ASSERT_FALSE(res.records.empty());
  EXPECT_EQ(res.records[0].impl, "vlak");
  EXPECT_EQ(res.records[0].time.n, 20u);
  EXPECT_EQ(res.records[0].gbps, 32.768);
  EXPECT_TRUE(res.records[0].bound_kind.empty());
  EXPECT_TRUE(std::isnan(res.records[0].pct_of_bound));
  EXPECT_EQ(JStr(res.settings, "mode"), "time");
}

TEST(LabCsv, OneRowPerRecordWithTheHeadersColumns) {
  Record r;
  r.op = "softmax";
  r.shape = "1x8";
  r.impl = "c-gcc";
  r.mode = "time";
  r.detail = "has, a comma";
  const std::string header = CsvHeader(), row = CsvRow(r);
  const auto columns = [](const std::string& line) {
    size_t n = 1;
    bool quoted = false;
    for (char c : line) {
      if (c == '"') quoted = !quoted;
      else if (c == ',' && !quoted) ++n;
    }
    return n;
  };
  EXPECT_EQ(columns(header), columns(row));
  EXPECT_NE(row.find("\"has, a comma\""), std::string::npos);
}

// ---- the report from a fixed results file ----------------------------------------------------

TEST(LabReport, TablesAndChartsFromAFixedFile) {
  ReportInput in;
  in.path = "fixture_results.json";
  std::string err;
  ASSERT_TRUE(ReadResultsFile(std::string(VLAK_LAB_TEST_DIR) + "/fixture_results.json", &in.results, &err)) << err;
  const ReportOutput out = BuildReport({in});
  const std::string& md = out.markdown;
  EXPECT_NE(md.find("| fixture_results.json | fixture | time | 2026-01-01T00:00:00Z | Fixture CPU |"), std::string::npos);
  // The results table: vlak's row in bold with its ratio, the missing library as not built.
  EXPECT_NE(md.find("| **vlak** | avx512 | 250 ns | 2.0% | 32.8 | - | 4096 | 0.410 | 2.60x | 1.0e-06 | 1.0e-09 | 140.0 | ok ("),
            std::string::npos)
      << md;
  EXPECT_NE(md.find("| onednn | not built: install libdnnl-dev, reconfigure |"), std::string::npos);
  // Where vlak loses: 1x4096, xnnpack at ratio 0.8 = 1.25x faster.
  ASSERT_EQ(out.not_won.size(), 1u);
  EXPECT_EQ(out.not_won[0], "softmax 1x4096, 1 thread: xnnpack is 1.25x faster than vlak");
  EXPECT_NE(md.find("- softmax 1x4096, 1 thread: xnnpack is 1.25x faster than vlak"), std::string::npos);
  // Charts: the size sweep, the speed-ups, accuracy vs speed, RISC-V LMUL panels and bars.
  std::vector<std::string> names;
  for (const auto& f : out.files) names.push_back(f.first);
  for (const char* want : {"softmax-throughput-t1-1xN.svg", "softmax-speedup.svg", "exp-speedup.svg",
                           "exp-accuracy-speed-1024.svg", "rvv-softmax-1x2048-lmul.svg", "rvv-softmax-1x2048-impls.svg"}) {
    EXPECT_NE(std::find(names.begin(), names.end(), want), names.end()) << want;
    EXPECT_NE(md.find(std::string("](") + want + ")"), std::string::npos) << want;
  }
  for (const auto& f : out.files) {
    std::string why;
    EXPECT_TRUE(testing::WellFormedSvg(f.second, &why)) << f.first << ": " << why;
  }
  // RISC-V table: a row per implementation with a column per VLEN, and one of cycles per element
  // per cost model the records were weighted on (only VLEN 256's, on the X60 model, in the fixture).
  EXPECT_NE(md.find("| impl | LMUL | VLEN 128 | VLEN 256 | spacemit-x60 cyc/el | vtype | max rel | SNR dB |"),
            std::string::npos) << md;
  EXPECT_NE(md.find("| vlak-accurate-m4 | 4 | 6.00 | 3.50 | 5.00 | e32m4 |"), std::string::npos) << md;
  EXPECT_NE(out.rvv_table.find("vlak-accurate-m1"), std::string::npos);
}

// The K1 section: vlak's X60-model cycles per element at 1.6 GHz in the published study's unit
// (1e10 elements/s), beside its GCC / ZCC / Triton rows; layernorm adds forward and backward.
TEST(LabReport, K1PublishedBesideTheX60Model) {
  const auto rec = [](const char* op, const char* impl, double cyc) {
    Record r;
    r.op = op;
    r.shape = op == std::string("matmul") ? "64x64x64" : "16x1024";
    r.impl = impl;
    r.mode = "icount";
    r.vlen = 256;
    r.cycle_model = "spacemit-x60";
    r.cycles_per_element = cyc;
    r.instr_per_element = 1;
    return r;
  };
  ReportInput in;
  in.path = "rvv.json";
  in.results.settings["mode"] = "icount";
  // matmul at 0.25 cycles/element: 1.6e9 / 0.25 / 1e10 = 0.64; published best (Triton) 0.03716.
  in.results.records = {rec("matmul", "vlak", 0.25), rec("matmul", "c-gcc", 32.0), rec("layernorm", "vlak", 1.5),
                        rec("layernorm-bwd", "vlak", 2.5)};
  const ReportOutput out = BuildReport({in});
  const std::string& md = out.markdown;
  EXPECT_NE(md.find("SpacemiT K1: published single-thread figures and vlak's X60 model"), std::string::npos) << md;
  EXPECT_NE(md.find("not a measurement on silicon"), std::string::npos);
  // 0.64 / 0.03716 = 17.2x; c-gcc 1.6e9 / 32 / 1e10 = 0.005.
  EXPECT_NE(md.find("| Matmul | 64x64x64 | 0.0311 | 0.0257 | 0.0372 | 0.640 | 0.00500 | 17.2x |"), std::string::npos) << md;
  // Layernorm: 1.6e9 / (1.5 + 2.5) / 1e10 = 0.04 against ZCC's 0.0057: 7.02x.
  EXPECT_NE(md.find("| Layernorm | 16x1024 | 0.00470 | 0.00570 | 0.00530 | 0.0400 | - | 7.02x |"), std::string::npos) << md;
  // No row for an operator without X60-weighted records.
  EXPECT_EQ(md.find("| Softmax |"), std::string::npos);
  EXPECT_NE(out.rvv_table.find("vlak (model)"), std::string::npos);
}

TEST(LabReport, HeadlineImplementation) {
  std::vector<Record> recs(2);
  recs[0].op = "exp";
  recs[0].impl = "vlak-accurate";
  recs[1].op = "softmax";
  recs[1].impl = "vlak";
  EXPECT_EQ(HeadlineImpl(recs, "exp"), "vlak-accurate");
  EXPECT_EQ(HeadlineImpl(recs, "softmax"), "vlak");
  EXPECT_EQ(HeadlineImpl(recs, "rope"), "");
}

// ---- SVG ----------------------------------------------------------------------------------

// The summary: per operator and thread count the geometric mean of fastest peer / vlak, peers being
// libraries and compilers only (not vlak's forced targets, not a naive loop), and the worst case.
TEST(LabSummary, RatiosAgainstTheFastestPeer) {
  const auto rec = [](const char* shape, int threads, const char* impl, const char* kind, double median) {
    Record r;
    r.op = "norm";
    r.shape = shape;
    r.threads = threads;
    r.impl = impl;
    r.kind = kind;
    r.mode = "time";
    r.time.median = median;
    return r;
  };
  std::vector<Record> rs = {
      rec("4x8", 1, "vlak", "vlak", 1.0),       rec("4x8", 1, "vlak@scalar", "vlak", 0.1),
      rec("4x8", 1, "c-clang", "compiler", 2.0), rec("4x8", 1, "xnnpack", "library", 1.5),
      rec("4x8", 1, "naive", "naive", 0.2),     rec("9x9", 1, "vlak", "vlak", 2.0),
      rec("9x9", 1, "xnnpack", "library", 1.0), rec("9x9", 1, "c-clang", "compiler", 3.0),
      rec("9x9", 2, "vlak", "vlak", 1.0),       rec("9x9", 2, "c-clang", "compiler", 4.0),
      rec("9x9", 2, "onednn", "library", 0.5)};
  rs.back().status = "failed";  // a failed peer is no peer
  SummaryWorst worst;
  const std::vector<SummaryLine> lines = Summarize(rs, &worst);
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_EQ(lines[0].threads, 1);
  EXPECT_EQ(lines[0].cases, 2u);
  EXPECT_NEAR(lines[0].geomean, std::sqrt(1.5 * 0.5), 1e-12);
  EXPECT_EQ(lines[0].usual_peer, "xnnpack");
  EXPECT_EQ(lines[1].threads, 2);
  EXPECT_NEAR(lines[1].geomean, 4.0, 1e-12);
  EXPECT_EQ(lines[1].usual_peer, "c-clang");
  ASSERT_NE(worst.vlak, nullptr);
  EXPECT_EQ(worst.vlak->shape, "9x9");
  EXPECT_EQ(worst.peer->impl, "xnnpack");
  EXPECT_DOUBLE_EQ(worst.ratio, 0.5);
  EXPECT_TRUE(std::isnan(lines[0].min_pct_of_bound));  // no roofline measured
  EXPECT_EQ(lines[0].bound_kind, "");

  // vlak's lowest share of the roofline over an operator's cases; a case without one leaves none.
  for (Record& r : rs) {
    if (r.impl == "vlak") r.bound_kind = "memory", r.pct_of_bound = r.shape == "4x8" ? 97.0 : 91.5;
  }
  const std::vector<SummaryLine> with_bound = Summarize(rs, &worst);
  EXPECT_DOUBLE_EQ(with_bound[0].min_pct_of_bound, 91.5);
  EXPECT_EQ(with_bound[0].bound_kind, "memory");
  EXPECT_DOUBLE_EQ(with_bound[1].min_pct_of_bound, 91.5);
  rs[0].pct_of_bound = __builtin_nan("");
  EXPECT_TRUE(std::isnan(Summarize(rs, &worst)[0].min_pct_of_bound));
}

// A timed one-thread activation-sigmoid record with its median and its max scaled error.
Record SigmoidRecord(const std::string& shape, const std::string& impl, const std::string& kind, double median,
                     double err) {
  Record r;
  r.op = "activation-sigmoid";
  r.shape = shape;
  r.threads = 1;
  r.impl = impl;
  r.kind = kind;
  r.mode = "time";
  r.time.median = median;
  r.acc.max_scaled = err;
  return r;
}

// Each peer meets the cheapest vlak tier at least as accurate as itself on the case.
TEST(LabSummary, PeersMeetTheCheapestTierAsAccurate) {
  const auto rec = SigmoidRecord;
  const std::vector<Record> rs = {
      rec("4096", "vlak", "vlak", 4.0, 1.0), rec("4096", "vlak-fast", "vlak", 2.0, 3.0),
      rec("4096", "xnnpack", "library", 3.0, 3.5),  // meets fast: 1.5
      rec("4096", "sleef", "library", 3.0, 1.2),    // meets the default: 0.75, the case's ratio
      rec("16M", "vlak", "vlak", 4.0, 1.0), rec("16M", "vlak-fast", "vlak", 2.0, 3.0),
      rec("16M", "xnnpack", "library", 3.0, 3.5)};  // 1.5 against fast
  SummaryWorst worst;
  const std::vector<SummaryLine> lines = Summarize(rs, &worst);
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_NEAR(lines[0].geomean, std::sqrt(0.75 * 1.5), 1e-12);
  ASSERT_NE(worst.vlak, nullptr);
  EXPECT_EQ(worst.vlak->impl, "vlak");
  EXPECT_EQ(worst.peer->impl, "sleef");
  EXPECT_DOUBLE_EQ(worst.ratio, 0.75);
}

// The report's "where vlak does not win yet" meets each peer by the same tier as the summary, and
// vlak's own compositions (vlak-2call) the same way.
TEST(LabSummary, TierForPeerIsTheSummarysTier) {
  const std::vector<Record> rs = {
      SigmoidRecord("4096", "vlak", "vlak", 4.0, 1.0), SigmoidRecord("4096", "vlak-fast", "vlak", 2.0, 3.0),
      SigmoidRecord("4096", "xnnpack", "library", 3.0, 3.5), SigmoidRecord("4096", "sleef", "library", 3.0, 1.2),
      SigmoidRecord("4096", "vlak@scalar", "vlak", 9.0, 1.0), SigmoidRecord("4096", "vlak-2call", "composed", 3.0, 3.0)};
  const Record* t = TierForPeer(rs, rs[2]);
  ASSERT_NE(t, nullptr);
  EXPECT_EQ(t->impl, "vlak-fast");  // as accurate as xnnpack, and cheaper
  t = TierForPeer(rs, rs[3]);
  ASSERT_NE(t, nullptr);
  EXPECT_EQ(t->impl, "vlak");  // sleef is more accurate than the fast tier
  EXPECT_EQ(TierForPeer(rs, rs[4]), nullptr);  // the default tier on another target
  t = TierForPeer(rs, rs[5]);  // a vlak composition as crude as the fast tier meets that tier
  ASSERT_NE(t, nullptr);
  EXPECT_EQ(t->impl, "vlak-fast");
}

TEST(LabSvg, AxesTicksAndLabels) {
  svg::Axis size{"n", true, 2};
  const auto t = svg::Ticks(size, 256, 1 << 20);
  ASSERT_FALSE(t.empty());
  for (double v : t) EXPECT_EQ(std::exp2(std::round(std::log2(v))), v);
  EXPECT_EQ(svg::TickLabel(size, 1024), "1K");
  EXPECT_EQ(svg::TickLabel(size, 4 << 20), "4M");
  EXPECT_EQ(svg::TickLabel(size, 256), "256");
  svg::Axis err{"e", true, 10};
  EXPECT_EQ(svg::TickLabel(err, 1e-7), "1e-7");
  EXPECT_EQ(svg::TickLabel(err, 0.01), "0.01");
  const auto lin = svg::Ticks(svg::Axis{"y"}, 0, 47);
  EXPECT_EQ(lin.front(), 0);
  EXPECT_GE(lin.size(), 4u);
  EXPECT_EQ(svg::Escape("a<b & \"c\""), "a&lt;b &amp; &quot;c&quot;");
}

TEST(LabSvg, ChartsAreWellFormed) {
  svg::Chart c;
  c.title = "t <&>";
  c.x = {"x", true, 2};
  c.y = {"y", true, 10};
  c.series.push_back({"s1", {{256, 1, ""}, {4096, 10, ""}}, -1, true, true});
  c.series.push_back({"s2", {{256, 0.5, "p"}, {4096, 0, "zero: skipped on a log axis"}}, -1, false, false});
  c.point_labels = true;
  std::string why;
  EXPECT_TRUE(testing::WellFormedSvg(svg::Render(c), &why)) << why;
  svg::BarChart b;
  b.groups = {"g1", "g2"};
  b.series = {"a", "b"};
  b.values = {{2, 0.5}, {std::nan(""), 1}};
  b.y = {"x", true, 10};
  b.ref_lines_y = {1};
  EXPECT_TRUE(testing::WellFormedSvg(svg::Render(b), &why)) << why;
  EXPECT_TRUE(testing::WellFormedSvg(svg::RenderPanels("p", "s", {c, c}, 2), &why)) << why;
  EXPECT_TRUE(testing::WellFormedSvg(svg::Render(svg::Chart{}), &why)) << why;  // empty: "no data"
  EXPECT_FALSE(testing::WellFormedSvg("<svg><g></svg>", &why));
  EXPECT_FALSE(testing::WellFormedSvg("<html></html>", &why));
}

}  // namespace
}  // namespace vlak::lab
