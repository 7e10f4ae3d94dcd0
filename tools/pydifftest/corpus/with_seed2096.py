# pydifftest corpus: generated program 2096 (commit of tools/pydifftest that wrote it: see git log),
# agreeing with CPython 3.11; it must keep agreeing.
print("== 1 with")
log1 = []
class M1:
    def __init__(self, name, swallow):
        self.name = name
        self.swallow = swallow
    def __enter__(self):
        log1.append('enter ' + self.name)
        return None
    def __exit__(self, kind, value, tb):
        log1.append(('exit', self.name, kind.__name__ if kind else None))
        return self.swallow
def use1(k):
    with M1('b', False) as bb, M1('a', False) as w:
        log1.append(w if isinstance(w, str) else type(w).__name__)
        if k == 1:
            raise ValueError('u1')
        if k == 2:
            return 'early'
        if k == 3:
            x = 1 // 0
    return 'after'
try:
    print(use1(2))
except Exception as e:
    print("!!", type(e).__name__, e)
print(log1)
print("== 2 closure")
def acc2(x, into=[]):
    into.append(x)
    return len(into), into[-1]
try:
    print(acc2(-5), acc2('u2'), acc2(0, []))
except Exception as e:
    print("!!", type(e).__name__, e)
