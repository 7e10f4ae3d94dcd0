# pydifftest corpus: generated program 3763 (commit of tools/pydifftest that wrote it: see git log),
# agreeing with CPython 3.11; it must keep agreeing.
print("== 1 closure")
def acc1(x, into=[]):
    into.append(x)
    return len(into), into[-1]
try:
    print(acc1(3), acc1('u1'), acc1(0, []))
except Exception as e:
    print("!!", type(e).__name__, e)
print("== 2 format")
try:
    print('F|' + '<%*F>' % (7, 'x y',))
except Exception as e:
    print("!!", type(e).__name__, e)
try:
    print('F|' + format(9223372036854775807, '-0F'))
except Exception as e:
    print("!!", type(e).__name__, e)
fv = 'abc'
fw = 'x'
try:
    print(f'{fv!r} {fw!s:>8} {fv=} {fw=!s:4}')
except Exception as e:
    print("!!", type(e).__name__, e)
try:
    print('F|' + '[{0: 011.5}] {1!r:>6}'.format('héllo', 'tab\there'))
except Exception as e:
    print("!!", type(e).__name__, e)
fv = (-9223372036854775807 - 1)
try:
    print(f'{fv:,}|')
except Exception as e:
    print("!!", type(e).__name__, e)
try:
    print('%(a)s-%(b)05d' % {'a': 'abc', 'b': -3})
except Exception as e:
    print("!!", type(e).__name__, e)
try:
    print('{a}{b:{w}}{c[1]}'.format(a='123', b='héllo', w=3, c=[1, 2]))
except Exception as e:
    print("!!", type(e).__name__, e)
try:
    print('<%5.12s>' % (1.5,))
except Exception as e:
    print("!!", type(e).__name__, e)
