"""Runs the distributed forms of examples/10_digits_distributed.dgl (a custom loop) and
examples/11_digits_fit.dgl (Model.fit) for real, and checks that distributing the training
changes nothing but the speed.

    python tests/export/test_distribute.py        (the Python that has TensorFlow 2.21)

Exported: `dgl export --tf --distribute multiworker|mirrored` of examples 10 and 11 (the dgl
binary: DGL, else DGL_BIN, else target/{debug,release}/dgl, else `dgl` on PATH; skipped
without one). Hand-written: tests/export/distributed/digits_distributed.py, example 10 with
Keras's own layers and DGL's initial weights (RECIPE.md), an independent second reference.

(a) the single-process reference, one replica: per-step losses and test accuracy; its stdout
    must equal DGL's (examples/NN_*.out).
(b) the script under MultiWorkerMirroredStrategy, as two worker processes on this machine,
    on two 127.0.0.1 ports picked free here: each worker gets half of every global batch; the
    per-step losses match (a) and the test accuracy is within one image; only the chief prints.
(c) the script under MirroredStrategy over two logical CPU devices, same checks.
(d) a copy of the script whose loss is not scaled by the global batch fails those checks.
With a dgl binary, also: the committed initial weights of the hand-written scripts are the
ones DGL draws, and the weights the two workers trained, loaded back into DGL, classify the
test images as TensorFlow does.

Every subprocess runs under a hard timeout; the whole file takes about 2 minutes on two cores.
"""
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import unittest
import zipfile

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
FIXTURES = os.path.join(HERE, "distributed")
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))
DISTRIBUTED = os.path.join(FIXTURES, "digits_distributed.py")
INIT = os.path.join(FIXTURES, "10_digits_distributed.init.npz")
DGL_OUT = os.path.join(ROOT, "examples", "10_digits_distributed.out")

TIMEOUT = 150  # seconds, for any one process; a normal run takes 3 to 10
FIT_OUT = os.path.join(ROOT, "examples", "11_digits_fit.out")

GLOBAL_BATCH, N_TRAIN = 64, 1498
# Per-step loss tolerance, relative to the loss. Splitting a batch over replicas only
# reassociates float32 sums: the 64 per-example losses and each gradient entry are summed in
# another order, which changes a step's result by at most ~64 ulp (64 * 6e-8 = 4e-6 relative)
# and, through the weights, later steps by similar amounts (observed: under 1e-6 after 240
# Adam steps). 1e-4 leaves a wide margin for that, while any mistake in scaling the loss
# changes it by a factor (2 for a per-replica mean, 64/26 on the short last batch for a mean
# over the local batch times the replicas).
RTOL, ATOL = 1e-4, 1e-6


def free_ports(n):
    """n distinct TCP ports on 127.0.0.1 that were free a moment ago."""
    sockets = []
    for _ in range(n):
        s = socket.socket()
        s.bind(("127.0.0.1", 0))
        sockets.append(s)
    ports = [s.getsockname()[1] for s in sockets]
    for s in sockets:
        s.close()
    return ports


def base_env(tmp, name):
    env = dict(os.environ)
    for key in ("TF_CONFIG", "DGL_TF_DISTRIBUTE", "DGL_TF_CPU_REPLICAS"):
        env.pop(key, None)
    env.update(
        TF_CPP_MIN_LOG_LEVEL="2",
        TF_NUM_INTRAOP_THREADS="1",  # two cores are shared by both workers and other jobs
        TF_NUM_INTEROP_THREADS="2",
        CUDA_VISIBLE_DEVICES="",
        DGL_TF_INIT=INIT,
        DGL_TF_SAVE=os.path.join(tmp, name + ".trained.npz"),
        DGL_TF_RECORD=os.path.join(tmp, name + ".json"),
    )
    return env


def run_one(script, env):
    """Runs script to completion; returns its stdout. Fails on a non-zero exit or timeout."""
    try:
        done = subprocess.run([sys.executable, script], env=env, capture_output=True, text=True, timeout=TIMEOUT)
    except subprocess.TimeoutExpired:
        raise AssertionError(f"{os.path.basename(script)} did not finish in {TIMEOUT} s")
    if done.returncode != 0:
        raise AssertionError(f"{os.path.basename(script)} exited {done.returncode}:\n{done.stderr[-3000:]}")
    return done.stdout


def run_workers(script, envs):
    """Starts one process per env at once (the workers of one cluster) and waits for all;
    returns their stdouts. A worker that fails or hangs fails the run, and the others are
    killed rather than left waiting for it."""
    procs = [
        subprocess.Popen([sys.executable, script], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        for env in envs
    ]
    outs = [None] * len(procs)
    try:
        for i, p in enumerate(procs):
            out, err = p.communicate(timeout=TIMEOUT)
            if p.returncode != 0:
                raise AssertionError(f"worker {i} exited {p.returncode}:\n{err[-3000:]}")
            outs[i] = out
    except subprocess.TimeoutExpired:
        raise AssertionError(f"the workers did not finish in {TIMEOUT} s")
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
                p.communicate()
    return outs


N_TEST = 299


def load_record(path, stdout=None):
    """The JSON a run recorded; `correct` read from its stdout when the script did not note it:
    example 10 prints `test accuracy: C/299 = ...`, example 11 `test loss L, accuracy A` with
    A to 3 decimals, which gives C exactly (C/299 steps by more than 0.003)."""
    with open(path) as f:
        record = json.load(f)
    if "correct" not in record and stdout is not None:
        lines = stdout.splitlines()
        counted = [l for l in lines if l.startswith("test accuracy: ")]
        if counted:
            record["correct"] = int(counted[-1].split(": ")[1].split("/")[0])
        else:
            fraction = [l for l in lines if l.startswith("test loss ")][-1].split("accuracy ")[1]
            record["correct"] = round(float(fraction) * N_TEST)
    return record


def global_batches(epochs):
    """The rows of every global batch of the run: 23 full batches and one of 26, per epoch."""
    one_epoch = [GLOBAL_BATCH] * (N_TRAIN // GLOBAL_BATCH) + [N_TRAIN % GLOBAL_BATCH]
    return one_epoch * epochs


def halves(rows):
    return [[r // 2] for r in rows], [[r - r // 2] for r in rows]


class Checks:
    """The runs and checks shared by the two program shapes. A subclass names the scripts run
    distributed (MULTIWORKER, MIRRORED), its single-process reference (PLAIN, with the
    environment PLAIN_ENV adds), DGL's output (DGL_OUT), the number of epochs, and whether the
    runs choose the strategy through DGL_TF_DISTRIBUTE (CHOOSE) or by what was exported."""

    CHOOSE = True

    def assert_multiworker_holds(self, parts):
        """The exported multiworker script holds each of `parts`."""
        with open(self.MULTIWORKER) as f:
            text = f.read()
        for part in parts:
            self.assertIn(part, text)

    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="dgl_distribute_")
        cls.prepare()
        env = base_env(cls.tmp, "plain")
        env.update(cls.PLAIN_ENV)
        cls.plain_stdout = run_one(cls.PLAIN, env)
        cls.plain = load_record(env["DGL_TF_RECORD"], cls.plain_stdout)

    @classmethod
    def prepare(cls):
        pass

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def assert_same_training(self, run, what):
        ref = self.plain["step_losses"]
        got = run["step_losses"]
        self.assertEqual(len(got), len(ref), f"{what}: number of steps")
        for step, (a, b) in enumerate(zip(ref, got)):
            if abs(a - b) > ATOL + RTOL * abs(a):
                self.fail(f"{what}: step {step} loss {b!r}, single process {a!r}")
        self.assertLessEqual(abs(run["correct"] - self.plain["correct"]), 1, f"{what}: correct test images")

    def assert_same_print(self, out, what):
        """The same lines as the single process, except that a printed loss may differ by one
        unit in its last (4th) decimal: the losses agree to RTOL, and a value within that of a
        rounding boundary could round either way."""
        got, ref = out.splitlines(), self.plain_stdout.splitlines()
        self.assertEqual(len(got), len(ref), f"{what}: printed lines\n{out}")
        for g, r in zip(got, ref):
            if g != r:
                head_g, _, loss_g = g.rpartition(" ")
                head_r, _, loss_r = r.rpartition(" ")
                ok = head_g == head_r and "loss" in head_r and abs(float(loss_g) - float(loss_r)) <= 1.5e-4
                self.assertTrue(ok, f"{what} printed {g!r} where the single process printed {r!r}")

    # (a)
    def test_single_process_prints_what_dgl_prints(self):
        with open(self.DGL_OUT) as f:
            self.assertEqual(self.plain_stdout, f.read())
        self.assertEqual(self.plain["local_rows"], [[r] for r in global_batches(self.EPOCHS)])

    # (b)
    def test_two_workers_multiworker_mirrored(self):
        ports = free_ports(2)
        cluster = {"worker": [f"127.0.0.1:{p}" for p in ports]}
        envs = []
        for index in range(2):
            env = base_env(self.tmp, "multiworker")
            if self.CHOOSE:
                env["DGL_TF_DISTRIBUTE"] = "multiworker"
            env["TF_CONFIG"] = json.dumps({"cluster": cluster, "task": {"type": "worker", "index": index}})
            envs.append(env)
        chief_out, other_out = run_workers(self.MULTIWORKER, envs)
        self.assertEqual(other_out, "", "only the chief prints")
        record = envs[0]["DGL_TF_RECORD"]
        chief, worker1 = load_record(record, chief_out), load_record(record + ".worker1")
        first, second = halves(global_batches(self.EPOCHS))
        self.assertEqual(chief["local_rows"], first, "worker 0 holds the first half of every batch")
        self.assertEqual(worker1["local_rows"], second, "worker 1 holds the second half of every batch")
        self.assertEqual(worker1["step_losses"], chief["step_losses"], "every worker sees the reduced loss")
        self.assert_same_training(chief, "two workers")
        self.assert_same_print(chief_out, "two workers")
        if not self.SAVES:
            return
        with np.load(envs[0]["DGL_TF_SAVE"]) as trained:
            self.assertEqual(sorted(trained.files), ["w0", "w1", "w2", "w3"])
        dgl = find_dgl(required=False)
        if dgl is not None:
            # The weights come back into DGL as docs/export.md says: unzip, then load_npy.
            folder = os.path.join(self.tmp, "trained")
            with zipfile.ZipFile(envs[0]["DGL_TF_SAVE"]) as z:
                z.extractall(folder)
            out = run_dgl(dgl, os.path.join(FIXTURES, "trained_accuracy.dgl"), folder)
            self.assertEqual(out, f"test accuracy: {chief['correct']}/299\n")

    # (c)
    def test_mirrored_on_two_logical_cpus(self):
        env = base_env(self.tmp, "mirrored")
        env.update(DGL_TF_CPU_REPLICAS="2")
        if self.CHOOSE:
            env["DGL_TF_DISTRIBUTE"] = "mirrored"
        out = run_one(self.MIRRORED, env)
        record = load_record(env["DGL_TF_RECORD"], out)
        self.assertEqual(record["local_rows"], [a + b for a, b in zip(*halves(global_batches(self.EPOCHS)))])
        self.assert_same_training(record, "mirrored")
        self.assert_same_print(out, "mirrored")



class BrokenLoss:
    """(d): the mirrored script with its loss scaled wrongly fails the checks."""

    def test_a_loss_not_scaled_by_the_global_batch_is_caught(self):
        with open(self.MIRRORED) as f:
            source = f.read()
        scaled = "tf.nn.compute_average_loss(per_example, global_batch_size=GLOBAL_BATCH)"
        self.assertIn(scaled, source)
        for name, wrong in [
            ("mean", "tf.reduce_mean(per_example)"),
            ("local", "tf.nn.compute_average_loss(per_example)"),
        ]:
            # Beside the script, so that it finds what the script finds there.
            broken = os.path.join(os.path.dirname(self.MIRRORED), f"_broken_{name}_{os.getpid()}.py")
            try:
                with open(broken, "w") as f:
                    f.write(source.replace(scaled, wrong))
                env = base_env(self.tmp, "broken_" + name)
                env.update(DGL_TF_DISTRIBUTE="mirrored", DGL_TF_CPU_REPLICAS="2")
                out = run_one(broken, env)
                with self.assertRaises(AssertionError, msg=f"a {name} loss passes the check"):
                    self.assert_same_training(load_record(env["DGL_TF_RECORD"], out), name)
            finally:
                os.remove(broken)


def export_both(cls, example, name):
    """Exports examples/EXAMPLE both ways into cls.tmp; sets cls.MULTIWORKER, cls.MIRRORED."""
    dgl = find_dgl()
    source = os.path.join(ROOT, "examples", example)
    for kind in ("multiworker", "mirrored"):
        script = os.path.join(cls.tmp, kind, name)
        done = subprocess.run(
            [dgl, "export", "--tf", "--distribute", kind, source, "-o", script],
            capture_output=True,
            text=True,
            timeout=120,
        )
        if done.returncode != 0:
            raise AssertionError(f"dgl export --distribute {kind} exited {done.returncode}:\n{done.stderr}")
        with open(script) as f:
            text = f.read()
        assert f'strategy = dgl_tf.make_strategy("{kind}")' in text, text
        setattr(cls, kind.upper(), script)


class ExportedCustomLoop(BrokenLoss, Checks, unittest.TestCase):
    """`dgl export --tf --distribute multiworker|mirrored examples/10_digits_distributed.dgl`,
    run as exported. Its single-process reference is the mirrored export on one device."""

    PLAIN_ENV, DGL_OUT, EPOCHS, CHOOSE, SAVES = {}, DGL_OUT, 10, False, True

    @classmethod
    def prepare(cls):
        export_both(cls, "10_digits_distributed.dgl", "ex10.py")
        cls.PLAIN = cls.MIRRORED

    def test_the_export_is_the_distributed_form(self):
        self.assert_multiworker_holds([
            "with strategy.scope():",
            "strategy.run(replica_train_step, args=(x, y))",
            "strategy.reduce(tf.distribute.ReduceOp.SUM, per_replica, axis=None)",
            "dist_train_ds = strategy.experimental_distribute_dataset(dgl_tf.sharded_by_data(train_ds))",
            "for x, y in dist_train_ds:",
            "tf.keras.optimizers.Adam(learning_rate=0.005)",
        ])


class ExportedFit(Checks, unittest.TestCase):
    """`dgl export --tf --distribute multiworker|mirrored examples/11_digits_fit.dgl`
    (compile, fit, evaluate), run as exported: fit is dgl_tf's distributed loop, which notes
    every step under DGL_TF_RECORD. Its single-process reference is the mirrored export on one
    device; its output must be DGL's."""

    PLAIN_ENV, DGL_OUT, EPOCHS, CHOOSE, SAVES = {}, FIT_OUT, 5, False, True

    @classmethod
    def prepare(cls):
        export_both(cls, "11_digits_fit.dgl", "ex11.py")
        cls.PLAIN = cls.MIRRORED

    def test_the_export_is_the_fit_form(self):
        self.assert_multiworker_holds([
            "with strategy.scope():\n    model = nn.Sequential(",
            "dgl_tf.compile_model(model, optimizer=tf.keras.optimizers.Adam(learning_rate=0.005), "
            'loss=dgl_tf.per_example_loss("sparse_categorical_crossentropy", from_logits=True)',
            "history = dgl_tf.fit(model, x_train, y_train, batch_size=64, epochs=5, shuffle=False)",
            "dgl_tf.evaluate(model, x_test, y_test, verbose=0)",
        ])

    def test_a_fit_loss_not_scaled_by_the_global_batch_is_caught(self):
        """(d) for fit: the support module's loss changed to a per-replica mean fails."""
        folder = os.path.dirname(self.MIRRORED)
        support = os.path.join(folder, "dgl_tf.py")
        with open(support) as f:
            source = f.read()
        scaled = "loss = tf.nn.compute_average_loss(per_example, global_batch_size=global_rows(per_example))"
        self.assertEqual(source.count(scaled), 1)
        broken = os.path.join(self.tmp, "broken_fit")
        shutil.copytree(folder, broken)
        with open(os.path.join(broken, "dgl_tf.py"), "w") as f:
            f.write(source.replace(scaled, "loss = tf.reduce_mean(per_example)"))
        env = base_env(self.tmp, "broken_fit")
        env.update(DGL_TF_CPU_REPLICAS="2")
        out = run_one(os.path.join(broken, os.path.basename(self.MIRRORED)), env)
        with self.assertRaises(AssertionError, msg="a per-replica mean passes the check"):
            self.assert_same_training(load_record(env["DGL_TF_RECORD"], out), "mean")


class CustomLoop(BrokenLoss, Checks, unittest.TestCase):
    """The hand-written form of example 10 (tests/export/distributed/digits_distributed.py:
    Keras's layers, DGL's initial weights from a committed .npz), a second reference written
    independently of the exporter. Its single-process reference is itself on one replica."""

    PLAIN, PLAIN_ENV, DGL_OUT, EPOCHS, SAVES = DISTRIBUTED, {"DGL_TF_DISTRIBUTE": "mirrored"}, DGL_OUT, 10, True
    MULTIWORKER = MIRRORED = DISTRIBUTED

    # DGL's side of the bridge
    def test_initial_weights_are_the_ones_dgl_draws(self):
        dgl = find_dgl()
        out = os.path.join(self.tmp, "init")
        os.makedirs(out)
        run_dgl(dgl, os.path.join(FIXTURES, "initial_weights.dgl"), out)
        with np.load(INIT) as committed:
            for name in committed.files:
                np.testing.assert_array_equal(committed[name], np.load(os.path.join(out, name + ".npy")))


def find_dgl(required=True):
    candidates = [os.environ.get("DGL"), os.environ.get("DGL_BIN")]
    candidates += [os.path.join(ROOT, "target", kind, "dgl") for kind in ("debug", "release")]
    candidates.append(shutil.which("dgl"))
    for c in candidates:
        if c and os.access(c, os.X_OK):
            return c
    if required:
        raise unittest.SkipTest("no dgl binary: set DGL_BIN")
    return None


def run_dgl(dgl, script, *args):
    done = subprocess.run([dgl, script, *args], capture_output=True, text=True, timeout=60)
    if done.returncode != 0:
        raise AssertionError(f"dgl {os.path.basename(script)} exited {done.returncode}:\n{done.stderr}")
    return done.stdout


if __name__ == "__main__":
    unittest.main()
