//! Error-free float64 arithmetic for the series of the special functions: a compensated sum
//! (Neumaier's variant of Kahan's) and a running term x^k/k!-style product carried as the sum
//! of two doubles, so that a series of a hundred terms is still within an ulp or so.

/// A running sum with its rounding error carried beside it.
#[derive(Clone, Copy, Default)]
pub struct Sum {
    hi: f64,
    lo: f64,
}

impl Sum {
    pub fn new(v: f64) -> Sum {
        Sum { hi: v, lo: 0.0 }
    }

    pub fn add(&mut self, v: f64) {
        let s = self.hi + v;
        // The part of the smaller addend that the rounded sum lost.
        self.lo += if self.hi.abs() >= v.abs() { (self.hi - s) + v } else { (v - s) + self.hi };
        self.hi = s;
    }

    /// The sum, rounded once.
    pub fn value(&self) -> f64 {
        self.hi + self.lo
    }
}

/// A positive or negative product carried as hi + lo (|lo| ≤ half an ulp of hi).
#[derive(Clone, Copy)]
pub struct Term {
    hi: f64,
    lo: f64,
}

impl Term {
    pub fn new(v: f64) -> Term {
        Term { hi: v, lo: 0.0 }
    }

    /// self·m/d, both m and d doubles, with an error of about an ulp of hi squared.
    pub fn mul_div(&mut self, m: f64, d: f64) {
        let p = self.hi * m;
        let e = self.hi.mul_add(m, -p) + self.lo * m;
        let q = p / d;
        // The remainder p − q·d is exact.
        let r = (-q).mul_add(d, p);
        let q2 = (r + e) / d;
        self.hi = q + q2;
        self.lo = q2 - (self.hi - q);
    }

    pub fn value(&self) -> f64 {
        self.hi
    }
}
