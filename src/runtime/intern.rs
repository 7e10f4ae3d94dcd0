//! Interned names. The parser turns every identifier into a [`Sym`], so the
//! runtime compares and hashes integers, never strings.

use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;

/// An interned identifier.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Sym(pub u32);

#[derive(Default)]
struct Interner {
    ids: HashMap<Rc<str>, Sym>,
    names: Vec<Rc<str>>,
}

thread_local! {
    static INTERNER: RefCell<Interner> = RefCell::new(Interner::default());
}

/// The symbol for `name`, creating it on first use.
pub fn intern(name: &str) -> Sym {
    INTERNER.with(|i| {
        let mut i = i.borrow_mut();
        if let Some(&s) = i.ids.get(name) {
            return s;
        }
        let s = Sym(i.names.len() as u32);
        let rc: Rc<str> = name.into();
        i.names.push(rc.clone());
        i.ids.insert(rc, s);
        s
    })
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
