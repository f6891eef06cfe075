/// One `[section]` of a Darknet `.cfg` file with its `key=value` options, each remembering its line.
///
/// Darknet reads options with `option_find_*` and silently falls back to a default when a
/// key is absent; every read here goes through typed accessors that record which keys
/// were used, so unknown keys can be reported with their line (darknet's `option_unused`).
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

    public init(name: String, line: Int, options: [Option] = [], file: String) {
        self.name = name
        self.line = line
        self.options = options
        self.file = file
    }

    /// The last option with this key (darknet keeps the first match of a list built by
    /// prepending, i.e. the last one written in the file).
    public func option(_ key: String) -> Option? {
        options.last { $0.key == key }
    }

    func location(_ key: String?) -> CfgLocation {
        CfgLocation(file: file, line: option(key ?? "")?.line ?? line, section: name, key: key)
    }

    // MARK: typed reads

    public func int(_ key: String, default value: Int) throws -> Int {
        guard let option = option(key) else { return value }
        return try Self.parseInt(option, location: location(key))
    }

    public func requiredInt(_ key: String) throws -> Int {
        guard let option = option(key) else {
            throw CfgError.missingKey(CfgLocation(file: file, line: line, section: name, key: key))
        }
        return try Self.parseInt(option, location: location(key))
    }

    public func float(_ key: String, default value: Float) throws -> Float {
        guard let option = option(key) else { return value }
        guard let parsed = Float(option.value.trimmingSpaces), parsed.isFinite else {
            throw CfgError.badNumber(location(key), value: option.value, expected: "a number")
        }
        return parsed
    }

    public func string(_ key: String, default value: String) -> String {
        option(key)?.value ?? value
    }

    /// A comma-separated list of integers (`layers = -1, 61`, `mask = 0,1,2`).
    public func intList(_ key: String) throws -> [Int]? {
        guard let option = option(key) else { return nil }
        return try option.value.split(separator: ",", omittingEmptySubsequences: false).map { item in
            guard let value = Int(String(item).trimmingSpaces) else {
                throw CfgError.badNumber(location(key), value: option.value, expected: "comma-separated integers")
            }
            return value
        }
    }

    /// A comma-separated list of numbers (`anchors = 10,14,  23,27`).
    public func floatList(_ key: String) throws -> [Float]? {
        guard let option = option(key) else { return nil }
        return try option.value.split(separator: ",", omittingEmptySubsequences: false).map { item in
            guard let value = Float(String(item).trimmingSpaces), value.isFinite else {
                throw CfgError.badNumber(location(key), value: option.value, expected: "comma-separated numbers")
            }
            return value
        }
    }

    private static func parseInt(_ option: Option, location: CfgLocation) throws -> Int {
        let text = option.value.trimmingSpaces
        if let value = Int(text) { return value }
        // darknet reads ints with atoi, which accepts "1.0" as 1; accept an integral float too.
        if let value = Double(text), value.rounded() == value, abs(value) < 1e9 { return Int(value) }
        throw CfgError.badNumber(location, value: option.value, expected: "an integer")
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
