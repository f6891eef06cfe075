/// How a `[convolutional]` layer computes its products. darknet always uses im2col + GEMM;
/// the answers differ only by float rounding (see `Winograd`).
public enum ConvolutionAlgorithm: String, Sendable, Hashable, CaseIterable {
    /// Per layer by shape (`Convolutional.prefersWinograd`): Winograd where it pays and its
    /// transformed weights fit the memory budget, im2col + GEMM elsewhere.
    case auto
    /// darknet's method everywhere: im2col + GEMM (1×1 stride-1 layers multiply the input directly).
    case im2col
    /// F(4×4, 3×3) Winograd on every 3×3 stride-1 layer without groups; im2col on the others.
    case winograd
}

/// What one layer actually runs, as `summary` and `benchmark` show it.
public enum ConvolutionMethod: String, Sendable, Hashable {
    /// 1×1 stride-1 without padding: one GEMM on the input, no unfolding.
    case gemm
    case im2col
    case winograd
}

extension Convolutional {
    /// True when Winograd F(4×4, 3×3) computes this layer: 3×3, stride 1, no groups.
    public var winogradEligible: Bool { size == 3 && stride == 1 && groups == 1 }
}

extension ModelDescription {
    /// Share of the model's convolution weight bytes that `auto` may add as Winograd's
    /// transformed weights (F(4×4, 3×3) holds 36 floats per 3×3 kernel instead of 9: 3× more).
    /// 20% keeps `detect`'s peak memory within 2× the weights file (yolov3 at 416: 381 MB with
    /// im2col everywhere, +41 MB for its 52×52 and larger layers).
    public static let winogradMemoryShare = 0.2

    /// The method each layer runs under `algorithm` (nil for layers that are not convolutions).
    ///
    /// `auto` takes the Winograd-eligible layers with at least 16 input channels (below that
    /// the GEMMs are too thin to pay for the transforms: yolov3's first layer is 0.6× as fast),
    /// largest output first — where Winograd gains most: 2.2× on yolov3's 52×52 layers, 1.3×
    /// on its 13×13 ones, measured with `darknet-swift benchmark` on 2 cores — while their extra
    /// weights fit in `winogradMemoryShare` of the model's.
    public func convolutionMethods(_ algorithm: ConvolutionAlgorithm) -> [ConvolutionMethod?] {
        var methods: [ConvolutionMethod?] = layers.map { layer in
            guard case .convolutional(let conv) = layer.kind else { return nil }
            return conv.isPointwise ? .gemm : .im2col
        }
        switch algorithm {
        case .im2col:
            break
        case .winograd:
            for layer in layers {
                if case .convolutional(let conv) = layer.kind, conv.winogradEligible { methods[layer.index] = .winograd }
            }
        case .auto:
            var candidates: [(index: Int, area: Int, extra: Int)] = []
            var total = 0
            for layer in layers {
                guard case .convolutional(let conv) = layer.kind else { continue }
                let weights = conv.filters * conv.fanIn(inputChannels: layer.input.channels) * 4
                total += weights
                if conv.winogradEligible && layer.input.channels >= 16 {
                    candidates.append((layer.index, layer.output.height * layer.output.width, 3 * weights))
                }
            }
            var budget = Int(Double(total) * Self.winogradMemoryShare)
            for candidate in candidates.sorted(by: { ($0.area, $1.index) > ($1.area, $0.index) }) where candidate.extra <= budget {
                methods[candidate.index] = .winograd
                budget -= candidate.extra
            }
        }
        return methods
    }
}

extension ModelDescription {
    /// Bytes of parameters layer `index` holds at inference under `method`: folded weights
    /// (36/9 of them once transformed for Winograd) and biases; 0 for layers without parameters.
    public func parameterBytes(ofLayer index: Int, method: ConvolutionMethod?) -> Int {
        guard case .convolutional(let conv) = layers[index].kind else { return 0 }
        let weights = conv.filters * conv.fanIn(inputChannels: layers[index].input.channels)
        return ((method == .winograd ? weights / 9 * Winograd.positions : weights) + conv.filters) * MemoryLayout<Float>.stride
    }
}
