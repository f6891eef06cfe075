/// Where in a cfg file something went wrong.
public struct CfgLocation: Sendable, Hashable, CustomStringConvertible {
    public var file: String
    /// 1-based line number.
    public var line: Int
    /// Section name (`convolutional`), when known.
    public var section: String?
    /// Option key, when the problem is one option.
    public var key: String?

    public init(file: String, line: Int, section: String? = nil, key: String? = nil) {
        self.file = file
        self.line = line
        self.section = section
        self.key = key
    }

    public var description: String {
        var text = "\(file):\(line)"
        if let section { text += " [\(CfgError.excerpt(section))]" }
        if let key { text += " '\(CfgError.excerpt(key))'" }
        return text
    }
}

/// Everything that can be wrong with a `.cfg` file. Each case carries the place.
public enum CfgError: Error, Equatable, CustomStringConvertible {
    case unreadable(file: String, reason: String)
    case empty(file: String)
    case tooLarge(file: String, bytes: Int, limit: Int)
    case malformedLine(CfgLocation, text: String)
    case optionOutsideSection(CfgLocation)
    case unknownSection(CfgLocation, name: String)
    case missingNetSection(file: String)
    case noLayers(file: String)
    case missingKey(CfgLocation)
    case badNumber(CfgLocation, value: String, expected: String)
    case invalidValue(CfgLocation, value: String, expected: String)
    case unsupported(CfgLocation, what: String)
    /// A `layers`/`from` index that points outside the layers before this one.
    case layerReference(CfgLocation, layer: Int, index: Int, available: Int)
    case filtersMismatch(CfgLocation, layer: Int, filters: Int, expected: Int)
    case shapeMismatch(CfgLocation, layer: Int, detail: String)
    case inputTooSmall(CfgLocation, layer: Int, detail: String)
    /// A data file the cfg names (`tree=`) is missing, too large or malformed: `path` (with
    /// `:line` when one line is wrong) and what is wrong.
    case dataFile(CfgLocation, path: String, detail: String)

    public var location: CfgLocation? {
        switch self {
        case .unreadable, .empty, .tooLarge, .missingNetSection, .noLayers: return nil
        case .malformedLine(let l, _), .optionOutsideSection(let l), .unknownSection(let l, _),
             .missingKey(let l), .badNumber(let l, _, _), .invalidValue(let l, _, _),
             .unsupported(let l, _), .layerReference(let l, _, _, _), .filtersMismatch(let l, _, _, _),
             .shapeMismatch(let l, _, _), .inputTooSmall(let l, _, _), .dataFile(let l, _, _):
            return l
        }
    }

    public var description: String {
        switch self {
        case .unreadable(let file, let reason): return "\(file): cannot read cfg: \(reason)"
        case .empty(let file): return "\(file): the cfg file is empty"
        case .tooLarge(let file, let bytes, let limit): return "\(file): cfg is \(bytes) bytes, over the \(limit)-byte limit"
        case .malformedLine(let l, let text): return "\(l): expected '[section]' or 'key=value', found '\(Self.excerpt(text))'"
        case .optionOutsideSection(let l): return "\(l): option before the first [section]"
        case .unknownSection(let l, let name): return "\(l): unknown section [\(Self.excerpt(name))]"
        case .missingNetSection(let file): return "\(file): the first section must be [net] or [network]"
        case .noLayers(let file): return "\(file): no layers after [net]"
        case .missingKey(let l): return "\(l): required key is missing"
        case .badNumber(let l, let value, let expected): return "\(l): '\(Self.excerpt(value))' is not \(expected)"
        case .invalidValue(let l, let value, let expected): return "\(l): '\(Self.excerpt(value))' is invalid, expected \(expected)"
        case .unsupported(let l, let what): return "\(l): not supported: \(what)"
        case .layerReference(let l, let layer, let index, let available):
            return "\(l): layer \(layer) refers to layer \(index), but only layers 0...\(available - 1) come before it"
        case .filtersMismatch(let l, let layer, let filters, let expected):
            return "\(l): layer \(layer) has filters=\(filters) before a [yolo] that needs (classes + 5) × mask count = \(expected)"
        case .shapeMismatch(let l, let layer, let detail): return "\(l): layer \(layer): \(detail)"
        case .inputTooSmall(let l, let layer, let detail): return "\(l): layer \(layer): input too small: \(detail)"
        case .dataFile(let l, let path, let detail): return "\(l): \(path): \(detail)"
        }
    }
}

extension CfgError {
    /// How text from the file appears in a message: control characters (a NUL, an escape
    /// sequence) as `\u{..}`, and at most 80 characters, the rest counted (a 3 MB line is not
    /// echoed whole).
    static func excerpt(_ text: String) -> String {
        var out = ""
        var shown = 0, total = 0
        for scalar in text.unicodeScalars {
            total += 1
            guard shown < 80 else { continue }
            shown += 1
            if scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value) {
                out += "\\u{" + String(scalar.value, radix: 16) + "}"
            } else {
                out.unicodeScalars.append(scalar)
            }
        }
        return total > shown ? out + "… (\(total - shown) more characters)" : out
    }
}

/// A problem that does not stop loading (an unknown key darknet would ignore).
public struct CfgWarning: Sendable, Equatable, CustomStringConvertible {
    public var location: CfgLocation
    public var message: String
    public var description: String { "\(location): warning: \(message)" }
}
