//! Reverse-mode differentiation, a layer of its own. The core: the [`Recorder`] (tapes
//! recording, paused, Variable reads, capture probes; [`recorder`]), the tape ([`tape`]), the
//! recording operations with their VJP and JVP rules side by side ([`ops`]), the backward
//! pass ([`backward`]), forward mode ([`forward`]: `ForwardAccumulator`), `Variable`
//! ([`variable`]) and the [`Observer`] through which the tools see them ([`observer`]). The
//! tools — the memory meter, the notes and `tape.explain`, the recompute determinism check,
//! gradient hooks and tracing, the recompute ledger and the checkpoint advisor — are a wing of
//! their own ([`tools`]) that the core does not import. None of it knows the interpreter:
//! user code (a `custom_gradient` `grad_fn`, a recomputed `recompute_grad` function, a
//! gradient hook) runs through the [`Host`] trait, which the interpreter implements
//! (`runtime/differentiation.rs`).

pub mod backward;
pub mod forward;
pub mod observer;
pub mod ops;
pub mod recorder;
pub mod tape;
pub mod tools;
pub mod variable;

#[cfg(test)]
mod fd_tests;
#[cfg(test)]
mod jvp_tests;
#[cfg(test)]
mod tests;

pub use forward::{AccRef, Accumulator};
pub use observer::Observer;
pub use recorder::{Host, InputGrads, Recorder, TapeRef};
pub use tape::Tape;
pub use variable::Variable;
