# pydifftest corpus: generated program 3771 (commit of tools/pydifftest that wrote it: see git log),
# agreeing with CPython 3.11; it must keep agreeing.
print("== 1 closure")
g1 = -5
def setg1(v):
    global g1
    g1 = g1 * 2 + v
    return g1
try:
    print(setg1(3), setg1(1), g1)
except Exception as e:
    print("!!", type(e).__name__, e)
print("== 2 builtin")
try:
    print(sum(x for x in [-5, 9, 2] if x % 2))
except Exception as e:
    print("!!", type(e).__name__, e)
print('über', 'Hello', sep=', ', end='|\n')
try:
    print(*[3])
except Exception as e:
    print("!!", type(e).__name__, e)
try:
    a, *b = [6, 0, 6, 5]
    print(a, b)
except Exception as e:
    print("!!", type(e).__name__, e)
try:
    print(list(reversed([6, 2, 5, 0])))
except Exception as e:
    print("!!", type(e).__name__, e)
try:
    print(str(None), str(True), str([None, True, 1.0]), repr([1, 'a', (2,)]))
except Exception as e:
    print("!!", type(e).__name__, e)
try:
    print(sum([6, 8]), sum([6, 8], -1), any([6, 8]), all([6, 8]))
except Exception as e:
    print("!!", type(e).__name__, e)
print("== 3 builtin")
try:
    print(sum(x for x in [] if x % 2))
except Exception as e:
    print("!!", type(e).__name__, e)
try:
    (a, b), c = (1, 2), 3
    print(a, b)
except Exception as e:
    print("!!", type(e).__name__, e)
try:
    print(list(reversed([-1, 4, 8])))
except Exception as e:
    print("!!", type(e).__name__, e)
try:
    print(min(3, 1.5, key=lambda x: -x), max('b', 'ab'))
except Exception as e:
    print("!!", type(e).__name__, e)
print('hello world', 'title case words', sep='', end='!\n')
try:
    print(*[6, 7, 0, 1, 2])
except Exception as e:
    print("!!", type(e).__name__, e)
print('a', 'CamelCase', 'a,b,,c', sep='-', end='\n')
try:
    print(*[5, 5, 0])
except Exception as e:
    print("!!", type(e).__name__, e)
print("== 4 builtin")
try:
    print(min([6, -4, 4, -3, 7]), max([]))
except Exception as e:
    print("!!", type(e).__name__, e)
try:
    print(bin(1), oct(1), hex(1))
except Exception as e:
    print("!!", type(e).__name__, e)
try:
    print(chr(93), ord('→'))
except Exception as e:
    print("!!", type(e).__name__, e)
try:
    (a, b), c = (1, 2), 3
    print(a, b)
except Exception as e:
    print("!!", type(e).__name__, e)
try:
    print(bool([]), bool([0]), bool(0.0), bool(-0.0), bool('0'))
except Exception as e:
    print("!!", type(e).__name__, e)
try:
    print(type('s').__name__, isinstance('s', int))
except Exception as e:
    print("!!", type(e).__name__, e)
it4 = iter([9, -1, 8])
try:
    print(next(it4, 'done'), next(it4, 'done'), list(it4))
except Exception as e:
    print("!!", type(e).__name__, e)
try:
    print(next(iter([])))
except Exception as e:
    print("!!", type(e).__name__, e)
