# generator.throw(): raises the exception at the paused yield (handlers and finally run there).
def gen():
    try:
        yield 1
    except ValueError as e:
        yield 'caught ' + str(e)
    finally:
        print('finally')
g = gen()
print(next(g))
print(g.throw(ValueError('u1')))
try:
    g.throw(KeyError('u2'))
except KeyError as e:
    print('KeyError', e)
