// Subcommands of the `vlak` CLI. Each returns the process exit status (0 ok, 1 failure, 2 usage).
#pragma once

namespace vlak::cli {

int CmdInfo(int argc, char** argv);
int CmdAccuracy(int argc, char** argv);
int CmdAccuracySfpi(int argc, char** argv);
int CmdHackathon(int argc, char** argv);
int CmdGenGolden(int argc, char** argv);
int CmdBench(int argc, char** argv);
// Before `vlak bench` runs (main's argv): sets what the baselines' runtimes read only when they
// are loaded, and runs the process again with it, at most once.
void BenchEnvironment(char** argv);
int CmdReport(int argc, char** argv);
int CmdNpu(int argc, char** argv);
int CmdSfpi(int argc, char** argv);
int CmdModel(int argc, char** argv);

}  // namespace vlak::cli
