# pydifftest corpus: generated program 3965 (commit of tools/pydifftest that wrote it: see git log),
# agreeing with CPython 3.11; it must keep agreeing.
print("== 1 closure")
def rec1(n):
    if n <= 1:
        return [n]
    return rec1(n - 1) + rec1(n - 2)
try:
    print(len(rec1(2)), sum(rec1(7)))
except Exception as e:
    print("!!", type(e).__name__, e)
sq1 = lambda *xs, k=2: [x ** k for x in xs]
try:
    print(sq1(5, 2, 0, k=3))
except Exception as e:
    print("!!", type(e).__name__, e)
print("== 2 closure")
def l1_2():
    v = [2]
    def l2():
        w = 1
        def l3(q):
            nonlocal w
            w += q
            v.append(w)
            return v[-1] + len(v)
        return l3
    return l2(), v
f2, v2 = l1_2()
try:
    print(f2(1), f2(-1), v2)
except Exception as e:
    print("!!", type(e).__name__, e)
print("== 3 closure")
fs3 = [lambda: i * 2 for i in range(3)]
gs3 = [lambda i=i: i * 2 for i in range(3)]
try:
    print([f() for f in fs3], [g() for g in gs3])
except Exception as e:
    print("!!", type(e).__name__, e)
