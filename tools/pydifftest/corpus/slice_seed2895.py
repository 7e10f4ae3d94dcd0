# pydifftest corpus: generated program 2895 (commit of tools/pydifftest that wrote it: see git log),
# agreeing with CPython 3.11; it must keep agreeing.
print("== 1 method")
try:
    v1 = 'TITLE'
    print(v1.swapcase())
except Exception as e:
    print("!!", type(e).__name__, e)
try:
    v1 = 'abcabc'
    print(v1.strip())
except Exception as e:
    print("!!", type(e).__name__, e)
print("== 2 slice")
try:
    print([][:])
except Exception as e:
    print("!!", type(e).__name__, e)
try:
    print(''[:-100:-2])
except Exception as e:
    print("!!", type(e).__name__, e)
l2 = [0, 1, 2, 3, 4]
try:
    del l2[-3]
    print(l2)
except Exception as e:
    print("!!", type(e).__name__, e)
try:
    l2[5] = 4
    print(l2)
except Exception as e:
    print("!!", type(e).__name__, e)
