# pydifftest corpus: generated program 1497 (commit of tools/pydifftest that wrote it: see git log),
# agreeing with CPython 3.11; it must keep agreeing.
print("== 1 closure")
fs1 = [lambda: i * 4 for i in range(3)]
gs1 = [lambda i=i: i * 4 for i in range(4)]
try:
    print([f() for f in fs1], [g() for g in gs1])
except Exception as e:
    print("!!", type(e).__name__, e)
print("== 2 inherit")
class B2:
    kind = 'base'
    def __init__(self, x):
        self.x = x
    def describe(self):
        return type(self).__name__ + ':' + self.kind + ':' + str(self.value())
    def value(self):
        return self.x
    def __repr__(self):
        return '%s(%r)' % (type(self).__name__, self.x)
class D2(B2):
    def __init__(self, x, y=4):
        super().__init__(x * 2)
        self.y = y
    def value(self):
        return super().value() + self.y
    @property
    def total(self):
        return self.x + self.y
    @staticmethod
    def twice(v):
        return v * 2
    @classmethod
    def make(cls, v):
        return cls(v)
class E2(D2):
    def value(self):
        return -super().value()
o2 = E2(6)
try:
    print(D2.twice(6), type(D2.make(3)).__name__)
except Exception as e:
    print("!!", type(e).__name__, e)
try:
    print(o2.total)
except Exception as e:
    print("!!", type(e).__name__, e)
