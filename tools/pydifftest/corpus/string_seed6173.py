# pydifftest corpus: generated program 6173 (commit of tools/pydifftest that wrote it: see git log),
# agreeing with CPython 3.11; it must keep agreeing.
print("== 1 arith")
try:
    print(7 // -2, -7 // 2, 7 % -2, -7 % 2)
except Exception as e:
    print("!!", type(e).__name__, e)
try:
    print(repr((-7 % (0.0 / 10))))
except Exception as e:
    print("!!", type(e).__name__, e)
try:
    print(repr(((1.5 - -1e-10) * round(-1e-10, -1))))
except Exception as e:
    print("!!", type(e).__name__, e)
try:
    print(repr(round((1e-07 - -1e-10), 4)))
except Exception as e:
    print("!!", type(e).__name__, e)
print("== 2 string")
try:
    print(len("\r\v\f\b"), [ord(ch) for ch in "\r\v\f\b"])
except Exception as e:
    print("!!", type(e).__name__, e)
try:
    print(len('xyz\''), [ord(ch) for ch in 'xyz\''])
except Exception as e:
    print("!!", type(e).__name__, e)
try:
    print(chr(6777) + chr(29))
except Exception as e:
    print("!!", type(e).__name__, e)
