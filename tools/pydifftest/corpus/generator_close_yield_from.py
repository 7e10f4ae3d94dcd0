# close() of a generator suspended in `yield from sub()` closes sub() too (its finally runs).
log = []
def sub():
    try:
        yield 'a'
        yield 'b'
    finally:
        log.append('sub finally')
def outer():
    yield from sub()
g = outer()
print(next(g))
g.close()
print(log)
