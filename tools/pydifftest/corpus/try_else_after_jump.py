# A try body left by return, break or continue skips the else clause (CPython runs it only when
# the body completes normally); DGL runs it and loses the return value.
def f():
    try:
        return 'body'
    except KeyError:
        pass
    else:
        return 'else'
print(f())
def g():
    log = []
    for i in range(3):
        try:
            if i == 1:
                continue
            if i == 2:
                break
        except ValueError:
            pass
        else:
            log.append(('else', i))
    return log
print(g())
