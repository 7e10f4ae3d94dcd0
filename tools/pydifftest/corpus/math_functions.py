# math functions CPython has that DGL's math module lacks (found by the tester: modf, frexp,
# ldexp, fmod, expm1).
import math
print(math.modf(2.5), math.frexp(12.0), math.ldexp(1.5, 3), math.fmod(-7.0, 3.0), math.expm1(1e-10))
