# pydifftest corpus: generated program 2524 (commit of tools/pydifftest that wrote it: see git log),
# agreeing with CPython 3.11; it must keep agreeing.
print("== 1 closure")
def acc1(x, into=[]):
    into.append(x)
    return len(into), into[-1]
try:
    print(acc1(-3), acc1('u1'), acc1(0, []))
except Exception as e:
    print("!!", type(e).__name__, e)
print("== 2 generator")
log2 = []
def sub2():
    try:
        got = yield 'sub1'
        log2.append(('sub got', got))
        yield 'sub2'
    finally:
        log2.append('sub fin')
    return 'sub-ret'
def g2():
    log2.append('start')
    yield 'u2'
it2 = g2()
try:
    print(next(it2))
except Exception as e:
    print("!!", type(e).__name__, e)
try:
    print(list(it2))
except Exception as e:
    print("!!", type(e).__name__, e)
print(log2)
