//! Property test (issue 24 item 13): `tape.explain` never contradicts the tape. Random small
//! programs (one operation a line over watched, unwatched, constant and Variable inputs, some
//! through `recompute_grad` and `custom_gradient`, some watched late) are run, and for every
//! (target, source) pair each operation the explanation calls "not recorded" must be absent
//! from the tape's own listing (`print(tape)`), and each one it calls recorded (a step the
//! gradient flows through, an entry it names by number) must be there, at that line.

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::cell::RefCell;
use std::collections::BTreeSet;
use std::rc::Rc;

const SOURCES: &[&str] = &["x", "c", "w", "f"];

/// One statement computing a tensor of shape [2] from `pool` (earlier names).
fn op(rng: &mut ChaCha8Rng, pool: &[String]) -> String {
    let mut pick = || pool[rng.random_range(0..pool.len())].clone();
    let (a, b) = (pick(), pick());
    match rng.random_range(0..11) {
        0 => format!("{a} * {b}"),
        1 => format!("{a} + {b}"),
        2 => format!("sin({a})"),
        3 => format!("stop_gradient({a})"),
        4 => format!("cast(cast({a}, int64), float32)"),
        5 => format!("rg({a}, {b})"),
        6 => format!("cg({a}, {b})"),
        7 => format!("{a} * 2.0"),
        8 => format!("reduce_sum({a}) * {b}"),
        9 => format!("tanh({a}) - {b}"),
        _ => format!("maximum({a}, {b})"),
    }
}

/// A program and its targets' names.
fn program(seed: u64) -> (String, Vec<String>) {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut src = String::from(
        "x = constant([0.5, -1.0])\n\
         c = constant([2.0, 3.0])\n\
         w = Variable([1.5, 0.5])\n\
         f = Variable([0.2, 0.1], trainable=False)\n\
         @recompute_grad\n\
         def rg(a, b):\n\
         \x20   return a * b\n\
         @custom_gradient\n\
         def cg(a, b):\n\
         \x20   def grad(dy):\n\
         \x20       return dy * b, None\n\
         \x20   return a * b, grad\n",
    );
    let persistent = rng.random_bool(0.7);
    src.push_str(&format!("with GradientTape(persistent={}) as tape:\n", if persistent { "True" } else { "False" }));
    let watch_at = rng.random_range(0..4);
    let n = rng.random_range(1..7);
    let mut pool: Vec<String> = SOURCES.iter().map(|s| s.to_string()).collect();
    let mut targets = Vec::new();
    for k in 0..n {
        if k == watch_at {
            src.push_str("    tape.watch(x)\n");
        }
        let t = format!("t{k}");
        src.push_str(&format!("    {t} = {}\n", op(&mut rng, &pool)));
        pool.push(t.clone());
        targets.push(t);
    }
    if rng.random_bool(0.5) {
        // The grad_fn's None answers are known once gradient has run.
        let last = targets.last().expect("one target at least");
        src.push_str(&format!("print(tape.gradient({last}, [x, c, w, f]) is None)\n"));
    }
    src.push_str("print('TAPE')\nprint(tape)\n");
    for t in &targets {
        for s in SOURCES {
            src.push_str(&format!("print('EXPLAIN {t} {s}')\nprint(tape.explain({t}, {s}))\n"));
        }
    }
    (src, targets)
}

/// Runs `src` in-process as `fuzz.dgl`; returns (exit code, stdout, stderr).
fn run(src: String) -> (i32, String, String) {
    dgl::with_big_stack(move || {
        let buf = Rc::new(RefCell::new(Vec::<u8>::new()));
        let out: dgl::runtime::Output = buf.clone();
        let mut rt = dgl::runtime::Interp::new(out);
        let r = dgl::run_program(&mut rt, "fuzz.dgl", None, &src, vec![]);
        let stdout = String::from_utf8_lossy(&buf.borrow()).into_owned();
        (r.code, stdout, r.stderr)
    })
}

/// The tape's listing: (entry index, op name, line) of each row of `print(tape)`.
fn listing(text: &str) -> Vec<(usize, String, usize)> {
    let mut rows = Vec::new();
    for line in text.lines().skip(2) {
        // Columns are separated by two spaces or more: #, op, shapes, saved, file:line, region.
        let cols: Vec<&str> = line.split("  ").map(str::trim).filter(|c| !c.is_empty()).collect();
        if cols.len() < 6 || cols[0].parse::<usize>().is_err() {
            continue;
        }
        let at: usize = cols[4].rsplit(':').next().and_then(|l| l.parse().ok()).expect("a line number");
        rows.push((cols[0].parse().expect("an index"), cols[1].to_string(), at));
    }
    rows
}

/// The number after `key` in `s` (`line 4`, `entry 0`, `fuzz.dgl:4`).
fn number_after(s: &str, key: &str) -> Option<usize> {
    let rest = &s[s.find(key)? + key.len()..];
    rest.chars().take_while(char::is_ascii_digit).collect::<String>().parse().ok()
}

/// What one explanation claims: (op, line, recorded?, entry index if named).
fn claims(text: &str, source: &str) -> Vec<(String, usize, bool, Option<usize>)> {
    let mut out = Vec::new();
    for line in text.lines() {
        let line = line.trim();
        if let Some(rest) = line.strip_prefix(&format!("{source} → ")) {
            // The path: `name (line N[, mark])` steps between the source and the target.
            for step in rest.split(" → ") {
                let Some(open) = step.rfind(" (") else { continue };
                let (name, inner) = (&step[..open], &step[open + 2..step.len() - 1]);
                let Some(at) = number_after(inner, "line ").or_else(|| number_after(inner, "fuzz.dgl:")) else {
                    continue;
                };
                let mark = inner.split_once(", ").map_or("", |(_, m)| m);
                match mark {
                    "not recorded" => out.push((name.to_string(), at, false, None)),
                    "no gradient" => {}
                    m if m.starts_with("recorded as entry") => {
                        out.push((name.to_string(), at, true, number_after(m, "entry ")))
                    }
                    _ => out.push((name.to_string(), at, true, None)),
                }
            }
        } else if let Some(at_pos) = line.find(" at fuzz.dgl:") {
            // Sentences about one operation: `multiply at fuzz.dgl:4 used c, but the tape did not record it`.
            let name = line[..at_pos].trim_start_matches("is None: ").to_string();
            let Some(at) = number_after(line, " at fuzz.dgl:") else { continue };
            if line.contains("did not record it")
                || line.ends_with("was not recorded")
                || line.contains("so it was not recorded")
            {
                out.push((name, at, false, None));
            } else if line.contains("the tape recorded it (entry") {
                out.push((name, at, true, number_after(line, "(entry ")));
            }
        }
    }
    out
}

fn check(seed: u64) -> usize {
    let (src, _) = program(seed);
    let (code, stdout, stderr) = run(src.clone());
    assert_eq!(code, 0, "seed {seed}: the program failed: {stderr}\n{src}");
    let (_, after) = stdout.split_once("TAPE\n").expect("the tape listing");
    let (tape_text, explains) = after.split_once("EXPLAIN ").map_or((after, ""), |(a, b)| (a, b));
    let rows = listing(tape_text);
    let recorded: BTreeSet<(String, usize)> = rows.iter().map(|(_, n, l)| (n.clone(), *l)).collect();
    let mut checked = 0;
    for block in format!("EXPLAIN {explains}").split("EXPLAIN ").skip(1) {
        let (head, text) = block.split_once('\n').unwrap_or((block, ""));
        let source = head.split(' ').nth(1).expect("a source name");
        for (name, at, says_recorded, entry) in claims(text, source) {
            let listed = recorded.contains(&(name.clone(), at));
            let ctx = || format!("seed {seed}, {head}: {name} at line {at}\n{text}\ntape:\n{tape_text}\n{src}");
            if says_recorded {
                assert!(listed, "explain says recorded, the tape does not list it: {}", ctx());
            } else {
                assert!(!listed, "explain says not recorded, the tape lists it: {}", ctx());
            }
            if let Some(i) = entry {
                let row = rows.iter().find(|r| r.0 == i);
                assert!(
                    row.is_some_and(|r| r.1 == name && r.2 == at),
                    "explain names entry {i}, the tape's row differs: {}",
                    ctx()
                );
            }
            checked += 1;
        }
    }
    checked
}

#[test]
fn explanations_agree_with_the_tape_listing() {
    let mut claims_checked = 0;
    for seed in 0..150 {
        claims_checked += check(seed);
    }
    // The test must be able to fail: the programs make many claims of both kinds.
    assert!(claims_checked > 300, "only {claims_checked} claims checked");
}

#[test]
fn the_checker_sees_a_contradiction() {
    // An explanation calling a listed entry "not recorded" (what issue 24 item 13 found).
    let text = "the gradient of y with respect to s is None: s is not watched by this tape\n  s → multiply (line 4, not recorded) → y\n";
    let c = claims(text, "s");
    assert_eq!(c, vec![("multiply".to_string(), 4, false, None)]);
    let tape = "GradientTape(persistent=True): 1 op, stopped\n  #  op        inputs -> outputs     saved  line        region\n  0  multiply  f32[] f32[] -> f32[]      8  fuzz.dgl:4  -\n";
    assert_eq!(listing(tape), vec![(0, "multiply".to_string(), 4)]);
}
