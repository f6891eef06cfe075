/// Why a model cannot run `--precision int8` (`Precision.int8`), or its calibration file cannot
/// be read or does not belong to it.
public enum Int8Error: Error, Equatable, CustomStringConvertible {
    /// oneDNN is missing or failed its self-check (`OneDNN`): the reason names what to install.
    case unavailable(reason: String)
    case unreadable(file: String, reason: String)
    /// Not a calibration file of a version this build reads; `detail` names the field.
    case invalid(file: String, detail: String)
    /// The calibration was made for another cfg or weights file (`what`: `cfg` or `weights`).
    case mismatch(file: String, what: String, madeFor: Calibration.FileChecksum, given: String, givenSHA256: String)
    /// A layer of the calibration that is no convolution of the model, or a convolution it lacks.
    case layer(file: String, layer: Int, detail: String)
    /// The weights were given as values, so there is no file whose checksum the calibration's could be compared with.
    case unverifiable(what: String)

    public var description: String {
        switch self {
        case .unavailable(let reason): return "int8 cannot run: \(reason)"
        case .unreadable(let file, let reason): return "\(file): cannot read the calibration: \(reason)"
        case .invalid(let file, let detail): return "\(file): not a darknet-swift calibration file: \(detail)"
        case .mismatch(let file, let what, let madeFor, let given, let sha):
            return "\(file) was made for another \(what) (\(madeFor.file), SHA-256 \(madeFor.sha256.prefix(12))…), not \(given) (SHA-256 \(sha.prefix(12))…): make one for it with darknet-swift calibrate"
        case .layer(let file, let layer, let detail): return "\(file): layer \(layer): \(detail)"
        case .unverifiable(let what):
            return "int8 needs the \(what) as a file or bytes, to compare its SHA-256 with the calibration's"
        }
    }
}
