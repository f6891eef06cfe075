import Foundation
import Kernels

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

    /// What `layer` reads from the file, in order (`LayerType.weightsParts`); nil for layers
    /// without parameters.
    static func parts(of layer: Layer, in model: ModelDescription) -> [WeightsPart]? {
        let next = layer.index + 1 < model.layers.count ? model.layers[layer.index + 1] : nil
        let parts = layer.kind.type.weightsParts(layer, next: next)
        return parts.isEmpty ? nil : parts
    }

    /// Bytes of parameters the model needs after the header.
    public static func parameterBytes(for model: ModelDescription) -> Int {
        model.layers.reduce(0) { $0 + parameterBytes(of: $1, in: model) }
    }

    /// Bytes of parameters `layer` reads from a weights file (0 for layers without any).
    public static func parameterBytes(of layer: Layer, in model: ModelDescription) -> Int {
        (parts(of: layer, in: model)?.reduce(0) { $0 + $1.count } ?? 0) * 4
    }

    /// darknet transposes connected weights when major or minor exceeds 1000.
    static func transposesConnected(_ header: Header) -> Bool { header.major > 1000 || header.minor > 1000 }

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

    /// Reads the file through `mmap`, releasing each layer's pages once folded (`MappedFile`):
    /// every layer's folded parameters.
    public static func read(contentsOf path: String, for model: ModelDescription) throws -> ModelWeights {
        let file = try MappedFile(path: path)
        return try read(file.bytes, file: path, for: model, consumed: file.release(upTo:))
    }

    /// Parses the bytes of a weights file: every layer's folded parameters.
    public static func read(_ bytes: UnsafeRawBufferPointer, file: String, for model: ModelDescription) throws -> ModelWeights {
        try read(bytes, file: file, for: model, consumed: { _ in })
    }

    static func read(_ bytes: UnsafeRawBufferPointer, file: String, for model: ModelDescription,
                     consumed: (Int) -> Void) throws -> ModelWeights {
        var weights = ModelWeights()
        try walk(bytes, file: file, for: model, threads: GEMM.defaultThreads, scratch: { _ in false }, consumed: consumed) {
            layer, parameters in
            if case .plain(let plain) = parameters { weights[layer.index] = plain }
        }
        for (layer, source) in model.sharedConvolutions { weights[layer] = weights[source] }
        return weights
    }

    /// What `walk` hands over for each layer with parameters: folded parameters, or a
    /// convolution's folded weights in the scratch buffer (valid during the call) and its biases.
    enum Parameters {
        case plain(LayerWeights)
        case scratch(UnsafeBufferPointer<Float>, biases: [Float])
    }

    /// Walks the file layer by layer and calls `body` with each layer's parameters.
    /// `consumed(offset)` is told after each layer that the bytes before `offset` are no longer
    /// needed. A convolution for which `scratch` says so has its weights copied (and folded)
    /// into one buffer reused from layer to layer: a fresh array per layer, only to be freed
    /// once transformed, cost yolov3 94 MB of new pages to fault in and fill.
    static func walk(_ bytes: UnsafeRawBufferPointer, file: String, for model: ModelDescription, threads: Int,
                     scratch useScratch: (Layer) -> Bool, consumed: (Int) -> Void,
                     _ body: (Layer, Parameters) throws -> Void) throws {
        try rejectNonWeights(bytes, file: file)
        let header = try readHeader(bytes, file: file)
        let expected = header.size + parameterBytes(for: model)
        // (A convolution that shares another's parameters reads none: it needs no scratch.)
        let scratchCount = model.layers.filter { layer in
            guard case .convolutional = layer.kind else { return false }
            return useScratch(layer)
        }.compactMap { parts(of: $0, in: model)?.last?.count }.max() ?? 0
        let scratch = UnsafeMutableBufferPointer<Float>.allocate(capacity: scratchCount)
        defer { scratch.deallocate() }
        var offset = header.size
        for layer in model.layers {
            guard let parts = parts(of: layer, in: model) else { continue }
            var convolution: Convolutional?
            if case .convolutional(let conv) = layer.kind { convolution = conv }
            let inScratch = convolution != nil && useScratch(layer)
            var arrays: [[Float]] = []
            // A batch-normalized convolution's weights come last: they are folded as they are
            // copied, each slice while it is in the worker's cache.
            var folding: (factors: [Double], biases: [Float])?
            for (index, part) in parts.enumerated() {
                let byteCount = part.count * 4
                guard offset + byteCount <= bytes.count else {
                    throw WeightsError.tooShort(file: file, layer: layer.index, part: part.name, offset: offset,
                                                expectedSize: expected, actualSize: bytes.count)
                }
                if index == parts.count - 1, let convolution, convolution.batchNormalize {
                    folding = ConvolutionWeights.foldingFactors(biases: arrays[0], scales: arrays[1],
                                                                rollingMean: arrays[2], rollingVariance: arrays[3],
                                                                fold: convolution.batchNormFold)
                }
                let source = UnsafeRawBufferPointer(rebasing: bytes[offset..<(offset + byteCount)])
                let bad: Int?
                if index == parts.count - 1, inScratch {
                    bad = copyFloats(source, into: UnsafeMutableBufferPointer(rebasing: scratch[0..<part.count]),
                                     scaledBy: folding?.factors, threads: threads)
                } else {
                    let copy = copyFloats(source, scaledBy: folding?.factors, threads: threads)
                    if copy.firstNonFinite == nil, part.nonNegative, let negative = copy.values.firstIndex(where: { $0 < 0 }) {
                        throw WeightsError.negative(file: file, layer: layer.index, part: part.name,
                                                    offset: offset + negative * 4, value: copy.values[negative])
                    }
                    arrays.append(copy.values)
                    bad = copy.firstNonFinite
                }
                if let bad {
                    throw WeightsError.nonFinite(file: file, layer: layer.index, part: part.name, offset: offset + bad * 4)
                }
                offset += byteCount
            }
            if convolution != nil {
                let biases = folding?.biases ?? arrays[0]
                if inScratch {
                    try body(layer, .scratch(UnsafeBufferPointer(rebasing: scratch[0..<parts.last!.count]), biases: biases))
                } else {
                    try body(layer, .plain(.convolution(ConvolutionWeights(weights: arrays.removeLast(), biases: biases))))
                }
            } else if let folded = layer.kind.type.weights(layer, from: consume arrays, transposed: transposesConnected(header)) {
                try body(layer, .plain(folded))
            }
            consumed(offset)
        }
        if bytes.count != expected {
            throw WeightsError.tooLong(file: file, expectedSize: expected, actualSize: bytes.count)
        }
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
    static func copyFloats(_ source: UnsafeRawBufferPointer, scaledBy factors: [Double]? = nil, threads: Int)
        -> (values: [Float], firstNonFinite: Int?) {
        var bad: Int?
        let values = [Float](unsafeUninitializedCapacity: source.count / 4) { buffer, initialized in
            bad = copyFloats(source, into: buffer, scaledBy: factors, threads: threads)
            initialized = buffer.count
        }
        return (values, bad)
    }

    /// `copyFloats` into `buffer` (`source.count / 4` floats): returns the index of the first
    /// value that is NaN or infinite, nil when all are finite.
    static func copyFloats(_ source: UnsafeRawBufferPointer, into buffer: UnsafeMutableBufferPointer<Float>,
                           scaledBy factors: [Double]? = nil, threads: Int) -> Int? {
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
        Parallel.forChunks(of: chunks, work: count, threads: threads) { range in
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
