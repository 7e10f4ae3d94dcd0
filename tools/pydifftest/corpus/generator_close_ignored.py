# A generator that yields while it is being closed: close() raises RuntimeError("generator
# ignored GeneratorExit"); GeneratorExit is a builtin name.
def gen():
    try:
        yield 1
    finally:
        yield 'in finally'
g = gen()
print(next(g))
try:
    g.close()
except RuntimeError as e:
    print('RuntimeError', e)
def gen2():
    try:
        yield 1
    except GeneratorExit:
        print('GeneratorExit seen')
        raise
g2 = gen2()
next(g2)
g2.close()
