//! The memory limit (docs/language.md "Limits"): the one mechanism that turns running out of
//! memory into a MemoryError instead of an abort. Rust aborts the process when an allocation
//! fails, so DGL never lets one fail: the global allocator ([`Counting`]) counts the bytes in
//! use, a soft limit sits below what the process may really get (the address-space limit of
//! `ulimit -v`, a container's cgroup `memory.max`, the memory the machine has available, or
//! `DGL_MEMORY_LIMIT`), and
//!
//! - every allocation whose size a script chooses (a tensor, a list, string or dict growing, a
//!   file read) asks [`reserve`] first, which refuses a request that would pass the soft limit;
//! - the interpreter polls [`exhausted`] where it polls for Ctrl-C (each statement, loop pass,
//!   comprehension item and call), so memory taken in many small unchecked pieces ends the
//!   program's step there.
//!
//! The headroom between the soft limit and the real one takes the stacks, the allocator's own
//! overhead and whatever one step allocates between two polls.
//!
//! This module depends on nothing else in the crate.

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering::Relaxed};
use std::sync::OnceLock;

/// The process's allocator: the system allocator, counting the bytes it holds for DGL.
pub struct Counting;

/// Bytes held by live allocations, each counted as the system allocator's chunk for it.
static LIVE: AtomicUsize = AtomicUsize::new(0);

/// Set when [`exhausted`] has reported the soft limit passed; cleared once use is below it again.
static REPORTED: AtomicBool = AtomicBool::new(false);

/// What an allocation of `size` bytes costs the system allocator: glibc's chunk (the size plus
/// an 8-byte header, rounded up to 16, at least 32), so that many small allocations count as
/// the memory they really take.
#[inline]
fn charged(size: usize) -> usize {
    (size.saturating_add(8 + 15) & !15).max(32)
}

// SAFETY: every call forwards to `System` unchanged; the counter is only arithmetic.
unsafe impl GlobalAlloc for Counting {
    #[inline]
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let p = System.alloc(layout);
        if !p.is_null() {
            LIVE.fetch_add(charged(layout.size()), Relaxed);
        }
        p
    }

    #[inline]
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        let p = System.alloc_zeroed(layout);
        if !p.is_null() {
            LIVE.fetch_add(charged(layout.size()), Relaxed);
        }
        p
    }

    #[inline]
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        System.dealloc(ptr, layout);
        LIVE.fetch_sub(charged(layout.size()), Relaxed);
    }

    #[inline]
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let p = System.realloc(ptr, layout, new_size);
        if !p.is_null() {
            let (old, new) = (charged(layout.size()), charged(new_size));
            if new >= old {
                LIVE.fetch_add(new - old, Relaxed);
            } else {
                LIVE.fetch_sub(old - new, Relaxed);
            }
        }
        p
    }
}

/// The soft limit and what it was derived from.
#[derive(Clone, Copy, Debug)]
pub struct Limit {
    /// Bytes DGL may hold; a request past it is a MemoryError.
    pub soft: usize,
    /// Headroom above `soft` that a step may use before the next poll stops it.
    pub slack: usize,
    /// Where the limit comes from, for the error message.
    pub source: &'static str,
}

static LIMIT: OnceLock<Limit> = OnceLock::new();

/// Bytes in use now (as the allocator counts them).
pub fn in_use() -> usize {
    LIVE.load(Relaxed)
}

/// The soft limit, derived once, the first time it is asked for.
pub fn limit() -> Limit {
    *LIMIT.get_or_init(derive_limit)
}

/// Fails when `bytes` more would take the bytes in use past the soft limit. The error text
/// is the MemoryError's message.
pub fn reserve(bytes: u128) -> Result<(), String> {
    let lim = limit();
    let live = in_use() as u128;
    if live.saturating_add(bytes) > lim.soft as u128 {
        return Err(format!(
            "out of memory: {} more bytes would pass the memory limit of {} bytes ({}; {} bytes in use)",
            bytes, lim.soft, lim.source, live
        ));
    }
    Ok(())
}

/// The poll: `Some(message)` when the bytes in use have passed the soft limit. Once reported,
/// it reports again only past half the headroom above the limit (so that an `except
/// MemoryError` handler can run while the memory is still held), until use has fallen a
/// quarter of the headroom below the limit.
#[inline]
pub fn exhausted() -> Option<String> {
    let live = in_use();
    let lim = limit();
    if live <= lim.soft && !REPORTED.load(Relaxed) {
        return None;
    }
    if REPORTED.load(Relaxed) {
        if live < lim.soft.saturating_sub(lim.slack / 4) {
            REPORTED.store(false, Relaxed);
        }
        if live <= lim.soft.saturating_add(lim.slack / 2) {
            return None;
        }
    }
    REPORTED.store(true, Relaxed);
    Some(format!("out of memory: {live} bytes in use pass the memory limit of {} bytes ({})", lim.soft, lim.source))
}

const MIB: usize = 1 << 20;

/// Address space each thread may take beyond what is mapped when the limit is derived: its
/// stack and a glibc arena (64 MiB reserved per thread that allocates).
const PER_THREAD: usize = 72 * MIB;

/// The soft limit: the smallest of what the address-space limit, the cgroup and the machine
/// leave, each taken as three quarters of what is still available (the last quarter is the
/// headroom), and of `DGL_MEMORY_LIMIT`.
fn derive_limit() -> Limit {
    let live = in_use();
    let mut best = Limit { soft: usize::MAX, slack: usize::MAX / 4, source: "no limit found" };
    let mut consider = |avail: usize, source: &'static str| {
        let soft = live.saturating_add(avail / 4 * 3);
        if soft < best.soft {
            best = Limit { soft, slack: avail / 4, source };
        }
    };
    // The rayon pool's threads (DGL_NUM_THREADS may ask for more than there are cores), the
    // interpreter's and the main thread.
    let cores = std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1);
    let threads = cores.max(env_threads().unwrap_or(0)) + 2;
    for (lim, used, source) in address_limits() {
        consider(lim.saturating_sub(used).saturating_sub(threads * PER_THREAD), source);
    }
    if let Some((lim, used)) = cgroup_limit() {
        consider(lim.saturating_sub(used), "the container's memory.max");
    }
    if let Some(avail) = available_memory() {
        consider(avail, "the memory available on this machine");
    }
    if let Some(n) = std::env::var("DGL_MEMORY_LIMIT").ok().and_then(|s| parse_bytes(&s)) {
        // An explicit limit is the soft limit itself; what the system allows still bounds it.
        if n < best.soft {
            best = Limit { soft: n, slack: best.slack.min(n / 3).max(16 * MIB), source: "DGL_MEMORY_LIMIT" };
        }
    }
    // Too little left to run at all: a small working limit, and the poll's band with it.
    if best.soft < live + 16 * MIB {
        best.soft = live + 16 * MIB;
        best.slack = best.slack.max(8 * MIB);
    }
    best
}

fn env_threads() -> Option<usize> {
    std::env::var("DGL_NUM_THREADS").ok()?.trim().parse().ok()
}

/// `123`, `512M`, `4G` (powers of 1024) as bytes.
fn parse_bytes(s: &str) -> Option<usize> {
    let s = s.trim();
    let (digits, unit) = match s.char_indices().find(|(_, c)| !c.is_ascii_digit()) {
        Some((i, _)) => s.split_at(i),
        None => (s, ""),
    };
    let n: usize = digits.parse().ok()?;
    let scale = match unit.trim().to_ascii_uppercase().as_str() {
        "" | "B" => 1,
        "K" | "KB" | "KIB" => 1 << 10,
        "M" | "MB" | "MIB" => 1 << 20,
        "G" | "GB" | "GIB" => 1 << 30,
        _ => return None,
    };
    n.checked_mul(scale)
}

/// The address-space limits in force (`ulimit -v`, `ulimit -d`) with what is mapped under each now.
#[cfg(unix)]
fn address_limits() -> Vec<(usize, usize, &'static str)> {
    let page = page_size();
    let statm = std::fs::read_to_string("/proc/self/statm").unwrap_or_default();
    let fields: Vec<usize> = statm.split_whitespace().filter_map(|f| f.parse().ok()).collect();
    let (size, data) = (fields.first().map_or(0, |p| p * page), fields.get(5).map_or(0, |p| p * page));
    let mut out = Vec::new();
    for (res, used, source) in [
        (libc::RLIMIT_AS, size, "the address-space limit, ulimit -v"),
        (libc::RLIMIT_DATA, data, "the data-segment limit, ulimit -d"),
    ] {
        let mut r = libc::rlimit { rlim_cur: 0, rlim_max: 0 };
        // SAFETY: getrlimit writes one rlimit struct it is given.
        if unsafe { libc::getrlimit(res, &mut r) } == 0 && r.rlim_cur != libc::RLIM_INFINITY {
            out.push((usize::try_from(r.rlim_cur).unwrap_or(usize::MAX), used, source));
        }
    }
    out
}

#[cfg(not(unix))]
fn address_limits() -> Vec<(usize, usize, &'static str)> {
    Vec::new()
}

#[cfg(unix)]
fn page_size() -> usize {
    // SAFETY: sysconf only reads a configuration value.
    let p = unsafe { libc::sysconf(libc::_SC_PAGESIZE) };
    if p > 0 {
        p as usize
    } else {
        4096
    }
}

/// A cgroup's memory limit and its usage now (v2 `memory.max`, v1 `memory.limit_in_bytes`).
fn cgroup_limit() -> Option<(usize, usize)> {
    let read = |p: &str| std::fs::read_to_string(p).ok().and_then(|s| s.trim().parse::<usize>().ok());
    let own = std::fs::read_to_string("/proc/self/cgroup").ok().and_then(|s| {
        s.lines().find_map(|l| l.strip_prefix("0::").map(|p| p.trim().trim_end_matches('/').to_string()))
    });
    let mut dirs = Vec::new();
    if let Some(p) = own {
        dirs.push(format!("/sys/fs/cgroup{p}"));
    }
    dirs.push("/sys/fs/cgroup".to_string());
    for d in dirs {
        if let Some(max) = read(&format!("{d}/memory.max")) {
            return Some((max, read(&format!("{d}/memory.current")).unwrap_or(0)));
        }
    }
    let max = read("/sys/fs/cgroup/memory/memory.limit_in_bytes")?;
    // v1 reports "no limit" as a huge number.
    (max < 1 << 60).then(|| (max, read("/sys/fs/cgroup/memory/memory.usage_in_bytes").unwrap_or(0)))
}

/// The memory the machine can still give (Linux: MemAvailable; elsewhere: physical memory).
fn available_memory() -> Option<usize> {
    if let Ok(text) = std::fs::read_to_string("/proc/meminfo") {
        let kib = text
            .lines()
            .find_map(|l| l.strip_prefix("MemAvailable:"))
            .and_then(|r| r.trim().trim_end_matches("kB").trim().parse::<usize>().ok())?;
        return Some(kib.saturating_mul(1024));
    }
    #[cfg(unix)]
    {
        // SAFETY: sysconf only reads a configuration value.
        let pages = unsafe { libc::sysconf(libc::_SC_PHYS_PAGES) };
        if pages > 0 {
            return Some((pages as usize).saturating_mul(page_size()));
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_parse_with_binary_units() {
        assert_eq!(parse_bytes("512M"), Some(512 << 20));
        assert_eq!(parse_bytes("4G"), Some(4 << 30));
        assert_eq!(parse_bytes("1000"), Some(1000));
        assert_eq!(parse_bytes("lots"), None);
    }

    #[test]
    fn a_request_past_the_limit_is_refused() {
        assert!(reserve(u64::MAX as u128).is_err());
        assert!(reserve(0).is_ok());
        assert!(charged(1) == 32 && charged(24) == 32 && charged(100) == 112);
    }
}
