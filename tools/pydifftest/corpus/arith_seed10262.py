# pydifftest corpus: generated program 10262 (commit of tools/pydifftest that wrote it: see git log),
# agreeing with CPython 3.11; it must keep agreeing.
print("== 1 arith")
try:
    print(repr(round(2.675, 0)))
except Exception as e:
    print("!!", type(e).__name__, e)
try:
    print(1 == 1.0, hash(1) == hash(1.0))
except Exception as e:
    print("!!", type(e).__name__, e)
try:
    print(-2.5 // 0.1 + 0.2, -2.5 % 0.1 + 0.2)
except Exception as e:
    print("!!", type(e).__name__, e)
try:
    print(repr(((-0.5 * 0.3) | round(2.5, 3))))
except Exception as e:
    print("!!", type(e).__name__, e)
try:
    print(-1e-10 // 2.5, -1e-10 % 2.5)
except Exception as e:
    print("!!", type(e).__name__, e)
try:
    print(repr(((2 ** -0.0) % (1e22 + 2147483648))))
except Exception as e:
    print("!!", type(e).__name__, e)
try:
    print(2147483648 <= 1, 2147483648 == 1, min(2147483648, 1), max(1, 2147483648))
except Exception as e:
    print("!!", type(e).__name__, e)
import math
try:
    print(repr(math.atan(9.999999999999999e-05)))
except Exception as e:
    print("!!", type(e).__name__, e)
try:
    print(repr(math.factorial(9) + 0 * (-7)))
except Exception as e:
    print("!!", type(e).__name__, e)
print("== 2 closure")
def outer2(a):
    x = a
    def inc(d=2):
        nonlocal x
        x -= d
        return x
    def get():
        return x
    return inc, get
inc, get = outer2(-2)
try:
    print(inc(), inc(3), get())
except Exception as e:
    print("!!", type(e).__name__, e)
