# float % float is the exact remainder (CPython: fmod, then the sign fixed); DGL rounds on the
# way when the quotient is large.
print(1e-10 % (7 / 9007199254740993))
