#!/usr/bin/env python3
"""Coefficients of vlak's f32 exp family (src/math/exp_*.h), derived here and printed.

Pure Python (doubles only; no numpy): the approximation errors being chased are ~1e-8..1e-10,
far above double rounding (1e-16), so doubles are enough for the exchange algorithm.

  python3 tools/remez/exp_coeffs.py            # prints every constant the headers use

What it derives:
  * accurate: e^t ~ 1 + t + c2 t^2 + ... + c5 t^5, relative-error minimax on the reduced range
    of exp_accurate.h, c1 = 1 held exact so that the leading terms carry no coefficient error.
  * precise:  e^t ~ 1 + t + c2 t^2 + ... + c6 t^6 on [-ln2/2, ln2/2] (relative minimax).
  * schraudolph: the constant correction of the bit trick (minimax relative error), and the
    RMS-optimal one Schraudolph (1999) used, for comparison.
  * bittrick p3 / p5: the Hermite conditions of the RISC-V hackathon
    softmax (April 2025) solved exactly (value and first
    derivative at both ends of [0, 1] for degree 3; value, first and second for degree 5).

Minimax: linear Remez exchange with weight w(t) = e^-t (relative error), then the coefficients
are rounded to float32 one at a time, lowest degree first, refitting the higher ones after each
rounding (so the rounding of c2 is absorbed by c3..c5, and so on); the printed max error is that
of the float32 coefficients evaluated exactly.
"""
import math
import struct


def f32(x):
    return struct.unpack('<f', struct.pack('<f', x))[0]


def f32_hex(x):
    return '0x%08X' % struct.unpack('<I', struct.pack('<f', x))[0]


def solve(a, b):
    """Gaussian elimination with partial pivoting (a is n x n, b is n)."""
    n = len(b)
    m = [row[:] + [b[i]] for i, row in enumerate(a)]
    for c in range(n):
        p = max(range(c, n), key=lambda r: abs(m[r][c]))
        m[c], m[p] = m[p], m[c]
        for r in range(c + 1, n):
            k = m[r][c] / m[c][c]
            for j in range(c, n + 1):
                m[r][j] -= k * m[c][j]
    x = [0.0] * n
    for r in range(n - 1, -1, -1):
        x[r] = (m[r][n] - sum(m[r][j] * x[j] for j in range(r + 1, n))) / m[r][r]
    return x


def remez(target, weight, powers, lo, hi, iters=40, grid=6000):
    """min over c of max_{t in [lo,hi]} |weight(t) * (sum c_k t^powers[k] - target(t))|.

    Returns (coefficients, max weighted error). When every basis power is >= m > 0 the error
    has a zero of order m at t = 0; for odd m that zero forces a sign change which is not an
    alternation of the best approximation. Equivalently we approximate target/t^m by the Haar
    basis t^(p-m) with weight |t|^m w(t), i.e. the alternation is counted on err(t) sgn(t)^m.
    """
    n = len(powers)
    m = min(powers)

    def sg(t):
        return -1.0 if (t < 0 and m % 2 == 1) else 1.0
    # Initial reference: Chebyshev extrema, nudged off zero.
    ref = [lo + (hi - lo) * (1 - math.cos(math.pi * (i + 0.5) / (n + 1))) / 2 for i in range(n + 1)]
    c = [0.0] * n
    for _ in range(iters):
        a = [[weight(t) * t ** p for p in powers] + [-((-1) ** i) * sg(t)] for i, t in enumerate(ref)]
        b = [weight(t) * target(t) for t in ref]
        sol = solve(a, b)
        c = sol[:n]

        def err(t):
            return sg(t) * weight(t) * (sum(ck * t ** p for ck, p in zip(c, powers)) - target(t))

        ts = [lo + (hi - lo) * i / grid for i in range(grid + 1)]
        es = [err(t) for t in ts]
        # Local extrema of the error (including the ends), refined by golden-section search.
        ext = []
        for i in range(grid + 1):
            left = es[i - 1] if i > 0 else None
            right = es[i + 1] if i < grid else None
            e = es[i]
            if e == 0.0:
                continue
            if (left is None or abs(e) >= abs(left)) and (right is None or abs(e) >= abs(right)):
                if left is not None and right is not None:
                    a0, b0 = ts[i - 1], ts[i + 1]
                    s = 1.0 if e > 0 else -1.0
                    g = (math.sqrt(5) - 1) / 2
                    for _ in range(60):
                        x1, x2 = b0 - g * (b0 - a0), a0 + g * (b0 - a0)
                        if s * err(x1) > s * err(x2):
                            b0 = x2
                        else:
                            a0 = x1
                    t = (a0 + b0) / 2
                    ext.append((t, err(t)))
                else:
                    ext.append((ts[i], e))
        # Keep one extremum per sign run (the largest), then the n+1 adjacent largest.
        runs = []
        for t, e in ext:
            if runs and (runs[-1][1] > 0) == (e > 0):
                if abs(e) > abs(runs[-1][1]):
                    runs[-1] = (t, e)
            else:
                runs.append((t, e))
        while len(runs) > n + 1:
            # Drop the smaller end (keeps alternation).
            if abs(runs[0][1]) < abs(runs[-1][1]):
                runs.pop(0)
            else:
                runs.pop()
        if len(runs) < n + 1:
            break
        new_ref = [t for t, _ in runs]
        if max(abs(x - y) for x, y in zip(new_ref, ref)) < 1e-15:
            break
        ref = new_ref
    maxerr = max(abs(weight(t) * (sum(ck * t ** p for ck, p in zip(c, powers)) - target(t)))
                 for t in [lo + (hi - lo) * i / 20000 for i in range(20001)])
    return c, maxerr


def f32_step(x, k):
    """x moved by k float32 ulps."""
    i = struct.unpack('<i', struct.pack('<f', x))[0]
    i += k if x >= 0 else -k
    return struct.unpack('<f', struct.pack('<i', i))[0]


def polish_f32(coeffs, powers, error):
    """Coordinate descent on float32 coefficients: each of `powers` moved by up to +-4 ulps while
    error(coeffs) drops; returns the polished {power: coefficient}."""
    best = error(coeffs)
    improved = True
    while improved:
        improved = False
        for p in powers:
            for k in (-4, -3, -2, -1, 1, 2, 3, 4):
                trial = dict(coeffs)
                trial[p] = f32_step(coeffs[p], k)
                e = error(trial)
                if e < best:
                    best, coeffs, improved = e, trial, True
    return coeffs


def exp_minimax_f32(fixed, free_powers, lo, hi):
    """Relative minimax of e^t by sum(fixed[p] t^p) + sum(c_p t^p, p in free_powers).

    The exchange runs in doubles; the coefficients are then rounded to float32 and polished by
    coordinate descent (each coefficient moved by up to +-4 ulps while the max relative error on
    a dense grid drops). Returns ({power: f32 coefficient}, max rel error, unrounded max error).
    """
    def target(t):
        return math.exp(t) - sum(v * t ** p for p, v in fixed.items())
    c, err_double = remez(target, lambda t: math.exp(-t), free_powers, lo, hi)
    coeffs = {p: f32(v) for p, v in zip(free_powers, c)}
    # Chebyshev-spaced grid: dense near the ends, where the error peaks.
    grid = [lo + (hi - lo) * (1 - math.cos(math.pi * i / 3000)) / 2 for i in range(3001)]

    def max_err(cs, ts):
        allc = dict(fixed)
        allc.update(cs)
        items = sorted(allc.items())
        return max(abs(sum(v * t ** p for p, v in items) * math.exp(-t) - 1) for t in ts)

    coeffs = polish_f32(coeffs, free_powers, lambda cs: max_err(cs, grid))
    err = max_err(coeffs, [lo + (hi - lo) * i / 20000 for i in range(20001)])
    return coeffs, err, err_double


def softmax_scaled(lo, hi):
    """K e^t ~ t^6 + k5 t^5 + k4 t^4 + k3 t^3 + k2 t^2 + K t + K, the scaled polynomial of
    exp_softmax.h: monic, so that its Horner evaluation starts with t + k5 (no splatted addend),
    and K = 1/c6 (a float) multiplies every value, which softmax's normalisation cancels.

    The degree-6 relative minimax with c0 = c1 = 1 gives c6; K = float(1/c6); c2..c5 are refitted
    with c6 = 1/K held, scaled by K, rounded to float and polished (coordinate descent, as
    exp_minimax_f32) on the error of the float coefficients. Returns (K, {power: k}, max rel error).
    """
    c, _ = remez(lambda t: math.exp(t) - 1 - t, lambda t: math.exp(-t), [2, 3, 4, 5, 6], lo, hi)
    k_scale = f32(1 / c[4])
    c6 = 1 / k_scale
    c, _ = remez(lambda t: math.exp(t) - 1 - t - c6 * t ** 6, lambda t: math.exp(-t), [2, 3, 4, 5], lo, hi)
    ks = {p: f32(k_scale * v) for p, v in zip([2, 3, 4, 5], c)}
    grid = [lo + (hi - lo) * (1 - math.cos(math.pi * i / 3000)) / 2 for i in range(3001)]

    def max_err(k, ts):
        return max(abs((((((((t + k[5]) * t + k[4]) * t + k[3]) * t + k[2]) * t + k_scale) * t + k_scale)
                        / k_scale) * math.exp(-t) - 1) for t in ts)
    ks = polish_f32(ks, (2, 3, 4, 5), lambda k: max_err(k, grid))
    return k_scale, ks, max_err(ks, [lo + (hi - lo) * i / 20000 for i in range(20001)])


def print_poly(name, coeffs, err, lo, hi):
    print(f'{name}: relative minimax on [{lo:.9g}, {hi:.9g}], max rel error {err:.3e} '
          f'(= 2^{math.log2(err):.2f})')
    for p in sorted(coeffs):
        v = coeffs[p]
        print(f'  c{p} = {v!r:>24}f  // {f32_hex(v)}')


def split_ln2(bits):
    """ln2 = hi + lo with hi holding `bits` significant bits (so n*hi is exact for small n)."""
    ln2 = math.log(2)
    e = math.floor(math.log2(ln2))
    q = 2.0 ** (e - bits + 1)
    hi = math.floor(ln2 / q + 0.5) * q
    lo = f32(ln2 - hi)
    return hi, lo


def main():
    ln2 = math.log(2)
    log2e = 1 / ln2
    print('# vlak f32 exp family: constants (tools/remez/exp_coeffs.py)')
    print(f'log2(e) as float: {f32(log2e)!r}f  // {f32_hex(f32(log2e))}')
    print()

    # ---- reduction constants
    hi, lo = split_ln2(16)
    print(f'rr2 (accurate, precise): ln2_hi = {hi!r}f ({f32_hex(hi)}, 16 bits: n*ln2_hi exact for |n| < 256),'
          f' ln2_lo = {lo!r}f ({f32_hex(lo)})')
    print('cephes: C1 = 0.693359375f (9 bits), C2 = -2.12194440e-4f (the Cephes pair)')
    print()

    # ---- accurate: t in [-ln2/2, ln2] (n is clamped at 127, see exp_accurate.h); slop covers
    # the rounding of x*log2e in the reduction.
    slop = 2.0 ** -14
    lo_a, hi_a = -ln2 / 2 - slop, ln2 + slop
    coeffs, err, err_d = exp_minimax_f32({0: 1.0, 1: 1.0}, [2, 3, 4, 5, 6], lo_a, hi_a)
    print_poly('accurate  e^t ~ 1 + t + c2 t^2 + ... + c6 t^6', coeffs, err, lo_a, hi_a)
    print()

    # ---- precise: t in [-ln2/2, ln2/2] plus slop; degree 6.
    lo_p, hi_p = -ln2 / 2 - slop, ln2 / 2 + slop
    coeffs, err, err_d = exp_minimax_f32({0: 1.0, 1: 1.0}, [2, 3, 4, 5, 6], lo_p, hi_p)
    print_poly('precise   e^t ~ 1 + t + c2 t^2 + ... + c6 t^6', coeffs, err, lo_p, hi_p)
    print()

    # ---- softmax (exp_softmax.h): x - max <= 0, so n <= 0 and t stays in [-ln2/2, ln2/2] (+ slop).
    k_scale, ks, err = softmax_scaled(lo_p, hi_p)
    print(f'softmax   K e^t ~ ((((((t + k5) t + k4) t + k3) t + k2) t + K) t + K), relative minimax on '
          f'[{lo_p:.9g}, {hi_p:.9g}], max rel error {err:.3e} (= 2^{math.log2(err):.2f})')
    print(f'  K = {k_scale!r}f  // {f32_hex(k_scale)}')
    for p in sorted(ks, reverse=True):
        print(f'  k{p} = {ks[p]!r:>24}f  // {f32_hex(ks[p])}')
    print()

    # ---- Schraudolph: bits = 2^23 * (x*log2e + 127) - C. With y = x*log2e - C/2^23 the result
    # is 2^floor(y) * (1 + frac(y)), whose ratio to 2^(x log2e) is (1 + f) 2^-f 2^(-C/2^23).
    # Relative error r(f, C) = (1 + f) 2^(-f - C/2^23) - 1 over f in [0, 1).
    fs = [i / 200000 for i in range(200001)]
    g = [math.log2(1 + f) - f for f in fs]  # log2 of the ratio before the shift, in [0, 0.0861]
    gmax, gmin = max(g), min(g)
    # minimax relative error: choose the shift k = C/2^23 so that 2^(gmax-k) - 1 = 1 - 2^(gmin-k)
    k = math.log2((2 ** gmax + 2 ** gmin) / 2)
    c_minimax = round(k * 2 ** 23)
    rel_minimax = max(abs(2 ** (v - c_minimax / 2 ** 23) - 1) for v in g)
    # RMS-optimal (Schraudolph 1999 minimised RMS relative error): mean of r^2 over f uniform.
    best = None
    for c in range(c_minimax - 200000, c_minimax + 200001, 1000):
        rms = math.sqrt(sum((2 ** (v - c / 2 ** 23) - 1) ** 2 for v in g[::50]) / len(g[::50]))
        if best is None or rms < best[1]:
            best = (c, rms)
    c_rms = best[0]
    rel_rms_max = max(abs(2 ** (v - c_rms / 2 ** 23) - 1) for v in g)
    print(f'schraudolph: bits = int(x * 2^23/ln2 + (127 * 2^23 - C))')
    print(f'  C (minimax relative error) = {c_minimax}, max rel error {rel_minimax:.4e}  <- used')
    print(f'  C (RMS-optimal, Schraudolph 1999) ~ {c_rms}, max rel error {rel_rms_max:.4e}')
    a = f32(2 ** 23 / ln2)
    b = f32(127 * 2 ** 23 - c_minimax)
    print(f'  a = {a!r}f ({f32_hex(a)}), b = {b!r}f ({f32_hex(b)}; exact {127 * 2**23 - c_minimax})')
    print()

    # ---- bittrick: delta(f) = f + 1 - 2^f, approximated by f*(s1 + s2 f + ...), so that
    # 2^f ~ 1 + f - delta(f). Hermite conditions at f = 0 and f = 1:
    #   delta(0) = 0 (no constant term), delta(1) = 0,
    #   delta'(f) = 1 - ln2 2^f:   delta'(0) = 1 - ln2,     delta'(1) = 1 - 2 ln2,
    #   delta''(f) = -ln2^2 2^f:   delta''(0) = -ln2^2,     delta''(1) = -2 ln2^2.
    # Degree 3 (s1..s3): s1 = delta'(0) = 1 - ln2, and at f = 1
    #   s1 +   s2 +   s3 = 0           (value)
    #   s1 + 2 s2 + 3 s3 = 1 - 2 ln2   (slope)
    # Subtracting: s2 + 2 s3 = 1 - 2 ln2, and s2 + s3 = ln2 - 1, so
    #   s3 = 2 - 3 ln2,  s2 = 4 ln2 - 3.
    s3 = [1 - ln2, 4 * ln2 - 3, 2 - 3 * ln2]
    chk = solve([[1, 1], [2, 3]], [-s3[0], (1 - 2 * ln2) - s3[0]])
    assert abs(chk[0] - s3[1]) < 1e-15 and abs(chk[1] - s3[2]) < 1e-15
    print('bittrick p3: delta(f) = f (s1 + s2 f + s3 f^2), Hermite cubic:')
    print(f'  s1 = 1 - ln2 = {s3[0]!r}, s2 = 4 ln2 - 3 = {s3[1]!r}, s3 = 2 - 3 ln2 = {s3[2]!r}')
    r3 = [1.0, 1 - s3[0], -s3[1], -s3[2]]
    print('  as 2^f ~ r0 + r1 f + r2 f^2 + r3 f^3 (float32):',
          ', '.join(f'r{i} = {f32(v)!r}f' for i, v in enumerate(r3)))
    err3 = max(abs(sum(r * f ** i for i, r in enumerate(r3)) / 2 ** f - 1) for f in fs[::10])
    print(f'  max rel error of 2^f on [0, 1]: {err3:.4e}')
    # Degree 5 (s1..s5): s1 = 1 - ln2, s2 = delta''(0)/2 = -ln2^2/2, and three equations at f = 1.
    s1, s2 = 1 - ln2, -ln2 ** 2 / 2
    # s3 + s4 + s5 = -(s1 + s2)
    # 3 s3 + 4 s4 + 5 s5 = (1 - 2 ln2) - s1 - 2 s2
    # 6 s3 + 12 s4 + 20 s5 = -2 ln2^2 - 2 s2
    s345 = solve([[1, 1, 1], [3, 4, 5], [6, 12, 20]],
                 [-(s1 + s2), (1 - 2 * ln2) - s1 - 2 * s2, -2 * ln2 ** 2 - 2 * s2])
    s5d = [s1, s2] + s345
    seed = [3.06852819440055e-1, -2.40226506959101e-1, -5.57129652016652e-2,
            -9.01146535969578e-3, -1.90188191959304e-3]
    print('bittrick p5: delta(f) = f (s1 + ... + s5 f^4), Hermite quintic (RISC-V hackathon softmax, Perini 2018):')
    for i, (d, s) in enumerate(zip(s5d, seed)):
        print(f'  s{i + 1}: derived {d!r:>24}  seed {s!r:>24}  diff {d - s:.1e}')
    r5 = [1.0, 1 - seed[0]] + [-s for s in seed[1:]]
    print('  as 2^f ~ r0 + ... + r5 f^5 (float32, from the hackathon values):',
          ', '.join(f'r{i} = {f32(v)!r}f' for i, v in enumerate(r5)))
    err5 = max(abs(sum(r * f ** i for i, r in enumerate(r5)) / 2 ** f - 1) for f in fs[::10])
    print(f'  max rel error of 2^f on [0, 1]: {err5:.4e}')

    # The kernels evaluate these polynomials at g = f - 1/2 (exp_bittrick_p*.h gets g straight
    # from the magic-number rounding, without a Floor); the same polynomial, re-expanded:
    #   R(g + 1/2) = sum_j g^j sum_{i >= j} r_i C(i, j) 2^-(i - j).
    for name, r in (('p3', r3), ('p5', r5)):
        rc = [sum(r[i] * math.comb(i, j) * 0.5 ** (i - j) for i in range(j, len(r))) for j in range(len(r))]
        errc = max(abs(sum(f32(c) * (f - 0.5) ** j for j, c in enumerate(rc)) / 2 ** f - 1) for f in fs[::10])
        print(f'bittrick {name} re-expanded at f = 1/2 (float32), max rel error {errc:.4e}:')
        for j, c in enumerate(rc):
            print(f'  q{j} = {f32(c)!r:>24}f  // {f32_hex(f32(c))}')


if __name__ == '__main__':
    main()
