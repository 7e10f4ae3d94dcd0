"""Writes src/tensor/sobol_data/new-joe-kuo-6.21201.bin: Joe and Kuo's direction numbers for
Sobol' dimensions 2..21201 (their file new-joe-kuo-6.21201), bit-packed as
src/tensor/sobol_data/README.md describes, for src/tensor/sobol.rs.

Reads the numbers from either Joe and Kuo's text file (columns d s a m_1 m_2 ..., one header
line) or SciPy's copy of the same set, scipy/stats/_sobol_direction_numbers.npz (arrays `poly`,
the polynomial with its leading and trailing 1 bits, and `vinit`, the m_i padded with zeros;
row 0 is dimension 1). Run: `python tools/gen_sobol_directions.py FILE` from the repository
root."""
import sys

OUT = "src/tensor/sobol_data/new-joe-kuo-6.21201.bin"


def read(path):
    """[(s, a, [m_1..m_s])] for dimensions 2, 3, ..."""
    rows = []
    if path.endswith(".npz"):
        import numpy as np

        data = np.load(path)
        for p, v in zip(data["poly"][1:], data["vinit"][1:]):
            p = int(p)
            s = p.bit_length() - 1
            a = (p >> 1) & ((1 << (s - 1)) - 1)
            rows.append((s, a, [int(m) for m in v[:s]]))
    else:
        with open(path) as f:
            next(f)
            for line in f:
                cols = [int(c) for c in line.split()]
                if cols:
                    s, a = cols[1], cols[2]
                    rows.append((s, a, cols[3 : 3 + s]))
    return rows


class Bits:
    def __init__(self):
        self.out, self.acc, self.n = bytearray(), 0, 0

    def put(self, value, width):
        assert 0 <= value < (1 << width)
        self.acc |= value << self.n
        self.n += width
        while self.n >= 8:
            self.out.append(self.acc & 0xFF)
            self.acc >>= 8
            self.n -= 8

    def bytes(self):
        return bytes(self.out + (bytearray([self.acc]) if self.n else b""))


def main():
    rows = read(sys.argv[1])
    assert len(rows) == 21200, len(rows)
    bits = Bits()
    for s, a, m in rows:
        assert 1 <= s < 32 and len(m) == s
        bits.put(s, 5)
        bits.put(a, s - 1)
        for i, mi in enumerate(m, 1):
            assert mi % 2 == 1 and mi < (1 << i), (s, a, m)
            bits.put(mi >> 1, i - 1)
    with open(OUT, "wb") as f:
        f.write(bits.bytes())
    print(f"{OUT}: {len(rows)} dimensions, {len(bits.bytes())} bytes")


main()
