/* A C program using only the installed vlak headers and library. */
#include <stdio.h>
#include <vlak/vlak.h>

int main(void) {
  const vlak_target t = vlak_active_target();
  if (!vlak_target_supported(t) || vlak_target_lanes(t, 0, 4) == 0) return 1;
  printf("consumer: vlak %s on %s\n", vlak_version(), vlak_target_name(t));
  return 0;
}
