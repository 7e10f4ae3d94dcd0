//! `_progress_bar`: the native half of `progress(iterable, desc=, total=, disable=)` (item 5; `stdlib/_progress.dgl` is the generator that calls it; also `leave=`), a tqdm-style bar on
//! stderr:
//!
//! ```text
//! epochs:  40%|██████████▏              | 4/10 [00:02<00:03, 1.95it/s]
//! ```
//!
//! On a terminal the line is redrawn in place (`\r`) at most 10 times a second and ends with
//! a newline when the loop ends; when stderr is not a terminal (a pipe, a log file, a
//! notebook's stream) a plain line is written at most every [`LINE_EVERY`] and once at the
//! end. Under the golden runner (`Interp::quiet_progress`: `dgl test`, `cargo test`) nothing
//! is drawn unless the call says `disable=False`. A bar costs one clock read per item.

use crate::builtins::Native;
use crate::error::R;
use crate::runtime::value::{Args, Value};
use crate::runtime::Interp;
use std::cell::RefCell;
use std::collections::HashMap;
use std::io::IsTerminal;
use std::time::{Duration, Instant};

/// The shortest time between two redraws of a terminal bar (tqdm's `mininterval`).
const REDRAW_EVERY: Duration = Duration::from_millis(100);
/// The shortest time between two plain lines when stderr is not a terminal.
pub const LINE_EVERY: Duration = Duration::from_secs(5);
/// Cells of the bar itself.
const BAR_WIDTH: usize = 25;

/// The module's names and values.
pub fn build(_rt: &mut Interp) -> R<Vec<(&'static str, Value)>> {
    Ok(vec![("start", START.value()), ("step", STEP.value()), ("close", CLOSE.value())])
}

/// One bar being drawn.
struct Bar {
    desc: Option<String>,
    total: Option<u64>,
    n: u64,
    started: Instant,
    drawn: Instant,
    terminal: bool,
    /// The width of the last line drawn in place, to blank what a shorter line leaves.
    width: usize,
}

thread_local! {
    /// The open bars by handle (the handle is what `start` returns to the generator).
    static BARS: RefCell<(i64, HashMap<i64, Bar>)> = RefCell::new((0, HashMap::new()));
}

static START: Native = Native::new("start", &["desc", "total", "disable"], start);

/// `_progress_bar.start(desc, total, disable)`: a handle (an int) for a new bar, or None when
/// nothing is to be drawn.
fn start(rt: &mut Interp, args: &mut Args) -> R<Value> {
    let mut a = START.bind(rt, args)?;
    let desc = a.value("desc")?;
    let total = a.value("total")?;
    let disable = a.value("disable")?;
    let show = match disable {
        Value::None => !rt.config().quiet_progress(),
        v => !rt.truthy(&v)?,
    };
    if !show {
        return Ok(Value::None);
    }
    let desc = match desc {
        Value::None => None,
        v => Some(rt.str_of(&v)?),
    };
    let total = match total {
        Value::None => None,
        v => Some(rt.int_arg(&v, "total")?.max(0) as u64),
    };
    let now = Instant::now();
    let terminal = std::io::stderr().is_terminal();
    let bar = Bar { desc, total, n: 0, started: now, drawn: now, terminal, width: 0 };
    let handle = BARS.with(|b| {
        let mut b = b.borrow_mut();
        b.0 += 1;
        let h = b.0;
        b.1.insert(h, bar);
        h
    });
    if terminal {
        draw(rt, handle, false)?;
    }
    Ok(Value::Int(handle))
}

static STEP: Native = Native::new("step", &["bar: int"], step);

/// `_progress_bar.step(bar)`: one more item done; redraws when it is time.
fn step(rt: &mut Interp, args: &mut Args) -> R<Value> {
    let h = STEP.bind(rt, args)?.int("bar")?;
    let due = BARS.with(|b| {
        let mut b = b.borrow_mut();
        let Some(bar) = b.1.get_mut(&h) else { return false };
        bar.n += 1;
        let every = if bar.terminal { REDRAW_EVERY } else { LINE_EVERY };
        bar.drawn.elapsed() >= every
    });
    if due {
        draw(rt, h, false)?;
    }
    Ok(Value::None)
}

static CLOSE: Native = Native::new("close", &["bar: int", "leave: bool"], close);

/// `_progress_bar.close(bar, leave)`: the final state, then a newline; with `leave` false
/// (tqdm's `leave=False`) a terminal bar is erased instead and a piped one writes no final
/// line. The bar is forgotten.
fn close(rt: &mut Interp, args: &mut Args) -> R<Value> {
    let mut a = CLOSE.bind(rt, args)?;
    let h = a.int("bar")?;
    let leave = a.bool_or("leave", true)?;
    if leave {
        draw(rt, h, true)?;
    }
    let bar = BARS.with(|b| b.borrow_mut().1.remove(&h));
    if let Some(bar) = bar.filter(|b| b.terminal && !leave) {
        let mut err = rt.err_out.borrow_mut();
        let _ = write!(err, "\r{}\r", " ".repeat(bar.width));
        let _ = err.flush();
    }
    Ok(Value::None)
}

/// Writes the bar's line to stderr: in place on a terminal, as a line of its own otherwise.
fn draw(rt: &mut Interp, h: i64, last: bool) -> R<()> {
    let Some(text) = BARS.with(|b| {
        let mut b = b.borrow_mut();
        let bar = b.1.get_mut(&h)?;
        bar.drawn = Instant::now();
        let line = line(bar.desc.as_deref(), bar.n, bar.total, bar.started.elapsed().as_secs_f64());
        Some(if bar.terminal {
            let pad = bar.width.saturating_sub(line.chars().count());
            bar.width = line.chars().count();
            format!("\r{line}{}{}", " ".repeat(pad), if last { "\n" } else { "" })
        } else {
            format!("{line}\n")
        })
    }) else {
        return Ok(());
    };
    let mut err = rt.err_out.borrow_mut();
    // A closed or full stderr must not stop the training loop: the bar is only a view.
    let _ = err.write_all(text.as_bytes());
    let _ = err.flush();
    Ok(())
}

/// The text of a bar: `desc: 40%|████      | 4/10 [00:02<00:03, 1.95it/s]`, or without a
/// total `desc: 4it [00:02, 1.95it/s]`. `elapsed` in seconds.
pub fn line(desc: Option<&str>, n: u64, total: Option<u64>, elapsed: f64) -> String {
    let prefix = desc.map(|d| format!("{d}: ")).unwrap_or_default();
    let rate = if elapsed > 0.0 { n as f64 / elapsed } else { 0.0 };
    let speed = match rate {
        r if r <= 0.0 => "?it/s".to_string(),
        r if r < 1.0 => format!("{:.2}s/it", 1.0 / r),
        r => format!("{r:.2}it/s"),
    };
    match total {
        Some(t) if t > 0 => {
            let frac = (n as f64 / t as f64).clamp(0.0, 1.0);
            let eta = if rate > 0.0 { clock(t.saturating_sub(n) as f64 / rate) } else { "?".into() };
            format!(
                "{prefix}{:>3.0}%|{}| {n}/{t} [{}<{eta}, {speed}]",
                (frac * 100.0).floor(),
                cells(frac),
                clock(elapsed)
            )
        }
        _ => format!("{prefix}{n}it [{}, {speed}]", clock(elapsed)),
    }
}

/// The bar's cells for a fraction done: full blocks, one partial block in eighths, spaces.
fn cells(frac: f64) -> String {
    const PARTS: [char; 8] = [' ', '▏', '▎', '▍', '▌', '▋', '▊', '▉'];
    let eighths = (frac * (BAR_WIDTH * 8) as f64).round() as usize;
    let (full, part) = (eighths / 8, eighths % 8);
    let mut s = "█".repeat(full.min(BAR_WIDTH));
    if full < BAR_WIDTH {
        s.push(PARTS[part]);
        s.push_str(&" ".repeat(BAR_WIDTH - full - 1));
    }
    s
}

/// Seconds as `mm:ss`, or `h:mm:ss` from an hour on.
fn clock(secs: f64) -> String {
    let s = if secs.is_finite() { secs.max(0.0).min(1e9) as u64 } else { 0 };
    if s >= 3600 {
        format!("{}:{:02}:{:02}", s / 3600, s / 60 % 60, s % 60)
    } else {
        format!("{:02}:{:02}", s / 60, s % 60)
    }
}

#[cfg(test)]
mod tests {
    use super::line;

    #[test]
    fn a_bar_shows_count_total_elapsed_eta_and_rate() {
        // 4 of 10 in 2 s: 2 it/s, 6 left take 3 s; 40 % of 25 cells is 10 full cells.
        assert_eq!(
            line(Some("epochs"), 4, Some(10), 2.0),
            "epochs:  40%|██████████               | 4/10 [00:02<00:03, 2.00it/s]"
        );
        assert_eq!(line(None, 3, None, 6.0), "3it [00:06, 2.00s/it]");
        assert_eq!(
            line(None, 10, Some(10), 3725.0),
            "100%|█████████████████████████| 10/10 [1:02:05<00:00, 0.00s/it]"
                .replace("0.00s/it", &format!("{:.2}s/it", 372.5))
        );
    }
}
