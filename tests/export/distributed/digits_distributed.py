# What `dgl export --tf --distribute multiworker examples/10_digits_distributed.dgl` should
# produce, written by hand to pin the form; `--distribute mirrored` writes "mirrored" in
# DISTRIBUTE instead. It is digits_plain.py plus the strategy parts; RECIPE.md lists the rewrite.
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
_SOURCE = "10_digits_distributed"
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
    path = os.environ.get("DGL_TF_INIT", os.path.join(_HERE, _SOURCE + ".init.npz"))
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
print(f"{len(train_rows)} training and {len(test_rows)} test images")

GLOBAL_BATCH = 64
EPOCHS = 10
train_ds = tf.data.Dataset.from_tensor_slices((x_train, y_train)).batch(GLOBAL_BATCH)

dist_train_ds = distribute_dataset(strategy, train_ds)

with strategy.scope():
    model = tf.keras.Sequential([tf.keras.layers.Dense(64, activation="relu"), tf.keras.layers.Dense(10)])
    model.build((None, 64))
    load_initial_weights(model)
    opt = tf.keras.optimizers.Adam(learning_rate=0.005)
    opt.build(model.trainable_variables)


def replica_train_step(x, y):
    with tf.GradientTape() as tape:
        logits = model(x, training=True)
        per_example = tf.nn.sparse_softmax_cross_entropy_with_logits(y, logits)
        loss = tf.nn.compute_average_loss(per_example, global_batch_size=GLOBAL_BATCH)
    grads = tape.gradient(loss, model.trainable_variables)
    opt.apply_gradients(zip(grads, model.trainable_variables))
    return loss


@tf.function
def train_step(x, y):
    per_replica = strategy.run(replica_train_step, args=(x, y))
    return strategy.reduce(tf.distribute.ReduceOp.SUM, per_replica, axis=None)


step_losses, local_rows, epoch_seconds = [], [], []  # [test]
steps = len(train_ds)
for epoch in range(EPOCHS):
    started = time.perf_counter()  # [test]
    total = 0.0
    for x, y in dist_train_ds:
        step_loss = train_step(x, y)  # [test] the DGL line is `total += train_step(x, y).item()`
        step_losses.append(step_loss.numpy().item())  # [test]
        local_rows.append(rows_of(x))  # [test]
        total += step_loss.numpy().item()
    epoch_seconds.append(time.perf_counter() - started)  # [test]
    print(f"epoch {epoch + 1:2d}  loss {total / steps:.4f}")

predicted = tf.argmax(model(x_test), axis=1)
correct = int(tf.reduce_sum(tf.cast(predicted == y_test, tf.int64)).numpy().item())
print(f"test accuracy: {correct}/{len(test_rows)} = {correct / len(test_rows):.3f}")

save_trained_weights(model)
record(step_losses=step_losses, local_rows=local_rows, correct=correct, epoch_seconds=epoch_seconds)  # [test]
