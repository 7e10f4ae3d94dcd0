# pydifftest corpus: generated program 11465 (commit of tools/pydifftest that wrote it: see git log),
# agreeing with CPython 3.11; it must keep agreeing.
print("== 1 closure")
def outer1(a):
    x = a
    def inc(d=6):
        nonlocal x
        x *= d
        return x
    def get():
        return x
    return inc, get
inc, get = outer1(5)
try:
    print(inc(), inc(3), get())
except Exception as e:
    print("!!", type(e).__name__, e)
print("== 2 class")
class C2:
    def __init__(self, v, items=None):
        self.v = v
        self.items = list(items) if items is not None else [v, v + 1]
        self.pos = 0
    def __lt__(self, other):
        if isinstance(other, C2):
            return self.v < other.v
        if isinstance(other, int):
            return self.v < other
        return NotImplemented
    def __len__(self):
        return len(self.items)
    def __contains__(self, x):
        return x in self.items or x == self.v
    def __getattr__(self, name):
        if name.startswith('dyn'):
            return name.upper()
        raise AttributeError('u1')
    def __neg__(self):
        return C2(-self.v)
a2 = C2(0)
b2 = C2(-3, [5])
try:
    print(a2 < b2)
except Exception as e:
    print("!!", type(e).__name__, e)
try:
    print(len({a2, b2, C2(0)}))
except Exception as e:
    print("!!", type(e).__name__, e)
try:
    print((lambda z: (type(z).__name__, getattr(z, 'v', z)))(a2 - 2))
except Exception as e:
    print("!!", type(e).__name__, e)
try:
    print(0 in b2)
except Exception as e:
    print("!!", type(e).__name__, e)
try:
    print(len(a2))
except Exception as e:
    print("!!", type(e).__name__, e)
try:
    print(type(a2).__name__)
except Exception as e:
    print("!!", type(e).__name__, e)
