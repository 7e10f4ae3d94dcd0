# pydifftest corpus: generated program 4758 (commit of tools/pydifftest that wrote it: see git log),
# agreeing with CPython 3.11; it must keep agreeing.
print("== 1 method")
try:
    v1 = [3, -5, -3]
    print(v1.append(-2))
    print(v1)
except Exception as e:
    print("!!", type(e).__name__, e)
try:
    v1 = {'b': 1}
    print(v1.copy())
    print(v1)
except Exception as e:
    print("!!", type(e).__name__, e)
try:
    v1 = ' '
    print(v1.partition('b'))
except Exception as e:
    print("!!", type(e).__name__, e)
try:
    v1 = [8, -2, 3, 0, 4]
    print(v1.insert(-4, 4))
    print(v1)
except Exception as e:
    print("!!", type(e).__name__, e)
print("== 2 method")
try:
    v2 = 'title case words'
    print(v2.isdigit())
except Exception as e:
    print("!!", type(e).__name__, e)
try:
    v2 = 'line1\nline2\r\nline3'
    print(v2.isalpha())
except Exception as e:
    print("!!", type(e).__name__, e)
print("== 3 with")
log3 = []
class M3:
    def __init__(self, name, swallow):
        self.name = name
        self.swallow = swallow
    def __enter__(self):
        log3.append('enter ' + self.name)
        return self.name
    def __exit__(self, kind, value, tb):
        log3.append(('exit', self.name, kind.__name__ if kind else None))
        return self.swallow
def use3(k):
    with M3('a', False) as w, M3('b', False) as bb:
        log3.append(w if isinstance(w, str) else type(w).__name__)
        if k == 1:
            raise ValueError('u1')
        if k == 2:
            return 'early'
        if k == 3:
            x = 1 // 0
    return 'after'
try:
    print(use3(2))
except Exception as e:
    print("!!", type(e).__name__, e)
try:
    print(use3(0))
except Exception as e:
    print("!!", type(e).__name__, e)
print(log3)
print("== 4 generator")
log4 = []
def sub4():
    try:
        got = yield 'sub1'
        log4.append(('sub got', got))
        yield 'sub2'
    finally:
        log4.append('sub fin')
    return 'sub-ret'
def g4():
    log4.append('start')
    raise ValueError('u2')
    x = yield 9
    log4.append(x)
it4 = g4()
try:
    print(it4.close())
except Exception as e:
    print("!!", type(e).__name__, e)
try:
    print(next(it4))
except Exception as e:
    print("!!", type(e).__name__, e)
print(log4)
ge4 = (x * x for x in range(2) if x % 2 == 0)
try:
    print(next(ge4, 'empty'), sum(ge4), list(ge4))
except Exception as e:
    print("!!", type(e).__name__, e)
