//! The magics, IPython's commands for an interactive session, in the REPL and in notebook
//! cells alike (input.rs finds them): `%time`, `%timeit`, `%who`, `%run`, `%tape`,
//! `%help`. Their output goes to the session's output, as a program's does.

use super::Session;
use crate::error::Exc;
use crate::runtime::format::tape::STR_ROWS;
use crate::runtime::value::{Globals, Value};
use crate::runtime::Failure;
use std::rc::Rc;
use std::time::{Duration, Instant};

/// Every magic with its usage line, as `%help` lists them.
pub const MAGICS: &[(&str, &str)] = &[
    ("%time", "%time STATEMENT         run it once; show the wall-clock and CPU time it took"),
    ("%timeit", "%timeit [-n N] [-r R] STATEMENT   time it over R runs of N loops (chosen when not given)"),
    ("%who", "%who [TYPE]             the names this session defined (of type TYPE only), sorted"),
    ("%run", "%run FILE [ARGS…]       run a script; the names it defines join the session"),
    ("%tape", "%tape [ROWS]            the summary of the GradientTape used last"),
    ("%help", "%help, %magic           this list"),
    ("%%time", "%%time                  (a cell's first line) time the rest of the cell"),
    ("%%timeit", "%%timeit [-n N] [-r R]  (a cell's first line) timeit the rest of the cell"),
];

/// Runs magic `name` (with its `%`, or `%%` for a cell magic whose `body` is the rest
/// of the cell) with the text after its name.
///
/// Errors: NameError for an unknown magic, ValueError for bad arguments, and whatever the
/// code it runs raises.
pub fn run(s: &mut Session, name: &str, args: &str, body: Option<&str>) -> Result<Option<Value>, Failure> {
    let name = name.trim_start_matches('%');
    match (name, body) {
        ("time", None) => time(s, args),
        ("time", Some(body)) if args.is_empty() => time(s, body),
        ("timeit", None) => timeit(s, args, None),
        ("timeit", Some(body)) => timeit(s, args, Some(body)),
        ("who", None) => who(s, args),
        ("run", None) => run_file(s, args),
        ("tape", None) => tape(s, args),
        ("help" | "magic" | "lsmagic", None) => {
            let mut text = String::from("Magics (an entry or a cell line of its own starting with %):\n");
            for (_, line) in MAGICS {
                text.push_str(&format!("  {line}\n"));
            }
            text.push_str("  NAME? (or ?NAME, NAME??)  the help text of NAME, as help(NAME) prints it\n");
            write(s, &text)?;
            Ok(None)
        }
        _ => {
            let prefix = if body.is_some() { "%%" } else { "%" };
            let known = MAGICS.iter().filter(|(m, _)| m.starts_with(prefix) && !m[prefix.len()..].starts_with('%'));
            let names: Vec<&str> = known.map(|(m, _)| &m[prefix.len()..]).collect();
            let e = crate::err!(Name, "unknown magic '{prefix}{name}' (%help lists the magics)");
            Err(Failure::Runtime(crate::runtime::suggest::with_hint(e, name, names)))
        }
    }
}

fn write(s: &mut Session, text: &str) -> Result<(), Failure> {
    s.rt.write_out(text).map_err(Failure::Runtime)
}

/// `%time STATEMENT`: runs it once (as part of the current entry), then writes the wall
/// time and the CPU time (user and system, of the whole process); the value is echoed.
fn time(s: &mut Session, code: &str) -> Result<Option<Value>, Failure> {
    if code.trim().is_empty() {
        return Err(Failure::Runtime(crate::err!(Value, "%time needs a statement to time")));
    }
    let cpu = cpu_times();
    let wall = Instant::now();
    let v = s.run_part(code)?;
    let wall = wall.elapsed();
    let (user, sys) = cpu_times();
    let (user, sys) = (user.saturating_sub(cpu.0), sys.saturating_sub(cpu.1));
    write(
        s,
        &format!(
            "CPU time: {} (user {}, system {})\nWall time: {}\n",
            duration(user + sys),
            duration(user),
            duration(sys),
            duration(wall)
        ),
    )?;
    Ok(v)
}

/// Loops per run are raised until a run takes this long (seconds), as IPython's timeit.
const TARGET_RUN: f64 = 0.2;

/// `%timeit [-n N] [-r R] STATEMENT`: runs the statement N times per run, R runs (7 unless
/// given), and writes the mean and standard deviation of the time per loop. N, unless
/// given, is the first of 1, 2, 5, 10, 20, 50, … whose run takes 0.2 s or more. Ctrl-C
/// stops it (KeyboardInterrupt), as any running statement.
fn timeit(s: &mut Session, args: &str, body: Option<&str>) -> Result<Option<Value>, Failure> {
    let mut rest = args.trim_start();
    let (mut loops, mut runs) = (None, 7usize);
    loop {
        let Some((flag, after)) = rest.split_once(char::is_whitespace) else { break };
        if flag != "-n" && flag != "-r" {
            break;
        }
        let after = after.trim_start();
        let (count, tail) = after.split_once(char::is_whitespace).unwrap_or((after, ""));
        let n: usize = match count.parse() {
            Ok(n) if n > 0 => n,
            _ => {
                return Err(Failure::Runtime(crate::err!(
                    Value,
                    "%timeit {flag} needs a positive whole number, got '{count}'"
                )))
            }
        };
        if flag == "-n" {
            loops = Some(n);
        } else {
            runs = n;
        }
        rest = tail.trim_start();
    }
    let code = body.unwrap_or(rest);
    if code.trim().is_empty() {
        return Err(Failure::Runtime(crate::err!(Value, "%timeit needs a statement to time")));
    }
    let name = Session::entry_name(s.count);
    let (id, block) = s.compile(&name, code)?;
    let mut frame = s.rt.module_frame(&block, &s.globals);
    let mut once = |s: &mut Session, n: usize| -> Result<f64, Failure> {
        let start = Instant::now();
        s.rt.running_in(id, "<module>".into(), |rt| {
            for _ in 0..n {
                rt.check_interrupt()?;
                rt.exec_block(&block, &mut frame)?;
            }
            Ok(())
        })
        .map_err(Failure::Runtime)?;
        Ok(start.elapsed().as_secs_f64())
    };
    let loops = match loops {
        Some(n) => n,
        None => {
            // 1, 2, 5, 10, 20, 50, …: ×2, ×2.5, ×2 in turn.
            let mut n = 1usize;
            let mut k = 0;
            loop {
                if once(s, n)? >= TARGET_RUN || n >= 1_000_000_000 {
                    break n;
                }
                n = if k % 3 == 1 { n * 5 / 2 } else { n * 2 };
                k += 1;
            }
        }
    };
    let mut per_loop = Vec::with_capacity(runs);
    for _ in 0..runs {
        per_loop.push(once(s, loops)? / loops as f64);
    }
    let mean = per_loop.iter().sum::<f64>() / runs as f64;
    let std = (per_loop.iter().map(|t| (t - mean).powi(2)).sum::<f64>() / runs as f64).sqrt();
    let plural = |n: usize, word: &str| if n == 1 { format!("{n} {word}") } else { format!("{n} {word}s") };
    write(
        s,
        &format!(
            "{} ± {} per loop (mean ± std over {} of {})\n",
            duration(Duration::from_secs_f64(mean)),
            duration(Duration::from_secs_f64(std)),
            plural(runs, "run"),
            plural(loops, "loop"),
        ),
    )?;
    Ok(None)
}

/// `%who [TYPE]`: the names the session's entries bound (those starting with `_` aside),
/// sorted, on one line; with TYPE, only those whose value has that type name.
fn who(s: &mut Session, args: &str) -> Result<Option<Value>, Failure> {
    let mut names: Vec<String> = s
        .globals
        .bound()
        .into_iter()
        .filter(|(k, v)| !k.name().starts_with('_') && (args.is_empty() || v.type_name() == args))
        .map(|(k, _)| k.name().to_string())
        .collect();
    names.sort();
    let text = match (names.is_empty(), args.is_empty()) {
        (true, true) => "no names defined in this session yet\n".to_string(),
        (true, false) => format!("no names of type {args}\n"),
        _ => format!("{}\n", names.join("  ")),
    };
    write(s, &text)?;
    Ok(None)
}

/// `%run FILE [ARGS…]`: runs the script as `dgl FILE ARGS…` would (`argv()` is `[FILE,
/// ARGS…]`, relative paths start at its folder), in a module of its own; then every name
/// it bound joins the session (also when it failed part-way), as IPython's `%run`.
/// Errors name the file.
fn run_file(s: &mut Session, args: &str) -> Result<Option<Value>, Failure> {
    let words = split_args(args).map_err(Failure::Runtime)?;
    let Some((file, rest)) = words.split_first() else {
        return Err(Failure::Runtime(crate::err!(Value, "%run needs a file to run")));
    };
    let path = std::path::Path::new(file);
    let text = crate::files::read_source(path).map_err(|m| Failure::Runtime(crate::err!(IO, "{m}")))?;
    let saved = (std::mem::take(&mut s.rt.argv), s.rt.script_dir.clone());
    let mut argv = vec![file.clone()];
    argv.extend(rest.iter().cloned());
    s.rt.argv = argv;
    if let Some(dir) = path.parent() {
        s.rt.script_dir = if dir.as_os_str().is_empty() { ".".into() } else { dir.to_path_buf() };
    }
    let id = s.rt.sources.add_script(file.as_str(), Some(path.to_path_buf()), &text);
    let globals = Rc::new(Globals::default());
    let result = s.rt.run_source(id, &globals);
    (s.rt.argv, s.rt.script_dir) = saved;
    let session = s.globals.clone();
    for (name, v) in globals.bound() {
        s.rt.set_global(&session, name, v);
    }
    result.map(|_| None)
}

/// Splits `%run`'s arguments at spaces; `'…'` and `"…"` quote.
fn split_args(args: &str) -> Result<Vec<String>, Exc> {
    let mut out = Vec::new();
    let mut word: Option<String> = None;
    let mut quote: Option<char> = None;
    for c in args.chars() {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some(_), c) => word.get_or_insert_with(String::new).push(c),
            (None, '\'' | '"') => {
                quote = Some(c);
                word.get_or_insert_with(String::new);
            }
            (None, c) if c.is_whitespace() => out.extend(word.take()),
            (None, c) => word.get_or_insert_with(String::new).push(c),
        }
    }
    if let Some(q) = quote {
        return Err(crate::err!(Value, "%run: the quote {q} is never closed"));
    }
    out.extend(word);
    Ok(out)
}

/// `%tape [ROWS]`: the summary of the GradientTape the session entered last (`tape.summary`,
/// its first and last rows when longer than ROWS, 40 unless given).
fn tape(s: &mut Session, args: &str) -> Result<Option<Value>, Failure> {
    let rows = match args.trim() {
        "" => STR_ROWS,
        n => match n.parse::<usize>() {
            Ok(n) if n >= 2 => n,
            _ => {
                return Err(Failure::Runtime(crate::err!(
                    Value,
                    "%tape ROWS must be a whole number of at least 2, got '{n}'"
                )))
            }
        },
    };
    let Some(t) = s.rt.ad.last_entered() else {
        write(s, "no GradientTape has been used in this session (or it no longer exists)\n")?;
        return Ok(None);
    };
    let text = s.rt.tape_summary(&t.borrow(), Some(rows));
    write(s, &format!("{text}\n"))?;
    Ok(None)
}

/// User and system CPU time of the process so far.
fn cpu_times() -> (Duration, Duration) {
    #[cfg(unix)]
    {
        // SAFETY: getrusage only writes the struct it is given.
        let mut u: libc::rusage = unsafe { std::mem::zeroed() };
        if unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut u) } == 0 {
            let d = |t: libc::timeval| Duration::new(t.tv_sec.max(0) as u64, (t.tv_usec.max(0) as u32) * 1000);
            return (d(u.ru_utime), d(u.ru_stime));
        }
    }
    (Duration::ZERO, Duration::ZERO)
}

/// A duration to 3 significant digits in s, ms, µs or ns: `1.23 s`, `45.6 ms`, `789 ns`.
pub fn duration(d: Duration) -> String {
    let secs = d.as_secs_f64();
    let (value, unit) = if secs >= 1.0 {
        (secs, "s")
    } else if secs >= 1e-3 {
        (secs * 1e3, "ms")
    } else if secs >= 1e-6 {
        (secs * 1e6, "µs")
    } else {
        (secs * 1e9, "ns")
    };
    let digits = if value >= 100.0 {
        0
    } else if value >= 10.0 {
        1
    } else {
        2
    };
    let text = format!("{value:.digits$}");
    // 999.6 ms rounds to `1000 ms`: keep it, the unit boundary is clear enough either way.
    if unit == "ns" && value == 0.0 {
        return "0 ns".into();
    }
    format!("{text} {unit}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_have_three_significant_digits() {
        assert_eq!(duration(Duration::from_secs_f64(1.23456)), "1.23 s");
        assert_eq!(duration(Duration::from_secs_f64(0.0456)), "45.6 ms");
        assert_eq!(duration(Duration::from_nanos(789)), "789 ns");
        assert_eq!(duration(Duration::from_nanos(1500)), "1.50 µs");
        assert_eq!(duration(Duration::ZERO), "0 ns");
        assert_eq!(duration(Duration::from_secs(250)), "250 s");
    }

    #[test]
    fn run_arguments_split_at_spaces_and_quotes_group() {
        assert_eq!(split_args("a.dgl 1 'two words' \"x\"").expect("splits"), ["a.dgl", "1", "two words", "x"]);
        assert_eq!(split_args("").expect("splits"), Vec::<String>::new());
        assert!(split_args("'open").is_err());
    }
}
