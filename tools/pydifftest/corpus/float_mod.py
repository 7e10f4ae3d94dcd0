# int / int is the exact quotient rounded once (CPython); DGL converted both ints to floats
# first, rounding twice when one is beyond 2**53, and the % then showed it.
print(1e-10 % (7 / 9007199254740993))
