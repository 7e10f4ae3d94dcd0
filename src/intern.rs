//! Interned names. The parser turns every identifier into a [`Sym`], so the
//! runtime compares and hashes integers, never strings. The names the
//! interpreter itself looks up (dunder methods and a few others) are
//! pre-interned with fixed numbers: [`sym`] holds them as constants.

use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;

/// An interned identifier.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Sym(pub u32);

/// Declares the pre-interned names: the constants of [`sym`] and, in the same
/// order, their texts (interned first, so constant `n` is `Sym(n)`).
macro_rules! predefined {
    ($($id:ident = $n:literal $text:literal,)*) => {
        /// The pre-interned names, as constants.
        pub mod sym {
            use super::Sym;
            $(#[doc = concat!("`", $text, "`")] pub const $id: Sym = Sym($n);)*
        }
        const PREDEFINED: &[&str] = &[$($text),*];
    };
}

predefined! {
    INIT = 0 "__init__",
    CALL = 1 "__call__",
    ENTER = 2 "__enter__",
    EXIT = 3 "__exit__",
    GETITEM = 4 "__getitem__",
    SETITEM = 5 "__setitem__",
    LEN = 6 "__len__",
    NEXT = 7 "__next__",
    EQ = 8 "__eq__",
    NAME = 9 "__name__",
    ARGS = 10 "args",
    SUPER = 11 "super",
    LAMBDA = 12 "<lambda>",
    DOC = 13 "__doc__",
    GETATTR = 14 "__getattr__",
    CLASS = 15 "__class__",
    DICT = 16 "__dict__",
    SETATTR = 17 "__setattr__",
    GET = 18 "__get__",
}

struct Interner {
    ids: HashMap<Rc<str>, Sym>,
    names: Vec<Rc<str>>,
}

impl Interner {
    fn new() -> Interner {
        let mut i = Interner { ids: HashMap::new(), names: Vec::new() };
        for name in PREDEFINED {
            i.add(name);
        }
        i
    }

    fn add(&mut self, name: &str) -> Sym {
        if let Some(&s) = self.ids.get(name) {
            return s;
        }
        let s = Sym(self.names.len() as u32);
        let rc: Rc<str> = name.into();
        self.names.push(rc.clone());
        self.ids.insert(rc, s);
        s
    }
}

thread_local! {
    static INTERNER: RefCell<Interner> = RefCell::new(Interner::new());
}

/// The symbol for `name`, creating it on first use.
pub fn intern(name: &str) -> Sym {
    INTERNER.with(|i| i.borrow_mut().add(name))
}

impl Sym {
    /// The identifier's text.
    pub fn name(self) -> Rc<str> {
        INTERNER.with(|i| i.borrow().names[self.0 as usize].clone())
    }
}

impl std::fmt::Display for Sym {
    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str(&self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn predefined_symbols_have_their_numbers() {
        for (n, text) in PREDEFINED.iter().enumerate() {
            assert_eq!(intern(text), Sym(n as u32), "{text}");
        }
        assert_eq!(sym::SUPER.name().as_ref(), "super");
        assert_ne!(intern("a name nobody predefined"), sym::INIT);
    }
}
