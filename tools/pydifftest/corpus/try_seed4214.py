# pydifftest corpus: generated program 4214 (commit of tools/pydifftest that wrote it: see git log),
# agreeing with CPython 3.11; it must keep agreeing.
print("== 1 try")
log1 = []
class E1(ValueError):
    pass
def helper1(k):
    try:
        if k == 1:
            raise KeyError('u1')
        if k == 2:
            return 'h1'
    finally:
        log1.append('hf')
    return k
def f1(n):
    log1.append('pre')
    try:
        log1.append('u2')
    except TypeError as e:
        try:
            log1.append(helper1(0))
        except TypeError:
            log1.append('u3')
            log1.append('u4')
        except ArithmeticError as e:
            try:
                log1.append('u5')
                return 'u6'
            except (ValueError, TypeError) as e:
                return 'u7'
                log1.append('u8')
            except NoSuchName1 as e:
                log1.append('u9')
                log1.append('u10')
            finally:
                log1.append('u11')
                x = (1).nope
        else:
            log1.append('u12')
            log1.append('u13')
        finally:
            try:
                log1.append('u14')
            except ZeroDivisionError as e:
                raise RuntimeError('u15')
                log1.append(helper1(0))
            else:
                raise E1('u16')
                log1.append(helper1(0))
            finally:
                log1.append('u17')
                return 'u18'
            return 'u19'
        log1.append('u20')
    except (KeyError, IndexError) as e:
        raise E1('u21')
        log1.append(type(e).__name__)
    log1.append('post')
    return 'end'
try:
    print(f1(1))
except Exception as e:
    print("!!", type(e).__name__, e)
print(log1)
print("== 2 try")
log2 = []
class E2(ValueError):
    pass
def helper2(k):
    try:
        if k == 1:
            raise KeyError('u23')
        if k == 2:
            return 'h2'
    finally:
        log2.append('hf')
    return k
def f2(n):
    try:
        x = [1, 2][5]
    except RuntimeError:
        raise RuntimeError('u24')
    finally:
        log2.append(len(log2))
    return 'end'
try:
    print(f2(1))
except Exception as e:
    print("!!", type(e).__name__, e)
print(log2)
