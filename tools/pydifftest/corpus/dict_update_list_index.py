# dict.update takes an iterable of pairs and keywords; list.index takes start and stop.
d = {'a': 1}
d.update([('z', 2)])
d.update(b=5)
print(d)
print([5, 3, 5, 3].index(3, 2), [5, 3, 5].index(5, 1, 3))
try:
    [1, 2].index(2, 0, 1)
except ValueError as e:
    print('ValueError')
