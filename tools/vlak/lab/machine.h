// The machine a run happened on, for the results file: CPU, ISA, VLEN, compilers, commit.
#pragma once

#include "lab/record.h"

namespace vlak::lab {

Machine CollectMachine();

// RISC-V: vtype/vlenb CSRs (what the last vsetvli chose, the vector register width) and the
// qemu-icount plugin's live count of the region just closed. Off RISC-V: -1 / 0 / false.
long ReadVtype();
// Sets vtype to e8mf8, which no f32 kernel uses: VtypeText then reports "" if nothing ran a
// vsetvli since (scalar code).
void ResetVtype();
int ReadVlenBits();
std::string VtypeText(long vtype);  // "e32m8", "e32mf2", "vill", "" for -1
bool IcountAvailable();             // running under scripts/rvv-run (VLAK_ICOUNT_LIVE set)
// The live line's instruction count, and where the plugin weights by a cost table (scripts/rvv-run:
// docs/riscv.md#cycles) the region's cycles and the model's name (else cycles NaN, model "").
bool ReadIcountLive(unsigned long long* count, double* cycles = nullptr, std::string* model = nullptr);

}  // namespace vlak::lab
