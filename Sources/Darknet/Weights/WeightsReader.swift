import Foundation

/// Reads a darknet `.weights` file for a `ModelDescription`.
///
/// Layout (darknet's `load_weights_upto`): int32 major, minor, revision; then `seen` as
/// uint64 when `major·10 + minor ≥ 2` (and both < 1000) else uint32; then, per
/// `[convolutional]` in cfg order, float32 biases, (if batch_normalize) scales, rolling
/// mean, rolling variance, then the weights; per `[connected]` (`load_connected_weights`)
/// biases, the `outputs × inputs` weights — stored `inputs × outputs` and transposed when
/// major or minor > 1000 (parser.c's `transpose` flag) — then, if batch_normalize, scales,
/// rolling mean, rolling variance; per `[batchnorm]` (`load_batchnorm_weights`) scales,
/// rolling mean, rolling variance (`C` each); per `[local]` one bias per output element, then
/// `locations × filters × size²·C` weights; per weighted `[shortcut]` (AlexeyAB's
/// `load_shortcut_weights`, same place in layer order) its `(n + 1)` or `(n + 1)·C` weights. The size must match the cfg exactly.
public enum WeightsReader {
    public struct Header: Sendable, Equatable {
        public var major: Int32
        public var minor: Int32
        public var revision: Int32
        public var seen: UInt64
        /// Bytes the header takes (16 or 20).
        public var size: Int
    }

    /// What one convolution reads from the file, in order.
    struct Part {
        var name: String
        var count: Int
    }

    static func parts(of conv: Convolutional, input: TensorShape) -> [Part] {
        let n = conv.filters
        var parts = [Part(name: "biases", count: n)]
        if conv.batchNormalize {
            parts += [Part(name: "scales", count: n), Part(name: "rolling mean", count: n),
                      Part(name: "rolling variance", count: n)]
        }
        parts.append(Part(name: "weights", count: n * conv.fanIn(inputChannels: input.channels)))
        return parts
    }

    /// What a layer reads from the file, in order; nil for layers without parameters.
    static func parts(of layer: Layer) -> [Part]? {
        switch layer.kind {
        case .convolutional(let conv):
            return parts(of: conv, input: layer.input)
        case .connected(let connected):
            let n = connected.outputs
            var parts = [Part(name: "biases", count: n), Part(name: "weights", count: n * layer.input.count)]
            if connected.batchNormalize {
                parts += [Part(name: "scales", count: n), Part(name: "rolling mean", count: n),
                          Part(name: "rolling variance", count: n)]
            }
            return parts
        case .batchnorm:
            let n = layer.input.channels
            return [Part(name: "scales", count: n), Part(name: "rolling mean", count: n),
                    Part(name: "rolling variance", count: n)]
        case .shortcut(let shortcut) where shortcut.weightsType != .none:
            return [Part(name: "shortcut weights", count: shortcut.weightCount(channels: layer.output.channels))]
        case .local(let local):
            let locations = layer.output.height * layer.output.width
            return [Part(name: "biases", count: layer.output.count),
                    Part(name: "weights", count: locations * local.blockCount(inputChannels: layer.input.channels))]
        default:
            return nil
        }
    }

    /// Bytes of parameters the model needs after the header.
    public static func parameterBytes(for model: ModelDescription) -> Int {
        var total = 0
        for layer in model.layers {
            guard let parts = parts(of: layer) else { continue }
            total += parts.reduce(0) { $0 + $1.count } * 4
        }
        return total
    }

    /// darknet transposes connected weights when major or minor exceeds 1000.
    static func transposesConnected(_ header: Header) -> Bool { header.major > 1000 || header.minor > 1000 }

    /// The layer's parameters, folded, from the arrays `parts(of:)` listed. Convolutions are
    /// not here: `read` folds their weights as it copies them.
    static func fold(_ layer: Layer, _ arrays: consuming [[Float]], transpose: Bool) -> ConvolutionWeights? {
        switch layer.kind {
        case .connected(let connected):
            var weights = arrays[1]
            if transpose {
                let (rows, columns) = (layer.input.count, connected.outputs)
                for r in 0..<rows {
                    for c in 0..<columns { weights[c * rows + r] = arrays[1][r * columns + c] }
                }
            }
            if connected.batchNormalize {
                return .folding(weights: weights, biases: arrays[0], scales: arrays[2],
                                rollingMean: arrays[3], rollingVariance: arrays[4])
            }
            return ConvolutionWeights(weights: weights, biases: arrays[0])
        case .local:
            return ConvolutionWeights(weights: arrays[1], biases: arrays[0])
        case .shortcut:
            return ConvolutionWeights(weights: arrays[0], biases: [])
        case .batchnorm:
            let n = layer.input.channels
            return .folding(weights: [Float](repeating: 1, count: n), biases: [Float](repeating: 0, count: n),
                            scales: arrays[0], rollingMean: arrays[1], rollingVariance: arrays[2])
        default:
            return nil
        }
    }

    public static func readHeader(_ bytes: UnsafeRawBufferPointer, file: String) throws -> Header {
        guard bytes.count >= 16 else { throw WeightsError.truncatedHeader(file: file, bytes: bytes.count, needed: 16) }
        let major = bytes.loadUnaligned(fromByteOffset: 0, as: Int32.self).littleEndian
        let minor = bytes.loadUnaligned(fromByteOffset: 4, as: Int32.self).littleEndian
        let revision = bytes.loadUnaligned(fromByteOffset: 8, as: Int32.self).littleEndian
        let wideSeen = (Int(major) * 10 + Int(minor)) >= 2 && major < 1000 && minor < 1000
        if wideSeen {
            guard bytes.count >= 20 else { throw WeightsError.truncatedHeader(file: file, bytes: bytes.count, needed: 20) }
            let seen = bytes.loadUnaligned(fromByteOffset: 12, as: UInt64.self).littleEndian
            return Header(major: major, minor: minor, revision: revision, seen: seen, size: 20)
        }
        let seen = bytes.loadUnaligned(fromByteOffset: 12, as: UInt32.self).littleEndian
        return Header(major: major, minor: minor, revision: revision, seen: UInt64(seen), size: 16)
    }

    /// Reads the file through `mmap`, releasing each layer's pages once folded (`MappedFile`).
    /// `methods` (by layer index, as `ModelDescription.convolutionMethods` gives them): the
    /// convolutions come back prepared for them, as `Network.prepare` would leave them.
    public static func read(contentsOf path: String, for model: ModelDescription,
                            methods: [ConvolutionMethod?] = []) throws -> [Int: ConvolutionWeights] {
        let file = try MappedFile(path: path)
        return try read(file.bytes, file: path, for: model, methods: methods, consumed: file.release(upTo:))
    }

    /// Parses the bytes of a weights file: layer index → folded parameters (convolutional,
    /// connected, batchnorm), the convolutions prepared for `methods` as in `read(contentsOf:)`.
    public static func read(_ bytes: UnsafeRawBufferPointer, file: String, for model: ModelDescription,
                            methods: [ConvolutionMethod?] = []) throws -> [Int: ConvolutionWeights] {
        try read(bytes, file: file, for: model, methods: methods, consumed: { _ in })
    }

    /// The method `methods` gives convolution `layer`, nil when it gives none or one the layer
    /// cannot run (a Winograd method on a layer of another shape, `Convolutional.runs`: such a
    /// layer stays plain, as `Network.prepare` would leave it to im2col).
    static func method(of layer: Layer, in methods: [ConvolutionMethod?]) -> ConvolutionMethod? {
        guard case .convolutional(let conv) = layer.kind, methods.indices.contains(layer.index),
              let method = methods[layer.index] else { return nil }
        return conv.runs(method) ? method : nil
    }

    /// The convolutions whose weights `read` transforms for Winograd as it reads them (their
    /// variant, nil for the others): their plain weights only pass through a scratch buffer.
    static func transformedVariant(_ layer: Layer, _ methods: [ConvolutionMethod?]) -> Winograd.Variant? {
        guard let method = method(of: layer, in: methods), !method.isStreamed else { return nil }
        return method.winogradVariant
    }

    /// `consumed(offset)` is told after each layer that the bytes before `offset` are no longer needed.
    ///
    /// A layer transformed for Winograd has its plain weights copied (and folded) into one
    /// scratch buffer reused from layer to layer, and transformed from there: a fresh array per
    /// layer, only to be freed once transformed, cost yolov3 94 MB of new pages, which this VM
    /// fills at about 1.5 GB/s.
    static func read(_ bytes: UnsafeRawBufferPointer, file: String, for model: ModelDescription,
                     methods: [ConvolutionMethod?], consumed: (Int) -> Void) throws -> [Int: ConvolutionWeights] {
        try rejectNonWeights(bytes, file: file)
        let header = try readHeader(bytes, file: file)
        let expected = header.size + parameterBytes(for: model)
        let scratchCount = model.layers.filter { transformedVariant($0, methods) != nil }
            .map { parts(of: $0)!.last!.count }.max() ?? 0
        let scratch = UnsafeMutableBufferPointer<Float>.allocate(capacity: scratchCount)
        defer { scratch.deallocate() }
        var offset = header.size
        var result: [Int: ConvolutionWeights] = [:]
        for layer in model.layers {
            guard let parts = parts(of: layer) else { continue }
            let method = method(of: layer, in: methods)
            let variant = transformedVariant(layer, methods)
            var arrays: [[Float]] = []
            // A batch-normalized convolution's weights come last: they are folded as they are
            // copied, each slice while it is in the worker's cache (a separate pass over yolov3's
            // 62M weights took 13–23 ms of its load).
            var folding: (factors: [Double], biases: [Float])?
            for (index, part) in parts.enumerated() {
                let byteCount = part.count * 4
                guard offset + byteCount <= bytes.count else {
                    throw WeightsError.tooShort(file: file, layer: layer.index, part: part.name, offset: offset,
                                                expectedSize: expected, actualSize: bytes.count)
                }
                if index == parts.count - 1, case .convolutional(let conv) = layer.kind, conv.batchNormalize {
                    folding = ConvolutionWeights.foldingFactors(biases: arrays[0], scales: arrays[1],
                                                                rollingMean: arrays[2], rollingVariance: arrays[3])
                }
                let source = UnsafeRawBufferPointer(rebasing: bytes[offset..<(offset + byteCount)])
                let bad: Int?
                if index == parts.count - 1, variant != nil {
                    bad = copyFloats(source, into: UnsafeMutableBufferPointer(rebasing: scratch[0..<part.count]),
                                     scaledBy: folding?.factors)
                } else {
                    let copy = copyFloats(source, scaledBy: folding?.factors)
                    arrays.append(copy.values)
                    bad = copy.firstNonFinite
                }
                if let bad {
                    throw WeightsError.nonFinite(file: file, layer: layer.index, part: part.name, offset: offset + bad * 4)
                }
                offset += byteCount
            }
            if case .convolutional(let conv) = layer.kind {
                let biases = folding?.biases ?? arrays[0]
                let channels = layer.input.channels
                if let variant {
                    let plain = UnsafeBufferPointer(rebasing: scratch[0..<parts.last!.count])
                    result[layer.index] = ConvolutionWeights(transforming: plain, variant, biases: biases,
                                                             channels: channels, output: layer.output)
                } else {
                    let plain = ConvolutionWeights(weights: arrays.removeLast(), biases: biases)
                    result[layer.index] = method.map {
                        plain.prepared(for: $0, channels: channels, output: layer.output, groups: conv.groups)
                    } ?? plain
                }
            } else {
                result[layer.index] = fold(layer, consume arrays, transpose: transposesConnected(header))
            }
            consumed(offset)
        }
        if bytes.count != expected {
            throw WeightsError.tooLong(file: file, expectedSize: expected, actualSize: bytes.count)
        }
        return result
    }

    /// The little-endian float32s of `source`, and the index of the first one that is NaN or
    /// infinite. One pass: each worker copies a slice and ORs its exponents into a check, so the
    /// file's bytes are touched once (a separate `isFinite` scan read yolov3's 248 MB again).
    /// Each worker maps its slice of the file and of the new array first (`Prefault`): one
    /// call per 256 KB slice instead of a page fault per 4 KiB.
    ///
    /// `factors` (batch-norm folding, one per filter, the floats split evenly among them): each
    /// value `w` becomes `Float(Double(w) · factor)`, as `ConvolutionWeights.folding` computes it;
    /// the finiteness check is on the values as stored.
    static func copyFloats(_ source: UnsafeRawBufferPointer, scaledBy factors: [Double]? = nil)
        -> (values: [Float], firstNonFinite: Int?) {
        var bad: Int?
        let values = [Float](unsafeUninitializedCapacity: source.count / 4) { buffer, initialized in
            bad = copyFloats(source, into: buffer, scaledBy: factors)
            initialized = buffer.count
        }
        return (values, bad)
    }

    /// `copyFloats` into `buffer` (`source.count / 4` floats): returns the index of the first
    /// value that is NaN or infinite, nil when all are finite.
    static func copyFloats(_ source: UnsafeRawBufferPointer, into buffer: UnsafeMutableBufferPointer<Float>,
                           scaledBy factors: [Double]? = nil) -> Int? {
        let count = source.count / 4
        precondition(buffer.count == count, "copyFloats: \(count) floats into \(buffer.count)")
        let perFilter = factors.map { $0.isEmpty ? 0 : count / $0.count } ?? 0
        nonisolated(unsafe) let target = UnsafeMutableRawBufferPointer(buffer)
        nonisolated(unsafe) let floats = buffer
        let chunks = (count + 65_535) / 65_536
        let flags = UnsafeMutableBufferPointer<Bool>.allocate(capacity: max(chunks, 1))
        defer { flags.deallocate() }
        flags.initialize(repeating: false)
        nonisolated(unsafe) let found = flags
        Parallel.forChunks(of: chunks, work: count) { range in
            for chunk in range {
                let start = chunk * 65_536, end = min(count, start + 65_536)
                let slice = UnsafeRawBufferPointer(rebasing: source[(start * 4)..<(end * 4)])
                let into = UnsafeMutableRawBufferPointer(rebasing: target[(start * 4)..<(end * 4)])
                Prefault.read(slice)
                Prefault.write(into)
                into.copyMemory(from: slice)
                // A float is NaN or infinite exactly when its exponent bits are all ones.
                let words = (target.baseAddress! + start * 4).assumingMemoryBound(to: UInt32.self)
                var exponents: UInt32 = 0
                for i in 0..<(end - start) { exponents = max(exponents, words[i] & 0x7F80_0000) }
                if exponents == 0x7F80_0000 { found[chunk] = true }
                guard let factors, perFilter > 0 else { continue }
                var i = start
                while i < end {
                    let filter = min(i / perFilter, factors.count - 1)
                    let runEnd = filter == factors.count - 1 ? end : min(end, (filter + 1) * perFilter)
                    let factor = factors[filter]
                    for j in i..<runEnd { floats[j] = Float(Double(floats[j]) * factor) }
                    i = runEnd
                }
            }
        }
        guard flags.contains(true) else { return nil }
        return (0..<count).first {
            source.loadUnaligned(fromByteOffset: $0 * 4, as: UInt32.self).littleEndian & 0x7F80_0000 == 0x7F80_0000
        }
    }

    /// Recognises what people save as `.weights` by mistake.
    static func rejectNonWeights(_ bytes: UnsafeRawBufferPointer, file: String) throws {
        if bytes.isEmpty { throw WeightsError.empty(file: file) }
        let prefix = String(decoding: bytes.prefix(512), as: UTF8.self)
        let trimmed = prefix.drop { $0 == " " || $0 == "\n" || $0 == "\r" || $0 == "\t" || $0 == "\u{FEFF}" }
        if trimmed.hasPrefix("version https://git-lfs") { throw WeightsError.gitLFSPointer(file: file) }
        let lower = trimmed.lowercased()
        if lower.hasPrefix("<!doctype html") || lower.hasPrefix("<html") || lower.hasPrefix("<?xml") || lower.hasPrefix("<head") {
            throw WeightsError.htmlPage(file: file)
        }
        // A weights header starts with small int32 versions: their high bytes are zero.
        // A text file has printable characters there.
        if bytes.count >= 12 {
            let printable = bytes.prefix(12).allSatisfy { ($0 >= 0x20 && $0 < 0x7f) || $0 == 0x0a || $0 == 0x0d || $0 == 0x09 }
            if printable { throw WeightsError.textFile(file: file) }
        }
    }
}
