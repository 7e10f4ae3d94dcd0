//! Watching the backward pass: `with trace_gradients():` and
//! `watch_gradient(x, fn)`.
//!
//! While a trace is on, the backward walk hands each step and its upstream gradients to
//! [`Host::trace_step`](crate::autodiff::Host::trace_step) before the step runs (Zygote's `@showgrad`, for every node). A
//! gradient hook runs on a tensor's gradient once it is complete — for a tensor some entry
//! produced, when that entry's step is about to run; for a source or a Variable, when the
//! walk is over — and what it returns replaces the gradient, so a hook on a hidden
//! activation changes every gradient flowing further back (PyTorch's `register_hook`).
//! When neither is set, the walk tests one flag per step. The walk asks for these through
//! the recorder's observer ([`Tools`](super::Tools)); the host runs each hook.

use crate::autodiff::recorder::TapeRef;
use crate::autodiff::tape::{Tape, UserData};
use crate::autodiff::variable::Variable;
use crate::tensor::TensorId;
use smallvec::SmallVec;
use std::cell::RefCell;
use std::rc::{Rc, Weak};

/// What keeps a gradient hook alive.
#[derive(Debug)]
pub enum HookOwner {
    /// A hook on a Variable lives as long as the Variable.
    Variable(Weak<Variable>),
    /// A hook on a tensor lives as long as one of the tapes that watched it when it was
    /// registered.
    Tapes(Vec<Weak<RefCell<Tape>>>),
}

/// A gradient hook: the id whose gradient it sees, the host's function, its owner.
#[derive(Debug)]
pub struct Hook {
    pub id: TensorId,
    pub f: UserData,
    pub owner: HookOwner,
}

impl Hook {
    fn alive(&self) -> bool {
        match &self.owner {
            HookOwner::Variable(v) => v.strong_count() > 0,
            HookOwner::Tapes(ts) => ts.iter().any(|t| t.strong_count() > 0),
        }
    }
}

/// Gradient tracing and hooks.
#[derive(Debug, Default)]
pub struct Inspect {
    /// `trace_gradients()` blocks entered and not left.
    pub trace: u32,
    /// Gradient hooks, in registration order.
    pub hooks: Vec<Hook>,
}

impl Inspect {
    /// Whether the backward walk has anything to do for this inspector.
    #[inline]
    pub fn on(&self) -> bool {
        self.trace > 0 || !self.hooks.is_empty()
    }

    /// Drops the hooks whose owners are gone (a backward pass starts); returns [`Inspect::on`].
    pub fn prune(&mut self) -> bool {
        if !self.hooks.is_empty() {
            self.hooks.retain(Hook::alive);
        }
        self.on()
    }

    /// Registers `f` as a hook on `id`, dropping the hooks whose owners are gone.
    pub fn add_hook(&mut self, id: TensorId, f: UserData, owner: HookOwner) {
        self.hooks.retain(Hook::alive);
        self.hooks.push(Hook { id, f, owner });
    }

    /// A hook owned by the tapes in `tapes`.
    pub fn tapes_owner(tapes: &[TapeRef]) -> HookOwner {
        HookOwner::Tapes(tapes.iter().map(Rc::downgrade).collect())
    }

    /// The hooks on `id`, in registration order.
    pub fn hooks_on(&self, id: TensorId) -> SmallVec<[UserData; 1]> {
        self.hooks.iter().filter(|h| h.id == id).map(|h| h.f.clone()).collect()
    }

    /// The ids that have hooks, each once, in registration order.
    pub fn hooked_ids(&self) -> SmallVec<[TensorId; 4]> {
        let mut ids = SmallVec::new();
        for h in &self.hooks {
            if !ids.contains(&h.id) {
                ids.push(h.id);
            }
        }
        ids
    }
}
