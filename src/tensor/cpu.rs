//! Which instruction-set path the vector kernels take (the GEMM in `gemm.rs`, the float32
//! transcendentals in `math.rs`).
//!
//! Every path computes the same bits: the paths differ in how many lanes they work on at once,
//! never in the order of the operations on one element (docs/language.md "Same bits on every
//! CPU"). The path is the widest one this CPU has, unless `DGL_ISA` names a narrower one
//! (`portable`, `avx2`, `avx512`): that is how the tests run each path a binary contains on
//! whatever machine they run on. A path the CPU lacks falls back to the widest one it has.

/// An instruction-set path of the vector kernels.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Isa {
    /// Plain Rust, no target features: scalar fused multiply-adds (`mul_add`). Every CPU.
    Portable,
    /// x86-64 AVX2 with FMA (Haswell and later, AMD Zen).
    Avx2,
    /// x86-64 AVX-512 F, DQ and VL (Skylake-SP and later, AMD Zen 4 and later).
    Avx512,
}

impl Isa {
    /// The name `DGL_ISA` takes.
    pub fn name(self) -> &'static str {
        match self {
            Isa::Portable => "portable",
            Isa::Avx2 => "avx2",
            Isa::Avx512 => "avx512",
        }
    }

    /// Parses a `DGL_ISA` value (case-insensitive); `None` for anything else.
    pub fn parse(s: &str) -> Option<Isa> {
        match s.trim().to_ascii_lowercase().as_str() {
            "portable" => Some(Isa::Portable),
            "avx2" => Some(Isa::Avx2),
            "avx512" => Some(Isa::Avx512),
            _ => None,
        }
    }

    /// Whether this CPU can run the path.
    pub fn supported(self) -> bool {
        match self {
            Isa::Portable => true,
            #[cfg(target_arch = "x86_64")]
            Isa::Avx2 => std::arch::is_x86_feature_detected!("avx2") && std::arch::is_x86_feature_detected!("fma"),
            #[cfg(target_arch = "x86_64")]
            Isa::Avx512 => {
                std::arch::is_x86_feature_detected!("avx512f")
                    && std::arch::is_x86_feature_detected!("avx512dq")
                    && std::arch::is_x86_feature_detected!("avx512vl")
                    && Isa::Avx2.supported()
            }
            #[cfg(not(target_arch = "x86_64"))]
            _ => false,
        }
    }

    /// Every path this binary contains that this CPU can run, narrowest first.
    pub fn available() -> Vec<Isa> {
        [Isa::Portable, Isa::Avx2, Isa::Avx512].into_iter().filter(|i| i.supported()).collect()
    }

    /// The widest path this CPU can run that is not wider than `self`.
    pub fn at_most(self) -> Isa {
        Isa::available().into_iter().filter(|&i| i <= self).max().unwrap_or(Isa::Portable)
    }
}

/// The path the kernels take in this process: the widest the CPU has, or `DGL_ISA`'s when set
/// (a value that names no path is ignored; a path the CPU lacks is narrowed to one it has).
pub fn isa() -> Isa {
    static ISA: std::sync::OnceLock<Isa> = std::sync::OnceLock::new();
    *ISA.get_or_init(|| {
        let widest = Isa::Avx512.at_most();
        match std::env::var("DGL_ISA").ok().and_then(|v| Isa::parse(&v)) {
            Some(asked) => asked.at_most(),
            None => widest,
        }
    })
}
