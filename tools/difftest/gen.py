"""Seeded generator of random programs valid both as DGL and as TF Python (with prelude.py).

gen(seed) -> program text. Same seed, same text.
"""
import random
import sys

SHAPES = [(), (2,), (3,), (2, 3), (3, 2), (2, 2)]


class G:
    def __init__(self, seed):
        self.r = random.Random(seed)
        self.lines = []
        self.n = 0

    def fresh(self, p="v"):
        self.n += 1
        return "%s%d" % (p, self.n)

    def emit(self, line, ind=0):
        self.lines.append("    " * ind + line)

    def lit(self, shape):
        r = self.r
        if not shape:
            return "%.3f" % r.uniform(-1.5, 1.5)
        if len(shape) == 1:
            return "[" + ", ".join("%.3f" % r.uniform(-1.5, 1.5) for _ in range(shape[0])) + "]"
        return "[" + ", ".join(self.lit(shape[1:]) for _ in range(shape[0])) + "]"

    # expression of shape `shape` over names (all of shape `shape`)
    def expr(self, names, shape, d):
        r = self.r
        if d <= 0 or r.random() < 0.2:
            n = r.choice(names)
            return n if r.random() < 0.6 else "tanh(%s)" % n
        k = r.randrange(30)
        a = lambda: self.expr(names, shape, d - 1)
        sq = lambda: "tanh(%s)" % a()
        if k == 0: return "(%s + %s)" % (a(), a())
        if k == 1: return "(%s - %s)" % (a(), a())
        if k == 2: return "(%s * %s)" % (sq(), sq())
        if k == 3: return "(%s / (2.0 + %s))" % (a(), sq())
        if k == 4: return "((1.5 + %s) ** %s)" % (sq(), r.choice(["2.0", "0.5", "3.0", "tanh(%s)" % a()]))
        if k == 5: return "neg(%s)" % a()
        if k == 6: return "abs(%s)" % a()
        if k == 7: return "exp(%s)" % sq()
        if k == 8: return "log(1.5 + %s)" % sq()
        if k == 9: return "sqrt(1.5 + %s)" % sq()
        if k == 10: return "square(%s)" % sq()
        if k == 11: return "%s(%s)" % (r.choice(["sin", "cos", "tanh", "sigmoid", "relu", "softplus"]), a())
        if k == 12: return "%s(%s, %s)" % (r.choice(["maximum", "minimum"]), a(), a())
        if k == 13: return "where(%s > 0.0, %s, %s)" % (a(), a(), a())
        if k == 14: return "clip_by_value(%s, -0.5, 0.7)" % a()
        if k == 15: return "(%s * %s)" % (self.lit(()), a())
        if k == 16: return "stop_gradient(%s)" % a() if r.random() < 0.3 else a()
        if len(shape) == 2:
            R, C = shape
            if k == 17: return "reshape(reshape(%s, [-1]), [%d, %d])" % (a(), R, C)
            if k == 18: return "transpose(transpose(%s))" % a()
            if k == 19: return "squeeze(expand_dims(%s, 0), 0)" % a()
            if k == 20: return "gather(%s, %s, axis=%d)" % (a(), self.perm(shape[0]), 0) if r.random() < .5 else \
                "gather(%s, %s, axis=1)" % (a(), self.perm(C))
            if k == 21: return "concat([%s[:1], %s[1:]], axis=0)" % (a(), a())
            if k == 22: return "reduce_sum(stack([%s, %s]), axis=0)" % (a(), a())
            if k == 23: return "tile(%s[:1], [%d, 1])" % (a(), R)
            if k == 24: return "matmul(tanh(matmul(%s, transpose(%s))), %s)" % (a(), a(), a())
            if k == 25: return "%s(%s, axis=-1)" % (r.choice(["softmax", "log_softmax"]), a())
            if k == 26: return "(%s + %s(%s, axis=%d, keepdims=True))" % (
                a(), r.choice(["reduce_sum", "reduce_mean", "reduce_max", "reduce_min", "reduce_logsumexp"]),
                a(), r.choice([0, 1, -1]))
            if k == 27: return "(%s * %s[%d])" % (a(), a(), r.randrange(R))
        if len(shape) == 1:
            N = shape[0]
            if k == 20: return "gather(%s, %s)" % (a(), self.perm(N))
            if k == 21: return "concat([%s[:1], %s[1:]], axis=0)" % (a(), a())
            if k == 25: return "%s(%s)" % (r.choice(["softmax", "log_softmax"]), a())
            if k == 23: return "reshape(tile(expand_dims(%s, 0), [2, 1])[1], [%d])" % (a(), N)
            if k == 26: return "(%s + %s(%s))" % (a(), r.choice(["reduce_sum", "reduce_mean", "reduce_max",
                                                              "reduce_min", "reduce_logsumexp"]), a())
        return "sin(%s)" % a()

    def perm(self, n):
        p = list(range(n))
        self.r.shuffle(p)
        return str(p)

    def scalar(self, names, shape, d):
        """scalar expression."""
        r = self.r
        e = self.expr(names, shape, d)
        red = r.choice(["reduce_sum", "reduce_mean", "reduce_max", "reduce_min", "reduce_logsumexp"])
        if not shape:
            return e
        if len(shape) == 2 and r.random() < 0.3:
            R, C = shape
            if r.random() < 0.5:
                return "reduce_sum(softmax_cross_entropy_with_logits(softmax(%s), %s))" % (self.expr(names, shape, 1), e)
            labels = [r.randrange(C) for _ in range(R)]
            return "reduce_mean(sparse_softmax_cross_entropy_with_logits(%s, %s))" % (labels, e)
        if len(shape) == 2 and r.random() < 0.5:
            ax = r.choice([0, 1, -1, [0, 1]])
            kd = r.choice(["False", "True"])
            return "reduce_sum(%s(%s, axis=%s, keepdims=%s))" % (red, e, ax, kd)
        return "%s(%s)" % (red, e)

    def consts(self, k, shape, names=None):
        names = names or [self.fresh("c") for _ in range(k)]
        for n in names:
            self.emit("%s = constant(%s)" % (n, self.lit(shape)))
        return names

    def program(self):
        r = self.r
        shape = r.choice(SHAPES)
        mode = r.choice(["plain", "persistent", "second", "list", "dict", "outgrad", "zero", "jacobian",
                         "stoprec", "custom1", "custom2", "customout2", "recompute", "recompute_wrapped",
                         "recompute_nested", "varloop"])
        if mode == "jacobian":
            shape = r.choice([(), (2,), (3,), (2, 2)])
        if mode == "second":
            shape = r.choice([(), (2,), (3,)])
        getattr(self, "m_" + mode)(shape)
        return "\n".join(["# mode: %s shape: %s" % (mode, shape)] + self.lines) + "\n"

    def m_plain(self, s):
        c = self.consts(2, s)
        self.emit("with GradientTape() as t:")
        self.emit("t.watch(%s)" % c[0], 1)
        self.emit("t.watch(%s)" % c[1], 1)
        self.emit("y = %s" % self.scalar(c, s, 3), 1)
        self.emit("print(y)")
        self.emit("g = t.gradient(y, %s)" % c[0])
        self.emit("print(g)")

    def m_persistent(self, s):
        c = self.consts(2, s)
        self.emit("with GradientTape(persistent=True) as t:")
        self.emit("t.watch([%s, %s])" % tuple(c), 1)
        self.emit("y = %s" % self.scalar(c, s, 3), 1)
        self.emit("z = %s" % self.expr(c, s, 2), 1)
        self.emit("print(t.gradient(y, %s))" % c[0])
        self.emit("print(t.gradient(z, %s))" % c[1])
        self.emit("print(t.gradient(y, %s))" % c[1])

    def m_second(self, s):
        c = self.consts(1, s)
        self.emit("with GradientTape() as outer:")
        self.emit("outer.watch(%s)" % c[0], 1)
        self.emit("with GradientTape() as inner:", 1)
        self.emit("inner.watch(%s)" % c[0], 2)
        self.emit("y = %s" % self.scalar(c, s, 3), 2)
        self.emit("g = inner.gradient(y, %s)" % c[0], 1)
        self.emit("h = reduce_sum(g * g)", 1)
        self.emit("print(g)")
        self.emit("print(outer.gradient(h, %s))" % c[0])

    def m_list(self, s):
        c = self.consts(3, s)
        self.emit("with GradientTape() as t:")
        self.emit("t.watch(%s)" % c[0], 1)
        self.emit("t.watch(%s)" % c[1], 1)
        self.emit("y = %s" % self.scalar(c[:2], s, 3), 1)
        self.emit("g = t.gradient(y, [%s, [%s, %s]])" % tuple(c))
        self.emit("print(g[0])")
        self.emit("print(g[1][0])")
        self.emit("print(g[1][1])")

    def m_dict(self, s):
        c = self.consts(2, s)
        self.emit("with GradientTape() as t:")
        self.emit("t.watch(%s)" % c[0], 1)
        self.emit("t.watch(%s)" % c[1], 1)
        self.emit("y = %s" % self.scalar(c, s, 3), 1)
        self.emit("g = t.gradient(y, {'a': %s, 'b': %s})" % tuple(c))
        self.emit("print(g['a'])")
        self.emit("print(g['b'])")

    def m_outgrad(self, s):
        c = self.consts(2, s)
        self.emit("og = constant(%s)" % self.lit(s))
        self.emit("with GradientTape() as t:")
        self.emit("t.watch(%s)" % c[0], 1)
        self.emit("y = %s" % self.expr(c, s, 3), 1)
        self.emit("print(t.gradient(y, %s, output_gradients=og))" % c[0])

    def m_zero(self, s):
        c = self.consts(3, s)
        self.emit("with GradientTape() as t:")
        self.emit("t.watch([%s, %s, %s])" % tuple(c), 1)
        self.emit("y = %s" % self.scalar(c[:2], s, 3), 1)
        self.emit("g = t.gradient(y, [%s, %s], unconnected_gradients='zero')" % (c[0], c[2]))
        self.emit("print(g[0])")
        self.emit("print(g[1])")

    def m_jacobian(self, s):
        c = self.consts(2, s)
        self.emit("with GradientTape(persistent=True) as t:")
        self.emit("t.watch(%s)" % c[0], 1)
        self.emit("t.watch(%s)" % c[1], 1)
        self.emit("y = %s" % self.expr(c, s, 3), 1)
        self.emit("print(t.jacobian(y, %s))" % c[0])
        self.emit("print(t.gradient(y, %s))" % c[1])

    def m_stoprec(self, s):
        c = self.consts(2, s)
        self.emit("with GradientTape() as t:")
        self.emit("t.watch(%s)" % c[0], 1)
        self.emit("a = %s" % self.expr(c, s, 2), 1)
        self.emit("with t.stop_recording():", 1)
        self.emit("b = %s" % self.expr(c, s, 2), 2)
        self.emit("y = %s" % self.scalar(["a", "b", c[0]], s, 2), 1)
        self.emit("print(t.gradient(y, %s))" % c[0])

    def m_custom1(self, s):
        c = self.consts(1, s)
        self.emit("@custom_gradient")
        self.emit("def f(x):")
        self.emit("y = %s" % self.expr(["x"], s, 2), 1)
        self.emit("def grad(up):", 1)
        self.emit("return up * %s" % self.expr(["x"], s, 2), 2)
        self.emit("return y, grad", 1)
        self.emit("with GradientTape() as t:")
        self.emit("t.watch(%s)" % c[0], 1)
        self.emit("y = %s" % self.scalar(["f(%s)" % c[0], c[0]], s, 2), 1)
        self.emit("print(y)")
        self.emit("print(t.gradient(y, %s))" % c[0])

    def m_custom2(self, s):
        c = self.consts(2, s)
        self.emit("@custom_gradient")
        self.emit("def f(x, z):")
        self.emit("y = %s" % self.expr(["x", "z"], s, 2), 1)
        self.emit("def grad(up):", 1)
        self.emit("return up * %s, %s" % (self.expr(["x", "z"], s, 1),
                                          "None" if self.r.random() < 0.2 else "up * tanh(z)"), 2)
        self.emit("return y, grad", 1)
        self.emit("with GradientTape() as t:")
        self.emit("t.watch([%s, %s])" % tuple(c), 1)
        self.emit("y = %s" % self.scalar(["f(%s, %s)" % tuple(c)], s, 1), 1)
        self.emit("g = t.gradient(y, [%s, %s])" % tuple(c))
        self.emit("print(g[0])")
        self.emit("print(g[1])")

    def m_customout2(self, s):
        c = self.consts(1, s)
        self.emit("@custom_gradient")
        self.emit("def f(x):")
        self.emit("a = %s" % self.expr(["x"], s, 2), 1)
        self.emit("b = %s" % self.expr(["x"], s, 2), 1)
        self.emit("def grad(ua, ub):", 1)
        self.emit("return ua * cos(x) + ub * %s" % self.expr(["x"], s, 1), 2)
        self.emit("return (a, b), grad", 1)
        self.emit("with GradientTape() as t:")
        self.emit("t.watch(%s)" % c[0], 1)
        self.emit("p, q = f(%s)" % c[0], 1)
        self.emit("y = %s" % self.scalar(["p", "q"] if self.r.random() < 0.7 else ["p"], s, 2), 1)
        self.emit("print(t.gradient(y, %s))" % c[0])

    def block(self, name, args, s, deco):
        if deco:
            self.emit("@recompute_grad")
        self.emit("def %s(%s):" % (name, ", ".join(args)))
        self.emit("h = %s" % self.expr(args, s, 2), 1)
        self.emit("return %s" % self.expr(["h"] + args, s, 1), 1)

    def m_recompute(self, s):
        c = self.consts(2, s)
        self.block("blk", ["x", "z"], s, True)
        self.emit("with GradientTape() as t:")
        self.emit("t.watch([%s, %s])" % tuple(c), 1)
        self.emit("y = %s" % self.scalar(["blk(%s, %s)" % tuple(c), c[0]], s, 2), 1)
        self.emit("print(y)")
        self.emit("g = t.gradient(y, [%s, %s])" % tuple(c))
        self.emit("print(g[0])")
        self.emit("print(g[1])")

    def m_recompute_wrapped(self, s):
        c = self.consts(1, s)
        self.block("body", ["x"], s, False)
        self.emit("blk = recompute_grad(body)")
        self.emit("with GradientTape() as t:")
        self.emit("t.watch(%s)" % c[0], 1)
        self.emit("y = %s" % self.scalar(["blk(%s)" % c[0], "blk(tanh(%s))" % c[0], c[0]], s, 2), 1)
        self.emit("print(t.gradient(y, %s))" % c[0])

    def m_recompute_nested(self, s):
        c = self.consts(1, s)
        self.block("inner", ["x"], s, True)
        self.emit("@recompute_grad")
        self.emit("def outer(x):")
        self.emit("return %s" % self.expr(["inner(x)", "x"], s, 2), 1)
        self.emit("with GradientTape() as t:")
        self.emit("t.watch(%s)" % c[0], 1)
        self.emit("y = %s" % self.scalar(["outer(%s)" % c[0], c[0]], s, 1), 1)
        self.emit("print(t.gradient(y, %s))" % c[0])

    def m_varloop(self, s):
        self.emit("w = Variable(%s)" % self.lit(s))
        c = self.consts(1, s)
        self.emit("for step in range(3):")
        self.emit("with GradientTape() as t:", 1)
        self.emit("loss = %s + 0.1 * reduce_sum(square(w))" % self.scalar(["w", c[0]], s, 2), 2)
        self.emit("g = t.gradient(loss, w)", 1)
        self.emit("w.assign_sub(0.1 * g)", 1)
        self.emit("print(loss)", 1)
        self.emit("print(w)")


def gen(seed):
    return G(seed).program()


if __name__ == "__main__":
    print(gen(int(sys.argv[1]) if len(sys.argv) > 1 else 0), end="")
