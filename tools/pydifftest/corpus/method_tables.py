# Methods of the builtin types CPython 3.11 has and DGL lacks (issue 24 item 4: every method of
# list, tuple, dict, set, frozenset, str and range; int/float's numeric ones).
print('ab'.isprintable(), 'a_1'.isidentifier(), 'Ab Cd'.istitle(), 'ab'.isascii())
print('{a}-{a}'.format_map({'a': 1}), 'abc'.translate({97: 'Z', 98: None}))
s = {1, 2, 3}
s.intersection_update({2, 3, 4})
s.difference_update({3})
s.symmetric_difference_update({5})
print(sorted(s))
d = {'a': 1}
d.clear()
print(d)
r = range(1, 9, 2)
print(r.start, r.stop, r.step, r.count(3), r.index(5))
print((7).bit_length(), (7).real, (7).imag, (7).numerator, (7).denominator, (7).conjugate(), (6).as_integer_ratio())
print((2.5).is_integer(), (2.5).as_integer_ratio(), (2.5).hex(), (2.5).real, (2.5).imag, (2.5).conjugate())
