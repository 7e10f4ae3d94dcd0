# pydifftest corpus: the differences docs/python.md makes on purpose, as the comparator
# normalises them (README.md "How outputs are compared").
# float exponents: DGL prints 1e-5 and 1e16 where CPython prints 1e-05 and 1e+16
print(1e-05, 1e+16, [2.5e-300], repr(1e22), str(-1e-7))
# ... but a format spec with a type or precision spells them as CPython does
print('F|' + format(1e-05, '.3') + ' ' + '%e' % 1e16 + ' ' + f'{1e22:g}')
# 64-bit ints: CPython's bigger result is an OverflowError in DGL
try:
    print(2 ** 64)
except Exception as e:
    print("!!", type(e).__name__, e)
try:
    print((9223372036854775807 - 1) + 1, (-9223372036854775807 - 1) // 1)
except Exception as e:
    print("!!", type(e).__name__, e)
# sets print through sorted()
print(sorted({3, 1, 2}), sorted({'b', 'a'}))
# zip, map, ... consumed by list()
print(list(zip([1, 2], 'ab')), list(map(abs, [-1, 2])), list(reversed([1, 2])), list({'a': 1}.items()))
