import Foundation

/// One `[section]` of a Darknet `.cfg` file with its `key=value` options, each remembering its line.
///
/// Darknet reads options with `option_find_*` and silently falls back to a default when a
/// key is absent; every read here goes through typed accessors that record which keys
/// were used, so unknown keys can be reported with their line (darknet's `option_unused`).
///
/// Numbers are read as darknet reads them, with `atoi`/`atof`: `layers = 180###P6` is 180 and
/// `filters = 40#32` is 40 (AlexeyAB's cfgs carry such notes). The text after the number is
/// ignored with a warning naming the line (`notes`); a value that does not start with a
/// number, or a fraction where an integer is read (`1.5`), stays an error.
public struct CfgSection: Sendable {
    public struct Option: Sendable, Equatable {
        public var key: String
        public var value: String
        public var line: Int
    }

    /// Section name without brackets, lower-cased (`convolutional`).
    public var name: String
    /// Line of the `[name]` header, 1-based.
    public var line: Int
    public var options: [Option]
    /// Path of the cfg file, for error messages.
    public var file: String
    /// Warnings raised while reading values (shared by copies of the section).
    let notes = CfgNotes()

    public init(name: String, line: Int, options: [Option] = [], file: String) {
        self.name = name
        self.line = line
        self.options = options
        self.file = file
    }

    /// The option with this key; when a key is written twice, the first (darknet's
    /// `option_find` walks the options in file order and returns the first match).
    public func option(_ key: String) -> Option? {
        options.first { $0.key == key }
    }

    func location(_ key: String?) -> CfgLocation {
        CfgLocation(file: file, line: option(key ?? "")?.line ?? line, section: name, key: key)
    }

    /// Keys written again with another value: a warning on each later line (darknet uses the first).
    var duplicateKeyWarnings: [CfgWarning] {
        var first: [String: Option] = [:]
        var warnings: [CfgWarning] = []
        for option in options {
            guard let earlier = first[option.key] else {
                first[option.key] = option
                continue
            }
            if earlier.value != option.value {
                warnings.append(CfgWarning(location: CfgLocation(file: file, line: option.line, section: name, key: option.key),
                                           message: "'\(option.key)' is set again; darknet uses the first value, '\(earlier.value)' (line \(earlier.line))"))
            }
        }
        return warnings
    }

    // MARK: typed reads

    public func int(_ key: String, default value: Int) throws -> Int {
        guard let option = option(key) else { return value }
        return try parseInt(option.value, option: option)
    }

    public func requiredInt(_ key: String) throws -> Int {
        guard let option = option(key) else {
            throw CfgError.missingKey(CfgLocation(file: file, line: line, section: name, key: key))
        }
        return try parseInt(option.value, option: option)
    }

    public func float(_ key: String, default value: Float) throws -> Float {
        guard let option = option(key) else { return value }
        return try parseFloat(option.value, option: option, expected: "a number")
    }

    public func string(_ key: String, default value: String) -> String {
        option(key)?.value ?? value
    }

    /// A comma-separated list of integers (`layers = -1, 61`, `mask = 0,1,2`), each item read as
    /// `atoi` reads it (`180###P6` is 180, with a warning).
    public func intList(_ key: String) throws -> [Int]? {
        guard let option = option(key) else { return nil }
        return try option.value.split(separator: ",", omittingEmptySubsequences: false).map { item in
            try parseInt(item, option: option, expected: "comma-separated integers")
        }
    }

    /// A comma-separated list of numbers (`anchors = 10,14,  23,27`), each read as `atof` reads it.
    public func floatList(_ key: String) throws -> [Float]? {
        guard let option = option(key) else { return nil }
        return try option.value.split(separator: ",", omittingEmptySubsequences: false).map { item in
            try parseFloat(item, option: option, expected: "comma-separated numbers")
        }
    }

    private func parseInt<S: StringProtocol>(_ item: S, option: Option, expected: String = "an integer") throws -> Int {
        let text = String(item).trimmingSpaces
        if let value = Int(text) { return value }
        // atoi reads "1.0" as 1; accept an integral float too.
        if let value = Double(text), value.rounded() == value, abs(value) < 1e9 { return Int(value) }
        if let (number, rest) = CfgNumber.leadingInteger(text), let value = Int(number) {
            warnIgnored(rest, after: number, option: option)
            return value
        }
        throw CfgError.badNumber(location(option.key), value: option.value, expected: expected)
    }

    private func parseFloat<S: StringProtocol>(_ item: S, option: Option, expected: String) throws -> Float {
        let text = String(item).trimmingSpaces
        if let value = Float(text), value.isFinite { return value }
        if let (number, rest) = CfgNumber.leadingDecimal(text), let value = Float(number), value.isFinite {
            warnIgnored(rest, after: number, option: option)
            return value
        }
        throw CfgError.badNumber(location(option.key), value: option.value, expected: expected)
    }

    private func warnIgnored(_ rest: Substring, after number: Substring, option: Option) {
        notes.add(CfgWarning(location: CfgLocation(file: file, line: option.line, section: name, key: option.key),
                             message: "'\(rest)' after \(number) is ignored (darknet reads numbers with atoi/atof)"))
    }
}

/// The leading number of a cfg value, as C's `atoi`/`atof` find it, and the text after it.
/// Only a value whose remainder cannot continue a number counts: `40#32` is 40 and `#32`, but
/// `1.5` is not an integer followed by `.5`.
enum CfgNumber {
    static func leadingInteger(_ text: String) -> (Substring, Substring)? {
        let body = Substring(text)
        var end = body.startIndex
        if end < body.endIndex, body[end] == "-" || body[end] == "+" { end = body.index(after: end) }
        let digitsStart = end
        while end < body.endIndex, body[end].isASCII, body[end].isNumber { end = body.index(after: end) }
        guard end > digitsStart, end < body.endIndex, !".eE".contains(body[end]) else { return nil }
        return (body[..<end], body[end...])
    }

    static func leadingDecimal(_ text: String) -> (Substring, Substring)? {
        let body = Substring(text)
        var end = body.startIndex
        func skipDigits() -> Int {
            var count = 0
            while end < body.endIndex, body[end].isASCII, body[end].isNumber { end = body.index(after: end); count += 1 }
            return count
        }
        if end < body.endIndex, body[end] == "-" || body[end] == "+" { end = body.index(after: end) }
        var digits = skipDigits()
        if end < body.endIndex, body[end] == "." { end = body.index(after: end); digits += skipDigits() }
        guard digits > 0 else { return nil }
        if end < body.endIndex, body[end] == "e" || body[end] == "E" {
            var exponent = body.index(after: end)
            if exponent < body.endIndex, body[exponent] == "-" || body[exponent] == "+" { exponent = body.index(after: exponent) }
            if exponent < body.endIndex, body[exponent].isASCII, body[exponent].isNumber {
                end = exponent
                _ = skipDigits()
            }
        }
        guard end < body.endIndex else { return nil }
        return (body[..<end], body[end...])
    }
}

/// Warnings a section's reads raise, collected by `ModelDescription` once the section is parsed.
final class CfgNotes: @unchecked Sendable {
    private let lock = NSLock()
    private var warnings: [CfgWarning] = []

    func add(_ warning: CfgWarning) {
        lock.lock()
        defer { lock.unlock() }
        if !warnings.contains(warning) { warnings.append(warning) }
    }

    var all: [CfgWarning] {
        lock.lock()
        defer { lock.unlock() }
        return warnings
    }
}

extension String {
    var trimmingSpaces: String {
        var scalars = Substring(self)
        while let first = scalars.first, first == " " || first == "\t" || first == "\r" { scalars.removeFirst() }
        while let last = scalars.last, last == " " || last == "\t" || last == "\r" { scalars.removeLast() }
        return String(scalars)
    }
}
