// The YOLO module imports only the Swift standard library, which has no `exp`. darknet calls
// C's double `exp` on floats promoted to double (get_yolo_box's `exp(x) * bias / w`,
// activations.h's `1./(1. + exp(-x))`) and rounds the double result to float. This double
// `exp` is accurate to about one unit in the last place, so after rounding to Float the
// results agree with the C library's except when the double lands within ~2^-29 of a
// halfway point between two floats.

/// e^x in double precision.
///
/// Method: write x = k·ln2 + r with integer k and |r| <= ln2/2 (ln2 split into a head with
/// trailing zero bits, so k·head is exact, and a tail), sum the Taylor series of e^r − 1 to
/// degree 13 (truncation below 2^-56 for |r| <= 0.35), add 1 last, then scale by 2^k.
func doubleExp(_ x: Double) -> Double {
    if x.isNaN { return x }
    if x > 709.79 { return .infinity }          // e^709.79 > Double.greatestFiniteMagnitude
    if x < -745.2 { return 0 }                  // below half the least subnormal
    let ln2Head = 0.693147180369123816490       // ln 2 rounded to 32 significant bits
    let ln2Tail = 1.90821492927058770002e-10    // ln 2 − ln2Head
    let k = (x / 0.6931471805599453).rounded(.toNearestOrEven)
    let r = (x - k * ln2Head) - k * ln2Tail
    // q = 1/2! + r/3! + r²/4! + ... + r^11/13!, Horner from the highest degree.
    var q = 1.0 / 6227020800.0                  // 1/13!
    q = q * r + 1.0 / 479001600.0               // 1/12!
    q = q * r + 1.0 / 39916800.0
    q = q * r + 1.0 / 3628800.0
    q = q * r + 1.0 / 362880.0
    q = q * r + 1.0 / 40320.0
    q = q * r + 1.0 / 5040.0
    q = q * r + 1.0 / 720.0
    q = q * r + 1.0 / 120.0
    q = q * r + 1.0 / 24.0
    q = q * r + 1.0 / 6.0
    q = q * r + 0.5
    let expm1 = r + (r * r) * q
    let mantissa = 1.0 + expm1
    // k is in -1075...1024; scale in two steps so neither factor over- or underflows.
    let exponent = Int(k)
    let half = exponent / 2
    return Double(sign: .plus, exponent: exponent - half, significand: mantissa)
        * Double(sign: .plus, exponent: half, significand: 1.0)
}

/// darknet's `logistic_activate` (activations.h): `1./(1. + exp(-x))` in double, rounded to float.
func darknetLogistic(_ x: Float) -> Float {
    Float(1.0 / (1.0 + doubleExp(Double(-x))))
}
