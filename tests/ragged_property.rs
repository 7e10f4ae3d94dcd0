//! Generated nested lists into `constant` (docs/language.md §4: ragged lists are a ValueError):
//! over random trees of numbers, lists and small tensors, conversion succeeds exactly when
//! the tree is rectangular, with the shape a direct recursive rule gives, and a ragged tree
//! is a ValueError, never a tensor of another shape (`[1.0, [2.0]]` once read as `[[1.0],
//! [2.0]]`).

use dgl::error::ErrorKind;
use dgl::runtime::value::Value;
use dgl::runtime::Interp;
use dgl::tensor::{Array, DType, Tensor};
use proptest::prelude::*;
use std::cell::RefCell;
use std::rc::Rc;

/// A tree of values to convert.
#[derive(Debug, Clone)]
enum Node {
    Number(f64),
    /// A float32 tensor of this shape.
    Tensor(Vec<usize>),
    List(Vec<Node>),
}

fn node() -> impl Strategy<Value = Node> {
    let leaf = prop_oneof![
        4 => (-3.0f64..3.0).prop_map(Node::Number),
        1 => prop::collection::vec(0usize..3, 0..3).prop_map(Node::Tensor),
    ];
    leaf.prop_recursive(4, 24, 3, |inner| prop::collection::vec(inner, 0..4).prop_map(Node::List))
}

/// The shape of a rectangular tree, or None when it is ragged: a number has shape (), a tensor
/// its own, a list of n children that all have one shape s has (n, *s), an empty list (0,).
fn reference_shape(n: &Node) -> Option<Vec<usize>> {
    match n {
        Node::Number(_) => Some(vec![]),
        Node::Tensor(s) => Some(s.clone()),
        Node::List(items) => {
            let shapes: Vec<Option<Vec<usize>>> = items.iter().map(reference_shape).collect();
            let first = match shapes.first() {
                None => return Some(vec![0]),
                Some(s) => s.clone()?,
            };
            if shapes.iter().any(|s| s.as_ref() != Some(&first)) {
                return None;
            }
            Some([vec![items.len()], first].concat())
        }
    }
}

fn value(n: &Node) -> Value {
    match n {
        Node::Number(x) => Value::Float(*x),
        Node::Tensor(s) => {
            let count = s.iter().product();
            Value::Tensor(Tensor::new(Array::from_f64(DType::F32, s, vec![0.5; count])))
        }
        Node::List(items) => Value::list(items.iter().map(value).collect()),
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 2000, ..ProptestConfig::default() })]

    #[test]
    fn a_nested_list_converts_exactly_when_it_is_rectangular(tree in node()) {
        let mut rt = Interp::new(Rc::new(RefCell::new(std::io::sink())));
        let got = rt.to_tensor(&value(&tree), None);
        match (reference_shape(&tree), got) {
            (Some(shape), Ok(t)) => prop_assert_eq!(t.shape(), &shape[..]),
            (None, Err(e)) => prop_assert_eq!(e.kind(), ErrorKind::Value),
            (want, got) => prop_assert!(false, "{:?}: expected {:?}, got {:?}", tree, want, got.map(|t| t.shape().to_vec())),
        }
    }
}
