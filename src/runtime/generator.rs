//! Generators: a call of a function whose body holds `yield` (and a generator
//! expression) makes a [`Generator`], which runs the body lazily, one `yield` at a time.
//!
//! Design: the evaluator walks the tree recursively, so a `yield` deep inside
//! loops, `try` blocks and expressions cannot return to its consumer and later
//! pick up where it stopped by itself. Each generator body therefore runs on a
//! native stack of its own (a `corosensei` coroutine, on the same thread, so the
//! `Rc` values it holds stay valid): `yield` suspends that stack and `next()`
//! resumes it. A transform of the body into a state machine would need a second
//! evaluator for every statement and expression; a coroutine reuses the one there is.
//!
//! What a resume hands over, and takes back at each suspension, is the
//! interpreter's per-call state that the body changes: the call depth (the body's
//! calls count on top of its consumer's, as in CPython), the running source and
//! function name (for tracebacks), the exceptions being handled (a `yield` inside
//! an `except` block), and the native stack floor of the depth guard (the body's
//! stack is not the thread's). A generator dropped half-way unwinds its stack
//! (running the destructors of the values on it) and gives the stack back to a
//! small per-thread pool.

use super::exec::Flow;
use super::value::{Frame, Function, Value};
use super::{Interp, STACK_RESERVE};
use crate::error::{ErrorKind, Exc, R};
use crate::source::SourceId;
use crate::{bail, err};
use corosensei::stack::{DefaultStack, Stack};
use corosensei::{Coroutine, CoroutineResult, Yielder};
use std::cell::RefCell;
use std::rc::Rc;

/// Native stack of one generator body, in bytes (virtual: pages are committed as
/// they are touched). [`STACK_RESERVE`] of it is kept free by the depth guard.
const GEN_STACK_BYTES: usize = 16 << 20;

/// Stacks of finished generators kept for reuse (an mmap per generator is costly
/// for `sum(x for x in xs)` in a loop).
const POOL_SIZE: usize = 16;

/// What a resume passes in: the interpreter (its address, as the body's frames
/// keep using it) and what the suspended `yield` evaluates to.
type Input = (usize, Resume);

/// What a suspended `yield` does when its generator is resumed.
pub enum Resume {
    /// Evaluates to the value: `send(v)`, `None` for `next`.
    Send(Value),
    /// Raises the error: `throw(e)`, and GeneratorExit for `close()`.
    Throw(Exc),
}
/// What a suspension passes out: the value yielded, and the interpreter's address
/// (so the compiler knows the interpreter may change while the body is suspended).
type Output = (Value, usize);
type Body = Coroutine<Input, Output, R<Value>, DefaultStack>;

thread_local! {
    /// The yielders of the generator bodies running on this thread, innermost last.
    static YIELDERS: RefCell<Vec<*const Yielder<Input, Output>>> = const { RefCell::new(Vec::new()) };
    static POOL: RefCell<Vec<DefaultStack>> = const { RefCell::new(Vec::new()) };
    /// Started generator bodies dropped while suspended, waiting to be closed (their
    /// `finally` blocks run) by [`Interp::close_dropped_generators`].
    static DROPPED: RefCell<Vec<(Rc<str>, Box<Suspended>)>> = const { RefCell::new(Vec::new()) };
    /// Whether DROPPED may be non-empty (read at every statement, so a plain flag).
    static ANY_DROPPED: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Whether generators dropped while suspended wait to be closed.
#[inline]
pub fn any_dropped() -> bool {
    ANY_DROPPED.with(|d| d.get())
}

/// Unwinds a suspended body without running it (its frames' values are dropped) and gives
/// its stack back to the pool.
fn unwind(s: Box<Suspended>) {
    let mut body = s.body;
    // Unwinds a body suspended at a `yield` (dropping what its frames hold);
    // a body never started just drops its closure.
    body.force_unwind();
    let stack = body.into_stack();
    let _ = POOL.try_with(|p| {
        let mut p = p.borrow_mut();
        if p.len() < POOL_SIZE {
            p.push(stack);
        }
    });
}

impl Interp {
    /// The type name of the iterator `yield from it` walks (`list_iterator`, …), as CPython names it.
    fn iterator_type_name(&self, it: &Value) -> String {
        match it {
            Value::Dict(_) => "dict_keyiterator".to_string(),
            Value::Str(_) => "str_ascii_iterator".to_string(),
            Value::Instance(i) => i.class.name.to_string(),
            other => format!("{}_iterator", other.type_name()),
        }
    }
}

/// A generator object (`repr`: `<generator object NAME>`).
pub struct Generator {
    /// The generator function's name (`<genexpr>` for a generator expression).
    pub name: Rc<str>,
    /// Made by `iter(x)` over a value that is not an iterator itself.
    native: bool,
    state: RefCell<State>,
}

impl std::fmt::Debug for Generator {
    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        write!(f, "<generator object {}>", self.name)
    }
}

enum State {
    /// Not started, or suspended at a `yield`.
    Suspended(Box<Suspended>),
    /// Running now (a `next` from inside its own body is a ValueError, as in CPython).
    Running,
    /// Returned, raised, or closed.
    Done,
    /// `iter(x)` of a value that is not an iterator itself (a list, a range, …): its items.
    Native(Box<super::index::Iter>),
}

/// A suspended body and the interpreter state it had when it stopped.
struct Suspended {
    body: Body,
    /// The lowest usable address of the body's stack.
    stack_limit: usize,
    /// The interpreter it runs in (a generator cannot move to another one).
    interp: usize,
    /// Calls nested inside the body at the `yield`.
    depth: usize,
    src: SourceId,
    frame: Rc<str>,
    /// Exceptions being handled inside the body at the `yield`.
    handling: Vec<Exc>,
}

/// How a resume ended.
pub enum Step {
    Yielded(Value),
    /// The body returned (with `return v`, or by running off its end: `None`).
    Returned(Value),
}

/// A generator dropped while suspended inside its body is closed, as CPython closes it when
/// it is collected: GeneratorExit is raised at its `yield`, so its `finally` blocks run. The
/// drop may happen anywhere (while a list is borrowed, say), so the body waits in DROPPED
/// and the interpreter closes it before its next statement.
impl Drop for Generator {
    fn drop(&mut self) {
        if let State::Suspended(s) = std::mem::replace(self.state.get_mut(), State::Done) {
            if !s.body.started() {
                return unwind(s);
            }
            let name = self.name.clone();
            // During thread teardown the queue is gone: the body unwinds with its Box.
            let _ = DROPPED.try_with(move |d| {
                d.borrow_mut().push((name, s));
                let _ = ANY_DROPPED.try_with(|f| f.set(true));
            });
        }
    }
}

impl Generator {
    /// The iterator `iter(x)` returns for a value that is not an iterator itself;
    /// `name` is its type name (`list_iterator`, …).
    pub fn native(name: &str, it: super::index::Iter) -> Generator {
        Generator { name: name.into(), native: true, state: RefCell::new(State::Native(Box::new(it))) }
    }

    /// `generator`, or the type name of a native iterator.
    pub fn type_name(&self) -> &str {
        if self.native {
            &self.name
        } else {
            "generator"
        }
    }

    /// Whether this is a generator (not a native iterator from `iter(x)`).
    pub fn is_generator(&self) -> bool {
        !self.native
    }
}

impl Interp {
    /// A call of the generator function `func` whose parameters are bound in `frame`:
    /// the generator, its body not started.
    pub fn make_generator(&mut self, func: &Rc<Function>, mut frame: Frame) -> R<Value> {
        let stack = match POOL.with(|p| p.borrow_mut().pop()) {
            Some(s) => s,
            None => DefaultStack::new(GEN_STACK_BYTES)
                .map_err(|e| err!(Memory, "cannot allocate the stack of a generator: {e}"))?,
        };
        let stack_limit = stack.limit().get();
        let f = func.clone();
        let body = Coroutine::with_stack(stack, move |yielder: &Yielder<Input, Output>, (interp, _): Input| {
            YIELDERS.with(|y| y.borrow_mut().push(yielder as *const _));
            // SAFETY: `resume` passes the address of the interpreter that resumes the body
            // and checks that it is always the same one, which outlives the generator's
            // runs: while the body runs, its consumer is suspended inside that resume.
            let rt = unsafe { &mut *(interp as *mut Interp) };
            let r = rt.exec_block(&f.def.body, &mut frame);
            YIELDERS.with(|y| y.borrow_mut().pop());
            match r {
                Ok(Flow::Return(v)) => Ok(v),
                Ok(_) => Ok(Value::None),
                // PEP 479: a StopIteration escaping a generator body is a bug, not its end.
                Err(e) if e.kind() == ErrorKind::StopIteration => {
                    let mut x = Exc::new(ErrorKind::Runtime, "generator raised StopIteration");
                    x.0.at = e.0.at;
                    x.0.trace = e.0.trace;
                    Err(x)
                }
                Err(e) => Err(e),
            }
        });
        let s = Suspended {
            body,
            stack_limit,
            interp: self as *mut Interp as usize,
            depth: 0,
            src: func.source,
            frame: func.name.clone(),
            handling: Vec::new(),
        };
        Ok(Value::Generator(Rc::new(Generator {
            name: func.name.clone(),
            native: false,
            state: RefCell::new(State::Suspended(Box::new(s))),
        })))
    }

    /// Runs `g` up to its next `yield` (`next(g)`, `g.send(v)`, one step of a `for`).
    /// Errors: ValueError if `g` is running already; a value sent into a generator
    /// that has not started is a TypeError (CPython's rules).
    pub fn resume(&mut self, g: &Generator, sent: Value) -> R<Step> {
        self.resume_with(g, Resume::Send(sent))
    }

    /// Resumes `g` with `how`: a value sent, or an error thrown in at its `yield` (an error
    /// thrown into a generator that has not started or has finished is raised at once, and
    /// it finishes, as in CPython).
    pub fn resume_with(&mut self, g: &Generator, how: Resume) -> R<Step> {
        let old = std::mem::replace(&mut *g.state.borrow_mut(), State::Running);
        let mut s = match old {
            State::Suspended(s) => s,
            State::Native(it) => {
                *g.state.borrow_mut() = State::Native(it);
                let sent = match how {
                    Resume::Throw(e) => return Err(e),
                    Resume::Send(Value::None) => Value::None,
                    Resume::Send(_) => bail!(Attribute, "'{}' object has no attribute 'send'", g.name),
                };
                drop(sent);
                let State::Native(mut it) = std::mem::replace(&mut *g.state.borrow_mut(), State::Running) else {
                    unreachable!("the state was set just above")
                };
                let r = self.iter_next(&mut it);
                *g.state.borrow_mut() = State::Native(it);
                return Ok(match r? {
                    Some(v) => Step::Yielded(v),
                    None => Step::Returned(Value::None),
                });
            }
            State::Running => {
                *g.state.borrow_mut() = State::Running;
                bail!(Value, "generator already executing")
            }
            State::Done => {
                *g.state.borrow_mut() = State::Done;
                return match how {
                    Resume::Throw(e) => Err(e),
                    Resume::Send(_) => Ok(Step::Returned(Value::None)),
                };
            }
        };
        if !s.body.started() {
            if let Resume::Throw(e) = how {
                *g.state.borrow_mut() = State::Done;
                unwind(s);
                return Err(e);
            }
        }
        if s.interp != self as *mut Interp as usize {
            *g.state.borrow_mut() = State::Suspended(s);
            bail!(Runtime, "a generator cannot be resumed by another interpreter");
        }
        // A resume is a call: generators resuming generators (`yield from` recursion)
        // count toward the depth like any other calls.
        if self.run.depth >= super::MAX_DEPTH {
            *g.state.borrow_mut() = State::Suspended(s);
            bail!(Recursion, "maximum recursion depth exceeded ({} nested calls)", super::MAX_DEPTH);
        }
        if !s.body.started() && !matches!(how, Resume::Send(Value::None)) {
            *g.state.borrow_mut() = State::Suspended(s);
            bail!(Type, "can't send non-None value to a just-started generator");
        }
        // Hand the body its state on top of the consumer's.
        let depth = self.run.depth;
        let handling = self.run.handling.len();
        let src = std::mem::replace(&mut self.run.src, s.src);
        let frame = std::mem::replace(&mut self.run.frame, s.frame.clone());
        self.run.depth += s.depth + 1;
        self.run.handling.append(&mut s.handling);
        let floor = super::enter_stack(s.stack_limit + STACK_RESERVE);
        let step = s.body.resume((self as *mut Interp as usize, how));
        super::leave_stack(floor);
        // Take it back.
        s.depth = self.run.depth.saturating_sub(depth + 1);
        s.src = std::mem::replace(&mut self.run.src, src);
        s.frame = std::mem::replace(&mut self.run.frame, frame);
        s.handling = self.run.handling.split_off(handling.min(self.run.handling.len()));
        self.run.depth = depth;
        match step {
            CoroutineResult::Yield((v, _)) => {
                *g.state.borrow_mut() = State::Suspended(s);
                Ok(Step::Yielded(v))
            }
            CoroutineResult::Return(r) => {
                *g.state.borrow_mut() = State::Done;
                // The finished body's stack goes back to the pool.
                let stack = s.body.into_stack();
                POOL.with(|p| {
                    let mut p = p.borrow_mut();
                    if p.len() < POOL_SIZE {
                        p.push(stack);
                    }
                });
                r.map(Step::Returned)
            }
        }
    }

    /// `next(g)`: the next value, or `None` once the generator has finished.
    pub fn generator_next(&mut self, g: &Generator) -> R<Option<Value>> {
        match self.resume(g, Value::None)? {
            Step::Yielded(v) => Ok(Some(v)),
            Step::Returned(_) => Ok(None),
        }
    }

    /// `g.close()`: GeneratorExit is raised at the `yield` where `g` is suspended, so its
    /// `finally` blocks and `with` exits run; a generator not started or finished just
    /// finishes. Errors: RuntimeError if the body yields again instead of finishing, and
    /// whatever else the body raises on its way out.
    pub fn generator_close(&mut self, g: &Generator) -> R<()> {
        let started = match &*g.state.borrow() {
            State::Running => bail!(Value, "generator already executing"),
            State::Suspended(s) => s.body.started(),
            State::Done | State::Native(_) => return Ok(()),
        };
        if !started {
            if let State::Suspended(s) = std::mem::replace(&mut *g.state.borrow_mut(), State::Done) {
                unwind(s);
            }
            return Ok(());
        }
        match self.resume_with(g, Resume::Throw(Exc::new(ErrorKind::GeneratorExit, ""))) {
            Ok(Step::Yielded(_)) => bail!(Runtime, "generator ignored GeneratorExit"),
            Ok(Step::Returned(_)) => Ok(()),
            Err(e) if matches!(e.kind(), ErrorKind::GeneratorExit | ErrorKind::StopIteration) => Ok(()),
            Err(e) => Err(e),
        }
    }

    /// `g.throw(e)`: raises `e` at the `yield` where `g` is suspended; the value it yields
    /// next. Errors: StopIteration when it returns instead, `e` (or what the body raises)
    /// when it leaves by an error.
    pub fn generator_throw(&mut self, g: &Generator, e: Exc) -> R<Step> {
        self.resume_with(g, Resume::Throw(e))
    }

    /// Closes the generators dropped while suspended since the last call (CPython closes a
    /// collected generator): their `finally` blocks run now. An error one raises cannot
    /// reach any handler: it is reported on stderr, as CPython reports it, and ignored.
    pub fn close_dropped_generators(&mut self) {
        let _ = ANY_DROPPED.try_with(|f| f.set(false));
        let dropped: Vec<(Rc<str>, Box<Suspended>)> =
            DROPPED.try_with(|d| std::mem::take(&mut *d.borrow_mut())).unwrap_or_default();
        for (name, s) in dropped {
            if s.interp != self as *mut Interp as usize {
                unwind(s);
                continue;
            }
            let g = Generator { name: name.clone(), native: false, state: RefCell::new(State::Suspended(s)) };
            if let Err(e) = self.generator_close(&g) {
                eprintln!("Exception ignored in: <generator object {name}>\n{e}");
            }
            // A body that yielded again is unwound without running.
            let left = std::mem::replace(&mut *g.state.borrow_mut(), State::Done);
            if let State::Suspended(s) = left {
                unwind(s);
            }
        }
    }

    /// `yield v` inside a running generator body: suspends it; the value `send`
    /// delivers when it is resumed (`None` for `next`), or the error `throw` raises.
    pub fn yield_value(&mut self, v: Value) -> R<Value> {
        match self.suspend(v)? {
            Resume::Send(v) => Ok(v),
            Resume::Throw(e) => Err(e),
        }
    }

    /// Suspends the running generator body, handing out `v`; how it is resumed.
    fn suspend(&mut self, v: Value) -> R<Resume> {
        let Some(y) = YIELDERS.with(|y| y.borrow_mut().pop()) else { bail!(Syntax, "'yield' outside a generator") };
        let me = self as *mut Interp as usize;
        // SAFETY: the yielder belongs to the coroutine running this code (the innermost
        // generator body: a `yield` makes its own function a generator), alive while it runs.
        let (interp, how) = unsafe { (*y).suspend((v, me)) };
        YIELDERS.with(|ys| ys.borrow_mut().push(y));
        debug_assert_eq!(interp, me);
        Ok(how)
    }

    /// `yield from it` (PEP 380): yields each of `it`'s values in turn and evaluates to a
    /// generator's return value. What the consumer does is passed on: values sent go to
    /// the inner generator's `send` (an iterator without one raises AttributeError, as
    /// CPython), errors thrown to its `throw` (an iterator without one raises them here),
    /// and GeneratorExit closes the inner generator before it is raised here.
    pub fn yield_from(&mut self, it: &Value) -> R<Value> {
        if let Value::Generator(inner) = it {
            let mut how = Resume::Send(Value::None);
            loop {
                if let Resume::Throw(e) = &how {
                    if e.kind() == ErrorKind::GeneratorExit || !inner.is_generator() {
                        if e.kind() == ErrorKind::GeneratorExit {
                            self.generator_close(inner)?;
                        }
                        let Resume::Throw(e) = how else { unreachable!("matched above") };
                        return Err(e);
                    }
                }
                match self.resume_with(inner, how)? {
                    Step::Yielded(v) => how = self.suspend(v)?,
                    Step::Returned(v) => return Ok(v),
                }
            }
        }
        let mut iter = self.iter_of(it)?;
        while let Some(v) = self.iter_next(&mut iter)? {
            match self.suspend(v)? {
                Resume::Send(Value::None) => {}
                Resume::Send(_) => {
                    bail!(Attribute, "'{}' object has no attribute 'send'", self.iterator_type_name(it))
                }
                Resume::Throw(e) => return Err(e),
            }
        }
        Ok(Value::None)
    }
}
