// Runs cases: accuracy once per implementation, then either time (interleaved rounds) or, on
// RISC-V under the qemu-icount plugin, the instructions of one run.
//
// Timing: each implementation is warmed up and calibrated to a batch of k runs lasting about
// min(min_time / 15, 1 ms); then rounds run every implementation's batch in the case's order
// (A B C A B C ...), until each has at least min_time of timed runs and 5 rounds. A sample is a
// batch's time / k. Ratios between two implementations are the median over rounds of their samples' ratio,
// so a slow drift of the machine (other jobs, clocks) cancels within a round.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "lab/record.h"
#include "lab/suite.h"

namespace vlak::lab {

struct RunOptions {
  bool icount = false;      // count instructions instead of timing (RISC-V under the plugin)
  int min_rounds = 5;
  int samples_target = 15;  // batches aimed for within min_time
  int max_rounds = 2000;
  // Called before each case and at the end: done cases, total, the next case's label.
  std::function<void(size_t done, size_t total, const std::string& label)> progress;
  std::string suite;
  // When set, gets the implementation name of every timed batch in the order they ran (tests).
  std::vector<std::string>* trace = nullptr;
};

// Median over rounds of a[r] / b[r] (rounds where both have a sample).
double MedianRatio(const std::vector<double>& a, const std::vector<double>& b);

std::vector<Record> RunCases(const std::vector<Case>& cases, const RunOptions& opt);

// Waits until no other thread of the process is running (every pool that spins after a call has
// gone to sleep), at most 250 ms: RunCases before each implementation's turn, and
// tests/lab/lab_threads_test.cc before each measurement (runner.cc says why).
void WaitForIdleThreads();

// Prints "[ 3/40] softmax 1x2048 t1  0:12 elapsed, ~0:40 left" over itself on a terminal.
class ProgressLine {
 public:
  ProgressLine(bool enabled, const std::vector<Case>& cases);
  void Update(size_t done, size_t total, const std::string& label);
  void Finish();

 private:
  bool enabled_;
  std::vector<double> weight_;  // expected seconds per case, for the estimate
  double start_;
  size_t width_ = 0;
};

}  // namespace vlak::lab
