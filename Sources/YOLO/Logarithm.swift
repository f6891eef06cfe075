// The standard library has no `log` or `pow`; DIoU-NMS needs darknet's `pow(d / c, beta)`
// (box.c box_diounms: float arguments promoted to double, the double result stored as float).

/// Natural logarithm in double precision.
///
/// Method: x = m · 2^e with m in [√½, √2), then ln m = 2·atanh(s) with s = (m − 1)/(m + 1)
/// (|s| <= 0.1716), summed as 2(s + s³/3 + ... + s^29/29): the first omitted term is below
/// 2^-77 relative. ln x = e·ln2 + ln m. NaN and negative values give NaN, 0 gives −∞.
func doubleLog(_ x: Double) -> Double {
    if x.isNaN || x < 0 { return .nan }
    if x == 0 { return -.infinity }
    if x == .infinity { return .infinity }
    var exponent = Int(x.exponent)
    var m = x.significand              // in [1, 2) (subnormals are normalised by `significand`)
    if m > 1.4142135623730951 {
        m /= 2
        exponent += 1
    }
    let s = (m - 1) / (m + 1)
    let s2 = s * s
    var sum = 0.0
    var k = 29.0
    while k >= 1 {
        sum = sum * s2 + 1 / k
        k -= 2
    }
    return Double(exponent) * 0.6931471805599453 + 2 * s * sum
}

/// x^y for x >= 0 (C's `pow` on that domain): 0^y = 0 for y > 0, 1 for y == 0; otherwise
/// e^(y·ln x). NaN for negative or NaN x.
func doublePow(_ x: Double, _ y: Double) -> Double {
    if x.isNaN || y.isNaN || x < 0 { return .nan }
    if y == 0 { return 1 }
    if x == 0 { return y > 0 ? 0 : .infinity }
    return doubleExp(y * doubleLog(x))
}
