#!/usr/bin/env python3
"""Coefficients of the activations' polynomials and rational functions (src/ops/activation/*.h).

    /usr/bin/python3 src/ops/activation/activation_coeffs.py    # needs mpmath (python3-mpmath)

Method as tools/remez/exp_coeffs.py: a linear Remez exchange for the weighted minimax error on a
fine grid, in mpmath at 40 digits; float32 coefficients are then rounded one at a time, lowest
first, refitting the higher ones (the printed error is that of the rounded coefficients). The
rational fit for gelu's Mills ratio is Lawson-weighted linearised least squares (near-minimax,
double precision is ample: the kernel evaluates it in float64 and needs 1e-9).
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


def gelu_mills():
    # M(a) = Q(a) / phi(a) (Mills ratio), a in [0, 15]: P5(t) / Q6(t) with t = a, relative error.
    import numpy as np
    lo, hi = 0.0, 15.0
    N = 3000
    g = np.cos(np.linspace(np.pi, 0, N))
    xs = lo + (hi - lo) * (g + 1) / 2
    fs = np.array([float((mp.erfc(mp.mpf(x) / mp.sqrt(2)) / 2) / mp.npdf(mp.mpf(x))) for x in xs])
    m, n = 5, 6
    Vp = np.vander(xs / hi, m + 1, increasing=True)
    Vq = np.vander(xs / hi, n + 1, increasing=True)[:, 1:]
    w = np.ones(N)
    qv = np.ones(N)
    best = None
    for it in range(80):
        W = w / (np.abs(fs) * np.abs(qv))
        A = np.hstack([Vp, -fs[:, None] * Vq]) * W[:, None]
        c, *_ = np.linalg.lstsq(A, fs * W, rcond=None)
        p = Vp @ c[:m + 1]
        qv = 1 + Vq @ c[m + 1:]
        err = np.abs((p / qv - fs) / fs)
        if best is None or err.max() < best[0]:
            best = (err.max(), c.copy())
        w = w * err ** 0.3
        w /= w.max()
    e, c = best
    # back to the variable a: coefficient k of t^k, t = a / hi
    pc = [c[k] / hi ** k for k in range(m + 1)]
    qc = [1.0] + [c[m + 1 + k - 1] / hi ** k for k in range(1, n + 1)]
    print('gelu Mills ratio on [0, 15]: P%d/Q%d, max relative error %.3g' % (m, n, e))
    print('    P:', ', '.join('%.17g' % v for v in pc))
    print('    Q:', ', '.join('%.17g' % v for v in qc))


if __name__ == '__main__':
    tanh_small()
    softplus_atanh()
    # gelu_mills()
