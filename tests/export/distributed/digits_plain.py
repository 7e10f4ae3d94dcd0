# What `dgl export --tf examples/10_digits_distributed.dgl` should produce, written by hand to
# pin the form: the same program in TensorFlow 2.21, printing the same lines as DGL does.
# digits_distributed.py is this script plus the strategy parts; RECIPE.md lists the rewrite.
# Lines marked `# [test]` are instrumentation for tests/export/test_distribute.py, not export.
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

model = tf.keras.Sequential([tf.keras.layers.Dense(64, activation="relu"), tf.keras.layers.Dense(10)])
model.build((None, 64))
load_initial_weights(model)
opt = tf.keras.optimizers.Adam(learning_rate=0.005)
opt.build(model.trainable_variables)


@tf.function
def train_step(x, y):
    with tf.GradientTape() as tape:
        logits = model(x, training=True)
        per_example = tf.nn.sparse_softmax_cross_entropy_with_logits(y, logits)
        loss = tf.reduce_sum(per_example) / GLOBAL_BATCH
    grads = tape.gradient(loss, model.trainable_variables)
    opt.apply_gradients(zip(grads, model.trainable_variables))
    return loss


step_losses, local_rows, epoch_seconds = [], [], []  # [test]
steps = len(train_ds)
for epoch in range(EPOCHS):
    started = time.perf_counter()  # [test]
    total = 0.0
    for x, y in train_ds:
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
