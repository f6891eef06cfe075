import Foundation

/// A convolution's parameters ready for inference: batch norm already folded in.
///
/// darknet at inference computes `scale · (conv − mean) / (sqrt(variance) + .000001) + bias`
/// (`normalize_cpu`, `scale_bias`, `add_bias`); folding gives `weights · f` and
/// `bias − mean · f` with `f = scale / (sqrt(variance) + .000001)`, computed in double.
public struct ConvolutionWeights: Sendable {
    /// `filters × (C/groups) × size × size`.
    public var weights: [Float]
    /// `filters`.
    public var biases: [Float]
    /// The weights transformed for Winograd (`positions × filters × C`, or `positions × C ×
    /// filters` tile-major), when the layer runs Winograd; `weights` is then emptied so the
    /// model is not held twice. For the streamed F(2×2) they are the plain weights in
    /// `Winograd.reorderTapMajor` order (`filters × 9 × C`), for the streamed F(4×4) in
    /// `Winograd.reorderPanels` order.
    public var winograd: [Float]?
    /// Which Winograd F(m×m, 3×3) `winograd` is for.
    var winogradVariant: Winograd.Variant?
    /// True when `winograd` holds reordered plain weights for `Winograd.streamedProducts` (F(2×2))
    /// or `Winograd.streamedPackedProducts` (F(4×4)).
    var winogradStreamed = false
    /// How the products run, and so how `winograd` is laid out (`Winograd.orientation`).
    var winogradOrientation = Winograd.Orientation.filterMajor
    /// True when `weights` (`filters × k`) is packed for OpenBLAS's kernel (`PackedGEMM.packWeights`),
    /// so `GEMM.multiplyPacked` runs it without repacking per call (`packs`).
    var weightsPacked = false
    /// The variant when `winograd` holds `WinogradStride2`'s transformed weights (packed per
    /// position when `winogradOrientation` is `.packed`).
    var stride2: WinogradStride2.Variant?

    public init(weights: [Float], biases: [Float]) {
        self.weights = weights
        self.biases = biases
    }

    /// These parameters ready for `method` on a layer with `channels` inputs and an `output` of
    /// `filters` planes: transformed (and the plain copy dropped) for Winograd, in the
    /// orientation `Winograd.orientation` gives the output's size; reordered in place for the
    /// streamed methods; packed for OpenBLAS's kernel when `PackedGEMM.active` and `packs` says
    /// so (1×1 and im2col convolutions without groups); unchanged otherwise. Already-prepared
    /// parameters stay as they are.
    consuming func prepared(for method: ConvolutionMethod, channels: Int, output: TensorShape,
                            groups: Int = 1) -> ConvolutionWeights {
        let filters = output.channels
        if Self.packs(method, filters: filters, k: weights.count / max(filters, 1), groups: groups, output: output),
           !weightsPacked, let kernel = PackedGEMM.active {
            // Packed in place through a copy aside (one layer's weights: 18.9 MB for yolov3's largest).
            let plain = weights
            let k = weights.count / filters
            weights.withUnsafeMutableBufferPointer { packed in
                PackedGEMM.packWeights(kernel, plain, rows: filters, k: k, ldw: k, into: packed.baseAddress!)
            }
            weightsPacked = true
            return self
        }
        if let variant = method.stride2Variant, winograd == nil {
            let orientation: Winograd.Orientation = PackedGEMM.active != nil ? .packed : .filterMajor
            winograd = weights.withUnsafeBufferPointer {
                WinogradStride2.transformWeights(variant, $0, filters: filters, channels: channels, orientation: orientation)
            }
            weights = []
            winogradOrientation = orientation
            stride2 = variant
            return self
        }
        guard let variant = method.winogradVariant, winograd == nil else { return self }
        winogradVariant = variant
        if method.isStreamed {
            // Reordered in place: the array moves over (copied only when a caller still holds
            // these parameters, as `Network.prepare`'s do not).
            var plain = weights
            weights = []
            if method == .winogradStreamed {
                Winograd.reorderPanels(&plain, filters: filters, channels: channels)
                winogradOrientation = .packed
            } else {
                Winograd.reorderTapMajor(&plain, filters: filters, channels: channels)
            }
            winograd = plain
            winogradStreamed = true
            return self
        }
        self = weights.withUnsafeBufferPointer {
            ConvolutionWeights(transforming: $0, variant, biases: biases, channels: channels, output: output)
        }
        return self
    }

    /// True when a layer running `method` multiplies packed weights (`GEMM.multiplyPacked`): 1×1
    /// convolutions and im2col ones without groups, unless im2col runs them in bands
    /// (`Im2colBands`, whose single-threaded sgemm per band keeps `cblas_sgemm`). `k` is the
    /// weights per filter.
    static func packs(_ method: ConvolutionMethod, filters: Int, k: Int, groups: Int, output: TensorShape) -> Bool {
        guard PackedGEMM.kernel != nil, groups == 1, filters > 0 else { return false }
        switch method {
        case .gemm: return true
        case .im2col: return Im2colBands.bandRows(k: k, outHeight: output.height, outWidth: output.width) == nil
        default: return false
        }
    }

    /// Parameters for pre-transformed Winograd `variant`, from folded plain weights
    /// (`filters × channels × 3 × 3`, `filters = output.channels`): only the transformed ones are
    /// kept, in the orientation `Winograd.orientation` gives the output's size.
    init(transforming plain: UnsafeBufferPointer<Float>, _ variant: Winograd.Variant, biases: [Float],
         channels: Int, output: TensorShape) {
        self.init(weights: [], biases: biases)
        let orientation = Winograd.orientation(variant, channels: channels, filters: output.channels,
                                               outHeight: output.height, outWidth: output.width)
        winograd = Winograd.transformWeights(variant, plain, filters: output.channels, channels: channels,
                                             orientation: orientation)
        winogradVariant = variant
        winogradOrientation = orientation
    }

    /// Bytes of parameters held (plain or transformed weights, and biases).
    public var bytes: Int { (weights.count + (winograd?.count ?? 0) + biases.count) * MemoryLayout<Float>.stride }

    /// Folds batch-norm statistics (`scales`, `rollingMean`, `rollingVariance`, each `filters` long).
    /// `weights` is consumed: when the caller hands over its only reference (the weights
    /// reader does), the folding happens in place instead of in a copy of the layer.
    public static func folding(weights: consuming [Float], biases: [Float], scales: [Float],
                               rollingMean: [Float], rollingVariance: [Float]) -> ConvolutionWeights {
        let filters = biases.count
        var folded = consume weights
        let perFilter = filters > 0 ? folded.count / filters : 0
        let (factors, foldedBiases) = foldingFactors(biases: biases, scales: scales, rollingMean: rollingMean,
                                                     rollingVariance: rollingVariance)
        // Filters split across workers: one pass over the layer's weights (yolov3: 62M floats).
        folded.withUnsafeMutableBufferPointer { weights in
            nonisolated(unsafe) let weights = weights
            factors.withUnsafeBufferPointer { factors in
                nonisolated(unsafe) let factors = factors
                Parallel.forChunks(of: filters, work: filters * perFilter) { range in
                    for f in range {
                        let factor = factors[f]
                        for i in (f * perFilter)..<((f + 1) * perFilter) {
                            weights[i] = Float(Double(weights[i]) * factor)
                        }
                    }
                }
            }
        }
        return ConvolutionWeights(weights: folded, biases: foldedBiases)
    }

    /// Each filter's factor `f = scale / (sqrt(variance) + .000001)` and folded bias
    /// `bias − mean · f`, in double: what `folding` applies (a weight becomes `Float(Double(w) · f)`).
    static func foldingFactors(biases: [Float], scales: [Float], rollingMean: [Float],
                               rollingVariance: [Float]) -> (factors: [Double], biases: [Float]) {
        var factors = [Double](repeating: 0, count: biases.count)
        var folded = biases
        for f in 0..<biases.count {
            let factor = Double(scales[f]) / (Double(rollingVariance[f]).squareRoot() + Double(Float(0.000001)))
            factors[f] = factor
            folded[f] = Float(Double(biases[f]) - Double(rollingMean[f]) * factor)
        }
        return (factors, folded)
    }
}
