"""Seeded generator of random programs valid both as DGL and as CPython 3.11 (see README.md).

gen(seed) -> (program text, features). Same seed, same text. A program is a few segments, each
exercising one area (FEATURES); every segment starts by printing `== N kind`, so the runner can
say in which area the first difference lies. Operations that may raise are probes:

    try:
        print(EXPR)
    except Exception as e:
        print("!!", type(e).__name__, e)

so error behaviour is compared as output. Messages the program itself chooses are tags `uN`
(`raise ValueError('u7')`); the comparator compares a message only when it is such a tag.

What the generator keeps away from, because docs/python.md "Where DGL differs from CPython, on
purpose" makes DGL differ there (README.md lists each):
- ints: every subexpression it nests is evaluated here and kept within 64 bits; only a probe's
  whole value may leave them (CPython then prints a big int, DGL must raise OverflowError);
- sets are printed and iterated only through sorted(); set.pop() only on a one-element set;
- zip/enumerate/map/filter/reversed/sorted and a dict's keys/values/items are always consumed
  by list() (or a for loop, or `in`), never printed or advanced with next();
- no random, no files, no hash() values, no id(), no default object reprs (`<... at 0x..>`).
Standard library only.
"""
import math
import random
import sys

INT64 = (-2 ** 63, 2 ** 63 - 1)
FEATURES = ["try", "closure", "generator", "class", "inherit", "slice", "method", "parse", "format",
            "arith", "string", "builtin", "with", "complex"]

SMALL_INTS = [0, 1, -1, 2, 3, -3, 7, -7, 10, 255, 1000, 12345]
EDGE_INTS = [2 ** 31, -2 ** 31, 2 ** 53 + 1, 2 ** 62, 2 ** 63 - 1, -2 ** 63, 10 ** 18, -10 ** 18, 4294967296]
FLOATS = ["0.0", "-0.0", "1.5", "-2.5", "0.1", "0.2", "0.3", "2.5", "3.5", "-0.5", "1e-07", "1e16", "1e+300",
          "5e-324", "2.2250738585072014e-308", "1.7976931348623157e+308", "123456.789", "1e22", "0.5",
          "float('inf')", "float('-inf')", "float('nan')", "(1/3)", "9.999999999999999e-05", "100.0",
          "1234567.891", "-1e-10", "0.1 + 0.2"]
# Complex atoms: imaginary literals of every form, signed zeros, infinities, NaN, huge and tiny
# parts, complex() of numbers and strings.
COMPLEXES = ["1j", "4J", "1.5j", "1e3j", ".5j", "0j", "1_0j", "(5 + 4j)", "(6 + 1j)", "(-0.0 - 0j)", "(3 - 4j)",
             "complex(-0.0, 0.0)", "complex(0.0, -0.0)", "complex(-0.0, -0.0)", "(1e16 + 1e-05j)", "(0.1 + 0.2j)",
             "complex(float('inf'), 1)", "complex(1, float('nan'))", "complex(float('-inf'), float('inf'))",
             "(1e300 + 1e300j)", "5e-324j", "(-2.5 + 0.5j)", "complex('1+2j')", "complex(' (3-1.5e1J) ')",
             "complex('-j')", "complex(2)", "(1j ** 2)", "1e-07j", "(2 - 1e22j)", "complex(True, 1.5)",
             "complex(1j, 1j)", "complex('infj')", "(1.5e-300 - 2e-300j)", "(1 + 1j)", "(-1 - 1j)"]
COMPLEX_SPECS = ["", ".2f", ".3e", "g", ".2", "10", "<24", "^20", "*>22", "+", " .1f", ",", "_.2f", "E", ".0f",
                 "z.1f", "05", "=10", "d", "%", "#.3g", "+.2g"]
EXC = ["ValueError", "KeyError", "TypeError", "IndexError", "RuntimeError", "ZeroDivisionError",
       "AttributeError", "NameError", "StopIteration", "AssertionError", "OverflowError"]
# Handler classes: the common ones, tuples, and (rarely) the parents issue 24 item 2 names.
HANDLERS = ["ValueError", "KeyError", "TypeError", "IndexError", "RuntimeError", "ZeroDivisionError",
            "Exception", "(ValueError, TypeError)", "(KeyError, IndexError)", "ArithmeticError",
            "LookupError"]
WORDS = ["", "a", "ab", "abc", "Hello", "hello world", "  pad  ", "a,b,,c", "x-y-z", "Mixed Case",
         "TITLE", "title case words", "tab\\there", "line1\\nline2\\r\\nline3", "123", "12.5", "caf\u00e9",
         "\u00fcber", "snake_case_name", "aaa", "abcabc", "0042", "-17", " ", "\u2192arrow", "\u00df",
         "x", "CamelCase", "a b  c", "1e5", "\u0394elta", "\u00bd", "\u0663"]


def ilit(v):
    """A literal DGL and CPython both read as the int v (the most negative int64 has none)."""
    if v == -2 ** 63:
        return "(-9223372036854775807 - 1)"
    return "(%d)" % v if v < 0 else "%d" % v


def in64(v):
    return not isinstance(v, int) or isinstance(v, bool) or INT64[0] <= v <= INT64[1]


class G:
    def __init__(self, seed):
        self.r = random.Random(seed)
        self.lines = []
        self.n = 0
        self.tag = 0
        self.features = set()

    # ------------------------------------------------------------ helpers

    def emit(self, line, ind=0):
        self.lines.append("    " * ind + line)

    def feat(self, *names):
        self.features.update(names)

    def fresh(self):
        self.n += 1
        return self.n

    def utag(self):
        self.tag += 1
        return "u%d" % self.tag

    def probe(self, expr, ind=0, wrap=None):
        """print(expr) in a try whose handler prints the exception's kind and message."""
        self.emit("try:", ind)
        self.emit("print(%s)" % (wrap % expr if wrap else expr), ind + 1)
        self.handler(ind)

    def handler(self, ind=0):
        self.emit("except Exception as e:", ind)
        self.emit('print("!!", type(e).__name__, e)', ind + 1)

    def block(self, stmts, ind):
        """Emits statements: a str is one line, a (header, body) pair a compound statement."""
        if not stmts:
            self.emit("pass", ind)
        for s in stmts:
            if isinstance(s, tuple):
                self.emit(s[0], ind)
                self.block(s[1], ind + 1)
            else:
                self.emit(s, ind)

    def pick(self, xs):
        return self.r.choice(xs)

    def word(self):
        return self.pick(WORDS)

    def slit(self, s=None):
        """A string literal of s (a WORDS entry: escapes are already written as in source)."""
        s = self.word() if s is None else s
        return "'%s'" % s

    def ints(self, n=None, lo=-5, hi=9):
        n = self.r.randrange(0, 6) if n is None else n
        return [self.r.randint(lo, hi) for _ in range(n)]

    # ------------------------------------------------------------ try / except / else / finally

    def raising(self):
        """A statement that raises: an explicit raise with a tag, or an operation that fails."""
        r = self.r
        if r.random() < 0.6:
            k = self.pick(EXC[:6] + ["E%d" % self.cur])
            return "raise %s('%s')" % (k, self.utag())
        self.feat("try.op-raises")
        return self.pick(["x = 1 // 0", "x = [1, 2][5]", "x = {'a': 1}['b']", "x = int('zz')", "x = None + 1",
                          "x = 'a' + 1", "x = undefined_name_q", "x = (1).nope", "x = float('x1')",
                          "assert False, 'u%d' % 0" if False else "x = [].pop()"])

    def try_stmts(self, ctx, depth, handler=False, in_finally=False):
        """A few statements for a try body, handler, else or finally clause. ctx: 'loop', 'func'."""
        r = self.r
        out = []
        for _ in range(r.randint(1, 2)):
            k = r.random()
            if k < 0.3:
                out.append("log%d.append('%s')" % (self.cur, self.utag()))
            elif k < 0.45:
                out.append(self.raising())
            elif k < 0.55 and handler:
                out.append(self.pick(["raise", "raise RuntimeError('%s')" % self.utag(),
                                      "log%d.append(type(e).__name__)" % self.cur]))
                self.feat("try.reraise")
            elif k < 0.65:
                out.append("return '%s'" % self.utag())
                self.feat("try.return-in-finally" if in_finally else "try.return-in-handler" if handler
                          else "try.return")
            elif k < 0.75 and "loop" in ctx:
                out.append(self.pick(["break", "continue"]))
                self.feat("try.break-continue" + ("-in-finally" if in_finally else "-in-handler" if handler else ""))
            elif k < 0.85 and depth < 2:
                out.append(self.try_compound(ctx, depth + 1))
            elif k < 0.92:
                out.append("log%d.append(helper%d(%d))" % (self.cur, self.cur, r.randrange(4)))
            else:
                out.append("log%d.append(%s)" % (self.cur, self.pick(["len(log%d)" % self.cur, "'%s'" % self.utag()])))
        # statements after a raise/return/break/continue are unreachable but valid; keep them
        return out

    def try_compound(self, ctx, depth):
        r = self.r
        nh, has_else, has_fin = self.pick([(1, 0, 0), (1, 0, 1), (1, 1, 0), (1, 1, 1), (0, 0, 1), (2, 0, 0),
                                             (2, 0, 1), (2, 1, 0), (2, 1, 1), (1, 0, 1), (1, 1, 1)])
        self.feat("try.%dexcept%s%s" % (nh, "+else" if has_else else "", "+finally" if has_fin else ""))
        body = [("try:", self.try_stmts(ctx, depth))]
        for i in range(nh):
            h = self.pick(HANDLERS)
            if r.random() < 0.04:
                h = "NoSuchName%d" % self.cur  # evaluating the clause raises NameError (issue 24 item 1)
                self.feat("try.handler-expr-raises")
            if h in ("ArithmeticError", "LookupError"):
                self.feat("try.parent-class")
            bare = r.random() < 0.1 and i == nh - 1
            as_e = r.random() < 0.6 and not bare
            head = "except:" if bare else "except %s as e:" % h if as_e else "except %s:" % h
            hb = self.try_stmts(ctx, depth, handler=as_e)
            body.append((head, hb))
        if has_else:
            body.append(("else:", self.try_stmts(ctx, depth)))
        if has_fin:
            body.append(("finally:", self.try_stmts(ctx, depth, in_finally=True)))
        # a compound statement as one item: flattened by try_items()
        return ("#compound", body)

    def flatten(self, stmts):
        out = []
        for s in stmts:
            if isinstance(s, tuple) and s[0] == "#compound":
                for h, b in s[1]:
                    out.append((h, self.flatten(b)))
            elif isinstance(s, tuple):
                out.append((s[0], self.flatten(s[1])))
            else:
                out.append(s)
        return out

    def seg_try(self):
        r = self.r
        c = self.cur
        self.emit("log%d = []" % c)
        self.emit("class E%d(ValueError):" % c)
        self.emit("pass", 1)
        self.emit("def helper%d(k):" % c)
        self.emit("try:", 1)
        self.emit("if k == 1:", 2)
        self.emit("raise KeyError('%s')" % self.utag(), 3)
        self.emit("if k == 2:", 2)
        self.emit("return 'h%d'" % c, 3)
        self.emit("finally:", 1)
        self.emit("log%d.append('hf')" % c, 2)
        self.emit("return k", 1)
        loop = r.random() < 0.6
        self.emit("def f%d(n):" % c)
        ind = 1
        ctx = "func"
        if loop:
            self.emit(self.pick(["for i in range(n):", "while len(log%d) < 12:" % c]), 1)
            ind, ctx = 2, "func loop"
            if "while" in self.lines[-1]:
                self.emit("log%d.append('w')" % c, 2)
        items = self.flatten([self.try_compound(ctx, 0)])
        if r.random() < 0.3:
            items = ["log%d.append('pre')" % c] + items + ["log%d.append('post')" % c]
        self.block(items, ind)
        self.emit("return 'end'", 1)
        self.probe("f%d(%d)" % (c, r.randint(1, 3)))
        self.emit("print(log%d)" % c)

    # ------------------------------------------------------------ closures

    def seg_closure(self):
        r = self.r
        c = self.cur
        k = r.randrange(7)
        a, b = r.randint(-5, 9), r.randint(1, 6)
        if k == 0:
            self.feat("closure.nonlocal")
            self.emit("def outer%d(a):" % c)
            self.emit("x = a", 1)
            self.emit("def inc(d=%d):" % b, 1)
            self.emit("nonlocal x", 2)
            self.emit("x %s d" % self.pick(["+=", "-=", "*=", "//="]), 2)
            self.emit("return x", 2)
            self.emit("def get():", 1)
            self.emit("return x", 2)
            self.emit("return inc, get", 1)
            self.emit("inc, get = outer%d(%d)" % (c, a))
            self.probe("inc(), inc(%d), get()" % r.randint(-3, 3))
        elif k == 1:
            self.feat("closure.late-binding")
            self.emit("fs%d = [lambda: i * %d for i in range(%d)]" % (c, b, r.randint(1, 4)))
            self.emit("gs%d = [lambda i=i: i * %d for i in range(%d)]" % (c, b, r.randint(1, 4)))
            self.probe("[f() for f in fs%d], [g() for g in gs%d]" % (c, c))
        elif k == 2:
            self.feat("closure.decorator")
            self.emit("calls%d = []" % c)
            self.emit("def deco%d(tag):" % c)
            self.emit("def wrap(fn):", 1)
            self.emit("def inner(*args, **kwargs):", 2)
            self.emit("calls%d.append((tag, len(args), sorted(kwargs)))" % c, 3)
            self.emit("return fn(*args, **kwargs)", 3)
            self.emit("return inner", 2)
            self.emit("return wrap", 1)
            self.emit("@deco%d('%s')" % (c, self.utag()))
            self.emit("def add%d(x, y=%d, *rest, z=%d):" % (c, b, a))
            self.emit("return x + y + sum(rest) * z", 1)
            for _ in range(r.randint(1, 3)):
                args = self.pick(["1", "1, 2", "1, 2, 3, 4", "1, z=2", "x=5", "1, 2, z=0", "", "1, q=2"])
                self.probe("add%d(%s)" % (c, args))
            self.emit("print(calls%d)" % c)
        elif k == 3:
            self.feat("closure.three-levels")
            self.emit("def l1_%d():" % c)
            self.emit("v = [%d]" % a, 1)
            self.emit("def l2():", 1)
            self.emit("w = %d" % b, 2)
            self.emit("def l3(q):", 2)
            self.emit("nonlocal w", 3)
            self.emit("w += q", 3)
            self.emit("v.append(w)", 3)
            self.emit("return v[-1] + len(v)", 3)
            self.emit("return l3", 2)
            self.emit("return l2(), v", 1)
            self.emit("f%d, v%d = l1_%d()" % (c, c, c))
            self.probe("f%d(1), f%d(%d), v%d" % (c, c, r.randint(-2, 5), c))
        elif k == 4:
            self.feat("closure.global")
            self.emit("g%d = %d" % (c, a))
            self.emit("def setg%d(v):" % c)
            self.emit("global g%d" % c, 1)
            self.emit("g%d = g%d * 2 + v" % (c, c), 1)
            self.emit("return g%d" % c, 1)
            self.probe("setg%d(%d), setg%d(1), g%d" % (c, b, c, c))
        elif k == 5:
            self.feat("closure.mutable-default")
            self.emit("def acc%d(x, into=[]):" % c)
            self.emit("into.append(x)", 1)
            self.emit("return len(into), into[-1]", 1)
            self.probe("acc%d(%d), acc%d('%s'), acc%d(0, [])" % (c, a, c, self.utag(), c))
        else:
            self.feat("closure.recursion")
            self.emit("def rec%d(n):" % c)
            self.emit("if n <= 1:", 1)
            self.emit("return [n]", 2)
            self.emit("return rec%d(n - 1) + rec%d(n - 2)" % (c, c), 1)
            self.probe("len(rec%d(%d)), sum(rec%d(%d))" % (c, r.randint(0, 9), c, r.randint(0, 8)))
            self.emit("sq%d = lambda *xs, k=2: [x ** k for x in xs]" % c)
            self.probe("sq%d(%s)" % (c, ", ".join([str(x) for x in self.ints(r.randint(0, 3))] +
                                                  [self.pick(["k=3", "k=-1"])] * r.randint(0, 1))))

    # ------------------------------------------------------------ generators

    def gen_body(self, depth):
        """Statements of a generator's body."""
        r = self.r
        c = self.cur
        out = []
        for _ in range(r.randint(1, 3)):
            k = r.random()
            if k < 0.25:
                out.append("x = yield %d" % r.randint(0, 9))
                out.append("log%d.append(x)" % c)
            elif k < 0.4:
                out.append("yield '%s'" % self.utag())
            elif k < 0.55:
                self.feat("gen.yield-from")
                src = self.pick(["sub%d()" % c, "sub%d()" % c, "[7, 8]", "range(2)"])
                if not src.startswith("sub"):
                    self.feat("gen.yield-from-iterable")
                out.append("r = yield from %s" % src if src.startswith("sub") else "yield from %s" % src)
                if src.startswith("sub"):
                    out.append("log%d.append(r)" % c)
            elif k < 0.7 and depth < 1:
                h = self.pick(["ValueError", "GeneratorExit", "Exception", "KeyError"])
                self.feat("gen.try")
                parts = [("try:", self.gen_body(depth + 1))]
                if r.random() < 0.7:
                    hb = ["log%d.append('caught %s')" % (c, h)]
                    if r.random() < 0.5:
                        hb.append(self.pick(["yield 'in-handler'", "raise", "return 'u%d'" % self.tag]))
                    parts.append(("except %s:" % h, hb))
                if r.random() < 0.6 or len(parts) == 1:
                    fb = ["log%d.append('fin')" % c]
                    if r.random() < 0.2:
                        fb.append("yield 'in-finally'")
                    parts.append(("finally:", fb))
                out.append(("#compound", parts))
            elif k < 0.8:
                out.append("raise ValueError('%s')" % self.utag())
            elif k < 0.87:
                out.append("return '%s'" % self.utag())
            else:
                out.append("log%d.append('%s')" % (c, self.utag()))
        return out

    def seg_generator(self):
        r = self.r
        c = self.cur
        self.emit("log%d = []" % c)
        self.emit("def sub%d():" % c)
        self.emit("try:", 1)
        self.emit("got = yield 'sub1'", 2)
        self.emit("log%d.append(('sub got', got))" % c, 2)
        self.emit("yield 'sub2'", 2)
        self.emit("finally:", 1)
        self.emit("log%d.append('sub fin')" % c, 2)
        self.emit("return 'sub-ret'", 1)
        self.emit("def g%d():" % c)
        self.emit("log%d.append('start')" % c, 1)
        start = len(self.lines)
        self.block(self.flatten(self.gen_body(0)), 1)
        if not any("yield" in l for l in self.lines[start:]):
            self.emit("yield 0", 1)
        self.emit("it%d = g%d()" % (c, c))
        for _ in range(r.randint(2, 6)):
            k = r.randrange(9)
            if k < 3:
                self.feat("gen.next")
                self.probe("next(it%d)" % c)
            elif k < 5:
                self.feat("gen.send")
                self.probe("it%d.send(%s)" % (c, self.pick(["None", "5", "'%s'" % self.utag()])))
            elif k < 7:
                self.feat("gen.throw")
                self.probe("it%d.throw(%s('%s'))" % (c, self.pick(["ValueError", "KeyError", "TypeError"]), self.utag()))
            elif k == 7:
                self.feat("gen.close")
                self.probe("it%d.close()" % c)
            else:
                self.feat("gen.list")
                self.probe("list(it%d)" % c)
        self.emit("print(log%d)" % c)
        if r.random() < 0.4:
            self.feat("gen.genexp")
            self.emit("ge%d = (x * x for x in range(%d) if x %% 2 == %d)" % (c, r.randint(0, 7), r.randint(0, 1)))
            self.probe("next(ge%d, 'empty'), sum(ge%d), list(ge%d)" % (c, c, c))

    # ------------------------------------------------------------ classes with special methods

    SPECIAL = ["__repr__", "__str__", "__eq__", "__lt__", "__hash__", "__len__", "__getitem__", "__setitem__",
               "__iter__", "__contains__", "__call__", "__getattr__", "__add__", "__radd__", "__sub__",
               "__mul__", "__rmul__", "__neg__", "__bool__", "__next__", "__iadd__"]

    def seg_class(self):
        r = self.r
        c = self.cur
        ms = [m for m in self.SPECIAL if r.random() < 0.45]
        if "__next__" in ms and "__iter__" not in ms:
            ms.append("__iter__")
        self.feat(*("cls." + m for m in ms))
        C = "C%d" % c
        self.emit("class %s:" % C)
        self.emit("def __init__(self, v, items=None):", 1)
        self.emit("self.v = v", 2)
        self.emit("self.items = list(items) if items is not None else [v, v + 1]", 2)
        self.emit("self.pos = 0", 2)
        body = {
            "__repr__": ["return '%s(%%r)' %% (self.v,)" % C],
            "__str__": ["return f'<{self.v}|{len(self.items)}>'"],
            "__eq__": ["if not isinstance(other, %s):" % C, "    return NotImplemented",
                       "return self.v == other.v"],
            "__lt__": ["if isinstance(other, %s):" % C, "    return self.v < other.v",
                       "if isinstance(other, int):", "    return self.v < other", "return NotImplemented"],
            "__hash__": ["return self.v %% %d" % r.randint(2, 5)],
            "__len__": ["return len(self.items)"],
            "__getitem__": ["return self.items[i]"],
            "__setitem__": ["self.items[i] = value"],
            "__iter__": ["return self" if "__next__" in ms else self.pick(["return iter(self.items)",
                                                                           "yield from self.items"])],
            "__next__": ["if self.pos >= len(self.items):", "    raise StopIteration",
                         "self.pos += 1", "return self.items[self.pos - 1]"],
            "__contains__": ["return x in self.items or x == self.v"],
            "__call__": ["return self.v * k + sum(more)"],
            "__getattr__": ["if name.startswith('dyn'):", "    return name.upper()",
                            "raise AttributeError('%s')" % self.utag()],
            "__add__": ["if isinstance(other, %s):" % C, "    return %s(self.v + other.v)" % C,
                        "if isinstance(other, int):", "    return %s(self.v + other)" % C, "return NotImplemented"],
            "__radd__": ["if isinstance(other, int):", "    return %s(other * 100 + self.v)" % C,
                         "return NotImplemented"],
            "__sub__": ["return %s(self.v - (other.v if isinstance(other, %s) else other))" % (C, C)],
            "__mul__": ["if isinstance(other, int):", "    return %s(self.v * other)" % C, "return NotImplemented"],
            "__rmul__": ["return %s(-self.v * other)" % C],
            "__neg__": ["return %s(-self.v)" % C],
            "__bool__": ["return self.v %s 0" % self.pick([">", "!=", "<"])],
            "__iadd__": ["self.v += other", "return self"],
        }
        args = {"__getitem__": "self, i", "__setitem__": "self, i, value", "__contains__": "self, x",
                "__call__": "self, k=1, *more", "__getattr__": "self, name"}
        for m in ms:
            a = args.get(m, "self, other" if m in ("__eq__", "__lt__", "__add__", "__radd__", "__sub__", "__mul__",
                                                   "__rmul__", "__iadd__") else "self")
            self.emit("def %s(%s):" % (m, a), 1)
            for line in body[m]:
                ind = 2 + (len(line) - len(line.lstrip())) // 4
                self.emit(line.lstrip(), ind)
        va, vb = r.randint(-3, 6), r.randint(-3, 6)
        self.emit("a%d = %s(%d)" % (c, C, va))
        self.emit("b%d = %s(%d, [%s])" % (c, C, vb, ", ".join(str(x) for x in self.ints())))
        a, b = "a%d" % c, "b%d" % c
        printable = "__repr__" in ms or "__str__" in ms
        ops = ["%s == %s" % (a, b), "%s != %s" % (a, b), "%s == %d" % (a, va), "%s < %s" % (a, b),
               "%s > %s" % (a, b), "%s <= %s" % (a, b), "%s < %d" % (a, vb), "%d > %s" % (vb, a),
               "len(%s)" % a, "%s[%d]" % (b, r.randint(-2, 3)), "%s[1:]" % b, "list(%s)" % b,
               "%d in %s" % (r.randint(-2, 4), b), "%s(%s)" % (a, self.pick(["", "2", "2, 3, 4", "k=0"])),
               "%s.dyn_%s" % (a, self.pick(["x", "yy"])), "%s.other" % a, "%s + %s" % (a, b), "%s + 1" % a,
               "1 + %s" % a, "%s - 2" % a, "%s * 3" % a, "3 * %s" % a, "-%s" % a, "bool(%s)" % a,
               "'yes' if %s else 'no'" % b, "len({%s, %s, %s(%d)})" % (a, b, C, va), "sorted([%s, %s]) == [%s, %s]" % (a, b, a, b),
               "[x for x in %s]" % b, "sum(%s)" % b, "max(%s)" % b, "str(%s)" % a, "repr(%s)" % b,
               "%s in [%s]" % (a, b), "{%s: 1}.get(%s(%d), 'none')" % (a, C, va), "sorted([%s, %s])" % (b, a)]
        for _ in range(r.randint(3, 8)):
            op = self.pick(ops)
            # a default repr shows an address: print instances only through a __repr__ (or, for
            # str(), a __str__)
            if ("repr(" in op or "sorted([" in op and "==" not in op) and "__repr__" not in ms or (
                    "str(" in op and not printable):
                op = "type(%s).__name__" % a
            res = op
            if op.startswith(("-", "3 *", "1 +")) or " + " in op or " - " in op or " * " in op:
                res = "(lambda z: (type(z).__name__, getattr(z, 'v', z)))(%s)" % op
            self.probe(res)
        if "__setitem__" in ms and r.random() < 0.7:
            self.emit("try:")
            self.emit("%s[%d] = %d" % (b, r.randint(-2, 3), r.randint(0, 9)), 1)
            self.emit("print(%s.items)" % b, 1)
            self.handler()
        if "__iadd__" in ms or r.random() < 0.3:
            self.emit("try:")
            self.emit("%s += 5" % a, 1)
            self.emit("print(type(%s).__name__, %s.v)" % (a, a), 1)
            self.handler()
        if "__iter__" in ms and r.random() < 0.5:
            self.probe("[v for v in %s], [v for v in %s]" % (b, b))

    def seg_with(self):
        r = self.r
        c = self.cur
        self.feat("cls.__enter__/__exit__")
        self.emit("log%d = []" % c)
        self.emit("class M%d:" % c)
        self.emit("def __init__(self, name, swallow):", 1)
        self.emit("self.name = name", 2)
        self.emit("self.swallow = swallow", 2)
        self.emit("def __enter__(self):", 1)
        self.emit("log%d.append('enter ' + self.name)" % c, 2)
        self.emit("return %s" % self.pick(["self", "self.name", "None"]), 2)
        self.emit("def __exit__(self, kind, value, tb):", 1)
        self.emit("log%d.append(('exit', self.name, kind.__name__ if kind else None))" % c, 2)
        self.emit("return self.swallow", 2)
        self.emit("def use%d(k):" % c)
        heads = ["M%d('a', %s) as w" % (c, self.pick(["True", "False"]))]
        if r.random() < 0.4:
            self.feat("with.two-managers")
            heads.append("M%d('b', %s) as bb" % (c, self.pick(["True", "False"])))
            r.shuffle(heads)
        self.emit("with %s:" % ", ".join(heads), 1)
        self.emit("log%d.append(w if isinstance(w, str) else type(w).__name__)" % c, 2)
        self.emit("if k == 1:", 2)
        self.emit("raise ValueError('%s')" % self.utag(), 3)
        self.emit("if k == 2:", 2)
        self.emit("return 'early'", 3)
        self.emit("if k == 3:", 2)
        self.emit("x = 1 // 0", 3)
        self.emit("return 'after'", 1)
        for k in range(r.randint(1, 3)):
            self.probe("use%d(%d)" % (c, r.randrange(4)))
        self.emit("print(log%d)" % c)

    def seg_inherit(self):
        r = self.r
        c = self.cur
        self.feat("inherit")
        self.emit("class B%d:" % c)
        self.emit("kind = 'base'", 1)
        self.emit("def __init__(self, x):", 1)
        self.emit("self.x = x", 2)
        self.emit("def describe(self):", 1)
        self.emit("return type(self).__name__ + ':' + self.kind + ':' + str(self.value())", 2)
        self.emit("def value(self):", 1)
        self.emit("return self.x", 2)
        self.emit("def __repr__(self):", 1)
        self.emit("return '%s(%r)' % (type(self).__name__, self.x)", 2)
        self.emit("class D%d(B%d):" % (c, c))
        if r.random() < 0.6:
            self.emit("kind = 'derived'", 1)
        self.emit("def __init__(self, x, y=%d):" % r.randint(0, 5), 1)
        self.emit("super().__init__(x * 2)", 2)
        self.emit("self.y = y", 2)
        self.emit("def value(self):", 1)
        self.emit("return super().value() + self.y", 2)
        if r.random() < 0.5:
            self.feat("inherit.property")
            self.emit("@property", 1)
            self.emit("def total(self):", 1)
            self.emit("return self.x + self.y", 2)
        if r.random() < 0.5:
            self.feat("inherit.static-classmethod")
            self.emit("@staticmethod", 1)
            self.emit("def twice(v):", 1)
            self.emit("return v * 2", 2)
            self.emit("@classmethod", 1)
            self.emit("def make(cls, v):", 1)
            self.emit("return cls(v)", 2)
        self.emit("class E%d(D%d):" % (c, c))
        self.emit("def value(self):", 1)
        self.emit("return -super().value()", 2)
        cls = self.pick(["B", "D", "E"])
        self.emit("o%d = %s%d(%d)" % (c, cls, c, r.randint(-4, 9)))
        o = "o%d" % c
        ops = [o + ".describe()", "repr(%s)" % o, "isinstance(%s, B%d)" % (o, c), "isinstance(%s, E%d)" % (o, c),
               "issubclass(E%d, B%d), issubclass(B%d, D%d)" % (c, c, c, c), o + ".total", o + ".kind",
               "D%d.twice(%d), type(D%d.make(3)).__name__" % (c, r.randint(0, 9), c), "E%d.make(2).describe()" % c,
               "[type(k(1)).__name__ for k in (B%d, D%d, E%d)]" % (c, c, c), o + ".y",
               "getattr(%s, 'nope', 'dflt'), hasattr(%s, 'x')" % (o, o), "E%d.__name__, D%d.kind" % (c, c)]
        for _ in range(r.randint(2, 5)):
            self.probe(self.pick(ops))

    # ------------------------------------------------------------ slicing

    def bound(self):
        return self.pick(["", "", str(self.r.randint(-6, 6)), str(self.r.randint(-6, 6)), "100", "-100"])

    def sl(self, step=True):
        s = "%s:%s" % (self.bound(), self.bound())
        if step and self.r.random() < 0.5:
            s += ":" + self.pick(["", "1", "2", "-1", "-2", "3", "0", "-3"])
        return s

    def seg_slice(self):
        r = self.r
        c = self.cur
        seqs = ["[%s]" % ", ".join(str(x) for x in self.ints(r.randint(0, 7))),
                "'%s'" % self.pick(["abcdefg", "", "xy", "hello world"]), "(%s,)" % ", ".join(
                    str(x) for x in self.ints(r.randint(1, 6)))]
        for _ in range(r.randint(2, 5)):
            seq = self.pick(seqs)
            self.feat("slice.read")
            self.probe("%s[%s]" % (seq, self.sl()))
        if r.random() < 0.3:
            self.feat("slice.range")
            self.probe("list(range(%d, %d, %d)[%s])" % (r.randint(-3, 3), r.randint(0, 12), self.pick([1, 2, 3, -1]),
                                                       self.sl()))
        if r.random() < 0.2:
            self.feat("slice.object")
            self.probe("[0, 1, 2, 3, 4, 5][slice(%s)]" % self.pick(["2", "1, 4", "None, None, -2", "-3, None"]))
        self.emit("l%d = [%s]" % (c, ", ".join(str(x) for x in range(r.randint(0, 8)))))
        for _ in range(r.randint(1, 4)):
            k = r.randrange(5)
            self.emit("try:")
            if k == 0:
                self.feat("slice.assign")
                self.emit("l%d[%s] = [%s]" % (c, self.sl(step=False), ", ".join(["9"] * r.randint(0, 4))), 1)
            elif k == 1:
                self.feat("slice.assign-extended")
                self.emit("l%d[%s] = %s" % (c, self.sl(), self.pick(["[7, 7]", "[]", "(8,)", "'ab'", "range(3)"])), 1)
            elif k == 2:
                self.feat("slice.del")
                self.emit("del l%d[%s]" % (c, self.sl()), 1)
            elif k == 3:
                self.feat("slice.index-assign")
                self.emit("l%d[%d] = %d" % (c, r.randint(-9, 9), r.randint(0, 9)), 1)
            else:
                self.feat("slice.del-index")
                self.emit("del l%d[%d]" % (c, r.randint(-9, 9)), 1)
            self.emit("print(l%d)" % c, 1)
            self.handler()

    # ------------------------------------------------------------ builtin method tables

    def arg(self, kind):
        r = self.r
        if kind == "i":
            return str(r.randint(-4, 8))
        if kind == "s":
            return "'%s'" % self.pick(["a", "b", "ab", "", " ", ",", "l", "o", "x", "-", "abc", "c"])
        if kind == "w":
            return self.slit()
        if kind == "n":
            return str(r.randint(0, 12))
        if kind == "L":
            return "[%s]" % ", ".join(str(x) for x in self.ints())
        if kind == "S":
            return "{%s}" % ", ".join(str(x) for x in self.ints(r.randint(1, 4)))
        raise ValueError(kind)

    # method -> list of argument-kind strings (each a possible call shape)
    LIST_M = {"append": ["i"], "clear": [""], "copy": [""], "count": ["i"], "extend": ["L"], "index": ["i", "ii", "iii"],
              "insert": ["ii"], "pop": ["", "i"], "remove": ["i"], "reverse": [""], "sort": ["", "r"]}
    TUPLE_M = {"count": ["i"], "index": ["i", "ii"]}
    DICT_M = {"clear": [""], "copy": [""], "fromkeys": ["K"], "get": ["k", "ki"], "items": [""], "keys": [""],
              "pop": ["k", "ki"], "popitem": [""], "setdefault": ["k", "ki"], "update": ["D"], "values": [""]}
    SET_M = {"add": ["i"], "clear": [""], "copy": [""], "difference": ["S", "SS"], "difference_update": ["S"],
             "discard": ["i"], "intersection": ["S", "SS"], "intersection_update": ["S"], "isdisjoint": ["S"],
             "issubset": ["S"], "issuperset": ["S"], "remove": ["i"], "symmetric_difference": ["S"],
             "symmetric_difference_update": ["S"], "union": ["S", "SS", "L"], "update": ["S", "L"], "pop": ["1"]}
    FROZEN_M = {"copy": [""], "difference": ["S"], "intersection": ["S"], "isdisjoint": ["S"], "issubset": ["S"],
                "issuperset": ["S"], "symmetric_difference": ["S"], "union": ["S", "L"]}
    STR_M = {"capitalize": [""], "casefold": [""], "center": ["n", "ns"], "count": ["s", "si"], "endswith": ["s", "T"],
             "expandtabs": ["", "n"], "find": ["s", "si", "sii"], "format": ["i"], "index": ["s"], "isalnum": [""],
             "isalpha": [""], "isascii": [""], "isdecimal": [""], "isdigit": [""], "isidentifier": [""],
             "islower": [""], "isnumeric": [""], "isprintable": [""], "isspace": [""], "istitle": [""],
             "isupper": [""], "join": ["W"], "ljust": ["n", "ns"], "lower": [""], "lstrip": ["", "s"],
             "partition": ["s"], "removeprefix": ["s"], "removesuffix": ["s"], "replace": ["ss", "ssi"],
             "rfind": ["s"], "rindex": ["s"], "rjust": ["n", "ns"], "rpartition": ["s"], "rsplit": ["", "s", "si"],
             "rstrip": ["", "s"], "split": ["", "s", "si", "Ni"], "splitlines": ["", "B"], "startswith": ["s", "T", "si"],
             "strip": ["", "s"], "swapcase": [""], "title": [""], "upper": [""], "zfill": ["n"],
             "format_map": ["F"], "maketrans": ["M"], "translate": ["X"]}
    RANGE_M = {"count": ["i"], "index": ["i"], "start": ["@"], "stop": ["@"], "step": ["@"]}
    INT_M = {"bit_length": [""], "as_integer_ratio": [""], "conjugate": [""], "real": ["@"], "imag": ["@"],
             "numerator": ["@"], "denominator": ["@"]}
    FLOAT_M = {"is_integer": [""], "as_integer_ratio": [""], "hex": [""], "conjugate": [""], "real": ["@"],
               "imag": ["@"]}

    def args_of(self, shape, recv_kind):
        out = []
        for ch in shape:
            if ch == "r":
                out.append(self.pick(["reverse=True", "key=abs", "key=lambda x: -x, reverse=True"]))
            elif ch == "k":
                out.append("'%s'" % self.pick(["a", "b", "z"]))
            elif ch == "K":
                out.append(self.pick(["['p', 'q']", "'ab'", "range(2)"]) + self.pick(["", ", 0"]))
            elif ch == "D":
                out.append(self.pick(["{'a': 9, 'n': 1}", "[('z', 2)]", "b=5"]))
            elif ch == "T":
                out.append(self.pick(["('a', 'x')", "('',)", "()"]))
            elif ch == "W":
                out.append(self.pick(["['a', 'b', 'c']", "'xyz'", "[]", "['solo']", "[1, 2]"]))
            elif ch == "N":
                out.append("None")
            elif ch == "B":
                out.append(self.pick(["True", "keepends=True"]))
            elif ch == "F":
                out.append("{'a': 1}")
            elif ch == "M":
                out.append(self.pick(["'ab', 'xy'", "'abc', 'xyz', 'h'", "{'a': 'A', 'b': None}"]))
            elif ch == "X":
                out.append(self.pick(["str.maketrans('ab', 'ba')", "{97: 'Z', 98: None}", "{}"]))
            elif ch == "1":
                pass
            else:
                out.append(self.arg({"i": "i", "n": "n", "s": "s", "L": "L", "S": "S"}[ch]))
        return ", ".join(out)

    def seg_method(self):
        r = self.r
        c = self.cur
        for _ in range(r.randint(2, 5)):
            t = self.pick(["list", "list", "tuple", "dict", "set", "frozenset", "str", "str", "str", "range", "int",
                           "float"])
            table = {"list": self.LIST_M, "tuple": self.TUPLE_M, "dict": self.DICT_M, "set": self.SET_M,
                     "frozenset": self.FROZEN_M, "str": self.STR_M, "range": self.RANGE_M, "int": self.INT_M,
                     "float": self.FLOAT_M}[t]
            m = self.pick(sorted(table))
            shape = self.pick(table[m])
            self.feat("method.%s.%s" % (t, m))
            v = "v%d" % c
            if t == "list":
                recv = "[%s]" % ", ".join(str(x) for x in self.ints())
            elif t == "tuple":
                recv = "(%s,)" % ", ".join(str(x) for x in self.ints(r.randint(1, 5)))
            elif t == "dict":
                recv = "{%s}" % ", ".join("'%s': %d" % (k, r.randint(0, 9)) for k in r.sample("abcxyz", r.randint(0, 4)))
            elif t in ("set", "frozenset"):
                n = 1 if m == "pop" else r.randint(0, 4)
                body = "{%s}" % ", ".join(str(x) for x in self.ints(n)) if n else "()"
                recv = "%s(%s)" % (t, body) if t == "frozenset" or not n else body
            elif t == "str":
                recv = self.slit() if m != "format" else "'{} and {!r}'" if r.random() < 0.5 else "'{0:>4}|'"
                if m == "format_map":
                    recv = "'{a}-{a}'"
                if m == "maketrans":
                    self.probe("sorted(str.maketrans(%s).items())" % self.args_of(shape, t))
                    continue
            elif t == "range":
                recv = "range(%d, %d, %d)" % (r.randint(-3, 3), r.randint(0, 12), self.pick([1, 2, 3, -1]))
            elif t == "int":
                recv = ilit(self.pick(SMALL_INTS + EDGE_INTS))
            else:
                recv = self.pick(FLOATS)
            # one unit: receiver, call, the receiver afterwards (a missing constructor or
            # method fails the unit, not the program)
            self.emit("try:")
            self.emit("%s = %s" % (v, recv), 1)
            if shape == "@":
                self.emit("print(%s.%s)" % (v, m), 1)
                self.handler()
                continue
            call = "%s.%s(%s)" % (v, m, self.args_of(shape, t))
            if t in ("set", "frozenset"):
                self.emit("print((lambda z: sorted(z) if isinstance(z, (set, frozenset)) else z)(%s))" % call, 1)
                self.emit("print(sorted(%s))" % v, 1)
            elif t == "dict" and m in ("keys", "values", "items"):
                self.emit("print(list(%s))" % call, 1)
            elif t == "float" and m == "hex":
                self.emit("print(%s)" % call, 1)
                self.emit("print(float.fromhex(%s.hex()))" % v, 1)
                self.feat("method.float.fromhex")
            else:
                self.emit("print(%s)" % call, 1)
                if t in ("list", "dict"):
                    self.emit("print(%s)" % v, 1)
            self.handler()

    # ------------------------------------------------------------ number parsing

    def numstr(self):
        r = self.r
        k = r.randrange(10)
        sign = self.pick(["", "", "-", "+", " -"])
        ws = self.pick(["", "", " ", "\\t", "\\n ", "  "])
        digits = "".join(self.pick("0123456789") for _ in range(r.randint(1, 5)))
        if k < 2:
            return ws + sign + digits + ws
        if k == 2:
            return sign + "_".join(digits) + self.pick(["", "_", "__0"])
        if k == 3:
            return sign + digits + "." + "".join(self.pick("0123456789") for _ in range(r.randint(0, 3))) + \
                self.pick(["", "e5", "E-3", "e+2", "e", "e400", "e-400"])
        if k == 4:
            return sign + self.pick(["inf", "Infinity", "nan", "NaN", "-inf", "iNF", "infinit", "nan1"])
        if k == 5:
            return self.pick(["0x1f", "0X1F", "0o17", "0b101", "0b2", "0x", "1f", "ff", "z", "Z9", "0_1", "00"])
        if k == 6:
            return self.pick(["1_0.5", "1__0", "_1", "1_", ".5", "5.", ".", "", " ", "1e5_0", "1_000.000_1",
                              "9223372036854775807", "9223372036854775808", "-9223372036854775808",
                              "99999999999999999999", "1" * 25, "0.1e-3", "4.9e-324", "1.8e308"])
        if k == 7:
            return self.pick(["\u0663", "\u0661\u0662", "\uff11\uff12", "\u00b2", "\u00bd", "\u2167"])
        if k == 8:
            return sign + digits + self.pick(["", "L", "j", " 1", "+1"])
        return sign + self.pick(["1", "0", "12"]) + self.pick(["", ".0", ".5"])

    def seg_parse(self):
        r = self.r
        for _ in range(r.randint(3, 8)):
            s = self.numstr()
            k = r.randrange(4)
            if k == 0:
                self.feat("parse.int")
                self.probe("int('%s')" % s, wrap="repr(%s)")
            elif k == 1:
                self.feat("parse.int-base")
                self.probe("int('%s', %s)" % (s, self.pick(["0", "2", "8", "16", "36", "10", "1", "37"])),
                           wrap="repr(%s)")
            else:
                self.feat("parse.float")
                self.probe("float('%s')" % s, wrap="repr(%s)")
        if r.random() < 0.5:
            self.feat("parse.convert")
            self.probe("int(%s)" % self.pick(FLOATS + ["True", "'  7  '", "-2.9", "2.9", "1e18", "1e19"]))
            self.probe("float(%s)" % self.pick(["True", "7", ilit(2 ** 63 - 1), ilit(2 ** 53 + 1), "'-0'", "'  .5 '"]))
            self.probe("int(%s), int(%s)" % (self.pick(["-0.5", "0.99", "-7.9", "1e15"]), self.pick(["'-0'", "'+0'", "'007'"])))

    # ------------------------------------------------------------ formatting

    def spec(self, for_kind):
        r = self.r
        s = ""
        if r.random() < 0.3:
            s += self.pick("*-0x#") + self.pick("<>^=")
        elif r.random() < 0.3:
            s += self.pick("<>^")
        if r.random() < 0.3:
            s += self.pick("+- ")
        if r.random() < 0.15:
            s += "#"
        if r.random() < 0.15:
            s += "0"
        if r.random() < 0.5:
            s += str(r.randint(0, 12))
        if r.random() < 0.2:
            s += self.pick(",_")
        if r.random() < 0.4 and for_kind != "int":
            s += "." + str(r.randint(0, 10))
        if r.random() < 0.8:
            s += self.pick({"int": "bcdoxXn%eEfFgG", "float": "eEfFgGn%", "str": "s"}[for_kind] + "")
        return s

    def fmt_value(self):
        r = self.r
        k = self.pick(["int", "float", "float", "str"])
        if k == "int":
            return k, ilit(self.pick(SMALL_INTS + EDGE_INTS))
        if k == "float":
            return k, self.pick(FLOATS)
        return k, self.slit(self.pick(["", "a", "abc", "h\u00e9llo", "x y", "tab"]))

    def fline(self, expr):
        """A formatted result whose floats are in CPython's spelling by contract (a format spec
        with a type or precision): printed after `F|`, compared without the float-exponent
        normalisation."""
        self.probe("'F|' + %s" % expr)

    def seg_format(self):
        r = self.r
        for _ in range(r.randint(3, 7)):
            k = r.randrange(6)
            kind, v = self.fmt_value()
            sp = self.spec(kind)
            typed = bool(sp) and (sp[-1] in "bcdoxXneEfFgG%s" or "." in sp)
            if kind == "float" and not typed and "e" in repr(eval(v)):
                # DGL pads its own exponent spelling (docs/language.md): a width would show the
                # length difference the normalisation cannot undo
                sp = ""
            show = self.fline if typed else self.probe
            if k == 0:
                self.feat("format.format()")
                show("format(%s, '%s')" % (v, sp))
            elif k == 1:
                self.feat("format.f-string")
                self.emit("fv = %s" % v)
                show("f'{fv:%s}|'" % sp)
            elif k == 2:
                self.feat("format.str.format")
                show("'[{0:%s}] {1!r:>6}'.format(%s, %s)" % (sp, v, self.slit()))
            elif k == 3:
                self.feat("format.percent")
                conv = self.pick(["d", "i", "x", "X", "o", "e", "E", "f", "F", "g", "G", "s", "r", "c", "%", "a"])
                fl = "".join(self.pick(["", "-", "+", " ", "0", "#"]) for _ in range(r.randint(0, 2)))
                w = self.pick(["", "5", "12", "*"])
                p = self.pick(["", ".0", ".3", ".12"])
                if conv in "sra" and kind == "float" and "e" in repr(eval(v)):
                    w = p = ""  # as above: DGL's exponent spelling, padded or cut
                fmt = "%" + fl + w + p + conv
                args = ("7, " if w == "*" else "") + v
                typed = conv not in "sra"
                (self.fline if typed else self.probe)("'<%s>' %% (%s,)" % (fmt, args))
            elif k == 4:
                self.feat("format.f-string-conv")
                self.emit("fv = %s" % v)
                self.emit("fw = %s" % self.slit())
                self.probe("f'{fv!r} {fw!s:>8} {fv=} {fw=!s:4}'")
            else:
                self.feat("format.named")
                self.probe("'%%(a)s-%%(b)05d' %% {'a': %s, 'b': %s}" % (self.slit(), self.pick(["7", "-3", "12345678"])))
                if kind == "float" and "e" in repr(eval(v)):
                    v = "2.5"
                self.probe("'{a}{b:{w}}{c[1]}'.format(a=%s, b=%s, w=%d, c=[1, 2])" % (self.slit(), v, r.randint(0, 9)))

    # ------------------------------------------------------------ int/float arithmetic

    def num_atom(self):
        r = self.r
        if r.random() < 0.55:
            return ilit(self.pick(SMALL_INTS + EDGE_INTS + [r.randint(-100, 100)]))
        return self.pick(FLOATS)

    def num_expr(self, d):
        """(text, value) with every nested int within 64 bits; value None when CPython raises."""
        r = self.r
        for _ in range(20):
            if d <= 0 or r.random() < 0.3:
                t = self.num_atom()
            else:
                a, va = self.num_expr(d - 1)
                b, vb = self.num_expr(d - 1)
                k = r.randrange(12)
                if k < 7:
                    op = self.pick(["+", "-", "*", "/", "//", "%", "**"])
                    if op == "**" and isinstance(va, int) and isinstance(vb, int) and not isinstance(vb, bool):
                        if abs(vb) > 64 or (abs(va) > 1 and vb * abs(va).bit_length() > 200):
                            continue
                    if op == "**" and isinstance(vb, float) and abs(vb) > 2000:
                        continue
                    t = "(%s %s %s)" % (a, op, b)
                elif k == 7:
                    t = "-%s" % a
                elif k == 8:
                    t = "abs(%s)" % a
                elif k == 9:
                    t = "%s(%s)" % (self.pick(["round", "int", "float"]), a)
                elif k == 10:
                    t = "round(%s, %d)" % (a, r.randint(-3, 4))
                else:
                    if isinstance(vb, int) and not (0 <= vb <= 70):
                        continue
                    t = "(%s %s %s)" % (a, self.pick(["&", "|", "^", "<<", ">>"]), b)
            try:
                v = eval(t, {"math": math})
            except Exception:
                v = None
            if d <= 0 or in64(v):
                return t, v
        return "1", 1

    def seg_arith(self):
        r = self.r
        for _ in range(r.randint(3, 8)):
            k = r.randrange(8)
            if k < 3:
                self.feat("arith.expr")
                t, v = self.num_expr(2)
                if not in64(v):
                    self.feat("arith.beyond-int64")
                self.probe(t, wrap="repr(%s)")
            elif k == 3:
                self.feat("arith.divmod-pow")
                a, b = self.num_atom(), self.num_atom()
                c = self.pick(["divmod(%s, %s)" % (a, b), "pow(%s, %d, %d)" % (r.randint(-9, 30), r.randint(-2, 40),
                                                                             r.randint(-5, 97)),
                               "%s // %s, %s %% %s" % (a, b, a, b)])
                try:
                    v = eval(c)
                    if any(isinstance(x, int) and not in64(x) for x in (v if isinstance(v, tuple) else (v,))):
                        continue
                except Exception:
                    pass
                self.probe(c)
            elif k == 4:
                self.feat("arith.round")
                self.probe("round(%s%s)" % (self.pick(FLOATS + ["2.675", "0.125", "-1.5", "2.5", "1e15 + 0.5",
                                                               "12345", "-15", "1e22"]),
                                            self.pick(["", ", 0", ", 1", ", 2", ", -1", ", -2", ", 5"])), wrap="repr(%s)")
            elif k == 5:
                self.feat("arith.compare")
                a, b = self.num_atom(), self.num_atom()
                self.probe("%s %s %s, %s == %s, min(%s, %s), max(%s, %s)" % (
                    a, self.pick(["<", "<=", ">", ">=", "==", "!="]), b, a, b, a, b, b, a))
            elif k == 6:
                self.feat("arith.math")
                self.emit("import math")
                f = self.pick(["floor", "ceil", "trunc", "sqrt", "exp", "log", "log10", "log2", "fabs", "isnan",
                               "isinf", "isfinite", "sin", "atan", "tanh", "expm1", "log1p"])
                self.probe("math.%s(%s)" % (f, self.num_atom()), wrap="repr(%s)")
                self.probe("math.%s" % self.pick(["copysign(1.0, %s)", "fmod(%s, 3.0)", "isclose(%s, 1.0)",
                                                   "gcd(%s, 12)" if False else "atan2(%s, -1.0)",
                                                   "hypot(%s, 4.0)", "ldexp(1.5, 3) + %s", "modf(%s)",
                                                   "frexp(%s)", "factorial(%d) + 0 * %%s" % r.randint(0, 20)]) % self.num_atom(),
                           wrap="repr(%s)")
            else:
                self.feat("arith.bool-int")
                self.probe(self.pick(["True + True, True * 3, -True", "(True / 2, False ** 0)",
                                      "isinstance(True, int), int(True), str(False)", "1 == 1.0, hash(1) == hash(1.0)",
                                      "0.1 + 0.2 == 0.3, 0.1 + 0.2", "7 // -2, -7 // 2, 7 % -2, -7 % 2",
                                      "7.5 // -2, -7.5 % 2, divmod(-0.0, 1.0)", "float('nan') == float('nan')",
                                      "1e308 * 10, -1e308 * 10, 1e308 * 10 - 1e308 * 10", "2 ** -1, 0 ** 0, 0.0 ** 0",
                                      "10 / 4, 10 // 4, -10 / 4, 1 / 3"]))

    # ------------------------------------------------------------ complex numbers

    def cx_expr(self, d):
        """(text, value) of a complex expression over complex, int and float atoms, every nested
        int within 64 bits; value None when CPython raises."""
        r = self.r
        for _ in range(20):
            if d <= 0 or r.random() < 0.3:
                t = self.pick(COMPLEXES) if r.random() < 0.6 else self.num_atom()
            else:
                a, va = self.cx_expr(d - 1)
                b, vb = self.cx_expr(d - 1)
                k = r.randrange(10)
                if k < 7:
                    op = self.pick(["+", "-", "*", "/", "**"])
                    if op == "**" and isinstance(vb, int) and isinstance(va, int) and abs(vb) > 40:
                        continue
                    t = "(%s %s %s)" % (a, op, b)
                elif k == 7:
                    t = self.pick(["-%s", "+%s", "abs(%s)", "(%s).conjugate()"]) % a
                elif k == 8:
                    t = "complex(%s, %s)" % (a, b)
                else:
                    t = "(%s).%s" % (a, self.pick(["real", "imag"]))
            try:
                v = eval(t)
            except Exception:
                v = None
            if d <= 0 or in64(v):
                return t, v
        return "1j", 1j

    def seg_complex(self):
        r = self.r
        for _ in range(r.randint(3, 8)):
            k = r.randrange(9)
            t, v = self.cx_expr(2)
            if k < 4:
                self.feat("complex.expr")
                self.probe(t, wrap="repr(%s)")
            elif k == 4:
                self.feat("complex.compare")
                u, _ = self.cx_expr(1)
                self.probe("%s %s %s, %s in [1j, 0j, 1, 2.5]" % (t, self.pick(["==", "!=", "<", ">="]), u, t))
                if isinstance(v, complex) and not math.isnan(v.real) and not math.isnan(v.imag):
                    self.probe("hash(%s)" % t)
                    self.probe("hash(%s) == hash(%s.real), bool(%s)" % (t, t, t))
            elif k == 5:
                self.feat("complex.format")
                if not isinstance(v, complex):
                    # A float's own spec without a type pads DGL's exponent spelling (README.md).
                    t = "complex(%s)" % t
                self.probe("format(%s, %r)" % (t, self.pick(COMPLEX_SPECS)))
            elif k == 6:
                self.feat("complex.parse")
                text = "".join(self.pick(["", " ", "(", "1", "-", "+", "2.5", "e3", "j", "J", "_0", "inf", "nan", ")",
                                          "1_0", ".5"]) for _ in range(r.randint(1, 6)))
                self.probe("complex(%r)" % text, wrap="repr(%s)")
            elif k == 7:
                self.feat("complex.typeerror")
                u, _ = self.cx_expr(0)
                forms = ["divmod(%s, %s)", "%s // %s", "%s %% %s", "int(%s) + 0 * %s", "float(%s) + 0 * %s",
                         "round(%s) + 0 * %s"]
                if isinstance(v, float) and v == v and abs(v) != float("inf") and abs(v) >= 2.0 ** 63:
                    forms = forms[:3] + forms[4:5]  # int() and round() of it exceed DGL's 64-bit ints
                self.probe(self.pick(forms) % (t, u))
            else:
                self.feat("complex.builtin")
                u, _ = self.cx_expr(1)
                self.probe(self.pick(["sum([%s, %s])", "type(%s).__name__, isinstance(%s, complex)",
                                      "[%s, %s]", "str(%s) + '|' + str(%s)", "abs(%s) + abs(%s)"]) % (t, u))

    # ------------------------------------------------------------ strings: escapes and repr

    ESCAPES = ["\\n", "\\t", "\\\\", "\\'", '\\"', "\\x41", "\\u00e9", "\\0", "\\x7f", "\\x1b", "\\r", "\\a",
               "\\u200b", "\\U0001F600", "\\x00", "\u2192", "\u00e9", "\\xa0",
               "\\ud7ff", "\\u2028", "\\x85", "\\xad", "'", '"', "\\v\\f", "\\b"]

    def seg_string(self):
        r = self.r
        for _ in range(r.randint(2, 6)):
            parts = [self.pick(["a", "b c", "", "xyz", "'", '"'] + self.ESCAPES) for _ in range(r.randint(1, 4))]
            q = "'" if r.random() < 0.6 else '"'
            lit = q + "".join("\\" + p if p == q else p for p in parts) + q
            if any(p in ("\\x1b", "\\x00", "\\0", "\\x7f", "\\a", "\\v\\f", "\\b", "\\u200b", "\\x85", "\\xad",
                         "\\u2028", "\\xa0") for p in parts):
                self.feat("string.repr-nonprintable")
            self.feat("string.escape")
            k = r.randrange(5)
            if k == 0:
                self.probe("repr(%s)" % lit)
            elif k == 1:
                self.probe("[%s], (%s,)" % (lit, lit))
            elif k == 2:
                self.probe("len(%s), [ord(ch) for ch in %s]" % (lit, lit))
            elif k == 3:
                self.probe("%s.isprintable(), ascii(%s)" % (lit, lit))
            else:
                self.probe("{%s: %s}" % (lit, lit))
        if r.random() < 0.5:
            self.feat("string.raw-triple")
            self.probe(self.pick(["repr('''x\ny''')", "repr(\"it's\")", "repr('say \"hi\"')",
                                  "repr('both \\' and \"')", "str(['a\\'b', \"c\\\"d\"])", "chr(%d) + chr(%d)" % (
                                      r.randint(32, 0x2fff), r.randint(0, 127)),
                                  "repr(chr(%d))" % r.choice([0, 7, 10, 27, 127, 128, 160, 173, 255, 0x200b, 0x2028,
                                                              0xd800 - 1, 0xe000, 0xfeff, 0x1f600, 0x10ffff])]))

    # ------------------------------------------------------------ builtins

    def codepoint(self):
        """A code point for chr(), out of range now and then, never a surrogate (DGL strings hold
        none: docs/reference.md, chr)."""
        c = self.r.randint(-1, 0x11000)
        return c if not 0xD800 <= c <= 0xDFFF else c - 0x800

    def seg_builtin(self):
        r = self.r
        for _ in range(r.randint(3, 7)):
            L = "[%s]" % ", ".join(str(x) for x in self.ints())
            W = "[%s]" % ", ".join(self.slit() for _ in range(r.randint(0, 4)))
            k = r.randrange(12)
            if k == 0:
                self.feat("builtin.sorted-minmax")
                self.probe(self.pick(["sorted(%s, key=%s, reverse=%s)" % (L, self.pick(["abs", "lambda x: x % 3", "None"]),
                                                                          self.pick(["True", "False"])),
                                      "min(%s, default='e'), max(%s, key=lambda x: -x, default=None)" % (L, L),
                                      "min(%s), max(%s)" % (L, W), "sorted(%s, key=len)" % W,
                                      "min(3, 1.5, key=lambda x: -x), max('b', 'ab')"]))
            elif k == 1:
                self.feat("builtin.zip-enumerate")
                self.probe(self.pick(["list(zip(%s, %s))" % (L, W), "list(enumerate(%s, %d))" % (W, r.randint(-2, 3)),
                                      "dict(zip(%s, %s))" % (W, L), "list(zip(%s, %s, 'ab'))" % (L, L),
                                      "[(i, w) for i, w in enumerate(%s)]" % W]))
            elif k == 2:
                self.feat("builtin.map-filter-reversed")
                self.probe(self.pick(["list(map(abs, %s))" % L, "list(map(lambda a, b: a * b, %s, %s))" % (L, L),
                                      "list(filter(None, %s))" % L, "list(filter(lambda x: x > 0, %s))" % L,
                                      "list(reversed(%s))" % L, "list(reversed('abc'))", "list(map(str.upper, %s))" % W]))
            elif k == 3:
                self.feat("builtin.sum-any-all")
                self.probe("sum(%s), sum(%s, %s), any(%s), all(%s)" % (L, L, self.pick(["10", "0.5", "-1"]), L, L))
            elif k == 4:
                self.feat("builtin.chr-ord-bin")
                v = self.pick(SMALL_INTS + [r.randint(-300, 300)])
                self.probe("bin(%s), oct(%s), hex(%s)" % (ilit(v), ilit(v), ilit(v)))
                self.probe("chr(%d), ord(%s)" % (self.codepoint() if r.random() < 0.3 else r.randint(32, 126),
                                                 self.slit(self.pick(["a", "\u00e9", "ab", "", "\u2192"]))))
            elif k == 5:
                self.feat("builtin.isinstance-type")
                v = self.pick(["1", "1.5", "'s'", "[1]", "(1,)", "{1: 2}", "True", "None", "range(3)", "{1}"])
                self.probe("type(%s).__name__, isinstance(%s, %s)" % (v, v, self.pick(
                    ["int", "float", "(int, float)", "str", "list", "tuple", "dict", "bool", "object"])))
            elif k == 6:
                self.feat("builtin.conversions")
                self.probe(self.pick(["list('abc'), tuple([1, 2]), dict([('a', 1)]), str(12), bool('')",
                                      "list({'a': 1, 'b': 2}), list(range(%d, %d, %d))" % (r.randint(-5, 5), r.randint(-5, 9),
                                                                                           self.pick([1, 2, -1, -3, 0])),
                                      "bool([]), bool([0]), bool(0.0), bool(-0.0), bool('0')",
                                      "str(None), str(True), str([None, True, 1.0]), repr([1, 'a', (2,)])",
                                      "dict(a=1, b=2), dict({'x': 1}, y=2), list(dict.fromkeys('abca'))"]))
            elif k == 7:
                self.feat("builtin.comprehension")
                self.probe(self.pick(["[x * y for x in %s for y in %s if x != y]" % (L, L),
                                      "{x: x %% 3 for x in %s}" % L, "sorted({x %% 4 for x in %s})" % L,
                                      "[[j for j in range(i)] for i in range(4)]",
                                      "sum(x for x in %s if x %% 2)" % L]))
            elif k == 8:
                self.feat("builtin.unpack")
                self.emit("try:")
                self.emit(self.pick(["a, *b = %s" % L, "*a, b = %s" % L, "a, b = %s" % L, "(a, b), c = (1, 2), 3",
                                     "a, (b, *c) = 1, %s" % L]), 1)
                self.emit("print(a, b)", 1)
                self.handler()
            elif k == 9:
                self.feat("builtin.print-args")
                self.emit("print(%s, sep=%s, end=%s)" % (", ".join(self.slit() for _ in range(r.randint(1, 3))),
                                                         self.slit(self.pick(["", "-", ", "])),
                                                         self.slit(self.pick(["|\\n", "\\n", "!\\n"]))))
                self.probe("*%s" % L, wrap="%s")
            elif k == 10:
                self.feat("builtin.getattr-callable")
                self.probe("getattr(%s, 'append', None) is not None, callable(len), callable(3), hasattr('s', 'upper')" % L)
            else:
                self.feat("builtin.iter-next")
                self.emit("it%d = iter(%s)" % (self.cur, L))
                self.probe("next(it%d, 'done'), next(it%d, 'done'), list(it%d)" % ((self.cur,) * 3))
                self.probe("next(iter([]))")

    # ------------------------------------------------------------ programs

    def program(self):
        r = self.r
        kinds = [self.pick(FEATURES) for _ in range(r.randint(2, 5))]
        for kind in kinds:
            self.cur = self.fresh()
            self.feat(kind)
            self.emit('print("== %d %s")' % (self.cur, kind))
            getattr(self, "seg_" + kind)()
        if r.random() < 0.08:
            self.feat("uncaught")
            self.emit(self.pick(["raise ValueError('%s')" % self.utag(), "print(1 // 0)", "print({}['k'])",
                                 "raise KeyError('%s')" % self.utag(), "print(undefined_name_z)",
                                 "raise RuntimeError()"]))
        return "\n".join(self.lines) + "\n"


def gen(seed):
    """(program text, sorted feature tags) for `seed`."""
    g = G(seed)
    src = g.program()
    return src, sorted(g.features)


if __name__ == "__main__":
    src, feats = gen(int(sys.argv[1]) if len(sys.argv) > 1 else 0)
    print(src, end="")
    print("# features:", " ".join(feats))
