"""The Schur decomposition of one square matrix in NumPy: the eager impl of ``schur``.

NumPy has no Schur routine (LAPACK's ``gees``, which JAX calls and mj's lowering calls too), so
this follows LAPACK's own steps on one matrix, in the matrix's own precision:

* ``gehrd``/``orghr``: Householder reduction to upper Hessenberg form ``H = Q^H A Q``, each
  reflector as ``larfg`` makes it;
* real matrices: ``lahqr``'s double-shift (Francis) QR sweeps, its deflation test, its
  shifts (one real shift used twice when both are real, the exceptional shifts every tenth
  step) and its standardisation of each 2x2 block (``lanv2``: a complex pair as a block with
  equal diagonal entries, a real pair split into a triangle), so the quasi-triangular ``T``
  has LAPACK's kind of blocks (often its eigenvalue order, not always its signs: a Schur
  form is unique only up to a phase per Schur vector and the order of the eigenvalues);
* complex matrices: single-shift QR sweeps with Wilkinson's shift, with Givens rotations,
  to a triangular ``T``.

A matrix with a NaN or an infinity, or one where the iteration does not converge, gives
NaNs, as LAPACK's failure does under ``jit``.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

__all__ = ["schur_2d"]

_EXCEPTIONAL = 10  # lahqr's KEXSH: an exceptional shift after this many steps without deflation


def _larfg(alpha: Any, x: Any) -> tuple[Any, Any, Any]:
    """``(beta, v, tau)``: the reflector ``H = I - tau v v^H`` (``v[0] = 1``) with
    ``H^H [alpha; x] = [beta; 0]``, ``beta`` real, as LAPACK's ``larfg``."""
    xnorm = float(np.linalg.norm(x)) if x.size else 0.0
    alphr, alphi = float(np.real(alpha)), float(np.imag(alpha))
    v = np.concatenate([np.ones(1, x.dtype), x])
    if xnorm == 0.0 and alphi == 0.0:
        return alpha, v, 0.0
    beta = -math.copysign(math.sqrt(alphr * alphr + alphi * alphi + xnorm * xnorm), alphr)
    tau: Any = (beta - alphr) / beta
    if not np.isrealobj(x):
        tau = complex(tau, -alphi / beta)
    v[1:] = x / (alpha - beta)
    return beta, v, tau


def _hessenberg(a: Any) -> tuple[Any, Any]:
    """``(h, q)`` with ``h = q^H a q`` upper Hessenberg (LAPACK's ``gehrd`` and ``orghr``)."""
    n = a.shape[0]
    h = np.array(a)
    q = np.eye(n, dtype=a.dtype)
    for i in range(n - 1):  # the last one makes a complex h[n-1, n-2] real, as gehd2 does
        beta, v, tau = _larfg(h[i + 1, i], h[i + 2 :, i])
        if tau == 0:
            continue
        h[i + 1, i] = beta
        h[i + 2 :, i] = 0
        # h <- H^H h H on the trailing block (the column i is done above)
        h[:, i + 1 :] -= tau * np.outer(h[:, i + 1 :] @ v, np.conj(v))
        h[i + 1 :, i + 1 :] -= np.conj(tau) * np.outer(v, np.conj(v) @ h[i + 1 :, i + 1 :])
        q[:, i + 1 :] -= tau * np.outer(q[:, i + 1 :] @ v, np.conj(v))
    return h, q


def _lanv2(
    a: float, b: float, c: float, d: float, eps: float
) -> tuple[float, float, float, float, float, float]:
    """LAPACK's ``lanv2``: ``(a, b, c, d, cs, sn)``, the standardised 2x2 block
    ``[[a, b], [c, d]] = R^T B R`` with ``R = [[cs, -sn], [sn, cs]]``: upper triangular when the
    eigenvalues are real, else with ``a == d`` and ``b c < 0``."""
    if c == 0:
        return a, b, c, d, 1.0, 0.0
    if b == 0:  # swap rows and columns
        return d, -c, 0.0, a, 0.0, 1.0
    if a - d == 0 and math.copysign(1.0, b) != math.copysign(1.0, c):
        return a, b, c, d, 1.0, 0.0
    temp = a - d
    p = 0.5 * temp
    bcmax = max(abs(b), abs(c))
    bcmis = min(abs(b), abs(c)) * math.copysign(1.0, b) * math.copysign(1.0, c)
    scale = max(abs(p), bcmax)
    z = p / scale * p + bcmax / scale * bcmis
    if z >= 4.0 * eps:  # real eigenvalues: the triangle
        z = p + math.copysign(math.sqrt(scale) * math.sqrt(z), p)
        a = d + z
        d = d - bcmax / z * bcmis
        tau = math.hypot(c, z)
        return a, b - c, 0.0, d, z / tau, c / tau
    # complex or nearly equal real eigenvalues: make the diagonal entries equal
    sigma = b + c
    tau = math.hypot(sigma, temp)
    cs = math.sqrt(0.5 * (1.0 + abs(sigma) / tau))
    sn = -(p / (tau * cs)) * math.copysign(1.0, sigma)
    aa, bb = a * cs + b * sn, -a * sn + b * cs
    cc, dd = c * cs + d * sn, -c * sn + d * cs
    a, b = aa * cs + cc * sn, bb * cs + dd * sn
    c, d = -aa * sn + cc * cs, -bb * sn + dd * cs
    temp = 0.5 * (a + d)
    a = d = temp
    if c != 0:
        if b != 0:
            if math.copysign(1.0, b) == math.copysign(1.0, c):  # real after all: the triangle
                sab, sac = math.sqrt(abs(b)), math.sqrt(abs(c))
                p = math.copysign(sab * sac, c)
                tau = 1.0 / math.sqrt(abs(b + c))
                a, d = temp + p, temp - p
                b, c = b - c, 0.0
                cs1, sn1 = sab * tau, sac * tau
                cs, sn = cs * cs1 - sn * sn1, cs * sn1 + sn * cs1
        else:
            b, c = -c, 0.0
            cs, sn = -sn, cs
    return a, b, c, d, cs, sn


def _small_subdiagonal(h: Any, l_: int, i: int, ulp: float, smlnum: float) -> int:
    """``lahqr``'s deflation test: the largest ``k`` in ``(l_, i]`` whose ``h[k, k-1]`` is
    negligible, else ``l_``."""
    n = h.shape[0]
    for k in range(i, l_, -1):
        sub = abs(h[k, k - 1])
        if sub <= smlnum:
            return k
        tst = abs(h[k - 1, k - 1]) + abs(h[k, k])
        if tst == 0:
            if k - 2 >= 0:
                tst += abs(h[k - 1, k - 2])
            if k + 1 <= n - 1:
                tst += abs(h[k + 1, k])
        if sub <= ulp * tst:
            ab, ba = max(sub, abs(h[k - 1, k])), min(sub, abs(h[k - 1, k]))
            diff = abs(h[k - 1, k - 1] - h[k, k])
            aa, bb = max(abs(h[k, k]), diff), min(abs(h[k, k]), diff)
            s = aa + ab
            if ba * (ab / s) <= max(smlnum, ulp * (bb * (aa / s))):
                return k
    return l_


def _shifts(h: Any, l_: int, i: int, kdefl: int) -> tuple[float, float, float, float]:
    """``lahqr``'s two shifts ``(rt1r, rt1i, rt2r, rt2i)`` for the block ``l_..i``."""
    if kdefl % (2 * _EXCEPTIONAL) == 0:
        s = abs(h[i, i - 1]) + abs(h[i - 1, i - 2])
        h11, h12, h21 = 0.75 * s + h[i, i], -0.4375 * s, s
        h22 = h11
    elif kdefl % _EXCEPTIONAL == 0:
        s = abs(h[l_ + 1, l_]) + abs(h[l_ + 2, l_ + 1])
        h11, h12, h21 = 0.75 * s + h[l_, l_], -0.4375 * s, s
        h22 = h11
    else:
        h11, h21, h12, h22 = h[i - 1, i - 1], h[i, i - 1], h[i - 1, i], h[i, i]
    s = abs(h11) + abs(h12) + abs(h21) + abs(h22)
    if s == 0:
        return 0.0, 0.0, 0.0, 0.0
    h11, h21, h12, h22 = h11 / s, h21 / s, h12 / s, h22 / s
    tr = (h11 + h22) / 2
    det = (h11 - tr) * (h22 - tr) - h12 * h21
    rtdisc = math.sqrt(abs(det))
    if det >= 0:  # a complex conjugate pair
        return tr * s, rtdisc * s, tr * s, -rtdisc * s
    rt1r, rt2r = tr + rtdisc, tr - rtdisc  # real: the one nearer h22, twice
    rt = rt1r if abs(rt1r - h22) <= abs(rt2r - h22) else rt2r
    return rt * s, 0.0, rt * s, 0.0


def _real_schur(h: Any, z: Any) -> bool:
    """``lahqr`` with ``wantt`` and ``wantz``: ``h`` (Hessenberg) becomes quasi-triangular in
    place and ``z`` gathers the rotations; False if the iteration did not converge."""
    n = h.shape[0]
    h[np.tril_indices(n, -2)] = 0
    ulp = float(np.finfo(h.dtype).eps)
    smlnum = float(np.finfo(h.dtype).tiny) * (n / ulp)
    itmax = 30 * max(10, n)
    kdefl = 0
    i = n - 1
    while i >= 0:
        l_ = 0
        for _ in range(itmax + 1):
            l_ = _small_subdiagonal(h, l_, i, ulp, smlnum)
            if l_ > 0:
                h[l_, l_ - 1] = 0
            if l_ >= i - 1:
                break
            kdefl += 1
            rt1r, rt1i, rt2r, rt2i = _shifts(h, l_, i, kdefl)
            m = i - 2  # look for two consecutive small subdiagonals
            while True:
                s = abs(h[m, m] - rt2r) + abs(rt2i) + abs(h[m + 1, m])
                h21s = h[m + 1, m] / s
                v = np.array(
                    [
                        h21s * h[m, m + 1]
                        + (h[m, m] - rt1r) * ((h[m, m] - rt2r) / s)
                        - rt1i * (rt2i / s),
                        h21s * (h[m, m] + h[m + 1, m + 1] - rt1r - rt2r),
                        h21s * h[m + 2, m + 1],
                    ]
                )
                v = v / np.sum(np.abs(v))
                if m == l_:
                    break
                h00 = abs(h[m, m - 1]) * (abs(v[1]) + abs(v[2]))
                h01 = abs(v[0]) * (abs(h[m - 1, m - 1]) + abs(h[m, m]) + abs(h[m + 1, m + 1]))
                if h00 <= ulp * h01:
                    break
                m -= 1
            for k in range(m, i):  # the double-shift sweep, chasing the bulge down
                nr = min(3, i - k + 1)
                if k > m:
                    v = np.array(h[k : k + nr, k - 1])
                beta, w, t1 = _larfg(v[0], v[1:nr])
                if k > m:
                    h[k, k - 1] = beta
                    h[k + 1 : k + nr, k - 1] = 0
                elif m > l_:
                    h[k, k - 1] *= 1 - t1
                h[k : k + nr, k:] -= t1 * np.outer(w, w @ h[k : k + nr, k:])
                r = min(k + 3, i) + 1
                h[:r, k : k + nr] -= t1 * np.outer(h[:r, k : k + nr] @ w, w)
                z[:, k : k + nr] -= t1 * np.outer(z[:, k : k + nr] @ w, w)
        else:
            return False
        if l_ == i - 1:  # a 2x2 block: standardise it
            a, b, c, d, cs, sn = _lanv2(
                float(h[i - 1, i - 1]), float(h[i - 1, i]), float(h[i, i - 1]), float(h[i, i]), ulp
            )
            h[i - 1 : i + 1, i - 1 : i + 1] = [[a, b], [c, d]]
            rot = np.array([[cs, -sn], [sn, cs]])
            h[i - 1 : i + 1, i + 1 :] = rot.T @ h[i - 1 : i + 1, i + 1 :]
            h[: i - 1, i - 1 : i + 1] = h[: i - 1, i - 1 : i + 1] @ rot
            z[:, i - 1 : i + 1] = z[:, i - 1 : i + 1] @ rot
        kdefl = 0
        i = l_ - 1
    return True


def _complex_schur(h: Any, z: Any) -> bool:
    """Single-shift QR sweeps (Wilkinson's shift, Givens rotations) turning the complex
    Hessenberg ``h`` triangular in place, ``z`` gathering the rotations; False if the
    iteration did not converge."""
    n = h.shape[0]
    ulp = float(np.finfo(h.dtype).eps)
    smlnum = float(np.finfo(h.dtype).tiny) * (n / ulp)
    i = n - 1
    its = 0
    while i > 0:
        l_ = i
        while l_ > 0:
            sub = abs(h[l_, l_ - 1])
            if sub <= smlnum or sub <= ulp * (abs(h[l_ - 1, l_ - 1]) + abs(h[l_, l_])):
                h[l_, l_ - 1] = 0
                break
            l_ -= 1
        if l_ == i:
            i -= 1
            its = 0
            continue
        its += 1
        if its > 30 * max(10, n):
            return False
        a, b, c, d = h[i - 1, i - 1], h[i - 1, i], h[i, i - 1], h[i, i]
        if its % _EXCEPTIONAL == 0:  # an exceptional shift
            mu = d + abs(c)
        else:  # Wilkinson's: the eigenvalue of the trailing 2x2 nearer d
            half = (a - d) / 2
            root = np.sqrt(half * half + b * c)
            den = half + root if abs(half + root) >= abs(half - root) else half - root
            mu = d - b * c / den if den != 0 else d
        x, y = h[l_, l_] - mu, h[l_ + 1, l_]
        for k in range(l_, i):
            nrm = math.hypot(abs(x), abs(y))
            if nrm == 0:
                cs, sn = 1.0, 0j
            elif x == 0:
                cs, sn = 0.0, np.conj(y) / abs(y)
            else:
                cs, sn = abs(x) / nrm, (x / abs(x)) * np.conj(y) / nrm
            g = np.array([[cs, sn], [-np.conj(sn), cs]])
            col = max(l_, k - 1)
            h[k : k + 2, col:] = g @ h[k : k + 2, col:]
            if k > l_:
                h[k + 1, k - 1] = 0  # the bulge, chased down
            r = min(k + 2, i) + 1
            gh = np.conj(g.T)
            h[:r, k : k + 2] = h[:r, k : k + 2] @ gh
            z[:, k : k + 2] = z[:, k : k + 2] @ gh
            if k < i - 1:
                x, y = h[k + 1, k], h[k + 2, k]
    return True


def schur_2d(a: Any) -> tuple[Any, Any]:
    """``(t, z)`` with ``a = z t z^H``, ``z`` unitary, ``t`` quasi-triangular (real ``a``) or
    triangular (complex ``a``), in ``a``'s dtype;
    NaNs where ``a`` is not finite or the iteration fails."""
    dtype = a.dtype
    work = np.asarray(a)
    ok = bool(np.isfinite(work).all())
    if ok:
        h, z = _hessenberg(work)
        ok = _complex_schur(h, z) if dtype.kind == "c" else _real_schur(h, z)
    if not ok:
        nan = np.full(a.shape, np.nan, dtype)
        return nan, nan.copy()
    return np.asarray(h, dtype), np.asarray(z, dtype)
