"""Port of Rust's core::num::flt2dec shortest mode (Grisu3 with Dragon4 fallback), so that
the digits (including the tie-breaking of equally close candidates) match Rust's `{}`/`{:e}`
for f32/f64 exactly. Source: rust-lang/rust library/core/src/num/flt2dec/{decoder.rs,
strategy/grisu.rs, strategy/dragon.rs, estimator.rs} (MIT/Apache-2.0)."""
import struct

M64 = (1 << 64) - 1
ALPHA, GAMMA = -60, -32
CACHED_POW10 = [
    (0xe61acf033d1a45df, -1087, -308), (0xab70fe17c79ac6ca, -1060, -300), (0xff77b1fcbebcdc4f, -1034, -292),
    (0xbe5691ef416bd60c, -1007, -284), (0x8dd01fad907ffc3c, -980, -276), (0xd3515c2831559a83, -954, -268),
    (0x9d71ac8fada6c9b5, -927, -260), (0xea9c227723ee8bcb, -901, -252), (0xaecc49914078536d, -874, -244),
    (0x823c12795db6ce57, -847, -236), (0xc21094364dfb5637, -821, -228), (0x9096ea6f3848984f, -794, -220),
    (0xd77485cb25823ac7, -768, -212), (0xa086cfcd97bf97f4, -741, -204), (0xef340a98172aace5, -715, -196),
    (0xb23867fb2a35b28e, -688, -188), (0x84c8d4dfd2c63f3b, -661, -180), (0xc5dd44271ad3cdba, -635, -172),
    (0x936b9fcebb25c996, -608, -164), (0xdbac6c247d62a584, -582, -156), (0xa3ab66580d5fdaf6, -555, -148),
    (0xf3e2f893dec3f126, -529, -140), (0xb5b5ada8aaff80b8, -502, -132), (0x87625f056c7c4a8b, -475, -124),
    (0xc9bcff6034c13053, -449, -116), (0x964e858c91ba2655, -422, -108), (0xdff9772470297ebd, -396, -100),
    (0xa6dfbd9fb8e5b88f, -369, -92), (0xf8a95fcf88747d94, -343, -84), (0xb94470938fa89bcf, -316, -76),
    (0x8a08f0f8bf0f156b, -289, -68), (0xcdb02555653131b6, -263, -60), (0x993fe2c6d07b7fac, -236, -52),
    (0xe45c10c42a2b3b06, -210, -44), (0xaa242499697392d3, -183, -36), (0xfd87b5f28300ca0e, -157, -28),
    (0xbce5086492111aeb, -130, -20), (0x8cbccc096f5088cc, -103, -12), (0xd1b71758e219652c, -77, -4),
    (0x9c40000000000000, -50, 4), (0xe8d4a51000000000, -24, 12), (0xad78ebc5ac620000, 3, 20),
    (0x813f3978f8940984, 30, 28), (0xc097ce7bc90715b3, 56, 36), (0x8f7e32ce7bea5c70, 83, 44),
    (0xd5d238a4abe98068, 109, 52), (0x9f4f2726179a2245, 136, 60), (0xed63a231d4c4fb27, 162, 68),
    (0xb0de65388cc8ada8, 189, 76), (0x83c7088e1aab65db, 216, 84), (0xc45d1df942711d9a, 242, 92),
    (0x924d692ca61be758, 269, 100), (0xda01ee641a708dea, 295, 108), (0xa26da3999aef774a, 322, 116),
    (0xf209787bb47d6b85, 348, 124), (0xb454e4a179dd1877, 375, 132), (0x865b86925b9bc5c2, 402, 140),
    (0xc83553c5c8965d3d, 428, 148), (0x952ab45cfa97a0b3, 455, 156), (0xde469fbd99a05fe3, 481, 164),
    (0xa59bc234db398c25, 508, 172), (0xf6c69a72a3989f5c, 534, 180), (0xb7dcbf5354e9bece, 561, 188),
    (0x88fcf317f22241e2, 588, 196), (0xcc20ce9bd35c78a5, 614, 204), (0x98165af37b2153df, 641, 212),
    (0xe2a0b5dc971f303a, 667, 220), (0xa8d9d1535ce3b396, 694, 228), (0xfb9b7cd9a4a7443c, 720, 236),
    (0xbb764c4ca7a44410, 747, 244), (0x8bab8eefb6409c1a, 774, 252), (0xd01fef10a657842c, 800, 260),
    (0x9b10a4e5e9913129, 827, 268), (0xe7109bfba19c0c9d, 853, 276), (0xac2820d9623bf429, 880, 284),
    (0x80444b5e7aa7cf85, 907, 292), (0xbf21e44003acdd2d, 933, 300), (0x8e679c2f5e44ff8f, 960, 308),
    (0xd433179d9c8cb841, 986, 316), (0x9e19db92b4e31ba9, 1013, 324), (0xeb96bf6ebadf77d9, 1039, 332),
]
FIRST_E, LAST_E = -1087, 1039


def decode(x, bits):
    """(mant, minus, plus, exp, inclusive) for finite non-zero |x|, bits = 32 or 64."""
    if bits == 64:
        b = struct.unpack("<Q", struct.pack("<d", abs(x)))[0]
        ef, frac, fb, bias = (b >> 52) & 0x7FF, b & ((1 << 52) - 1), 52, 1023
    else:
        b = struct.unpack("<I", struct.pack("<f", abs(x)))[0]
        ef, frac, fb, bias = (b >> 23) & 0xFF, b & ((1 << 23) - 1), 23, 127
    if ef == 0:
        mant, exp = frac << 1, -(bias + fb)
    else:
        mant, exp = frac | (1 << fb), ef - (bias + fb)
    even = (mant & 1) == 0
    if ef == 0:
        return mant, 1, 1, exp, even
    if mant == (1 << fb):
        return mant << 2, 1, 2, exp - 2, even
    return mant << 1, 1, 1, exp - 1, even


def _normalize(f, e):
    while f < (1 << 63):
        f <<= 1
        e -= 1
    return f, e


def _mul(a, b):
    af, ae = a
    bf, be = b
    A, B = af >> 32, af & 0xFFFFFFFF
    C, D = bf >> 32, bf & 0xFFFFFFFF
    ac, bc, ad, bd = A * C, B * C, A * D, B * D
    tmp = (bd >> 32) + (ad & 0xFFFFFFFF) + (bc & 0xFFFFFFFF) + (1 << 31)
    return (ac + (ad >> 32) + (bc >> 32) + (tmp >> 32)) & M64, ae + be + 64


def _cached_power(alpha, gamma):
    rng = len(CACHED_POW10) - 1
    dom = LAST_E - FIRST_E
    idx = int((gamma - FIRST_E) * rng / dom) if (gamma - FIRST_E) >= 0 else -((-(gamma - FIRST_E) * rng) // dom)
    # Rust integer division truncates toward zero
    idx = (gamma - FIRST_E) * rng
    idx = idx // dom if idx >= 0 else -((-idx) // dom)
    f, e, k = CACHED_POW10[idx]
    return k, (f, e)


def _max_pow10(x):
    k, t = 0, 1
    while t * 10 <= x and k < 9:
        t *= 10
        k += 1
    return k, t


def grisu_shortest(mant, minus, plus, exp):
    pf, pe = _normalize(mant + plus, exp)
    mf = (mant - minus) << (exp - pe)
    vf = mant << (exp - pe)
    minusk, cached = _cached_power(ALPHA - pe - 64, GAMMA - pe - 64)
    pf, e_ = _mul((pf, pe), cached)
    mf, _ = _mul((mf, pe), cached)
    vf, _ = _mul((vf, pe), cached)
    plus1 = pf + 1
    minus1 = mf - 1
    e = -e_
    plus1int = plus1 >> e
    plus1frac = plus1 & ((1 << e) - 1)
    max_kappa, max_ten_kappa = _max_pow10(plus1int)
    buf = []
    exp10 = max_kappa - minusk + 1
    delta1 = plus1 - minus1
    delta1frac = delta1 & ((1 << e) - 1)
    kappa, ten_kappa, remainder = max_kappa, max_ten_kappa, plus1int
    while True:
        q, r = divmod(remainder, ten_kappa)
        buf.append(q)
        plus1rem = (r << e) + plus1frac
        if plus1rem < delta1:
            return _round_and_weed(buf, exp10, plus1rem, delta1, plus1 - vf, ten_kappa << e, 1)
        if len(buf) > max_kappa:
            break
        kappa -= 1
        ten_kappa //= 10
        remainder = r
    remainder, threshold, ulp = plus1frac, delta1frac, 1
    while True:
        remainder *= 10
        threshold *= 10
        ulp *= 10
        q = remainder >> e
        r = remainder & ((1 << e) - 1)
        buf.append(q)
        if r < threshold:
            return _round_and_weed(buf, exp10, r, threshold, (plus1 - vf) * ulp, 1 << e, ulp)
        remainder = r


def _round_and_weed(buf, exp10, remainder, threshold, plus1v, ten_kappa, ulp):
    plus1v_down = plus1v + ulp
    plus1v_up = plus1v - ulp
    plus1w = remainder
    while (plus1w < plus1v_up and threshold - plus1w >= ten_kappa
           and (plus1w + ten_kappa < plus1v_up or plus1v_up - plus1w >= plus1w + ten_kappa - plus1v_up)):
        buf[-1] -= 1
        plus1w += ten_kappa
    if (plus1w < plus1v_down and threshold - plus1w >= ten_kappa
            and (plus1w + ten_kappa < plus1v_down or plus1v_down - plus1w >= plus1w + ten_kappa - plus1v_down)):
        return None
    if 2 * ulp <= plus1w <= threshold - 4 * ulp:
        return buf, exp10
    return None


def _estimate_scaling_factor(mant, exp):
    nbits = (mant - 1).bit_length()
    return ((nbits + exp) * 1292913986) >> 32


def dragon_shortest(mant, minus, plus, exp, inclusive):
    def lt(a, b):  # `a.cmp(b) < rounding`
        return a <= b if inclusive else a < b
    k = _estimate_scaling_factor(mant + plus, exp)
    scale = 1
    if exp < 0:
        scale <<= -exp
    else:
        mant <<= exp
        minus <<= exp
        plus <<= exp
    if k >= 0:
        scale *= 10 ** k
    else:
        mant *= 10 ** -k
        minus *= 10 ** -k
        plus *= 10 ** -k
    if lt(scale, mant + plus):
        k += 1
    else:
        mant *= 10
        minus *= 10
        plus *= 10
    buf = []
    while True:
        d, mant = divmod(mant, scale)
        buf.append(d)
        down = lt(mant, minus)
        up = lt(scale, mant + plus)
        if down or up:
            break
        mant *= 10
        minus *= 10
        plus *= 10
    if up and (not down or mant * 2 >= scale):
        i = len(buf) - 1
        while i >= 0 and buf[i] == 9:
            i -= 1
        if i < 0:
            buf = [1] + [0] * (len(buf) - 1)
            k += 1
        else:
            buf[i] += 1
            buf = buf[:i + 1] + [0] * (len(buf) - i - 1)
    return buf, k


def shortest(x, bits):
    """(digit list, k) with |x| = 0.d1d2... * 10^k, as Rust's format_shortest."""
    mant, minus, plus, exp, inc = decode(x, bits)
    r = grisu_shortest(mant, minus, plus, exp)
    if r is None:
        r = dragon_shortest(mant, minus, plus, exp, inc)
    return r


def rust_display(x, bits):
    """Rust `{}` of a finite non-zero float (no sign handling for zero)."""
    digits, k = shortest(x, bits)
    s = "".join(map(str, digits))
    sign = "-" if x < 0 else ""
    if k <= 0:
        return sign + "0." + "0" * (-k) + s
    if k < len(s):
        return sign + s[:k] + "." + s[k:]
    return sign + s + "0" * (k - len(s))


def rust_exp(x, bits):
    """Rust `{:e}` of a finite non-zero float."""
    digits, k = shortest(x, bits)
    s = "".join(map(str, digits))
    sign = "-" if x < 0 else ""
    m = s[0] + ("." + s[1:] if len(s) > 1 else "")
    return f"{sign}{m}e{k - 1}"
