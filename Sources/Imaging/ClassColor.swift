/// darknet's `colors[6][3]` table used by `get_color` (indexed [i][c], c = 0, 1, 2).
let darknetColors: [[Float]] = [[1, 0, 1], [0, 0, 1], [0, 1, 1], [0, 1, 0], [1, 1, 0], [1, 0, 0]]

/// darknet `get_color(c, x, max)`:
/// `ratio = ((float)x/max)*5; i = floor(ratio); j = ceil(ratio); ratio -= i;
///  return (1-ratio)*colors[i][c] + ratio*colors[j][c];`
func darknetGetColor(_ c: Int, _ x: Int, _ max: Int) -> Float {
    var ratio = (Float(x) / Float(max)) * 5
    let i = Int(ratio.rounded(.down))
    let j = Int(ratio.rounded(.up))
    ratio -= Float(i)
    guard (0..<6).contains(i), (0..<6).contains(j) else { return 1 }
    return (1 - ratio) * darknetColors[i][c] + ratio * darknetColors[j][c]
}

/// The box colour darknet's `draw_detections` picks for a class:
/// `offset = class*123457 % classes; red = get_color(2, offset, classes);
///  green = get_color(1, offset, classes); blue = get_color(0, offset, classes)`.
/// `classes` must be positive; out-of-range input yields white instead of reading past the table.
public func darknetClassColor(classId: Int, classes: Int) -> (red: Float, green: Float, blue: Float) {
    guard classes > 0, classId >= 0 else { return (1, 1, 1) }
    // darknet multiplies in 32-bit int; ids large enough to overflow that are not meaningful.
    let offset = Int(Int32(truncatingIfNeeded: classId &* 123457)) % classes
    return (darknetGetColor(2, offset, classes), darknetGetColor(1, offset, classes), darknetGetColor(0, offset, classes))
}
