"""Writes tests/data/special_mpmath.tsv: the float64 truth (mpmath at 40 digits, rounded once)
of `tf.math.special`'s Bessel J, Y, K, dawsn, expint, Fresnel and spence functions on seeded
grids that reach their asymptotic regimes, which src/tensor/special/accuracy.rs compares
DGL's kernels against. Run with any Python that has mpmath and NumPy:
`python tools/gen_special_mpmath.py` from the repository root."""
import mpmath as mp
import numpy as np

mp.mp.dps = 40
rng = np.random.default_rng(2121)
N = 300


def logu(lo, hi, n):
    return np.exp(rng.uniform(np.log(lo), np.log(hi), n))


def k_scaled(nu):
    return lambda x: mp.besselk(nu, x) * mp.exp(x)


FUNCTIONS = {
    "bessel_j0": (lambda x: mp.besselj(0, x), lambda: np.concatenate([rng.uniform(0, 40, N // 2), logu(1e-6, 1e12, N // 2)])),
    "bessel_j1": (lambda x: mp.besselj(1, x), lambda: np.concatenate([rng.uniform(-40, 40, N // 2), logu(1e-6, 1e12, N // 2)])),
    "bessel_y0": (lambda x: mp.bessely(0, x), lambda: np.concatenate([rng.uniform(0, 40, N // 2), logu(1e-300, 1e12, N // 2)])),
    "bessel_y1": (lambda x: mp.bessely(1, x), lambda: np.concatenate([rng.uniform(0, 40, N // 2), logu(1e-300, 1e12, N // 2)])),
    "bessel_k0": (lambda x: mp.besselk(0, x), lambda: np.concatenate([rng.uniform(0, 40, N // 2), logu(1e-300, 740, N // 2)])),
    "bessel_k0e": (k_scaled(0), lambda: np.concatenate([rng.uniform(0, 40, N // 2), logu(1e-300, 1e12, N // 2)])),
    "bessel_k1": (lambda x: mp.besselk(1, x), lambda: np.concatenate([rng.uniform(0, 40, N // 2), logu(1e-300, 740, N // 2)])),
    "bessel_k1e": (k_scaled(1), lambda: np.concatenate([rng.uniform(0, 40, N // 2), logu(1e-300, 1e12, N // 2)])),
    "dawsn": (lambda x: mp.sqrt(mp.pi) / 2 * mp.exp(-x * x) * mp.erfi(x),
              lambda: np.concatenate([rng.uniform(-12, 12, N // 2), logu(1e-300, 1e300, N // 2)])),
    "expint": (mp.ei, lambda: np.concatenate([rng.uniform(0, 60, N // 2), logu(1e-300, 716, N // 3), rng.uniform(0.3, 0.45, N // 6)])),
    "fresnel_cos": (mp.fresnelc, lambda: np.concatenate([rng.uniform(-6, 6, N // 2), logu(1e-300, 1e8, N // 2)])),
    "fresnel_sin": (mp.fresnels, lambda: np.concatenate([rng.uniform(-6, 6, N // 2), logu(1e-100, 1e8, N // 2)])),
    "spence": (lambda x: mp.polylog(2, 1 - x), lambda: np.concatenate([rng.uniform(0, 4, N // 2), logu(1e-300, 1e300, N // 2)])),
}

with open("tests/data/special_mpmath.tsv", "w") as out:
    out.write("# function\tx\tfloat64 truth (tools/gen_special_mpmath.py)\n")
    for name, (f, grid) in FUNCTIONS.items():
        for x in grid():
            x = float(x)
            out.write(f"{name}\t{x!r}\t{float(f(mp.mpf(x)))!r}\n")
