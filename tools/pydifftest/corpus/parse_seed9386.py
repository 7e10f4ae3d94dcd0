# pydifftest corpus: generated program 9386 (commit of tools/pydifftest that wrote it: see git log),
# agreeing with CPython 3.11; it must keep agreeing.
print("== 1 closure")
fs1 = [lambda: i * 6 for i in range(2)]
gs1 = [lambda i=i: i * 6 for i in range(2)]
try:
    print([f() for f in fs1], [g() for g in gs1])
except Exception as e:
    print("!!", type(e).__name__, e)
print("== 2 parse")
try:
    print(repr(int('794.e5', 37)))
except Exception as e:
    print("!!", type(e).__name__, e)
try:
    print(repr(float('7j')))
except Exception as e:
    print("!!", type(e).__name__, e)
try:
    print(repr(float('  -70 ')))
except Exception as e:
    print("!!", type(e).__name__, e)
try:
    print(repr(int('nan1', 8)))
except Exception as e:
    print("!!", type(e).__name__, e)
try:
    print(repr(int('+0')))
except Exception as e:
    print("!!", type(e).__name__, e)
try:
    print(repr(int('0')))
except Exception as e:
    print("!!", type(e).__name__, e)
try:
    print(int(-0.5))
except Exception as e:
    print("!!", type(e).__name__, e)
try:
    print(float(True))
except Exception as e:
    print("!!", type(e).__name__, e)
try:
    print(int(1e15), int('+0'))
except Exception as e:
    print("!!", type(e).__name__, e)
