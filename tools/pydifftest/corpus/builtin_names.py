# Builtins CPython has that DGL lacks: issubclass, slice, frozenset, and the type objects'
# own attributes (str.upper, dict.fromkeys, str.maketrans, float.fromhex).
class A:
    pass
class B(A):
    pass
print(issubclass(B, A), issubclass(A, B))
print([0, 1, 2, 3, 4, 5][slice(1, 5, 2)])
print(sorted(frozenset({3, 1, 2})))
print(list(map(str.upper, ['a', 'b'])), dict.fromkeys('ab', 0), float.fromhex('0x1.8p1'))
print(sorted(str.maketrans('ab', 'xy').items()))
