# str() of a KeyError is the repr of its key (CPython prints 'k' with quotes), in a handler and
# when uncaught.
try:
    raise KeyError('u1')
except KeyError as e:
    print(e, str(e), repr(e.args[0]))
try:
    {}['k']
except KeyError as e:
    print(e)
