//! The TensorFlow-guide corpus (tests/tfguides/, see its README): the code cells of nine TF
//! guides, verbatim, run in order in one session as the notebook kernel runs them (pictures
//! apart), each cell's text (what it prints, then the repr of its last expression's value
//! unless the cell ends with `;`; `!! Kind` for an uncaught exception) compared with what
//! TF 2.21 printed; with them the code cells of seven Keras developer guides (tests/tfguides/keras/)
//! and what Keras 3.15 printed. The test fails when fewer cells of a guide
//! match than the floor below: raise a floor whenever a change makes more cells match.

use dgl::runtime::Failure;
use dgl::session::Session;
use std::cell::RefCell;
use std::path::PathBuf;
use std::rc::Rc;

/// Each guide, and how many of its cells must print what TF prints.
const FLOORS: &[(&str, usize)] = &[
    ("tensor", 39),
    ("variable", 7),
    ("basics", 36),
    ("autodiff", 28),
    ("intro_to_modules", 17),
    ("basic_training_loops", 10),
    ("checkpoint", 11),
    ("intro_to_graphs", 16),
    ("function", 27),
    // The Keras developer guides (tests/tfguides/keras/, see its README).
    ("keras/functional_api", 26),
    ("keras/sequential_model", 16),
    ("keras/making_new_layers_and_models_via_subclassing", 15),
    ("keras/training_with_built_in_methods", 18),
    ("keras/writing_a_custom_training_loop_in_tensorflow", 12),
    ("keras/customizing_what_happens_in_fit", 4),
    ("keras/serialization_and_saving", 17),
];

/// The cells of a corpus file: (number, text) after each `# %% [N]` line.
fn cells(text: &str) -> Vec<(usize, String)> {
    let mut out: Vec<(usize, String)> = vec![];
    for line in text.lines() {
        let marker = line.strip_prefix("# %% [").and_then(|rest| rest.strip_suffix(']'));
        match (marker.and_then(|n| n.parse().ok()), out.last_mut()) {
            (Some(n), _) => out.push((n, String::new())),
            (None, Some((_, cell))) => {
                cell.push_str(line);
                cell.push('\n');
            }
            (None, None) => {}
        }
    }
    out
}

/// The text a notebook shows for each cell of `source`, run in order in one session.
fn run_guide(source: &str) -> Vec<(usize, String)> {
    let buf = Rc::new(RefCell::new(Vec::<u8>::new()));
    let mut session = Session::new(buf.clone());
    // As in the notebook kernel, `display(x)` (`plt.show()`) is a picture beside the cell's text.
    session.rt.set_display_hook(Rc::new(|_, _| Ok(())));
    // As in a notebook, `tf.print` writes to the cell's output (TF's interactive logging).
    session.rt.set_interactive_logging(true);
    let mut shown = vec![];
    for (n, code) in cells(source) {
        let mut text = match session.run(&code) {
            Ok(Some(_)) if dgl::session::ends_with_semicolon(&code) => take(&buf),
            Ok(Some(v)) => {
                let repr = session.repr(&v).unwrap_or_else(|_| "!! repr failed".into());
                take(&buf) + &repr + "\n"
            }
            Ok(None) => take(&buf),
            Err(Failure::Runtime(e)) => {
                if std::env::var_os("DGL_TFGUIDES_ERRORS").is_some() {
                    eprintln!("[{n}] {e}");
                }
                format!("{}!! {}\n", take(&buf), e.kind().name())
            }
            Err(_) => format!("{}!! SyntaxError\n", take(&buf)),
        };
        if !text.is_empty() && !text.ends_with('\n') {
            text.push('\n');
        }
        shown.push((n, text));
    }
    shown
}

/// What the session has printed since the last call.
fn take(buf: &Rc<RefCell<Vec<u8>>>) -> String {
    String::from_utf8_lossy(&std::mem::take(&mut *buf.borrow_mut())).into_owned()
}

#[test]
fn the_tensorflow_guides_print_what_tensorflow_prints() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/tfguides");
    // Cells that save files (checkpoints, SavedModels) write them in a folder of their own.
    let work = tempfile::tempdir().expect("a temporary folder");
    std::env::set_current_dir(work.path()).expect("cd to the temporary folder");
    let (mut report, mut short) = (vec![], vec![]);
    let (mut total, mut matching) = (0, 0);
    for &(guide, floor) in FLOORS {
        let source = std::fs::read_to_string(root.join(format!("{guide}.dgl"))).expect("the guide");
        let expected = std::fs::read_to_string(root.join(format!("{guide}.expected"))).expect("its outputs");
        let source_for_thread = source.clone();
        let got = dgl::with_big_stack(move || run_guide(&source_for_thread));
        let expected = cells(&expected);
        assert_eq!(
            got.iter().map(|c| c.0).collect::<Vec<_>>(),
            expected.iter().map(|c| c.0).collect::<Vec<_>>(),
            "{guide}: the cells of the .dgl and the .expected differ"
        );
        let mut differing = vec![];
        for ((n, got), (_, want)) in got.iter().zip(&expected) {
            if got != want {
                let first = got.lines().zip(want.lines()).find(|(g, w)| g != w);
                let (g, w) = first.unwrap_or((got.lines().last().unwrap_or(""), want.lines().last().unwrap_or("")));
                differing.push(format!("  {guide}:{n}: got {g:?}, TF {w:?}"));
            }
        }
        let ok = got.len() - differing.len();
        report.push(format!("{guide}: {ok} of {} cells print what TF prints", got.len()));
        report.extend(differing);
        (total, matching) = (total + got.len(), matching + ok);
        if ok < floor {
            short.push(format!("{guide}: {ok} cells match, fewer than {floor}"));
        }
    }
    let summary = format!("{matching} of {total} cells match\n{}", report.join("\n"));
    println!("{summary}");
    assert!(short.is_empty(), "{}\n{summary}", short.join("\n"));
}
