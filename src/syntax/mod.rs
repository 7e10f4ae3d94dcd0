//! The front end: tokens ([`token`]) → layout ([`layout`]) → parser ([`parser`]) → [`ast`].

pub mod ast;
pub mod layout;
pub mod parser;
pub mod resolve;
pub mod token;

pub use parser::{cleandoc, module_docstring, parse_module, parse_module_recovering, SyntaxError};
