//! Reverse-mode differentiation: the tape ([`tape`]), recording operations
//! ([`ops`]), the backward pass ([`backward`]), the VJP rules ([`vjp`]),
//! `Variable` ([`variable`]), and the decorators `custom_gradient`,
//! `grad_pass_through` ([`custom`]) and `recompute_grad` ([`recompute`]).

pub mod backward;
pub mod custom;
pub mod ops;
pub mod recompute;
pub mod tape;
pub mod variable;
pub mod vjp;

#[cfg(test)]
mod fd_tests;

pub use tape::Tape;
pub use variable::Variable;
