//! The allocation budget: every buffer whose size a script can choose (a
//! tensor, a repeated, concatenated or growing list or string, a dict or set
//! growing, a file read into memory) is checked here before it is allocated
//! (docs/language.md §7, docs/language.md "Limits"). A request over DGL's own limits
//! is a ValueError naming the size; one the memory limit refuses (crate::memory)
//! is a MemoryError; never an allocation failure.

use super::error::{tensor_bail, TensorResult as R};
use super::shape_str;

/// The most elements one tensor may have (2^28: 1 GiB of float32).
pub const MAX_ELEMENTS: usize = 1 << 28;

/// The most dimensions one tensor may have (TF allows 254; 32 is plenty and keeps index math small).
pub const MAX_RANK: usize = 32;

/// The most bytes one list, tuple or string may hold (1 GiB), and the most a loader reads.
pub const MAX_BYTES: usize = 1 << 30;

/// The one shape validator: every dimension, and the product of the non-zero
/// dimensions, must be at most [`MAX_ELEMENTS`] (so a zero dimension cannot hide
/// an overflowing one), and the rank at most [`MAX_RANK`]. Every partial product
/// is computed with checked arithmetic. A shape is checked before a tensor of it
/// is made, so the memory limit is asked for its elements too (at 4 bytes each,
/// float32's size; kernels that know the dtype ask [`check_elements`]).
///
/// Errors: ValueError naming the shape and the limit; MemoryError past the memory limit.
pub fn check_shape(shape: &[usize]) -> R<()> {
    check_dims(shape)?;
    reserve(checked_count(shape).unwrap_or(0) as u128 * 4)
}

/// The memory for a kernel's result of `count` elements of `item_bytes` each.
///
/// Errors: MemoryError past the memory limit.
pub fn check_elements(count: usize, item_bytes: usize) -> R<()> {
    reserve(count as u128 * item_bytes as u128)
}

/// Asks the memory limit (crate::memory) for `bytes` about to be allocated.
///
/// Errors: MemoryError when they would pass it.
pub fn reserve(bytes: u128) -> R<()> {
    // Small requests are the poll's business: asking costs more than they do.
    if bytes < 1 << 16 {
        return Ok(());
    }
    crate::memory::reserve(bytes).map_err(|m| super::error::TensorError::new(super::error::TensorErrorKind::Memory, m))
}

/// [`check_shape`]'s limits on the shape alone.
fn check_dims(shape: &[usize]) -> R<()> {
    if shape.len() > MAX_RANK {
        tensor_bail!(Value, "a tensor of rank {} is too large (the limit is rank {})", shape.len(), MAX_RANK);
    }
    let mut n: usize = 1;
    for &d in shape {
        match n.checked_mul(d.max(1)) {
            Some(m) if d <= MAX_ELEMENTS && m <= MAX_ELEMENTS => n = m,
            _ => tensor_bail!(
                Value,
                "a tensor of shape {} is too large (the limit is {} elements)",
                shape_str(shape),
                MAX_ELEMENTS
            ),
        }
    }
    Ok(())
}

/// The element count of a shape that may not have been validated: `None` when it overflows.
pub fn checked_count(shape: &[usize]) -> Option<usize> {
    shape.iter().try_fold(1usize, |n, &d| n.checked_mul(d))
}

/// Checks a new sequence of `count` items of `item_bytes` bytes each (a list, a
/// string, a file's contents) against [`MAX_BYTES`] and the memory limit; `what`
/// names it in the message.
///
/// Errors: ValueError naming the size; MemoryError past the memory limit.
pub fn check_bytes(what: &str, count: u128, item_bytes: usize) -> R<()> {
    let total = count.saturating_mul(item_bytes as u128);
    if total > MAX_BYTES as u128 {
        tensor_bail!(Value, "{what} of {count} items is too large (the limit is {MAX_BYTES} bytes)");
    }
    reserve(total)
}

/// The one check of a sequence growing in place (`append`, `extend`, `insert`, `+=`, a
/// comprehension's items, a string being built): makes room in `v` for `extra` more items.
/// The sequence may grow to [`MAX_BYTES`], as one made at once may ([`check_bytes`]); its
/// buffer doubles, but never past that limit's worth of items, and each new buffer is
/// asked of the memory limit first. Costs nothing while the buffer has room.
///
/// Errors: ValueError naming the size; MemoryError past the memory limit.
pub fn grow<T>(what: &str, v: &mut Vec<T>, extra: usize) -> R<()> {
    let need = v.len() as u128 + extra as u128;
    if need <= v.capacity() as u128 {
        return Ok(());
    }
    let item = std::mem::size_of::<T>().max(1);
    let total = need.saturating_mul(item as u128);
    if total > MAX_BYTES as u128 {
        tensor_bail!(Value, "{what} of {need} items is too large (the limit is {MAX_BYTES} bytes)");
    }
    let need = need as usize;
    let target = (v.capacity().saturating_mul(2)).max(8).min(MAX_BYTES / item).max(need);
    reserve(target as u128 * item as u128)?;
    v.reserve_exact(target - v.len());
    Ok(())
}

/// The check of a dict or set of `len` entries with room for `cap` about to take one more:
/// the same limits as a list's, counting `entry_bytes` per entry.
///
/// Errors: ValueError naming the size; MemoryError past the memory limit.
pub fn grow_map(what: &str, len: usize, cap: usize, entry_bytes: usize) -> R<()> {
    if len < cap {
        return Ok(());
    }
    let need = len as u128 + 1;
    if need * entry_bytes as u128 > MAX_BYTES as u128 {
        tensor_bail!(Value, "{what} of {need} items is too large (the limit is {MAX_BYTES} bytes)");
    }
    reserve(need.max(cap as u128 * 2) * entry_bytes as u128)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn zero_dimensions_do_not_hide_huge_ones() {
        assert!(check_shape(&[0, 1 << 62, 4]).is_err());
        assert!(check_shape(&[1 << 40, 0]).is_err());
        assert!(check_shape(&[0, 1 << 20, 1 << 20]).is_err());
        assert!(check_shape(&[usize::MAX, usize::MAX]).is_err());
        assert!(check_shape(&[0, 5]).is_ok());
        assert!(check_shape(&[1 << 14, 1 << 14]).is_ok());
        assert!(check_shape(&[1; 33]).is_err());
    }

    #[test]
    fn growth_meets_the_same_limit_as_a_sequence_made_at_once() {
        // Items of 1 MiB: 1024 of them are the limit, and asking costs no allocation.
        let mut v: Vec<[u8; 1 << 20]> = Vec::new();
        let e = grow("a list", &mut v, 1025).unwrap_err();
        assert_eq!(e.message, "a list of 1025 items is too large (the limit is 1073741824 bytes)");
        assert!(check_bytes("a list", 1025, 1 << 20).is_err());
        let mut small: Vec<u64> = Vec::new();
        grow("a list", &mut small, 3).unwrap();
        assert!(small.capacity() >= 8);
        // The buffer doubles, but never past the limit's worth of items.
        let mut w: Vec<[u8; 1 << 29]> = Vec::with_capacity(0);
        assert!(grow("a list", &mut w, 3).is_err());
    }

    #[test]
    fn byte_budget_counts_items_times_size() {
        assert!(check_bytes("a list", 1 << 20, 16).is_ok());
        assert!(check_bytes("a list", 100_000_000, 16).is_err());
        assert!(check_bytes("a string", u128::MAX, 1).is_err());
    }
}
