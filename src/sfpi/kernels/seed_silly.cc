// The example kernel of Tenstorrent's SFPI documentation (`silly`), unchanged except for the
// include and two lines around it: the namespace, and `value`, which the document's snippet uses
// without declaring (here a float known only at run time, as the comment above its use assumes).
#include "sfpi/sfpi.h"

namespace vlak::VLAK_NS::sfpi_kernels {
using namespace ::vlak::VLAK_NS::sfpi;
float value = 0.8125F;

void silly(bool take_abs)
{
// dst_reg[n] loads into a temporary LREG
vFloat a = dst_reg[0] + 2.0F;
// This emits a load, move, mad
dst_reg[3] = a * -dst_reg[1] + vConstFloatPrgm0 + 0.5F;
// This emits a load, loadi, mad (a * dst_reg[] goes down the mad path)
dst_reg[4] = a * dst_reg[1] + 1.2F;
// This emits two loadis and a mad
dst_reg[4] = a * 1.5F + 1.2F;
// This emits a loadi (into tmp), loadi (as a temp for 1.2F) and a mad
vFloat tmp = s2vFloat16a(value);
dst_reg[5] = a * tmp + 1.2F;
v_if ((a >= 4.0F && a < 8.0F) || (a >= 12.0F && a < 16.0F)) {
vInt b = exexp_nodebias(a);
b &= 0xAA;
v_if (b >= 130) {
dst_reg[6] = setexp(a, 127);
}
v_endif;
} v_elseif (a == s2vFloat16a(3.0F)) {
// RISCV branch
if (take_abs) {
dst_reg[7] = abs(a);
} else {
dst_reg[7] = a;
}
} v_else {
vInt exp = lz(a) - 19;
exp = ~exp;
dst_reg[8] = -setexp(a, exp);
}
v_endif;
}

void SillyInit() { vConstFloatPrgm0 = 0.25f; }
void SillyAbsBody() { silly(true); }
void SillyBody() { silly(false); }

}  // namespace vlak::VLAK_NS::sfpi_kernels
