

# ---------------------------------------------------------------------------------------------
# `dgl export --tf --distribute mirrored|multiworker`: the strategy, which process is the chief,
# the dataset split among the replicas. (Appended to dgl_tf.py by `dgl export`:
# src/export/dgl_tf_distribute.py; tests/export/distributed/RECIPE.md describes the rewrite.)
# ---------------------------------------------------------------------------------------------

import atexit as _atexit
import time as _time

# `_CHIEF` (dgl_tf.py, beside `print`) is whether this process is the chief: only it prints.
_TASK_ID = 0
_strategy = None
_record = None  # with DGL_TF_RECORD set: what every step did, written at exit (for the tests)


def make_strategy(kind):
    """The strategy of `--distribute KIND`; `DGL_TF_DISTRIBUTE` overrides KIND when the script
    runs. Made before any other TensorFlow operation: MultiWorkerMirroredStrategy requires it,
    and logical devices can only be configured before the runtime starts.

    multiworker: one replica per worker process that TF_CONFIG lists (one local worker when
    TF_CONFIG is unset). mirrored: one replica per local GPU; on a machine without one,
    DGL_TF_CPU_REPLICAS=N splits the CPU into N logical devices, a replica on each."""
    global _strategy, _CHIEF, _TASK_ID
    kind = os.environ.get("DGL_TF_DISTRIBUTE", kind)
    if kind == "multiworker":
        _strategy = tf.distribute.MultiWorkerMirroredStrategy()
    elif kind == "mirrored":
        n = int(os.environ.get("DGL_TF_CPU_REPLICAS", "0"))
        if n > 1 and not tf.config.list_physical_devices("GPU"):
            cpu = tf.config.list_physical_devices("CPU")[0]
            tf.config.set_logical_device_configuration(cpu, [tf.config.LogicalDeviceConfiguration()] * n)
            _strategy = tf.distribute.MirroredStrategy([f"/cpu:{i}" for i in range(n)])
        else:
            _strategy = tf.distribute.MirroredStrategy()
    else:
        raise ValueError(f"DGL_TF_DISTRIBUTE must be 'mirrored' or 'multiworker', not {kind!r}")
    _CHIEF, _TASK_ID = _task_of(_strategy)
    if os.environ.get("DGL_TF_RECORD"):
        _start_record()
    return _strategy


def _task_of(strategy):
    """(is the chief, task index). The chief is the task of type 'chief', else worker 0 when
    TF_CONFIG names no chief, else the only process (mirrored, or no TF_CONFIG)."""
    resolver = getattr(strategy, "cluster_resolver", None)
    if resolver is None or not resolver.task_type:
        return True, 0
    task_id = resolver.task_id or 0
    if resolver.task_type == "chief":
        return True, task_id
    has_chief = "chief" in resolver.cluster_spec().as_dict()
    return resolver.task_type == "worker" and task_id == 0 and not has_chief, task_id


def is_chief():
    return _CHIEF


def sharded_by_data(dataset):
    """`dataset` with the shard policy DATA, for `strategy.experimental_distribute_dataset`,
    which splits every global batch among the replicas, each taking a consecutive part: every
    worker reads the whole source, as the DGL program does, and keeps its own part of each
    batch (the default, AUTO, would first try to split by file)."""
    options = tf.data.Options()
    options.experimental_distribute.auto_shard_policy = tf.data.experimental.AutoShardPolicy.DATA
    return dataset.with_options(options)


def build_weights(model, dataset):
    """Makes the weights of a model whose layers build on their first call (DGL's Sequential
    does) by calling it once on one zero example shaped as the dataset's first component, so
    that they are made here, in the strategy's scope, drawing what DGL drew on the first step."""
    variables = getattr(model, "variables", None)
    if variables is None or not callable(model) or list(variables):
        return
    spec = dataset.element_spec
    while isinstance(spec, (tuple, list)):
        spec = spec[0]
    shape = [1] + [1 if d is None else d for d in spec.shape[1:]]
    model(tf.zeros(shape, spec.dtype))


def build_optimizer(optimizer, variables):
    """Builds the Keras optimizer for `variables` inside the strategy's scope: Keras builds it
    lazily on its first `apply_gradients`, which inside `strategy.run` fails."""
    variables = list(variables)
    if not variables:
        raise ValueError(
            "--distribute: the model has no weights before the training loop; "
            "build it first (model.build(input_shape)) so that they are made in the strategy's scope"
        )
    optimizer.build(variables)


def global_rows(per_example):
    """The rows of the whole global batch, summed over the replicas: the divisor of a mean
    loss computed per replica (the short last batch included)."""
    ctx = tf.distribute.get_replica_context()
    return ctx.all_reduce(tf.distribute.ReduceOp.SUM, tf.shape(per_example)[0])


def _start_record():
    global _record

    _record = {"step_losses": [], "local_rows": [], "step_ends": []}
    _atexit.register(_write_record)


def _write_record():
    path = os.environ["DGL_TF_RECORD"] + ("" if _CHIEF else f".worker{_TASK_ID}")
    with builtins.open(path, "w") as f:
        _json.dump(_record, f)


def record_steps(step):
    """With DGL_TF_RECORD set, notes every step's reduced loss, the rows each local replica
    held and when it ended (tests/export/test_distribute.py reads them); otherwise `step`
    itself."""
    if not os.environ.get("DGL_TF_RECORD"):
        return step

    def recorded(*args, **kwargs):
        result = step(*args, **kwargs)
        # A fit step returns (loss, other sums): the loss comes first.
        loss = result[0] if isinstance(result, (tuple, list)) else result
        if _record is not None:
            first = args[0] if args else next(iter(kwargs.values()))
            local = _strategy.experimental_local_results(first)
            _record["local_rows"].append([int(t.shape[0]) for t in local])
            _record["step_losses"].append(float(np.asarray(loss)))
            _record["step_ends"].append(_time.perf_counter())
        return result

    return recorded


def save_trained_weights(script, *models):
    """On the chief only: writes the trained weights of `models` as w0, w1, ... (each model's
    `weights` in order) into the .npz that DGL_TF_SAVE names, by default SCRIPT.trained.npz
    beside the script. DGL reads them back with load_npy once the .npz is unzipped."""
    if not _CHIEF:
        return
    stem = os.path.splitext(os.path.basename(script))[0]
    path = os.environ.get("DGL_TF_SAVE", os.path.join(_here, stem + ".trained.npz"))
    values = [np.asarray(w.numpy()) for m in models for w in getattr(m, "weights", [])]
    np.savez(path, **{f"w{i}": v for i, v in enumerate(values)})


# ---------------------------------------------------------------------------------------------
# `Model.fit` under --distribute: DGL's compile, fit and evaluate (stdlib/_model.dgl) as a
# custom loop written once, which prints DGL's fit lines. Keras's own fit is not used: it
# prints other lines, and under MultiWorkerMirroredStrategy it has open problems.
# ---------------------------------------------------------------------------------------------


def per_example_loss(name, **settings):
    """The loss of `compile(loss=...)` as a function of (y_true, y_pred) giving one loss per
    example: `tf.keras.losses.NAME` with `settings` (from_logits=, label_smoothing=, delta=).
    The exporter maps DGL's loss names, functions and objects to NAME; DGL averages these
    per-example values, and so does `fit`, over the global batch."""
    function = getattr(tf.keras.losses, name)

    def per_example(y_true, y_pred):
        return function(y_true, y_pred, **settings)

    per_example.__name__ = name
    return per_example


class _Compiled:
    """What compile_model keeps: the Keras optimizer, the per-example loss, the metrics."""

    def __init__(self, optimizer, loss, metrics):
        self.optimizer, self.loss, self.metrics = optimizer, loss, list(metrics or [])
        self.built = False


def compile_model(model, optimizer, loss, metrics=None):
    """DGL's `model.compile(optimizer=, loss=, metrics=)` under --distribute: `optimizer` is a
    Keras optimizer made in the strategy's scope, `loss` a per-example loss (per_example_loss),
    `metrics` a list of 'accuracy' (or 'acc'). Returns None, as DGL's does.

    Errors: ValueError for another metric (the exporter refuses it first)."""
    for m in metrics or []:
        if m not in ("accuracy", "acc"):
            raise ValueError(f"--distribute: fit computes the metric 'accuracy' only, not {m!r}")
    model._dgl_distributed = _Compiled(optimizer, loss, metrics)


def _compiled(model, what):
    compiled = getattr(model, "_dgl_distributed", None)
    if compiled is None:
        raise ValueError(f"you must call compile() before {what}()")
    return compiled


def _tensor(v, labels=False):
    """x or y as a tensor: lists of Python ints given as labels become int64, other numbers
    float32 (as DGL's fit makes them)."""
    if isinstance(v, (tf.Tensor, tf.Variable)) or hasattr(v, "values") and not isinstance(v, (list, tuple)):
        return tf.convert_to_tensor(v)
    a = np.asarray(v)
    if labels and a.dtype.kind in "iu":
        return tf.constant(a, tf.int64)
    return tf.constant(a, tf.float32) if a.dtype.kind in "iuf" else tf.constant(a)


def _is_sparse(loss):
    return "sparse" in getattr(loss, "__name__", "").lower()


def _prepared(compiled, y, y_pred):
    """The targets as the loss takes them: cast to the predictions' dtype, except integer
    labels of a sparse loss (DGL's compute_loss)."""
    if y.dtype != y_pred.dtype and not _is_sparse(compiled.loss):
        y = tf.cast(y, y_pred.dtype)
    return y


def _hits(compiled, y, y_pred):
    """Per example, 1.0 where the prediction is right, as DGL's 'accuracy' chooses from the
    shapes: binary (one column, or a binary cross-entropy loss: the fraction of columns where
    y_pred > 0.5 matches the label), sparse categorical (labels with fewer axes than the
    predictions, or one column against several: the largest prediction at the label), else
    categorical (the largest prediction where the label is largest)."""
    binary = y_pred.shape[-1] == 1 or getattr(compiled.loss, "__name__", "") == "binary_crossentropy"
    if binary:
        right = tf.cast(tf.cast(y, tf.float32) == tf.cast(y_pred > 0.5, tf.float32), tf.float32)
        return right if len(right.shape) < 2 else tf.reduce_mean(right, axis=-1)
    if len(y.shape) < len(y_pred.shape) or (y.shape[-1] == 1 and y_pred.shape[-1] > 1):
        labels = tf.reshape(y, [-1]) if len(y.shape) == len(y_pred.shape) else y
        return tf.cast(tf.cast(labels, tf.int64) == tf.argmax(y_pred, axis=-1), tf.float32)
    return tf.cast(tf.argmax(y, axis=-1) == tf.argmax(y_pred, axis=-1), tf.float32)


def _build(model, compiled, x):
    """Makes the model's weights (from one zero example shaped as x's rows, drawing what DGL
    drew on its first step) and the optimizer's, in the strategy's scope."""
    with _strategy.scope():
        if not list(model.variables):
            model(tf.zeros([1] + list(x.shape[1:]), x.dtype))
        if not compiled.built:
            compiled.optimizer.build(model.trainable_variables)
            compiled.built = True


class History:
    """What fit returns: `history` ({name: [one value per epoch]}), `epoch`, `params`,
    `model` (DGL's History, tf.keras.callbacks.History)."""

    def __init__(self, model, params):
        self.history, self.epoch, self.params, self.model = {}, [], params, model


def _format_value(v):
    return f"{v:.4f}" if abs(v) > 1e-3 else f"{v:.4e}"


def fit(model, x=None, y=None, batch_size=None, epochs=1, verbose="auto", validation_data=None, shuffle=True, initial_epoch=0):
    """DGL's `model.fit` as a distributed custom loop. Every batch of `batch_size` rows (32 by
    default; the last may be short) is shared out among the replicas, each taking a
    consecutive part (DATA sharding); each replica's loss is the sum of its per-example losses
    divided by the rows of the whole batch, so that the reduced loss and the all-reduced
    gradients are the single-process ones. The epoch's loss and accuracy average every
    example's, each measured in the forward pass before its batch's update; with
    `validation_data=(x_val, y_val)`, `val_loss` and `val_accuracy` follow each epoch.
    Prints DGL's lines (`Epoch i/n`, `steps/steps - accuracy: ... - loss: ...`) on the chief
    when verbose. Returns a History.

    Errors: ValueError for shuffle=True (DGL's shuffle cannot be replayed on every replica),
    a Dataset as x, no y, x and y of different lengths, a batch_size that is not a positive
    int, validation_data that is not a pair, or before compile_model."""
    compiled = _compiled(model, "fit")
    if shuffle:
        raise ValueError("--distribute needs fit(..., shuffle=False)")
    if isinstance(x, tf.data.Dataset) or y is None:
        raise ValueError("--distribute needs fit(x, y) with x and y tensors")
    x, y = _tensor(x), _tensor(y, labels=True)
    n = int(x.shape[0])
    if int(y.shape[0]) != n:
        raise ValueError(f"fit(): x has {n} examples but y has {int(y.shape[0])}")
    batch_size = 32 if batch_size is None else batch_size
    if not isinstance(batch_size, int) or isinstance(batch_size, bool) or batch_size <= 0:
        raise ValueError(f"batch_size must be a positive int, got {batch_size!r}")
    if validation_data is not None and (not isinstance(validation_data, (list, tuple)) or len(validation_data) != 2):
        raise ValueError("validation_data must be a pair (x_val, y_val)")
    verbose = 1 if verbose == "auto" else verbose
    steps = (n + batch_size - 1) // batch_size
    _build(model, compiled, x)
    dataset = tf.data.Dataset.from_tensor_slices((x, y)).batch(batch_size)
    dist_dataset = _strategy.experimental_distribute_dataset(sharded_by_data(dataset))
    variables = model.trainable_variables
    accuracy = [m for m in compiled.metrics if m in ("accuracy", "acc")]

    def replica_step(xb, yb):
        with tf.GradientTape() as tape:
            y_pred = model(xb, training=True)
            per_example = compiled.loss(_prepared(compiled, yb, y_pred), y_pred)
            loss = tf.nn.compute_average_loss(per_example, global_batch_size=global_rows(per_example))
        grads = tape.gradient(loss, variables)
        compiled.optimizer.apply_gradients(zip(grads, variables))
        return loss, tf.reduce_sum(per_example), tf.reduce_sum(_hits(compiled, yb, y_pred))

    @record_steps
    @tf.function
    def step(xb, yb):
        per_replica = _strategy.run(replica_step, args=(xb, yb))
        return tuple(_strategy.reduce(tf.distribute.ReduceOp.SUM, v, axis=None) for v in per_replica)

    history = History(model, {"verbose": verbose, "epochs": epochs, "steps": steps})
    model.history = history
    for epoch in range(initial_epoch, epochs):
        loss_sum, hits = 0.0, 0.0
        for xb, yb in dist_dataset:
            _, batch_loss, batch_hits = step(xb, yb)
            loss_sum += float(batch_loss)
            hits += float(batch_hits)
        logs = {"loss": loss_sum / n}
        for m in accuracy:
            logs[m] = hits / n
        if validation_data is not None:
            val = evaluate(model, validation_data[0], validation_data[1], batch_size=batch_size, verbose=0, return_dict=True)
            logs.update({"val_" + k: v for k, v in val.items()})
        logs = {k: logs[k] for k in sorted(logs)}
        history.epoch.append(epoch)
        for k, v in logs.items():
            history.history.setdefault(k, []).append(v)
        if verbose:
            print(f"Epoch {epoch + 1}/{epochs}")
            print(f"{steps}/{steps} - " + " - ".join(f"{k}: {_format_value(v)}" for k, v in logs.items()))
    return history


def evaluate(model, x=None, y=None, batch_size=None, verbose="auto", return_dict=False):
    """DGL's `model.evaluate`: the loss, then the compiled metrics, of the model on all of
    (x, y) at once, in inference mode (every worker holds the same weights and computes the
    same values). Returns the loss alone without metrics, else [loss, metric, ...] in compile
    order, or with return_dict a dict by sorted name; prints `steps/steps - ...` (steps of
    batch_size, 32 by default) on the chief when verbose.

    Errors: ValueError before compile_model, without y, or for x and y of different lengths."""
    compiled = _compiled(model, "evaluate")
    if y is None:
        raise ValueError("evaluate() needs targets y")
    x, y = _tensor(x), _tensor(y, labels=True)
    n = int(x.shape[0])
    if int(y.shape[0]) != n:
        raise ValueError(f"evaluate(): x has {n} examples but y has {int(y.shape[0])}")
    y_pred = model(x, training=False)
    logs = {"loss": float(tf.reduce_mean(compiled.loss(_prepared(compiled, y, y_pred), y_pred)))}
    for m in compiled.metrics:
        logs[m] = float(tf.reduce_mean(_hits(compiled, y, y_pred)))
    ordered = {k: logs[k] for k in sorted(logs)}
    if verbose:
        steps = (n + (batch_size or 32) - 1) // (batch_size or 32)
        print(f"{steps}/{steps} - " + " - ".join(f"{k}: {_format_value(v)}" for k, v in ordered.items()))
    if return_dict:
        return ordered
    return logs["loss"] if len(logs) == 1 else list(logs.values())
