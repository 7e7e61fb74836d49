#!/usr/bin/env python3
"""Coefficients of the activations' polynomials (src/ops/activation/*.h).

    /usr/bin/python3 src/ops/activation/activation_coeffs.py    # needs mpmath (python3-mpmath)

Method as tools/remez/exp_coeffs.py: a linear Remez exchange for the weighted minimax error on a
fine grid, in mpmath at 40 digits; float32 coefficients are then rounded one at a time, lowest
first, refitting the higher ones (the printed error is that of the rounded coefficients).
gelu's fit (gelu_r) is a Remez fit in full precision, then its two lowest coefficients are split
into two floats each and the rest rounded; a coarser grid (its target calls erfc), about two minutes.
"""
import struct

import mpmath as mp

mp.mp.dps = 40


def f32(x):
    return struct.unpack('<f', struct.pack('<f', float(x)))[0]


def remez(target, weight, powers, lo, hi, fixed=None, iters=30, grid=4000):
    """min over c of max |weight(t) (sum c_k t^p_k + fixed(t) - target(t))| on [lo, hi]."""
    fixed = fixed or (lambda t: 0)
    n = len(powers)
    ts = [lo + (hi - lo) * (1 - mp.cos(mp.pi * i / grid)) / 2 for i in range(grid + 1)]
    ref = [ts[int(grid * (1 - mp.cos(mp.pi * (i + 0.5) / (n + 1))) / 2)] for i in range(n + 1)]
    c = [mp.mpf(0)] * n
    for _ in range(iters):
        a = mp.matrix([[weight(t) * t ** p for p in powers] + [(-1) ** i] for i, t in enumerate(ref)])
        b = mp.matrix([weight(t) * (target(t) - fixed(t)) for t in ref])
        sol = mp.lu_solve(a, b)
        c = [sol[i] for i in range(n)]

        def err(t):
            return weight(t) * (sum(ck * t ** p for ck, p in zip(c, powers)) + fixed(t) - target(t))
        es = [err(t) for t in ts]
        # extrema of alternating sign, one per sign run
        runs = []
        for t, e in zip(ts, es):
            if runs and (runs[-1][1] >= 0) == (e >= 0):
                if abs(e) > abs(runs[-1][1]):
                    runs[-1] = (t, e)
            else:
                runs.append((t, e))
        while len(runs) > n + 1:  # drop the smallest end
            if abs(runs[0][1]) < abs(runs[-1][1]):
                runs.pop(0)
            else:
                runs.pop()
        if len(runs) < n + 1:
            break
        ref = [t for t, _ in runs]
    return c, max(abs(e) for e in es)


def round_f32(target, weight, powers, lo, hi, fixed=None):
    """Rounds coefficients to float32 lowest power first, refitting the rest."""
    fixed = fixed or (lambda t: 0)
    done = []
    for k in range(len(powers)):
        def fx(t, done=tuple(done)):
            return fixed(t) + sum(cv * t ** p for cv, p in done)
        c, e = remez(target, weight, powers[k:], lo, hi, fx)
        done.append((mp.mpf(f32(c[0])), powers[k]))
    def err(t):
        return weight(t) * (fixed(t) + sum(cv * t ** p for cv, p in done) - target(t))
    ts = [lo + (hi - lo) * i / 20000 for i in range(20001)]
    return [cv for cv, _ in done], max(abs(err(t)) for t in ts)


def tanh_small():
    # tanh(x) = x + x^3 P(x^2) on [0, T]: P(s) ~ (tanh(sqrt s) - sqrt s) / s^1.5, weight s (the
    # error of x^3 P relative to x). tanh.h: T = 1, degree 6 (5.3e-9).
    T = mp.mpf(1)
    def target(s):
        x = mp.sqrt(s)
        return (mp.tanh(x) - x) / (s * x) if s > 0 else mp.mpf(-1) / 3
    for deg in (6,):
        c, e = round_f32(target, lambda s: s if s > 0 else mp.mpf(1e-30), list(range(deg + 1)), mp.mpf(0), T * T)
        print('tanh |x| <= %s: P degree %d, max relative error of x + x^3 P ~ %.3g' % (T, deg, e))
        print('   ', ', '.join('%.9gf' % float(v) for v in c))


def softplus_atanh():
    # log1p(e) = 2 atanh(sg) = 2sg (1 + w R2(w)), sg = e / (2 + e) in [0, 1/3], w = (2sg)^2 in
    # [0, 4/9]: R2(w) ~ (atanh(sg) / sg - 1) / w, weight w (the error of w R2 added to 1).
    # softplus.h: degree 3 (4.6e-9).
    def target(w):
        sg = mp.sqrt(w) / 2
        return (mp.atanh(sg) / sg - 1) / w if w > 0 else mp.mpf(1) / 12
    for deg in (3,):
        c, e = round_f32(target, lambda w: w if w > 0 else mp.mpf(1e-30), list(range(deg + 1)), mp.mpf(0),
                         mp.mpf(4) / 9)
        print('softplus 2 atanh: R2 degree %d, max error of w R2 ~ %.3g' % (deg, e))
        print('   ', ', '.join('%.9gf' % float(v) for v in c))


def gelu_r():
    # gelu.h: a Q(a) = e^{-a^2/2} a t R(t), t = 1 / (1 + p a), R(t) = Q(a) e^{a^2/2} (1 + p a) (Q
    # the normal tail, R(1) = 1/2, R -> p / sqrt(2 pi) as a -> inf), a in [0, 14.5], as a
    # polynomial in tau = t - tc, relative error. p = 0.4: degree 10 reaches 2^-27 (p = 0.5: 2^-25.4
    # at degree 10; p = 0.25 converges faster but R then varies 4x over the range, and its
    # Horner sum is worse conditioned).
    p = mp.mpf(f32(0.4))
    tmin = 1 / (1 + p * mp.mpf(14.5))
    tc = mp.mpf(f32((tmin + 1) / 2))
    def target(tau):
        t = tau + tc
        a = (1 / t - 1) / p
        return mp.erfc(a / mp.sqrt(2)) / 2 * mp.exp(a * a / 2) * (1 + p * a)
    deg = 10
    lo, hi = tmin - tc, 1 - tc
    c, e = remez(target, lambda s: 1 / target(s), list(range(deg + 1)), lo, hi, iters=20, grid=1000)
    # r0 and r1 as two floats each (the kernel adds their low halves in its two-float last steps),
    # r2.. rounded to float (their rounding weighs tau^2 r2 / R <= 0.1 and less).
    r0 = (f32(c[0]), f32(c[0] - mp.mpf(f32(c[0]))))
    r1 = (f32(c[1]), f32(c[1] - mp.mpf(f32(c[1]))))
    rest = [mp.mpf(f32(v)) for v in c[2:]]
    cs = [mp.mpf(r0[0]) + r0[1], mp.mpf(r1[0]) + r1[1]] + rest
    err = max(abs(sum(ck * t ** k for k, ck in enumerate(cs)) / target(t) - 1)
              for t in (lo + (hi - lo) * i / 4000 for i in range(4001)))
    print('gelu R(t), p = %.9gf, tc = %.9gf: degree %d, max relative error %.3g (unrounded %.3g)' % (
        float(p), float(tc), deg, err, e))
    print('    r0 %.9gf + %.9gf, r1 %.9gf + %.9gf' % (r0 + r1))
    print('   ', ', '.join('%.9gf' % float(v) for v in rest))


if __name__ == '__main__':
    tanh_small()
    softplus_atanh()
    gelu_r()
