//! Reverse-mode differentiation, a layer of its own: the [`Recorder`] (tapes
//! recording, paused, Variable reads, capture probes; [`recorder`]), the tape
//! ([`tape`]), recording operations ([`ops`]), the backward pass ([`backward`]),
//! the VJP rules ([`vjp`]), forward mode ([`forward`]: `ForwardAccumulator`, the JVP
//! rules beside the VJPs in [`ops`]), `Variable` ([`variable`]), the recompute determinism
//! check ([`check`]) and gradient hooks and tracing ([`inspect`]). It knows nothing of the
//! interpreter: user code (a `custom_gradient` `grad_fn`, a recomputed
//! `recompute_grad` function) runs through the [`Host`] trait, which the
//! interpreter implements (`runtime/differentiation.rs`).

pub mod advisor;
pub mod backward;
pub mod check;
pub mod explain;
pub mod forward;
pub mod inspect;
pub mod ledger;
pub mod meter;
pub mod notes;
pub mod ops;
pub mod recorder;
pub mod tape;
pub mod variable;

#[cfg(test)]
mod fd_tests;
#[cfg(test)]
mod jvp_tests;
#[cfg(test)]
mod tests;

pub use forward::{AccRef, Accumulator};
pub use recorder::{Host, InputGrads, Recorder, Region, TapeRef};
pub use tape::Tape;
pub use variable::Variable;
