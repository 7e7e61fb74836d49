// cpu_gate TARGET PROGRAM [ARGS...]: run PROGRAM if this CPU can run TARGET, else say why and
// exit 77 so CTest shows the test as skipped rather than passed.
#include <unistd.h>

#include <cstdio>
#include <cstring>

#include "vlak/vlak.h"

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: vlak_cpu_gate TARGET PROGRAM [ARGS...]\n");
    return 2;
  }
  for (int i = VLAK_TARGET_SCALAR; i <= VLAK_TARGET_RVV; ++i) {
    const auto t = static_cast<vlak_target>(i);
    if (std::strcmp(argv[1], vlak_target_name(t)) != 0) continue;
    if (!vlak_target_supported(t)) {
      std::printf("SKIPPED: this CPU cannot run the %s target; its tests did not run\n", argv[1]);
      return 77;
    }
    if (access(argv[2], X_OK) != 0) {
      std::fprintf(stderr,
                   "vlak_cpu_gate: %s: not built. This CPU runs the %s target, but the build was configured "
                   "on one that does not: reconfigure here, or with -DVLAK_TEST_ALL_TARGETS=ON\n",
                   argv[2], argv[1]);
      return 1;
    }
    execv(argv[2], argv + 2);
    std::perror("vlak_cpu_gate: exec");
    return 1;
  }
  std::fprintf(stderr, "vlak_cpu_gate: unknown target '%s'\n", argv[1]);
  return 2;
}
