

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
        loss = step(*args, **kwargs)
        if _record is not None:
            first = args[0] if args else next(iter(kwargs.values()))
            local = _strategy.experimental_local_results(first)
            _record["local_rows"].append([int(t.shape[0]) for t in local])
            _record["step_losses"].append(float(np.asarray(loss)))
            _record["step_ends"].append(_time.perf_counter())
        return loss

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
