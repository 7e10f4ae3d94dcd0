//! `dgl export --tf --distribute mirrored|multiworker` without TensorFlow: the custom loop of
//! example 10 is written in its distributed form (strategy scope, strategy.run and reduce, the
//! dataset distributed, the loss scaled by the global batch), and programs of other shapes are
//! refused with a spanned error naming the structure needed. tests/export/test_distribute.py
//! runs the exported scripts under TensorFlow.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn dgl(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_dgl")).args(args).output().expect("dgl runs")
}

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The example-10 training loop, with `edit` applied to its text, written into `dir`.
fn variant(dir: &Path, name: &str, edit: impl Fn(&str) -> String) -> PathBuf {
    example_variant("examples/10_digits_distributed.dgl", dir, name, edit)
}

/// `example` edited by `edit`, written as `dir/name` with the digits data beside it.
fn example_variant(example: &str, dir: &Path, name: &str, edit: impl Fn(&str) -> String) -> PathBuf {
    let text = std::fs::read_to_string(root().join(example)).unwrap();
    let path = dir.join(name);
    std::fs::create_dir_all(dir.join("data")).unwrap();
    std::fs::copy(root().join("examples/data/digits.csv"), dir.join("data/digits.csv")).unwrap();
    std::fs::write(&path, edit(&text)).unwrap();
    path
}

/// Exports `file` with `--distribute mirrored`; returns (exit code, stderr).
fn export(file: &Path, out: &Path) -> (i32, String) {
    let o = dgl(&[
        "export",
        "--tf",
        "--distribute",
        "mirrored",
        file.to_str().unwrap(),
        "-o",
        out.join("x.py").to_str().unwrap(),
    ]);
    (o.status.code().unwrap_or(-1), String::from_utf8_lossy(&o.stderr).into_owned())
}

#[test]
fn example_10_is_written_in_its_distributed_form() {
    let tmp = tempfile::tempdir().unwrap();
    for kind in ["mirrored", "multiworker"] {
        let out = tmp.path().join(kind).join("ex10.py");
        let o = dgl(&[
            "export",
            "--tf",
            "--distribute",
            kind,
            root().join("examples/10_digits_distributed.dgl").to_str().unwrap(),
            "-o",
            out.to_str().unwrap(),
        ]);
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        let py = std::fs::read_to_string(&out).unwrap();
        for part in [
            &format!("strategy = dgl_tf.make_strategy(\"{kind}\")"),
            "with strategy.scope():",
            "    model = nn.Sequential(",
            "    opt = tf.keras.optimizers.Adam(learning_rate=0.005)",
            "    dgl_tf.build_optimizer(opt, model.trainable_variables)",
            "train_ds = tf.data.Dataset.from_tensor_slices((x_train, y_train)).batch(GLOBAL_BATCH)",
            "dist_train_ds = strategy.experimental_distribute_dataset(dgl_tf.sharded_by_data(train_ds))",
            "def replica_train_step(x, y):",
            "loss = tf.nn.compute_average_loss(per_example, global_batch_size=GLOBAL_BATCH)",
            "per_replica = strategy.run(replica_train_step, args=(x, y))",
            "return strategy.reduce(tf.distribute.ReduceOp.SUM, per_replica, axis=None)",
            "for x, y in dist_train_ds:",
            "steps = len(train_ds)",
            "dgl_tf.save_trained_weights(__file__, model)",
        ] {
            assert!(py.contains(part), "{kind}: no {part:?} in\n{py}");
        }
        // The strategy is made before the program's first TensorFlow operation.
        assert!(py.find("make_strategy").unwrap() < py.find("dgl_tf.read_csv").unwrap());
        // The step is no longer DGL's eager function.
        assert!(!py.contains("@dgl_tf.function"), "{py}");
        let support = std::fs::read_to_string(tmp.path().join(kind).join("dgl_tf.py")).unwrap();
        assert!(support.contains("def make_strategy(kind):"));
    }
}

#[test]
fn a_program_without_a_step_is_refused_with_the_structure_needed() {
    let tmp = tempfile::tempdir().unwrap();
    // The same training without @function: a plain loop.
    let file = variant(tmp.path(), "nostep.dgl", |t| t.replace("@function\n", ""));
    let (code, err) = export(&file, &tmp.path().join("out"));
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("--distribute needs a training step: a function decorated @function"), "{err}");
    assert!(err.contains("nostep.dgl:"), "spanned: {err}");
    // The plain export of the same program works.
    let o = dgl(&["export", "--tf", file.to_str().unwrap(), "-o", tmp.path().join("plain/x.py").to_str().unwrap()]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
}

#[test]
fn a_step_not_called_on_a_dataset_is_refused() {
    let tmp = tempfile::tempdir().unwrap();
    let file = variant(tmp.path(), "list.dgl", |t| {
        t.replace("    for x, y in train_ds:\n", "    for x, y in [(x_train, y_train)]:\n")
    });
    let (code, err) = export(&file, &tmp.path().join("out"));
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("the call of the step `train_step`"), "{err}");
    assert!(err.contains("--distribute needs the step to be called on the elements of a batched Dataset"), "{err}");
    assert!(err.contains("list.dgl:"), "{err}");
}

#[test]
fn shuffles_dropout_and_other_losses_are_refused() {
    let cases: Vec<(&str, Edit, &str)> = vec![
        (
            "shuffle.dgl",
            Box::new(|t| t.replace(".batch(GLOBAL_BATCH)", ".shuffle(100).batch(GLOBAL_BATCH)")),
            "cannot replay DGL's shuffle on every replica",
        ),
        (
            "dropout.dgl",
            Box::new(|t| t.replace("nn.Dense(10)])", "nn.Dropout(0.2), nn.Dense(10)])")),
            "`Dropout` in the model",
        ),
        (
            "maxloss.dgl",
            Box::new(|t| t.replace("reduce_sum(per_example) / GLOBAL_BATCH", "reduce_max(per_example)")),
            "--distribute needs the loss as reduce_sum(per_example) / GLOBAL_BATCH or reduce_mean(per_example)",
        ),
        (
            "inside.dgl",
            Box::new(|t| {
                t.replace(
                    "    with GradientTape() as tape:\n",
                    "    v = Variable(1.0)\n    with GradientTape() as tape:\n",
                )
            }),
            "it is created inside the step; create it before the training loop",
        ),
    ];
    assert_each_refused("examples/10_digits_distributed.dgl", cases);
}

#[test]
fn a_mean_loss_is_divided_by_the_rows_of_the_whole_global_batch() {
    let tmp = tempfile::tempdir().unwrap();
    let file = variant(tmp.path(), "mean.dgl", |t| {
        t.replace("reduce_sum(per_example) / GLOBAL_BATCH", "reduce_mean(per_example)")
    });
    let (code, err) = export(&file, &tmp.path().join("out"));
    assert_eq!(code, 0, "{err}");
    let py = std::fs::read_to_string(tmp.path().join("out/x.py")).unwrap();
    assert!(
        py.contains(
            "loss = tf.nn.compute_average_loss(per_example, global_batch_size=dgl_tf.global_rows(per_example))"
        ),
        "{py}"
    );
}

#[test]
fn check_lists_every_refusal() {
    let tmp = tempfile::tempdir().unwrap();
    let file = variant(tmp.path(), "both.dgl", |t| {
        t.replace(".batch(GLOBAL_BATCH)", ".shuffle(100).batch(GLOBAL_BATCH)")
            .replace("reduce_sum(per_example) / GLOBAL_BATCH", "reduce_max(per_example)")
    });
    let o = dgl(&["export", "--tf", "--check", "--distribute", "multiworker", file.to_str().unwrap()]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(err.contains("shuffle on every replica") && err.contains("--distribute needs the loss"), "{err}");
    assert!(err.contains("2 construct(s)"), "{err}");
}

/// Example 11 (Model.fit), with `edit` applied to its text, written into `dir`.
fn fit_variant(dir: &Path, name: &str, edit: impl Fn(&str) -> String) -> PathBuf {
    example_variant("examples/11_digits_fit.dgl", dir, name, edit)
}

type Edit = Box<dyn Fn(&str) -> String>;

/// Each `(file name, edit of the example, message)`: the edited `example` is refused with
/// the message, spanned in that file.
fn assert_each_refused(example: &str, cases: Vec<(&str, Edit, &str)>) {
    let tmp = tempfile::tempdir().unwrap();
    for (name, edit, message) in cases {
        let file = example_variant(example, tmp.path(), name, edit);
        let (code, err) = export(&file, &tmp.path().join("out"));
        assert_eq!(code, 1, "{name}: {err}");
        assert!(err.contains(message), "{name}: {err}");
        assert!(err.contains(&format!("{name}:")), "{name} spanned: {err}");
    }
}

#[test]
fn example_11_is_written_in_its_fit_form() {
    let tmp = tempfile::tempdir().unwrap();
    for kind in ["mirrored", "multiworker"] {
        let out = tmp.path().join(kind).join("ex11.py");
        let o = dgl(&[
            "export",
            "--tf",
            "--distribute",
            kind,
            root().join("examples/11_digits_fit.dgl").to_str().unwrap(),
            "-o",
            out.to_str().unwrap(),
        ]);
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        let py = std::fs::read_to_string(&out).unwrap();
        for part in [
            &format!("strategy = dgl_tf.make_strategy(\"{kind}\")"),
            "with strategy.scope():\n    model = nn.Sequential([nn.Dense(64, activation=\"relu\"), nn.Dense(10)])\n    dgl_tf.compile_model(model, ",
            "optimizer=tf.keras.optimizers.Adam(learning_rate=0.005)",
            "loss=dgl_tf.per_example_loss(\"sparse_categorical_crossentropy\", from_logits=True)",
            "metrics=[\"accuracy\"])",
            "\nhistory = dgl_tf.fit(model, x_train, y_train, batch_size=64, epochs=5, shuffle=False)",
            "test_loss, test_accuracy = dgl_tf.evaluate(model, x_test, y_test, verbose=0)",
            "dgl_tf.save_trained_weights(__file__, model)",
        ] {
            assert!(py.contains(part), "{kind}: no {part:?} in\n{py}");
        }
        assert!(py.find("make_strategy").unwrap() < py.find("dgl_tf.read_csv").unwrap());
        assert!(!py.contains("model.compile(") && !py.contains("model.fit("), "{py}");
        let support = std::fs::read_to_string(tmp.path().join(kind).join("dgl_tf.py")).unwrap();
        assert!(support.contains("def fit(model, x=None, y=None, batch_size=None"));
    }
}

#[test]
fn fit_accepts_loss_names_functions_and_a_named_optimizer() {
    let tmp = tempfile::tempdir().unwrap();
    let cases: Vec<(&str, &str, &str, &[&str])> = vec![
        (
            "name.dgl",
            "loss=losses.SparseCategoricalCrossentropy(from_logits=True)",
            "loss=\"sparse_categorical_crossentropy\"",
            &["loss=dgl_tf.per_example_loss(\"sparse_categorical_crossentropy\")"],
        ),
        (
            "function.dgl",
            "loss=losses.SparseCategoricalCrossentropy(from_logits=True)",
            "loss=losses.mse",
            &["loss=dgl_tf.per_example_loss(\"mean_squared_error\")"],
        ),
        (
            "string_opt.dgl",
            "optimizer=optim.Adam(learning_rate=0.005)",
            "optimizer=\"sgd\"",
            &["optimizer=tf.keras.optimizers.SGD()"],
        ),
    ];
    for (name, from, to, parts) in cases {
        let file = fit_variant(tmp.path(), name, |t| t.replace(from, to));
        let (code, err) = export(&file, &tmp.path().join(format!("out_{name}")));
        assert_eq!(code, 0, "{name}: {err}");
        let py = std::fs::read_to_string(tmp.path().join(format!("out_{name}")).join("x.py")).unwrap();
        for part in parts {
            assert!(py.contains(part), "{name}: no {part:?} in\n{py}");
        }
    }
    // An optimizer bound by its own statement is made by Keras, in the scope.
    let file = fit_variant(tmp.path(), "named.dgl", |t| {
        t.replace("model = nn.Sequential", "opt = optim.RMSprop(0.01)\nmodel = nn.Sequential")
            .replace("optimizer=optim.Adam(learning_rate=0.005)", "optimizer=opt")
    });
    let (code, err) = export(&file, &tmp.path().join("out_named"));
    assert_eq!(code, 0, "{err}");
    let py = std::fs::read_to_string(tmp.path().join("out_named/x.py")).unwrap();
    assert!(py.contains("with strategy.scope():\n    opt = tf.keras.optimizers.RMSprop(0.01)"), "{py}");
    assert!(py.contains("dgl_tf.compile_model(model, optimizer=opt, "), "{py}");
}

#[test]
fn fit_forms_that_cannot_be_distributed_are_refused_with_what_is_needed() {
    let cases: Vec<(&str, Edit, &str)> = vec![
        (
            "shuffle.dgl",
            Box::new(|t| t.replace(", shuffle=False)", ")")),
            "--distribute needs fit(..., shuffle=False): DGL's shuffle draws from DGL's generator",
        ),
        (
            "shuffle_true.dgl",
            Box::new(|t| t.replace("shuffle=False", "shuffle=True")),
            "--distribute needs fit(..., shuffle=False)",
        ),
        (
            "dataset.dgl",
            Box::new(|t| {
                t.replace("import losses\n", "import data\nimport losses\n")
                    .replace(
                        "model = nn.Sequential",
                        "ds = data.Dataset.from_tensor_slices((x_train, y_train)).batch(64)\nmodel = nn.Sequential",
                    )
                    .replace("model.fit(x_train, y_train, batch_size=64,", "model.fit(ds,")
            }),
            "--distribute needs fit(x, y, ..., shuffle=False) with x and y tensors",
        ),
        (
            "myloss.dgl",
            Box::new(|t| {
                t.replace(
                    "model = nn.Sequential",
                    "def my_loss(a, b):\n    return reduce_mean(square(a - b))\n\n\nmodel = nn.Sequential",
                )
                .replace("loss=losses.SparseCategoricalCrossentropy(from_logits=True)", "loss=my_loss")
            }),
            "--distribute needs compile(loss=...) as a loss name",
        ),
        (
            "reduction.dgl",
            Box::new(|t| t.replace("(from_logits=True)", "(from_logits=True, reduction=\"sum\")")),
            "give the loss its default reduction",
        ),
        (
            "optimizer.dgl",
            Box::new(|t| t.replace("optimizer=optim.Adam(learning_rate=0.005)", "optimizer=\"nadam\"")),
            "--distribute needs compile(optimizer=...) as optim.SGD, Adam, AdamW, RMSprop or Adagrad",
        ),
        (
            "metric.dgl",
            Box::new(|t| t.replace("metrics=[\"accuracy\"]", "metrics=[\"accuracy\", \"auc\"]")),
            "--distribute's fit computes metrics=['accuracy'] only",
        ),
        (
            "dropout.dgl",
            Box::new(|t| t.replace("nn.Dense(10)])", "nn.Dropout(0.2), nn.Dense(10)])")),
            "`Dropout` in the model",
        ),
        (
            "nocompile.dgl",
            Box::new(|t| {
                let start = t.find("model.compile(").unwrap();
                let end = start + t[start..].find("\n)\n").unwrap() + 3;
                format!("{}{}", &t[..start], &t[end..])
            }),
            "--distribute needs one model.compile(...) statement at top level, between the model's creation and fit",
        ),
    ];
    assert_each_refused("examples/11_digits_fit.dgl", cases);
}
