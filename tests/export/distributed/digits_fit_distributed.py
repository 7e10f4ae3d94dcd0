# What `dgl export --tf --distribute multiworker examples/11_digits_fit.dgl` should produce,
# written by hand to pin the form (RECIPE.md, "Model.fit"): the support and the strategy are
# digits_distributed.py's; compile and fit become dgl_tf's `compile` and `fit`, a custom loop
# that prints DGL's fit lines.
# Lines marked `# [test]` are instrumentation for tests/export/test_distribute.py, not export.
import builtins
import os
import time  # [test]

import numpy as np
import tensorflow as tf

# ---------------------------------------------------------------- support
# (what dgl_tf.py gives every exported script; inlined so that this file runs alone)

_HERE = os.path.dirname(os.path.abspath(__file__))
# DGL resolves a relative path against the folder of the .dgl file: the exporter writes that
# folder here, relative to the .py file's.
_DGL_DIR = os.path.normpath(os.path.join(_HERE, "../../../examples"))
_SOURCE = "11_digits_fit"
CHIEF, TASK_ID = True, 0


def _path(p):
    return p if os.path.isabs(p) else os.path.join(_DGL_DIR, p)


def read_csv(path):
    """DGL's read_csv: a float32 tensor of the rows after the header, and the column names."""
    with open(_path(path)) as f:
        columns = f.readline().strip().split(",")
    values = np.loadtxt(_path(path), delimiter=",", skiprows=1, dtype=np.float32, ndmin=2)
    return tf.constant(values), columns


def load_initial_weights(model):
    """Gives the model the values DGL drew for its weights (the two random generators differ):
    w0, w1, ... of the .npz named by DGL_TF_INIT, by default the one beside this script."""
    # Example 11 draws its weights as example 10 does (same seed, same layers), so the two
    # share one file of initial weights.
    path = os.environ.get("DGL_TF_INIT", os.path.join(_HERE, "10_digits_distributed.init.npz"))
    with np.load(path) as f:
        model.set_weights([f[f"w{i}"] for i in range(len(f.files))])


def save_trained_weights(model):
    """Writes the model's weights as w0, w1, ... into the .npz named by DGL_TF_SAVE, by
    default beside this script. Only the chief writes."""
    if CHIEF:
        path = os.environ.get("DGL_TF_SAVE", os.path.join(_HERE, _SOURCE + ".trained.npz"))
        np.savez(path, **{f"w{i}": w for i, w in enumerate(model.get_weights())})


def rows_of(x):  # [test] the rows of x each local replica holds
    return [int(x.shape[0])]


def record(**values):  # [test]
    """With DGL_TF_RECORD set, writes values to that JSON file (a non-chief worker adds
    .worker<i> to the name)."""
    path = os.environ.get("DGL_TF_RECORD")
    if path:
        import json

        with open(path + ("" if CHIEF else f".worker{TASK_ID}"), "w") as f:
            json.dump(values, f)


# ---------------------------------------------------------------- support for --distribute
# (also dgl_tf.py's)

# The strategy chosen at export time; DGL_TF_DISTRIBUTE overrides it when the script runs.
DISTRIBUTE = os.environ.get("DGL_TF_DISTRIBUTE", "multiworker")


def make_strategy(kind):
    """The strategy for `--distribute KIND`. It must be made before any other TensorFlow
    operation runs: MultiWorkerMirroredStrategy requires it, and logical devices can only be
    configured before the runtime starts.

    multiworker: one replica per worker process listed in TF_CONFIG (a single local worker
    when TF_CONFIG is unset). mirrored: one replica per local GPU; on a machine without GPUs,
    DGL_TF_CPU_REPLICAS=N splits the CPU into N logical devices, one replica each.
    """
    if kind == "multiworker":
        return tf.distribute.MultiWorkerMirroredStrategy()
    if kind == "mirrored":
        n = int(os.environ.get("DGL_TF_CPU_REPLICAS", "0"))
        if n > 1 and not tf.config.list_physical_devices("GPU"):
            cpu = tf.config.list_physical_devices("CPU")[0]
            tf.config.set_logical_device_configuration(cpu, [tf.config.LogicalDeviceConfiguration()] * n)
            return tf.distribute.MirroredStrategy([f"/cpu:{i}" for i in range(n)])
        return tf.distribute.MirroredStrategy()
    raise ValueError(f"DISTRIBUTE must be 'mirrored' or 'multiworker', not {kind!r}")


def task_of(strategy):
    """(is_chief, task index). The chief is the task of type 'chief', or worker 0 when
    TF_CONFIG names no chief, or the only process (mirrored, or no TF_CONFIG)."""
    resolver = getattr(strategy, "cluster_resolver", None)
    if resolver is None or not resolver.task_type:
        return True, 0
    task_id = resolver.task_id or 0
    if resolver.task_type == "chief":
        return True, task_id
    has_chief = "chief" in resolver.cluster_spec().as_dict()
    return resolver.task_type == "worker" and task_id == 0 and not has_chief, task_id


def print(*args, **kwargs):
    """DGL's print, on the chief only: every worker runs the whole program, one prints it."""
    if CHIEF:
        builtins.print(*args, **kwargs)


def distribute_dataset(strategy, dataset):
    """Splits every global batch of `dataset` among the replicas, each taking a consecutive
    part of it. The policy is DATA: every worker reads the whole source, as the DGL program
    does, and keeps its own part of each batch (the default, AUTO, would first try to split
    by file and warn)."""
    options = tf.data.Options()
    options.experimental_distribute.auto_shard_policy = tf.data.experimental.AutoShardPolicy.DATA
    return strategy.experimental_distribute_dataset(dataset.with_options(options))


def rows_of(x):  # [test] (replaces the one above)
    return [int(t.shape[0]) for t in strategy.experimental_local_results(x)]


# ---------------------------------------------------------------- Model.fit, distributed
# (dgl_tf.py's too: written once, not generated per program)


def format_value(v):
    """A value in a fit line, as DGL (and Keras) print it: 4 decimals, or 4 significant
    digits in exponent form near zero."""
    return f"{v:.4f}" if abs(v) > 1e-3 else f"{v:.4e}"


class Compiled:
    """What DGL's Model.compile keeps: the optimizer, the per-example loss and the metrics."""

    def __init__(self, optimizer, loss, metrics):
        self.optimizer, self.loss, self.metrics = optimizer, loss, list(metrics or [])


def compile(model, optimizer, loss, metrics=None):
    """DGL's model.compile(optimizer=, loss=, metrics=) under the strategy: the optimizer must
    have been made in strategy.scope(); it is built here, before any step (Keras 3 builds it
    lazily, which fails inside strategy.run)."""
    optimizer.build(model.trainable_variables)
    model._dgl_compiled = Compiled(optimizer, loss, metrics)


def fit(model, x, y, batch_size=32, epochs=1, verbose=1, shuffle=True):
    """DGL's Model.fit as a distributed custom loop (Keras 3's own fit under
    MultiWorkerMirroredStrategy has open bugs). Every batch of `batch_size` rows is shared out
    among the replicas; each replica's loss is its per-example losses summed and divided by the
    rows of the whole batch, so the step is the one-device step. The epoch's loss and accuracy
    are over all its examples, each measured in the forward pass before its batch's update,
    as DGL reports them. Returns the history, {name: [one value per epoch]}."""
    if shuffle:
        raise ValueError("--distribute needs fit(..., shuffle=False)")
    compiled = model._dgl_compiled
    n = int(x.shape[0])
    steps = (n + batch_size - 1) // batch_size
    dataset = tf.data.Dataset.from_tensor_slices((x, y)).batch(batch_size)
    dist_dataset = distribute_dataset(strategy, dataset)
    variables = model.trainable_variables

    def replica_step(xb, yb):
        with tf.GradientTape() as tape:
            y_pred = model(xb, training=True)
            per_example = compiled.loss(yb, y_pred)
            rows = tf.distribute.get_replica_context().all_reduce(tf.distribute.ReduceOp.SUM, tf.shape(per_example)[0])
            loss = tf.nn.compute_average_loss(per_example, global_batch_size=rows)
        grads = tape.gradient(loss, variables)
        compiled.optimizer.apply_gradients(zip(grads, variables))
        correct = tf.reduce_sum(tf.cast(tf.argmax(y_pred, axis=-1) == tf.cast(yb, tf.int64), tf.float32))
        return loss, tf.reduce_sum(per_example), correct

    @tf.function
    def step(xb, yb):
        per_replica = strategy.run(replica_step, args=(xb, yb))
        return [strategy.reduce(tf.distribute.ReduceOp.SUM, v, axis=None) for v in per_replica]

    history = {}
    for epoch in range(epochs):
        loss_sum, correct = 0.0, 0.0
        for xb, yb in dist_dataset:
            step_loss, batch_loss_sum, batch_correct = step(xb, yb)
            STEP_LOSSES.append(step_loss.numpy().item())  # [test]
            LOCAL_ROWS.append(rows_of(xb))  # [test]
            loss_sum += batch_loss_sum.numpy().item()
            correct += batch_correct.numpy().item()
        logs = {"loss": loss_sum / n}
        if "accuracy" in compiled.metrics:
            logs["accuracy"] = correct / n
        logs = {k: logs[k] for k in sorted(logs)}
        for k in logs:
            history.setdefault(k, []).append(logs[k])
        if verbose:
            print(f"Epoch {epoch + 1}/{epochs}")
            print(f"{steps}/{steps} - " + " - ".join(f"{k}: {format_value(v)}" for k, v in logs.items()))
    return history


def evaluate(model, x, y, verbose=1):
    """DGL's Model.evaluate: the loss, then the compiled metrics, over all of (x, y) at once
    (every worker holds the same weights, and computes the same values)."""
    compiled = model._dgl_compiled
    y_pred = model(x, training=False)
    values = {"loss": tf.reduce_mean(compiled.loss(y, y_pred)).numpy().item()}
    if "accuracy" in compiled.metrics:
        hit = tf.cast(tf.argmax(y_pred, axis=-1) == tf.cast(y, tf.int64), tf.float32)
        values["accuracy"] = tf.reduce_mean(hit).numpy().item()
    if verbose:
        print("1/1 - " + " - ".join(f"{k}: {format_value(values[k])}" for k in sorted(values)))
    return values["loss"] if len(values) == 1 else list(values.values())


STEP_LOSSES, LOCAL_ROWS = [], []  # [test]
strategy = make_strategy(DISTRIBUTE)
CHIEF, TASK_ID = task_of(strategy)

# ---------------------------------------------------------------- the program

tf.random.set_seed(0)

table, columns = read_csv("data/digits.csv")
x_all = table[:, :64] / 16.0
y_all = tf.cast(table[:, 64], tf.int64)
rows = range(x_all.shape[0])
test_rows = [i for i in rows if i % 6 == 5]
train_rows = [i for i in rows if i % 6 != 5]
x_train, y_train = tf.gather(x_all, train_rows), tf.gather(y_all, train_rows)
x_test, y_test = tf.gather(x_all, test_rows), tf.gather(y_all, test_rows)

with strategy.scope():
    model = tf.keras.Sequential([tf.keras.layers.Dense(64, activation="relu"), tf.keras.layers.Dense(10)])
    model.build((None, 64))
    load_initial_weights(model)
    compile(
        model,
        optimizer=tf.keras.optimizers.Adam(learning_rate=0.005),
        loss=lambda y_true, y_pred: tf.keras.losses.sparse_categorical_crossentropy(y_true, y_pred, from_logits=True),
        metrics=["accuracy"],
    )
history = fit(model, x_train, y_train, batch_size=64, epochs=5, shuffle=False)
test_loss, test_accuracy = evaluate(model, x_test, y_test, verbose=0)
print(f"test loss {test_loss:.4f}, accuracy {test_accuracy:.3f}")

save_trained_weights(model)
correct = round(test_accuracy * len(test_rows))  # [test]
record(step_losses=STEP_LOSSES, local_rows=LOCAL_ROWS, correct=correct)  # [test]
