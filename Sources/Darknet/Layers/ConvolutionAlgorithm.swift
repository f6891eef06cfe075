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
    /// F(2×2, 3×3) Winograd on every such layer (less arithmetic saved, 16/9 of the weights instead of 4×).
    case winogradF2 = "winograd-f2"
}

/// What one layer actually runs, as `summary` and `benchmark` show it.
public enum ConvolutionMethod: String, Sendable, Hashable {
    /// 1×1 stride-1 without padding: one GEMM on the input, no unfolding.
    case gemm
    case im2col
    /// Winograd F(4×4, 3×3).
    case winograd
    /// Winograd F(2×2, 3×3).
    case winogradF2 = "winograd-f2"

    /// True for the Winograd methods.
    public var isWinograd: Bool { winogradVariant != nil }

    /// The Winograd variant, nil for the GEMM methods.
    var winogradVariant: Winograd.Variant? {
        switch self {
        case .winograd: return .f4
        case .winogradF2: return .f2
        case .gemm, .im2col: return nil
        }
    }
}

extension Convolutional {
    /// True when Winograd F(4×4, 3×3) computes this layer: 3×3, stride 1, no groups.
    public var winogradEligible: Bool { size == 3 && stride == 1 && strideY == 1 && dilation == 1 && groups == 1 }
}

extension ModelDescription {
    /// Share of the model's convolution weight bytes that `auto` may add as Winograd's
    /// transformed weights (per 3×3 kernel F(4×4) holds 36 floats instead of 9, 3× more;
    /// F(2×2) 16, 7/9 more), but at least `winogradMemoryFloor` bytes. 47% keeps `detect`'s
    /// peak memory within 2× the weights file (yolov3 at 416: 341 MB with im2col everywhere;
    /// F(4×4) on its 52×52 and larger layers adds 41 MB, F(2×2) on its 26×26 ones 40 MB, and
    /// the rest of the share buys F(2×2) for two of its seven 13×13 layers, 15 MB each, where
    /// F(2×2) took 14–15 ms against im2col’s 18–20 ms per layer, 2 threads, loaded machine; peak
    /// RSS of `detect` 469 MB (457,680 KiB) against the 496 MB allowed, measured 2026-11-22).
    public static let winogradMemoryShare = 0.47
    /// Bytes `auto` may always spend (small models such as yolov3-tiny, 35 MB of weights).
    public static let winogradMemoryFloor = 32 << 20

    /// The method each layer runs under `algorithm` (nil for layers that are not convolutions).
    ///
    /// `auto` takes the Winograd-eligible layers with at least 16 input channels (below that
    /// the GEMMs are too thin to pay for the transforms: yolov3's first layer ran at 0.6× the
    /// im2col speed), largest output first, while their extra weights fit the budget above.
    /// Each gets F(4×4) when that gives at least 100 tiles (outputs from about 40×40) and F(2×2)
    /// below, where F(4×4)'s few, thin GEMMs lose their edge: on yolov3 at 416, 2 threads,
    /// `darknet-swift benchmark` gave per layer (im2col / F(4×4) / F(2×2), ms, loaded machine)
    /// 18.7 / 10.5 / 13.8 at 52×52, 17.8 / 11.2 / 11.9 at 26×26, 19.6 / 18.3 / 15.8 at 13×13.
    public func convolutionMethods(_ algorithm: ConvolutionAlgorithm) -> [ConvolutionMethod?] {
        var methods: [ConvolutionMethod?] = layers.map { layer in
            guard case .convolutional(let conv) = layer.kind else { return nil }
            return conv.isPointwise ? .gemm : .im2col
        }
        switch algorithm {
        case .im2col:
            break
        case .winograd, .winogradF2:
            for layer in layers {
                if case .convolutional(let conv) = layer.kind, conv.winogradEligible {
                    methods[layer.index] = algorithm == .winograd ? .winograd : .winogradF2
                }
            }
        case .auto:
            var candidates: [(index: Int, area: Int, f4Tiles: Int, weights: Int)] = []
            var total = 0
            for layer in layers {
                guard case .convolutional(let conv) = layer.kind else { continue }
                let weights = conv.filters * conv.fanIn(inputChannels: layer.input.channels) * 4
                total += weights
                if conv.winogradEligible && layer.input.channels >= 16 {
                    let tiles = Winograd.tiles(.f4, outHeight: layer.output.height, outWidth: layer.output.width)
                    candidates.append((layer.index, layer.output.height * layer.output.width, tiles.rows * tiles.columns, weights))
                }
            }
            var budget = max(Int(Double(total) * Self.winogradMemoryShare), Self.winogradMemoryFloor)
            for candidate in candidates.sorted(by: { ($0.area, $1.index) > ($1.area, $0.index) }) {
                let f4 = candidate.f4Tiles >= 100
                let extra = f4 ? 3 * candidate.weights : 7 * candidate.weights / 9
                guard extra <= budget else { continue }
                methods[candidate.index] = f4 ? .winograd : .winogradF2
                budget -= extra
            }
        }
        return methods
    }
}

extension ModelDescription {
    /// Bytes of parameters layer `index` holds at inference under `method`: folded weights
    /// (36/9 or 16/9 of them once transformed for Winograd) and biases; 0 for layers without parameters.
    public func parameterBytes(ofLayer index: Int, method: ConvolutionMethod?) -> Int {
        guard case .convolutional(let conv) = layers[index].kind else { return 0 }
        let weights = conv.filters * conv.fanIn(inputChannels: layers[index].input.channels)
        let held = method?.winogradVariant.map { weights / 9 * $0.positions } ?? weights
        return (held + conv.filters) * MemoryLayout<Float>.stride
    }
}
