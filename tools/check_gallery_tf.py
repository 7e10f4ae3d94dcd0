"""Recomputes the numbers of the gallery examples 01, 02, 04, 05 and 06 with TensorFlow and
NumPy, and compares them with the examples' .out files (which DGL wrote).

    /work/venv/bin/python tools/check_gallery_tf.py      # (any Python with tensorflow, numpy)

Each example is run here the same way (same data, split, initial values, learning rate,
steps, dtypes); every number on the checked lines of the .out is compared with TensorFlow's
within a tolerance (float32: 2e-5 relative, or the printed precision). Prints one line per
check and exits 1 if any differs. Lines that are text only, or DGL-specific, are skipped.
"""

import math
import os
import re
import sys

import numpy as np
import tensorflow as tf

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
EX = os.path.join(ROOT, "examples")
failures = []


def numbers(text):
    return [float(t) for t in re.findall(r"-?(?:\d+\.\d*|\d*\.\d+|\d+)(?:e[-+]?\d+)?|-?inf|nan", text)]


def out_lines(name):
    with open(os.path.join(EX, name + ".out")) as f:
        return f.read().splitlines()


def check(name, line_prefix, expected, rel=2e-5, abs_=1e-6, nth=0):
    """Compares the numbers after `line_prefix` on the nth matching line of NAME.out."""
    lines = [l for l in out_lines(name) if l.startswith(line_prefix)]
    if len(lines) <= nth:
        failures.append(f"{name}: no line starting {line_prefix!r}")
        print(f"MISSING {name}: {line_prefix!r}")
        return
    got = numbers(lines[nth][len(line_prefix):])
    want = [float(v) for v in np.ravel(np.asarray(expected, dtype=np.float64))]
    ok = len(got) == len(want) and all(
        (math.isnan(g) and math.isnan(w)) or g == w or abs(g - w) <= max(abs_, rel * abs(w)) for g, w in zip(got, want)
    )
    print(("ok  " if ok else "DIFF") + f" {name}: {line_prefix.strip()}  dgl {got}  tf {want}")
    if not ok:
        failures.append(f"{name}: {line_prefix}")


def iris():
    data = np.loadtxt(os.path.join(EX, "data", "iris.csv"), delimiter=",", skiprows=1, dtype=np.float32)
    return data


def example_01():
    t = iris()
    feats = np.stack([t[:, 2], t[:, 0]], axis=1)
    target = tf.constant(t[:, 3])
    mean, var = tf.nn.moments(tf.constant(feats), axes=[0])
    scale = tf.sqrt(var)
    x = (feats - mean) / scale
    w = tf.Variable(tf.zeros([2]))
    b = tf.Variable(0.0)
    for step in range(1, 501):
        with tf.GradientTape() as tape:
            loss = tf.reduce_mean(tf.square(tf.linalg.matvec(x, w) + b - target))
        dw, db = tape.gradient(loss, [w, b])
        w.assign_sub(0.1 * dw)
        b.assign_sub(0.1 * db)
        if step in [1, 10, 100, 500]:
            check("01_linear_regression", f"step {step:3d}  mse", [round(float(loss), 6)], abs_=2e-6)
    w_cm = w / scale
    b_cm = b - tf.reduce_sum(w_cm * mean)
    check("01_linear_regression", "gradient descent:", np.round([w_cm[0], w_cm[1], b_cm], 4), abs_=1e-4)
    a = np.concatenate([feats.astype(np.float64), np.ones([150, 1])], axis=1)
    beta, *_ = np.linalg.lstsq(a, t[:, 3].astype(np.float64), rcond=None)
    check("01_linear_regression", "normal equations:", np.round(beta, 4), abs_=1e-4)
    gd = np.array([w_cm[0], w_cm[1], b_cm], dtype=np.float64)
    print(f"     01: largest difference GD vs lstsq in TF: {np.max(np.abs(gd - beta)):.1e}")
    resid = t[:, 3] - a @ beta
    r2 = 1 - np.sum(resid**2) / np.sum((t[:, 3] - t[:, 3].mean()) ** 2)
    check("01_linear_regression", "R^2 =", [round(r2, 4)], abs_=1e-4)


def example_02():
    t = iris()
    rows = np.arange(150)
    test, train = rows[rows % 5 == 4], rows[rows % 5 != 4]
    xtr, ytr = t[train, :4], t[train, 4].astype(np.int64)
    xte, yte = t[test, :4], t[test, 4].astype(np.int64)
    mean, var = tf.nn.moments(tf.constant(xtr), axes=[0])
    xtr = (xtr - mean) / tf.sqrt(var)
    xte = (xte - mean) / tf.sqrt(var)
    W = tf.Variable(tf.zeros([4, 3]))
    b = tf.Variable(tf.zeros([3]))

    def acc(logits, y):
        return float(tf.reduce_mean(tf.cast(tf.argmax(logits, axis=1) == y, tf.float32)))

    for step in range(1, 201):
        with tf.GradientTape() as tape:
            logits = xtr @ W + b
            loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(ytr, logits))
        if step in [1, 10, 50, 200]:
            check("02_iris_classification", f"step {step:3d}  loss", [round(float(loss), 4), round(acc(logits, ytr), 3)], abs_=1e-4)
        dW, db = tape.gradient(loss, [W, b])
        W.assign_sub(0.5 * dW)
        b.assign_sub(0.5 * db)
    check("02_iris_classification", "after training:", [round(acc(xtr @ W + b, ytr), 3), round(acc(xte @ W + b, yte), 3)], abs_=1e-3)
    pred = tf.argmax(xte @ W + b, axis=1).numpy()
    names = ["setosa", "versicolor", "virginica"]
    for k in range(3):
        counts = [int(np.sum((yte == k) & (pred == p))) for p in range(3)]
        check("02_iris_classification", f"  {names[k]:>10}  ", counts)
    probs = tf.nn.softmax(tf.gather(xte, [0, 10, 20]) @ W + b).numpy()
    for k in range(3):
        check("02_iris_classification", f"  a {names[k]}:", np.round(probs[k], 3), abs_=1e-3)


def example_04():
    name = "04_custom_gradients"

    @tf.custom_gradient
    def clip_gradient_norm(x):
        return tf.identity(x), lambda dy: tf.clip_by_norm(dy, 1.0)

    w = tf.Variable([3.0, -4.0])
    with tf.GradientTape(persistent=True) as tape:
        plain = tf.reduce_sum(tf.square(w)) * 10.0
        clipped = tf.reduce_sum(tf.square(clip_gradient_norm(w))) * 10.0
    check(name, "1. same loss:", [plain, clipped])
    check(name, "   plain gradient:", tape.gradient(plain, w))
    g = tape.gradient(clipped, w)
    check(name, "   clipped gradient:", list(g.numpy()) + [float(tf.norm(g))])

    @tf.custom_gradient
    def round_ste(x):
        return tf.round(x), lambda dy: dy

    @tf.custom_gradient
    def sign_ste(x):
        return tf.sign(x), lambda dy: dy * tf.cast(tf.abs(x) <= 1.0, x.dtype)

    x = tf.constant([-1.7, -0.4, 0.2, 0.6, 1.5])
    with tf.GradientTape(persistent=True) as tape:
        tape.watch(x)
        r, r_ste, s, s_ste = tf.round(x), round_ste(x), tf.sign(x), sign_ste(x)
        sums = [tf.reduce_sum(v) for v in (r, r_ste, s, s_ste)]
    grads = [tape.gradient(v, x) for v in sums]
    print(f"     04: TF's gradient of round: {grads[0]}")
    assert grads[0] is None
    check(name, "2. round:", r)
    check(name, "   round_ste:", list(r_ste.numpy()) + list(grads[1].numpy()))
    check(name, "   sign:", list(s.numpy()) + list(grads[2].numpy()))
    check(name, "   sign_ste:", list(s_ste.numpy()) + list(grads[3].numpy()))
    target = tf.constant([0.5, -1.25, 2.0])
    v = tf.Variable([0.1, 0.1, 0.1])
    for _ in range(40):
        with tf.GradientTape() as tape:
            loss = tf.reduce_sum(tf.square(round_ste(v * 4.0) / 4.0 - target))
        v.assign_sub(0.1 * tape.gradient(loss, v))
    check(name, "   round_ste:", list((round_ste(v * 4.0) / 4.0).numpy()) + [round(float(loss), 4)], abs_=1e-4, nth=1)
    with tf.GradientTape() as tape:
        v = tf.Variable([0.1, 0.1, 0.1])
        loss = tf.reduce_sum(tf.square(tf.round(v * 4.0) / 4.0 - target))
    assert tape.gradient(loss, v) is None
    check(name, "   round    :", list((tf.round(v * 4.0) / 4.0).numpy()) + [round(float(loss), 4)], abs_=1e-4)

    @tf.custom_gradient
    def log1pexp(x):
        y = tf.maximum(x, 0.0) + tf.math.log1p(tf.exp(-tf.abs(x)))
        return y, lambda dy: dy * tf.sigmoid(x)

    x = tf.constant([-50.0, -1.0, 0.0, 1.0, 100.0])
    with tf.GradientTape(persistent=True) as tape:
        tape.watch(x)
        naive = tf.math.log(1.0 + tf.exp(x))
        stable = log1pexp(x)
        builtin = tf.nn.softplus(x)
    check(name, "3. naive: ", list(naive.numpy()) + list(tape.gradient(naive, x).numpy()), rel=2e-5, abs_=0.0)
    check(name, "   stable:", list(stable.numpy()) + list(tape.gradient(stable, x).numpy()), rel=2e-5, abs_=0.0)
    check(name, "   softplus (the builtin, same function):", list(builtin.numpy()) + list(tape.gradient(builtin, x).numpy()), rel=2e-5, abs_=0.0)
    x = tf.constant([0.0, 2.0])
    with tf.GradientTape() as outer:
        outer.watch(x)
        with tf.GradientTape() as inner:
            inner.watch(x)
            y = log1pexp(x)
        dy = inner.gradient(y, x)
    second = outer.gradient(dy, x)
    sig = tf.sigmoid(x)
    # (the 1.0: the "1 - sigmoid(x)" of the line's text)
    check(name, "   second derivative:", list(second.numpy()) + [1.0] + list((sig * (1 - sig)).numpy()))


def example_05():
    name = "05_hessians"

    def rosenbrock(p):
        return tf.square(1.0 - p[0]) + 100.0 * tf.square(p[1] - tf.square(p[0]))

    def grad_hess(p):
        with tf.GradientTape() as outer:
            outer.watch(p)
            with tf.GradientTape() as inner:
                inner.watch(p)
                value = rosenbrock(p)
            grad = inner.gradient(value, p)
        return value, grad, outer.jacobian(grad, p)

    p = tf.constant([-1.2, 1.0], dtype=tf.float64)
    value, grad, hess = grad_hess(p)
    check(name, "at", list(p.numpy()) + [float(value)], rel=1e-14)
    check(name, "gradient", grad, rel=1e-14)
    check(name, "Hessian", hess, rel=1e-14)
    v = tf.constant([1.0, -2.0], dtype=tf.float64)
    with tf.GradientTape() as outer:
        outer.watch(p)
        with tf.GradientTape() as inner:
            inner.watch(p)
            value = rosenbrock(p)
        grad = inner.gradient(value, p)
        gv = tf.reduce_sum(grad * v)
    hvp = outer.gradient(gv, p)
    check(name, "H v by double backward:", list(hvp.numpy()) + list(tf.linalg.matvec(hess, v).numpy()), rel=1e-14)
    p = tf.constant([-1.2, 1.0], dtype=tf.float64)
    for step in range(1, 7):
        _, grad, hess = grad_hess(p)
        p = p - tf.reshape(tf.linalg.solve(hess, tf.reshape(grad, [2, 1])), [2])
        dist = float(tf.norm(p - 1.0))
        check(name, f"Newton step {step}:", [round(float(p[0]), 10), round(float(p[1]), 10), 1.0, 1.0, float(f"{dist:.3e}")], rel=1e-3, abs_=1e-10)
    x = tf.constant([[1.0, 2.0], [0.5, -1.0], [-1.5, 0.3]], dtype=tf.float64)
    labels = tf.constant([0, 1, 2])
    W = tf.Variable(tf.constant([[0.1, -0.2, 0.3], [0.0, 0.2, -0.1]], dtype=tf.float64))
    with tf.GradientTape() as outer:
        with tf.GradientTape() as inner:
            loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(labels, x @ W))
        dW = inner.gradient(loss, W)
    H = tf.reshape(outer.jacobian(dW, W), [6, 6])
    check(name, "loss", [round(float(loss), 10), 6, 6], abs_=1e-10)
    check(name, "diagonal:", np.round(tf.linalg.diag_part(H).numpy(), 8), abs_=1e-8)
    u = tf.constant([1.0, 1.0, 1.0, 0.0, 0.0, 0.0], dtype=tf.float64)
    print(f"     05: TF's largest |H - H^T| {np.max(np.abs(H - tf.transpose(H))):.1e}, |H u| {np.max(np.abs(tf.linalg.matvec(H, u))):.1e}")


def example_06():
    name = "06_forward_mode"

    def f(x):
        return tf.stack([x[0] * x[1] * x[2], tf.sin(x[0]) + tf.exp(x[1]) - x[2] * x[2]])

    x = tf.constant([0.5, -1.0, 2.0])
    v = tf.constant([1.0, 0.0, -1.0])
    with tf.autodiff.ForwardAccumulator(x, v) as acc:
        y = f(x)
    check(name, "f(x) =", y)
    check(name, "J v  =", acc.jvp(y))
    check(name, "jvp(f, [x], [v]) ->", list(y.numpy()) + list(acc.jvp(y).numpy()))
    cols = []
    for j in range(3):
        with tf.autodiff.ForwardAccumulator(x, tf.one_hot(j, 3)) as acc:
            y = f(x)
        cols.append(acc.jvp(y))
    J = tf.stack(cols, axis=1)
    lines = out_lines(name)
    i = lines.index("Jacobian, forward mode (3 passes):")
    got = numbers(lines[i + 1])
    ok = np.allclose(got, J.numpy().ravel(), rtol=2e-5)
    print(("ok  " if ok else "DIFF") + f" {name}: forward Jacobian  dgl {got}  tf {list(J.numpy().ravel())}")
    if not ok:
        failures.append(f"{name}: forward Jacobian")
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = f(x)
    Jr = tape.jacobian(y, x)
    i = lines.index("Jacobian, reverse mode (2 backward passes):")
    got = numbers(lines[i + 1])
    ok = np.allclose(got, Jr.numpy().ravel(), rtol=2e-5)
    print(("ok  " if ok else "DIFF") + f" {name}: reverse Jacobian  dgl {got}  tf {list(Jr.numpy().ravel())}")
    if not ok:
        failures.append(f"{name}: reverse Jacobian")
    a, b = tf.constant([1.0, 2.0]), tf.constant([3.0, -1.0])
    da, db = tf.constant([0.1, 0.0]), tf.constant([0.0, 1.0])
    with tf.autodiff.ForwardAccumulator([a, b], [da, db]) as acc:
        g = tf.reduce_sum(a * b)
    check(name, "JVP of sum(a * b):", [acc.jvp(g), tf.reduce_sum(da * b + a * db)])

    def energy(x):
        return tf.reduce_sum(x**4) / 4.0 + x[0] * x[1] * x[2]

    v = tf.constant([1.0, 2.0, 3.0])
    with tf.autodiff.ForwardAccumulator(x, v) as acc:
        with tf.GradientTape() as tape:
            tape.watch(x)
            e = energy(x)
        grad = tape.gradient(e, x)
    check(name, "gradient of the energy:", grad)
    check(name, "H v, forward-over-reverse:", acc.jvp(grad))
    with tf.GradientTape() as outer:
        outer.watch(x)
        with tf.GradientTape() as inner:
            inner.watch(x)
            e = energy(x)
        g = inner.gradient(e, x)
    H = outer.jacobian(g, x)
    check(name, "H v, from the Hessian:", tf.linalg.matvec(H, v))


for example in (example_01, example_02, example_04, example_05, example_06):
    example()
print(f"{len(failures)} differences" if failures else "every checked line agrees with TensorFlow")
sys.exit(1 if failures else 0)
