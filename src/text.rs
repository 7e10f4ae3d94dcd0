//! A str value's characters ([`Text`]): shared by reference count and immutable while
//! shared, like Python's str, but open to change by its only owner, so that `s += t` in a
//! loop can append in place and take time linear in what it builds (the runtime's
//! `concat::append_text`; docs/python.md "Strings"). Literals in the syntax tree hold one too,
//! so evaluating a literal shares it instead of copying it.
//!
//! This module depends on nothing else in the crate.

use std::alloc::{self, Layout};
use std::borrow::{Borrow, Cow};
use std::cell::Cell;
use std::fmt;
use std::hash::{Hash, Hasher};
use std::ops::Deref;
use std::ptr::NonNull;
use std::rc::Rc;

/// The text of a `str` value: one allocation, a header ([`Header`]) followed by the bytes,
/// behind a thin pointer (so that a `Value` stays 24 bytes), with a reference count like
/// `Rc`'s. Reads see a `&str` (through `Deref`); [`Text::append_unique`] is the one way it
/// changes, and only when no one else can see it.
pub struct Text(NonNull<Header>);

/// What precedes a text's bytes in its allocation.
#[repr(C)]
struct Header {
    /// References to the text.
    count: Cell<usize>,
    /// Bytes in use (valid UTF-8).
    len: usize,
    /// Bytes allocated after the header.
    cap: usize,
}

const HEADER: usize = std::mem::size_of::<Header>();

/// The allocation for `cap` bytes of text.
fn layout(cap: usize) -> Layout {
    let size = HEADER.checked_add(cap).expect("a text's size fits in memory");
    Layout::from_size_align(size, std::mem::align_of::<Header>()).expect("a text's size fits in memory")
}

impl Text {
    /// An empty text with room for `cap` bytes.
    fn with_capacity(cap: usize) -> Text {
        let l = layout(cap);
        // SAFETY: the layout's size is at least the header's, so not zero.
        let p = unsafe { alloc::alloc(l) } as *mut Header;
        let Some(p) = NonNull::new(p) else { alloc::handle_alloc_error(l) };
        // SAFETY: `p` is a fresh allocation large and aligned enough for a Header.
        unsafe { p.as_ptr().write(Header { count: Cell::new(1), len: 0, cap }) };
        Text(p)
    }

    /// `a` followed by `b`, as a new text.
    pub fn concat(a: &str, b: &str) -> Text {
        let mut t = Text::with_capacity(a.len() + b.len());
        // SAFETY: the text was just made, with room for both.
        unsafe {
            t.push_unchecked(a);
            t.push_unchecked(b);
        }
        t
    }

    fn header(&self) -> &Header {
        // SAFETY: the pointer is to a live allocation while any reference exists.
        unsafe { self.0.as_ref() }
    }

    fn bytes(&self) -> *mut u8 {
        // SAFETY: the bytes start right after the header, inside the allocation.
        unsafe { (self.0.as_ptr() as *mut u8).add(HEADER) }
    }

    /// Copies `s` after the bytes in use.
    ///
    /// # Safety
    /// There is room for `s`, and this is the text's only reference (or it is being made).
    unsafe fn push_unchecked(&mut self, s: &str) {
        let h = self.0.as_ptr();
        let len = (*h).len;
        std::ptr::copy_nonoverlapping(s.as_ptr(), self.bytes().add(len), s.len());
        (*h).len = len + s.len();
    }

    /// Whether `a` and `b` are the same object (Python's `is`).
    pub fn ptr_eq(a: &Text, b: &Text) -> bool {
        a.0 == b.0
    }

    /// The text as a `&str`.
    pub fn as_str(&self) -> &str {
        // SAFETY: the first `len` bytes are initialised and hold UTF-8 (only `&str`s are
        // ever copied in), and they do not change while this shared borrow lives.
        unsafe { std::str::from_utf8_unchecked(std::slice::from_raw_parts(self.bytes(), self.header().len)) }
    }

    /// An address that names this object while it lives (`id()`, identity dict keys).
    pub fn address(&self) -> usize {
        self.0.as_ptr() as usize
    }

    /// Whether this is the text's only reference (no other value, variable or literal
    /// would see a change).
    pub fn is_unique(&self) -> bool {
        self.header().count.get() == 1
    }

    /// Appends `tail` in place when this is the text's only reference; `None` when it is
    /// shared (the caller makes a new text). When the buffer must grow it doubles, but to no
    /// more than `max` bytes (and at least what is needed), and `ask` is asked for the new
    /// buffer's bytes first: its error leaves the text unchanged.
    pub fn append_unique<E>(
        &mut self,
        tail: &str,
        max: usize,
        ask: impl FnOnce(usize) -> Result<(), E>,
    ) -> Option<Result<(), E>> {
        if !self.is_unique() {
            return None;
        }
        let (len, cap) = (self.header().len, self.header().cap);
        let need = len.checked_add(tail.len()).expect("a text's size fits in memory");
        if need > cap {
            let target = cap.saturating_mul(2).max(16).min(max).max(need);
            if let Err(e) = ask(target) {
                return Some(Err(e));
            }
            // SAFETY: the pointer and old layout are this allocation's; the new size is
            // non-zero. Only this reference exists, so no one else holds the old address.
            let p = unsafe { alloc::realloc(self.0.as_ptr() as *mut u8, layout(cap), layout(target).size()) };
            let Some(p) = NonNull::new(p as *mut Header) else { alloc::handle_alloc_error(layout(target)) };
            self.0 = p;
            // SAFETY: as above; the header moved with the allocation.
            unsafe { (*self.0.as_ptr()).cap = target };
        }
        // SAFETY: room was made above, and this is the only reference.
        unsafe { self.push_unchecked(tail) };
        Some(Ok(()))
    }
}

impl Clone for Text {
    fn clone(&self) -> Text {
        let c = &self.header().count;
        // A count that could overflow means references were leaked: stop, as Rc does.
        c.set(c.get().checked_add(1).unwrap_or_else(|| std::process::abort()));
        Text(self.0)
    }
}

impl Drop for Text {
    fn drop(&mut self) {
        let cap = self.header().cap;
        let left = {
            let c = &self.header().count;
            c.set(c.get() - 1);
            c.get()
        };
        if left == 0 {
            // SAFETY: the last reference is going; the layout is the allocation's.
            unsafe { alloc::dealloc(self.0.as_ptr() as *mut u8, layout(cap)) };
        }
    }
}

impl Default for Text {
    fn default() -> Text {
        Text::with_capacity(0)
    }
}

impl PartialEq for Text {
    fn eq(&self, other: &Text) -> bool {
        self.as_str() == other.as_str()
    }
}

impl Eq for Text {}

impl PartialOrd for Text {
    fn partial_cmp(&self, other: &Text) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Text {
    fn cmp(&self, other: &Text) -> std::cmp::Ordering {
        self.as_str().cmp(other.as_str())
    }
}

impl Hash for Text {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.as_str().hash(state)
    }
}

impl Deref for Text {
    type Target = str;
    #[inline]
    fn deref(&self) -> &str {
        self.as_str()
    }
}

impl AsRef<str> for Text {
    fn as_ref(&self) -> &str {
        self
    }
}

impl Borrow<str> for Text {
    fn borrow(&self) -> &str {
        self
    }
}

impl fmt::Display for Text {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self.as_str(), f)
    }
}

impl fmt::Debug for Text {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self.as_str(), f)
    }
}

impl From<String> for Text {
    fn from(s: String) -> Text {
        Text::from(s.as_str())
    }
}

impl From<&str> for Text {
    fn from(s: &str) -> Text {
        Text::concat(s, "")
    }
}

impl From<&String> for Text {
    fn from(s: &String) -> Text {
        Text::from(s.as_str())
    }
}

impl From<Box<str>> for Text {
    fn from(s: Box<str>) -> Text {
        Text::from(&*s)
    }
}

impl From<Cow<'_, str>> for Text {
    fn from(s: Cow<'_, str>) -> Text {
        Text::from(&*s)
    }
}

impl From<Rc<str>> for Text {
    fn from(s: Rc<str>) -> Text {
        Text::from(&*s)
    }
}

impl From<&Rc<str>> for Text {
    fn from(s: &Rc<str>) -> Text {
        Text::from(&**s)
    }
}

impl From<char> for Text {
    fn from(c: char) -> Text {
        Text::from(c.encode_utf8(&mut [0; 4]) as &str)
    }
}

impl From<Text> for Rc<str> {
    fn from(t: Text) -> Rc<str> {
        Rc::from(t.as_str())
    }
}

impl From<&Text> for Rc<str> {
    fn from(t: &Text) -> Rc<str> {
        Rc::from(t.as_str())
    }
}

impl PartialEq<str> for Text {
    fn eq(&self, other: &str) -> bool {
        self.as_str() == other
    }
}

impl PartialEq<&str> for Text {
    fn eq(&self, other: &&str) -> bool {
        self.as_str() == *other
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_an_only_reference_changes() {
        let ok = |_| Ok::<(), ()>(());
        let mut t = Text::from("ab");
        assert_eq!(t.append_unique("cd", usize::MAX, ok), Some(Ok(())));
        assert_eq!(t.as_str(), "abcd");
        let other = t.clone();
        assert_eq!(t.append_unique("ef", usize::MAX, ok), None);
        assert_eq!((t.as_str(), other.as_str()), ("abcd", "abcd"));
        assert!(Text::ptr_eq(&t, &other));
        drop(other);
        assert!(t.is_unique());
        // A refused buffer leaves the text as it was.
        let mut u = Text::from("x");
        assert_eq!(u.append_unique(&"y".repeat(100), usize::MAX, |_| Err("no")), Some(Err("no")));
        assert_eq!(u.as_str(), "x");
    }

    #[test]
    fn appends_reallocate_a_logarithmic_number_of_times() {
        let mut t = Text::default();
        let (mut grown, piece) = (0, "é".repeat(500));
        for _ in 0..1000 {
            t.append_unique(&piece, usize::MAX, |_| {
                grown += 1;
                Ok::<(), ()>(())
            });
        }
        assert_eq!(t.as_str(), piece.repeat(1000));
        assert!(grown < 40, "{grown} reallocations");
        // The buffer never passes `max` beyond what is needed.
        let mut v = Text::from("ab");
        v.append_unique("c", 3, |bytes| if bytes == 3 { Ok(()) } else { Err(bytes) }).unwrap().unwrap();
    }

    #[test]
    fn texts_compare_and_hash_as_their_characters() {
        use std::collections::HashSet;
        let set: HashSet<Text> = ["a", "b", "a"].into_iter().map(Text::from).collect();
        assert_eq!(set.len(), 2);
        assert!(set.contains("a"));
        let (a, b) = (Text::from("a"), Text::from("b"));
        assert!(a < b && a.cmp(&b) == std::cmp::Ordering::Less);
        assert_eq!(format!("{:?} {}", Text::from("q\n"), Text::from('z')), "\"q\\n\" z");
    }
}
