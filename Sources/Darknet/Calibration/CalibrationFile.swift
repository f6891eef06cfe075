import Foundation

extension Calibration {
    /// Largest calibration file read (a yolov3 calibration is about 40 KB).
    public static let maximumFileBytes = 4 << 20

    /// Reads and checks a calibration file (`jsonData`'s format): its `format` and `version`,
    /// every field's type, and per layer `low ≤ 0 ≤ high`, a positive finite scale and a zero
    /// point in 0...255; each problem is one line naming the field.
    public init(contentsOf path: String) throws(Int8Error) {
        let bytes: [UInt8]
        do {
            bytes = try TextFile.read(path, limit: Self.maximumFileBytes)
        } catch {
            switch error {
            case .unreadable(let reason): throw .unreadable(file: path, reason: reason)
            case .tooLarge(let size, let limit): throw .unreadable(file: path, reason: "\(size) bytes, over the \(limit)-byte limit")
            }
        }
        try self.init(bytes: bytes, file: path)
        source = path
    }

    /// The same from a file's bytes; `file` names it in errors.
    public init(bytes: [UInt8], file: String) throws(Int8Error) {
        let object: Any
        do {
            object = try JSONSerialization.jsonObject(with: Data(bytes))
        } catch {
            throw .invalid(file: file, detail: "not JSON")
        }
        guard let fields = object as? [String: Any], let format = fields["format"] as? String, format == Self.formatName else {
            throw .invalid(file: file, detail: "\"format\" is not \"\(Self.formatName)\"")
        }
        guard let version = fields["version"] as? Int, version <= Self.currentVersion else {
            throw .invalid(file: file, detail: "\"version\" \(fields["version"] ?? "missing") is not one this build reads (\(Self.currentVersion))")
        }
        do {
            self = try JSONDecoder().decode(Calibration.self, from: Data(bytes))
        } catch let error as DecodingError {
            throw .invalid(file: file, detail: Self.describe(error))
        } catch {
            throw .invalid(file: file, detail: "\(error)")
        }
        for (position, entry) in layers.enumerated() {
            let field = "layers[\(position)] (layer \(entry.layer))"
            guard entry.low <= 0, entry.high >= 0, entry.low.isFinite, entry.high.isFinite else {
                throw .invalid(file: file, detail: "\(field): low \(entry.low) and high \(entry.high) must be finite with low ≤ 0 ≤ high")
            }
            guard entry.scale > 0, entry.scale.isFinite, (0...255).contains(entry.zeroPoint) else {
                throw .invalid(file: file, detail: "\(field): scale \(entry.scale) must be positive and zeroPoint \(entry.zeroPoint) in 0...255")
            }
        }
        if let repeated = Dictionary(grouping: layers, by: \.layer).first(where: { $0.value.count > 1 })?.key {
            throw .invalid(file: file, detail: "layer \(repeated) is listed twice")
        }
    }

    /// A decoding error as one line: the field's path and what was expected.
    static func describe(_ error: DecodingError) -> String {
        func path(_ keys: [CodingKey]) -> String {
            keys.map { $0.intValue.map { "[\($0)]" } ?? ".\($0.stringValue)" }.joined().drop { $0 == "." }.description
        }
        switch error {
        case .keyNotFound(let key, let context): return "\(path(context.codingPath + [key])) is missing"
        case .typeMismatch(let type, let context): return "\(path(context.codingPath)): expected \(type == String.self ? "a string" : type == Int.self ? "an integer" : "a \(type)")"
        case .valueNotFound(_, let context): return "\(path(context.codingPath)) is null"
        case .dataCorrupted(let context): return "\(path(context.codingPath)): \(context.debugDescription)"
        @unknown default: return "\(error)"
        }
    }

    /// Checks that the calibration is `model`'s: its cfg's SHA-256 (`ModelDescription.sourceSHA256`;
    /// nil, a model built from sections, cannot be checked) and every listed layer a convolution
    /// of it. What `summary --methods` checks, having no weights.
    public func check(cfgOf model: ModelDescription) throws(Int8Error) {
        guard let cfgSHA256 = model.sourceSHA256 else { throw .unverifiable(what: "cfg's text") }
        guard cfgSHA256 == cfg.sha256 else {
            throw .mismatch(file: name, what: "cfg", madeFor: cfg, given: model.file, givenSHA256: cfgSHA256)
        }
        for entry in layers {
            guard entry.layer >= 0, entry.layer < model.layers.count, case .convolutional = model.layers[entry.layer].kind else {
                throw .layer(file: name, layer: entry.layer, detail: "not a [convolutional] layer of \(model.file)")
            }
        }
    }

    /// `check(cfgOf:)`, and the weights' SHA-256 (nil: weights given as values, which cannot be checked).
    func check(_ model: ModelDescription, weightsFile: String, weightsSHA256: String?) throws(Int8Error) {
        try check(cfgOf: model)
        guard let weightsSHA256 else { throw .unverifiable(what: "weights") }
        guard weightsSHA256 == weights.sha256 else {
            throw .mismatch(file: name, what: "weights", madeFor: weights, given: weightsFile, givenSHA256: weightsSHA256)
        }
    }

    /// The file's name in messages.
    private var name: String { source ?? "the calibration for \(cfg.file)" }
}
