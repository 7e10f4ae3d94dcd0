//! `import time`: wall-clock and monotonic clocks (seconds, as floats) and `sleep`.

use crate::bail;
use crate::builtins::{Native, NO_ARGS};
use crate::error::R;
use crate::runtime::value::{Args, Value};
use crate::runtime::Interp;
use std::sync::OnceLock;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

/// The module's names and values.
pub fn build(_rt: &mut Interp) -> R<Vec<(&'static str, Value)>> {
    Ok(FNS.iter().map(|b| (b.name, b.value())).collect())
}

/// The module's functions.
pub const FNS: &[&Native] = &[&TIME, &PERF_COUNTER, &MONOTONIC, &SLEEP];

static TIME: Native = Native::with("time", NO_ARGS, time);

/// `time.time()`: seconds since the Unix epoch, as a float.
fn time(rt: &mut Interp, args: &mut Args) -> R<Value> {
    NO_ARGS.bind(rt, args)?;
    let since = SystemTime::now().duration_since(UNIX_EPOCH).unwrap_or_default();
    Ok(Value::Float(since.as_secs_f64()))
}

static PERF_COUNTER: Native = Native::with("perf_counter", NO_ARGS, monotonic);
static MONOTONIC: Native = Native::with("monotonic", NO_ARGS, monotonic);

/// `time.perf_counter()`, `time.monotonic()`: seconds (a float) on a clock that never
/// goes back, counted from an unspecified start (the first call); only differences mean anything.
fn monotonic(rt: &mut Interp, args: &mut Args) -> R<Value> {
    NO_ARGS.bind(rt, args)?;
    static START: OnceLock<Instant> = OnceLock::new();
    let start = START.get_or_init(Instant::now);
    Ok(Value::Float(start.elapsed().as_secs_f64()))
}

static SLEEP: Native = Native::new("sleep", &["secs: float"], sleep);

/// `time.sleep(secs)`: pauses for `secs` seconds (a float); Ctrl-C interrupts it
/// (KeyboardInterrupt) within 50 ms.
///
/// Errors: ValueError "sleep length must be non-negative"; ValueError for NaN;
/// OverflowError "sleep length is too large" beyond what a `Duration` holds.
fn sleep(rt: &mut Interp, args: &mut Args) -> R<Value> {
    let secs = SLEEP.bind(rt, args)?.float("secs")?;
    if secs.is_nan() {
        bail!(Value, "Invalid value NaN (not a number)");
    }
    if secs < 0.0 {
        bail!(Value, "sleep length must be non-negative");
    }
    let Ok(total) = Duration::try_from_secs_f64(secs) else { bail!(Overflow, "sleep length is too large") };
    let end = Instant::now() + total.min(Duration::from_secs(u32::MAX as u64));
    loop {
        rt.check_interrupt()?;
        let now = Instant::now();
        if now >= end {
            return Ok(Value::None);
        }
        std::thread::sleep((end - now).min(Duration::from_millis(50)));
    }
}
