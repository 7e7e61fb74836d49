// `vlak report RESULTS.json... -o DIR`: a Markdown page (DIR/report.md) with tables and SVG
// charts from `vlak bench --json` files (host and RISC-V runs can be mixed).
#include <sys/stat.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "commands.h"
#include "lab/record.h"
#include "lab/report.h"

namespace vlak::cli {
namespace {

int Bad(const std::string& msg) {
  std::fprintf(stderr, "vlak report: %s (usage: vlak report RESULTS.json... -o DIR)\n", msg.c_str());
  return 2;
}

bool MakeDirs(const std::string& path) {
  std::string cur;
  for (size_t i = 0; i <= path.size(); ++i) {
    if (i == path.size() || path[i] == '/') {
      if (!cur.empty() && mkdir(cur.c_str(), 0755) != 0 && errno != EEXIST) return false;
    }
    if (i < path.size()) cur += path[i];
  }
  struct stat st;
  return stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

}  // namespace

int CmdReport(int argc, char** argv) {
  std::string dir;
  std::vector<std::string> files;
  bool quiet = false;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "-h" || a == "--help") {
      std::printf("usage: vlak report RESULTS.json... -o DIR [--quiet]\n"
                  "Writes DIR/report.md and its SVG charts; prints where vlak does not win yet and,\n"
                  "with RISC-V results, the instructions-per-element table.\n");
      return 0;
    }
    if (a == "-o" || a == "--out") {
      if (i + 1 >= argc) return Bad("missing value for " + a);
      dir = argv[++i];
    } else if (a == "--quiet" || a == "-q") {
      quiet = true;
    } else if (!a.empty() && a[0] == '-') {
      return Bad("unknown option '" + a + "' (valid: -o --quiet --help)");
    } else {
      files.push_back(a);
    }
  }
  if (files.empty()) return Bad("no results files");
  if (dir.empty()) return Bad("-o DIR is required");
  std::vector<lab::ReportInput> inputs;
  for (const auto& f : files) {
    lab::ReportInput in;
    in.path = f;
    std::string err;
    if (!lab::ReadResultsFile(f, &in.results, &err)) {
      std::fprintf(stderr, "vlak report: %s\n", err.c_str());
      return 1;
    }
    inputs.push_back(std::move(in));
  }
  if (!MakeDirs(dir)) {
    std::fprintf(stderr, "vlak report: cannot create %s: %s\n", dir.c_str(), std::strerror(errno));
    return 1;
  }
  const lab::ReportOutput out = lab::BuildReport(inputs);
  std::string err;
  if (!lab::WriteTextFile(dir + "/report.md", out.markdown, &err)) {
    std::fprintf(stderr, "vlak report: %s\n", err.c_str());
    return 1;
  }
  for (const auto& [name, text] : out.files) {
    if (!lab::WriteTextFile(dir + "/" + name, text, &err)) {
      std::fprintf(stderr, "vlak report: %s\n", err.c_str());
      return 1;
    }
  }
  if (!quiet) {
    if (!out.rvv_table.empty()) std::printf("RISC-V instructions per element (qemu-icount):%s\n", out.rvv_table.c_str());
    if (out.not_won.empty()) {
      std::printf("vlak wins every timed case of these results.\n");
    } else {
      std::printf("where vlak does not win yet:\n");
      for (const auto& s : out.not_won) std::printf("  %s\n", s.c_str());
    }
  }
  std::printf("report: %s/report.md (%zu charts)\n", dir.c_str(), out.files.size());
  return 0;
}

}  // namespace vlak::cli
