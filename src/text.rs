//! A str value's characters ([`Text`]): shared by reference count and immutable while
//! shared, like Python's str, but open to change by its only owner, so that `s += t` in a
//! loop can append in place and take time linear in what it builds (the runtime's
//! `ops::append_text`; docs/python.md "Strings"). Literals in the syntax tree hold one too,
//! so evaluating a literal shares it instead of copying it.
//!
//! This module depends on nothing else in the crate.

use std::borrow::{Borrow, Cow};
use std::fmt;
use std::ops::Deref;
use std::rc::Rc;

/// The text of a `str` value. Reads see a `&str` (through `Deref`); [`Text::append`] is
/// the one way it changes, and only when no one else can see it.
#[derive(Clone, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Text(Rc<String>);

impl Text {
    /// Whether `a` and `b` are the same object (Python's `is`).
    pub fn ptr_eq(a: &Text, b: &Text) -> bool {
        Rc::ptr_eq(&a.0, &b.0)
    }

    /// The text as a `&str`.
    pub fn as_str(&self) -> &str {
        self.0.as_str()
    }

    /// An address that names this object while it lives (`id()`, identity dict keys).
    pub fn address(&self) -> usize {
        Rc::as_ptr(&self.0) as usize
    }

    /// The characters, to change in place, when this is the text's only reference (no
    /// other value, variable or literal can see the change); `None` when it is shared.
    pub fn unique_mut(&mut self) -> Option<&mut String> {
        Rc::get_mut(&mut self.0)
    }
}

impl Deref for Text {
    type Target = str;
    #[inline]
    fn deref(&self) -> &str {
        self.0.as_str()
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
        Text(Rc::new(s))
    }
}

impl From<&str> for Text {
    fn from(s: &str) -> Text {
        Text(Rc::new(s.to_string()))
    }
}

impl From<&String> for Text {
    fn from(s: &String) -> Text {
        Text(Rc::new(s.clone()))
    }
}

impl From<Box<str>> for Text {
    fn from(s: Box<str>) -> Text {
        Text(Rc::new(s.into_string()))
    }
}

impl From<Cow<'_, str>> for Text {
    fn from(s: Cow<'_, str>) -> Text {
        Text(Rc::new(s.into_owned()))
    }
}

impl From<Rc<str>> for Text {
    fn from(s: Rc<str>) -> Text {
        Text(Rc::new(s.to_string()))
    }
}

impl From<&Rc<str>> for Text {
    fn from(s: &Rc<str>) -> Text {
        Text(Rc::new(s.to_string()))
    }
}

impl From<char> for Text {
    fn from(c: char) -> Text {
        Text(Rc::new(c.to_string()))
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
        let mut t = Text::from("ab");
        t.unique_mut().expect("one reference").push_str("cd");
        assert_eq!(t.as_str(), "abcd");
        let other = t.clone();
        assert!(t.unique_mut().is_none());
        drop(other);
        assert!(t.unique_mut().is_some());
    }
}
