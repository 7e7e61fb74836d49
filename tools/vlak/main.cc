// vlak: the command-line front of the library and lab.
#include <cstdio>
#include <cstring>

#include "commands.h"

namespace {

struct Command {
  const char* name;
  int (*run)(int argc, char** argv);
  const char* help;
};

constexpr Command kCommands[] = {
    {"info", vlak::cli::CmdInfo, "targets compiled in, the one chosen, vector lengths"},
    {"accuracy", vlak::cli::CmdAccuracy, "exp variants against float64: max ULP, relative error, special values"},
    {"hackathon", vlak::cli::CmdHackathon, "the RISC-V hackathon softmax harness: score, SNR, RISC-V instructions"},
    {"gen-golden", vlak::cli::CmdGenGolden, "write hackathon-style data (uniform [0,1)) and its float64 golden"},
    {"bench", vlak::cli::CmdBench, "the lab: a suite of operators x shapes x implementations x threads"},
    {"report", vlak::cli::CmdReport, "Markdown + SVG charts from `vlak bench --json` results"},
    {"npu", vlak::cli::CmdNpu, "the chisel-npu tutorial's LUT NPU model: run/trace programs, softmax error tables"},
    {"sfpi", vlak::cli::CmdSfpi, "Tenstorrent SFPI kernels on the CPU: list, run KERNEL --tiles N --arch wh|bh"},
    {"model", vlak::cli::CmdModel, "run a model on vlak's kernels: minilm (sentence embeddings)"},
};

void PrintUsage(FILE* out) {
  std::fprintf(out, "usage: vlak <command> [options]\n\ncommands:\n");
  for (const Command& c : kCommands) std::fprintf(out, "  %-10s %s\n", c.name, c.help);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2 || std::strcmp(argv[1], "-h") == 0 || std::strcmp(argv[1], "--help") == 0) {
    PrintUsage(argc < 2 ? stderr : stdout);
    return argc < 2 ? 2 : 0;
  }
  if (std::strcmp(argv[1], "bench") == 0) vlak::cli::BenchEnvironment(argv);
  for (const Command& c : kCommands) {
    if (std::strcmp(argv[1], c.name) == 0) return c.run(argc - 1, argv + 1);
  }
  std::fprintf(stderr, "vlak: unknown command '%s' (valid:", argv[1]);
  for (const Command& c : kCommands) std::fprintf(stderr, " %s", c.name);
  std::fprintf(stderr, ")\n");
  return 2;
}
