//! The allocation budget: every buffer whose size a script can choose (a
//! tensor, a repeated or concatenated list or string, a file read into memory)
//! is checked here before it is allocated (LANGUAGE.md §7). A request over
//! budget is a ValueError naming the size, never an allocation failure.

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
/// is computed with checked arithmetic.
///
/// Errors: ValueError naming the shape and the limit.
pub fn check_shape(shape: &[usize]) -> R<()> {
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

/// Checks a sequence of `count` items of `item_bytes` bytes each (a list, a
/// string, a file's contents) against [`MAX_BYTES`]; `what` names it in the message.
///
/// Errors: ValueError naming the size.
pub fn check_bytes(what: &str, count: u128, item_bytes: usize) -> R<()> {
    let total = count.saturating_mul(item_bytes as u128);
    if total > MAX_BYTES as u128 {
        tensor_bail!(Value, "{what} of {count} items is too large (the limit is {MAX_BYTES} bytes)");
    }
    Ok(())
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
    fn byte_budget_counts_items_times_size() {
        assert!(check_bytes("a list", 1 << 20, 16).is_ok());
        assert!(check_bytes("a list", 100_000_000, 16).is_err());
        assert!(check_bytes("a string", u128::MAX, 1).is_err());
    }
}
