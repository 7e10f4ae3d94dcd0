//! `import tensorflow as tf` and `import numpy as np` (issue 14): every name of the two tables
//! resolves to a DGL value (no stale entry), every TF name a help entry's "TF:" line gives is
//! reachable under `tf.` (or deliberately left out, with the reason), names DGL lacks are
//! AttributeErrors naming the library's API, and importing stays lazy.

use dgl::builtins::modules::foreign::Library;
use dgl::builtins::modules::numpy::NUMPY;
use dgl::builtins::modules::tensorflow::TENSORFLOW;
use dgl::help::entries::Registry;
use dgl::intern::intern;
use dgl::runtime::value::Value;
use dgl::runtime::Interp;
use std::cell::RefCell;
use std::rc::Rc;

/// Whether two values are one native function (`tf.reduce_sum` is `reduce_sum` under TF's
/// dtype rules: a value of its own, the same function).
fn same_native(a: &Value, b: &Value) -> bool {
    use dgl::runtime::value::BuiltinKind;
    match (a, b) {
        (Value::Builtin(x), Value::Builtin(y)) => match (&x.kind, &y.kind) {
            (BuiltinKind::Native(f, _), BuiltinKind::Native(g, _)) => std::ptr::eq(*f, *g),
            _ => false,
        },
        _ => false,
    }
}

fn interp() -> Interp {
    Interp::new(Rc::new(RefCell::new(Vec::<u8>::new())))
}

/// The value at `path` (`tensorflow.keras.layers.Dense`), read attribute by attribute from the
/// imported top module, as `tf.keras.layers.Dense` reads it.
fn lookup(rt: &mut Interp, path: &str) -> Result<Value, String> {
    let mut parts = path.split('.');
    let top = parts.next().expect("a path");
    let mut v = Value::Module(rt.import(top).map_err(|e| e.to_string())?);
    for p in parts {
        v = rt.get_attr(&v, intern(p)).map_err(|e| e.to_string())?;
    }
    Ok(v)
}

/// The table names of `lib` that do not resolve, as `path: error`.
fn unresolved(lib: &Library) -> Vec<String> {
    let mut rt = interp();
    let mut bad = vec![];
    let mut count = 0;
    for module in lib.modules() {
        for e in lib.entries(module) {
            count += 1;
            let path = format!("{module}.{}", e.name);
            if let Err(msg) = lookup(&mut rt, &path) {
                bad.push(format!("{path} (= {}): {msg}", e.source));
            }
        }
    }
    assert!(count > 40, "{} has only {count} names: is the table read?", lib.root);
    bad
}

#[test]
fn every_tensorflow_name_in_the_table_resolves() {
    let bad = unresolved(&TENSORFLOW);
    assert!(bad.is_empty(), "TF names that do not resolve:\n{}", bad.join("\n"));
}

#[test]
fn every_numpy_name_in_the_table_resolves() {
    let bad = unresolved(&NUMPY);
    assert!(bad.is_empty(), "NumPy names that do not resolve:\n{}", bad.join("\n"));
}

#[test]
fn tf_names_are_dgls_own_values() {
    let mut rt = interp();
    for (tf, dgl) in [
        ("tensorflow.reduce_sum", "reduce_sum"),
        ("tensorflow.math.log", "log"),
        ("tensorflow.nn.relu", "relu"),
        ("tensorflow.range", "range_tensor"),
        ("tensorflow.random.normal", "random_normal"),
        ("tensorflow.random.set_seed", "set_seed"),
        ("tensorflow.GradientTape", "GradientTape"),
        // (`tf.Variable` is a Variable whose `name` reads as TF's: tests/tfstyle/tf_variable_names.dgl.)
        ("tensorflow.custom_gradient", "custom_gradient"),
        ("tensorflow.recompute_grad", "recompute_grad"),
        ("tensorflow.function", "function"),
        ("tensorflow.float32", "float32"),
        ("tensorflow.linalg.matmul", "matmul"),
        ("numpy.sum", "reduce_sum"),
        ("numpy.exp", "exp"),
    ] {
        let v = lookup(&mut rt, tf).expect(tf);
        let own = rt.builtins().get(&intern(dgl)).cloned().expect(dgl);
        assert!(v.is(&own) || same_native(&v, &own), "{tf} is not DGL's {dgl}");
    }
    for (tf, module, name) in [
        ("tensorflow.keras.layers.Dense", "nn", "Dense"),
        ("tensorflow.keras.Sequential", "nn", "Sequential"),
        ("tensorflow.keras.optimizers.Adam", "optim", "Adam"),
        ("tensorflow.keras.losses.MeanSquaredError", "losses", "MeanSquaredError"),
        ("tensorflow.data.Dataset", "data", "Dataset"),
        ("keras.layers.Dense", "nn", "Dense"),
        ("tensorflow.linalg.solve", "linalg", "solve"),
    ] {
        let v = lookup(&mut rt, tf).expect(tf);
        let own = lookup(&mut rt, &format!("{module}.{name}")).expect(name);
        assert!(v.is(&own) || same_native(&v, &own), "{tf} is not DGL's {module}.{name}");
    }
}

/// TF names the help entries give that `tf.` deliberately does not bind, with the reason.
const LEFT_OUT: &[(&str, &str)] = &[("tf.print", "TF prints tensors in NumPy's format, DGL's print does not")];

#[test]
fn every_tf_name_of_the_help_entries_is_reachable() {
    let mut rt = interp();
    let mut missing = vec![];
    let mut checked = 0;
    for e in Registry::get().entries() {
        // Methods and attributes (`tf.Tensor.shape`) are reached through their values.
        if e.key.contains('.') && !e.key.starts_with("linalg.") {
            continue;
        }
        let text = e.text();
        let Some(line) = text.lines().find(|l| l.starts_with("- TF:")) else { continue };
        let mut rest = line;
        while let Some(i) = rest.find("`tf.") {
            let after = &rest[i + 1..];
            let end = after.find('`').unwrap_or(after.len());
            let name = &after[..end];
            rest = &after[end..];
            if LEFT_OUT.iter().any(|(n, _)| *n == name) {
                continue;
            }
            checked += 1;
            if let Err(msg) = lookup(&mut rt, &format!("tensorflow{}", &name[2..])) {
                missing.push(format!("{name} (entry {}): {msg}", e.key));
            }
        }
    }
    assert!(checked > 150, "only {checked} TF names found in the help entries");
    assert!(missing.is_empty(), "TF names of help entries that `tf.` lacks:\n{}", missing.join("\n"));
}

#[test]
fn a_name_dgl_lacks_is_an_attribute_error_naming_the_api() {
    let mut rt = interp();
    for (path, message) in [
        ("tensorflow.signal", "DGL has no tf.signal (TensorFlow 2.21.0 has it; DGL does not implement it)"),
        ("tensorflow.nn.ctc_loss", "DGL has no tf.nn.ctc_loss (TensorFlow 2.21.0 has it; DGL does not implement it)"),
        (
            "tensorflow.keras.layers.ConvLSTM2D",
            "DGL has no tf.keras.layers.ConvLSTM2D (TensorFlow 2.21.0 has it; DGL does not implement it)",
        ),
        ("tensorflow.image.resize", "DGL has no tf.image (TensorFlow 2.21.0 has it; DGL does not implement it)"),
        ("numpy.fft", "DGL has no np.fft (NumPy 2.4.6 has it; DGL does not implement it)"),
        ("numpy.linalg.eig", "DGL has no np.linalg.eig (NumPy 2.4.6 has it; DGL does not implement it)"),
    ] {
        let e = match lookup(&mut rt, path) {
            Ok(_) => panic!("{path} resolved"),
            Err(e) => e,
        };
        // The message, then perhaps a near name as a hint.
        assert!(e.starts_with(&format!("AttributeError: {message}")), "{path}: {e}");
    }
    let e = lookup(&mut rt, "tensorflow.reduce_summ").expect_err("a typo");
    assert!(e.ends_with("Did you mean: 'reduce_sum'?"), "{e}");
}

#[test]
fn importing_tensorflow_loads_no_stdlib_module_until_a_name_needs_it() {
    let mut rt = interp();
    let loaded = |rt: &Interp, m: &str| rt.is_loaded(m);
    lookup(&mut rt, "tensorflow.reduce_sum").expect("tf.reduce_sum");
    lookup(&mut rt, "tensorflow.keras.layers").expect("tf.keras.layers");
    for m in ["nn", "optim", "losses", "metrics", "data", "initializers", "_tf", "_keras"] {
        assert!(!loaded(&rt, m), "importing tensorflow loaded {m}");
    }
    lookup(&mut rt, "tensorflow.keras.layers.Dense").expect("Dense");
    assert!(loaded(&rt, "nn"), "tf.keras.layers.Dense did not load nn");
    assert!(!loaded(&rt, "optim"), "tf.keras.layers.Dense loaded optim");
    // A name read once is bound: the module's globals hold it now.
    let Value::Module(layers) = lookup(&mut rt, "tensorflow.keras.layers").unwrap() else { panic!("a module") };
    assert!(layers.globals.get(intern("Dense")).is_some());
}

#[test]
fn dir_lists_names_not_yet_bound() {
    let mut rt = interp();
    let layers = lookup(&mut rt, "tensorflow.keras.layers").expect("tf.keras.layers");
    let names = dgl::help::values::dir_names(&rt, &layers);
    assert!(names.iter().any(|n| n == "Dense"), "{names:?}");
    assert!(!rt.is_loaded("nn"), "dir loaded nn");
}

#[test]
fn every_name_has_help() {
    for lib in [&TENSORFLOW, &NUMPY] {
        let mut rt = interp();
        let mut bad = vec![];
        for module in lib.modules() {
            for e in lib.entries(module) {
                let path = format!("{module}.{}", e.name);
                // `newaxis` is None, whose help is None's.
                let Ok(v) = lookup(&mut rt, &path) else { continue };
                if matches!(v, Value::None) {
                    continue;
                }
                let text = dgl::help::help_text(&mut rt, &v);
                if text.contains("No help entry") || text.contains("no help entry") || text.trim().is_empty() {
                    bad.push(format!("{path}: {}", text.lines().next().unwrap_or("")));
                }
            }
        }
        assert!(bad.is_empty(), "names whose help is missing:\n{}", bad.join("\n"));
    }
    // help(tf) starts with the module's entry.
    let mut rt = interp();
    let tf = lookup(&mut rt, "tensorflow").expect("tf");
    assert!(dgl::help::help_text(&mut rt, &tf).starts_with("tensorflow\n\n`import tensorflow as tf`"));
}

/// Every TF function whose signature has `name=` (tests/data/tf_name_param.txt, written by
/// tools/tfnames/name_param.py from TF 2.21) takes it in DGL too, wherever DGL has the function:
/// called with only `name='n'`, it may fail for its missing arguments but never for the keyword.
#[test]
fn every_tf_function_taking_name_takes_it() {
    let listed = include_str!("data/tf_name_param.txt");
    let names: Vec<&str> = listed.lines().filter(|l| !l.is_empty()).collect();
    let quoted: Vec<String> = names.iter().map(|n| format!("'{n}'")).collect();
    let script = format!(
        "import tensorflow as tf\n\
         has = 0\n\
         for full in [{}]:\n\
         \x20   obj = tf\n\
         \x20   for part in full.split('.')[1:]:\n\
         \x20       obj = getattr(obj, part, None)\n\
         \x20       if obj is None:\n\
         \x20           break\n\
         \x20   if obj is None:\n\
         \x20       continue\n\
         \x20   has += 1\n\
         \x20   try:\n\
         \x20       obj(name='n')\n\
         \x20   except Exception as e:\n\
         \x20       if \"keyword argument 'name'\" in str(e):\n\
         \x20           print('refuses name=:', full)\n\
         print('has', has)\n",
        quoted.join(", ")
    );
    let dir = tempfile::tempdir().expect("a temporary folder");
    let path = dir.path().join("names.dgl");
    std::fs::write(&path, script).expect("script written");
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_dgl"))
        .arg(&path)
        .current_dir(dir.path())
        .output()
        .expect("dgl runs");
    let text = String::from_utf8_lossy(&out.stdout);
    let refused: Vec<&str> = text.lines().filter(|l| l.starts_with("refuses")).collect();
    assert!(refused.is_empty(), "{}", refused.join("\n"));
    let has: usize = text.lines().find_map(|l| l.strip_prefix("has ")).and_then(|n| n.parse().ok()).unwrap_or(0);
    // DGL has 292 of TF's 657 today; far fewer means the lookup itself broke.
    assert!(has >= 250, "only {has} of TF's functions taking name= were found:\n{text}");
}
