// `vlak report`: results files -> a Markdown page with tables and SVG charts.
#pragma once

#include <string>
#include <vector>

#include "lab/record.h"

namespace vlak::lab {

struct ReportInput {
  std::string path;  // as given, for the page
  Results results;
};

struct ReportOutput {
  std::string markdown;                                     // report.md
  std::vector<std::pair<std::string, std::string>> files;  // file name -> SVG text
  std::vector<std::string> not_won;                         // "softmax 1x1M t1: xnnpack 1.15x faster than vlak"
  std::string rvv_table;                                    // plain-text instructions table ("" without RISC-V data)
};

ReportOutput BuildReport(const std::vector<ReportInput>& inputs);

// The implementation that stands for vlak in comparisons: "vlak", else "vlak-accurate".
std::string HeadlineImpl(const std::vector<Record>& records, const std::string& op);

// Markdown table helpers (exposed for tests).
std::string MarkdownRow(const std::vector<std::string>& cells);

}  // namespace vlak::lab
