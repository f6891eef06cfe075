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
    /// F(2×2, 3×3) on every such layer with the weights transformed during each forward pass
    /// (`Winograd.streamedProducts`): no more memory than darknet's weights, a little slower.
    case winogradF2Streamed = "winograd-f2-streamed"
    /// F(4×4, 3×3) on every such layer with the weights transformed during each forward pass
    /// straight into OpenBLAS's kernel panels (`PackedGEMM`): darknet's memory. Layers it cannot
    /// take (no packed kernel for this CPU, filters not a multiple of 4) get `winogradF2Streamed`.
    case winogradStreamed = "winograd-streamed"
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
    /// Winograd F(2×2, 3×3), weights transformed during the forward pass, block by block.
    case winogradF2Streamed = "winograd-f2-streamed"
    /// Winograd F(4×4, 3×3), weights transformed during the forward pass into the packed kernel's panels.
    case winogradStreamed = "winograd-streamed"
    /// Winograd for 3×3 stride-2 layers (`WinogradStride2`: 81 products per 4×4 output tile
    /// instead of 144), weights transformed at load (9× darknet's floats).
    case winogradStride2 = "winograd-stride2"
    /// Winograd for 3×3 stride-2 layers in 2×2 output tiles (`WinogradStride2`'s `.f2`: 25
    /// products per tile instead of 36), weights transformed at load (25/9 of darknet's floats).
    case winogradStride2F2 = "winograd-stride2-f2"

    /// True for the Winograd methods.
    public var isWinograd: Bool { winogradVariant != nil || stride2Variant != nil }

    /// `WinogradStride2`'s variant, nil for the other methods.
    var stride2Variant: WinogradStride2.Variant? {
        switch self {
        case .winogradStride2: return .f4
        case .winogradStride2F2: return .f2
        default: return nil
        }
    }

    /// The Winograd variant, nil for the GEMM methods.
    var winogradVariant: Winograd.Variant? {
        switch self {
        case .winograd, .winogradStreamed: return .f4
        case .winogradF2, .winogradF2Streamed: return .f2
        case .gemm, .im2col, .winogradStride2, .winogradStride2F2: return nil
        }
    }

    /// Weights the method holds per 3×3 kernel (9 as darknet stores them).
    var floatsPerKernel: Int {
        switch self {
        case .winograd, .winogradF2: return winogradVariant!.positions
        case .winogradStride2, .winogradStride2F2: return stride2Variant!.positions
        case .winogradF2Streamed, .winogradStreamed, .gemm, .im2col: return 9
        }
    }

    /// True for the methods that transform the weights during each forward pass.
    public var isStreamed: Bool { self == .winogradF2Streamed || self == .winogradStreamed }
}

extension Convolutional {
    /// True when Winograd F(4×4, 3×3) computes this layer: 3×3, stride 1, no groups.
    public var winogradEligible: Bool { size == 3 && stride == 1 && strideY == 1 && dilation == 1 && groups == 1 }
    /// True when `WinogradStride2` computes this layer: 3×3, stride 2, no groups.
    public var winogradStride2Eligible: Bool { size == 3 && stride == 2 && strideY == 2 && dilation == 1 && groups == 1 }

    /// True when `method` can run this layer (im2col and GEMM run every layer).
    func runs(_ method: ConvolutionMethod) -> Bool {
        method.stride2Variant != nil ? winogradStride2Eligible : !method.isWinograd || winogradEligible
    }
}

extension ModelDescription {
    /// Memory a running process holds besides the parameters, the activation arena and the
    /// workspace: the Swift runtime and Foundation, OpenBLAS's per-thread buffers, thread
    /// stacks, the decoded photo, its letterboxed copy and the decoded candidates; the last ones
    /// grow with the input. Measured with `darknet-swift detect` of yolov3 (synthetic weights,
    /// im2col everywhere, 2 threads, 2026-11-23): peak 323,076 KiB at 416 (330.8 MB, of which
    /// parameters + arena + workspace 289.3 MB: 41.5 MB other), 368,448 KiB at 608 (50.5 MB
    /// other), 431,100 KiB at 800 (62.5 MB other): about 33.6 MB + 45 bytes per input pixel.
    /// 36 MiB + 48 bytes a pixel keeps 4.5–6 MB in hand at all three sizes.
    public var processReserveBytes: Int { (36 << 20) + 48 * inputShape.width * inputShape.height }
    /// Bytes `auto` may always spend on transformed weights, whatever the budget says (small
    /// models such as yolov3-tiny, 35 MB of weights: every process holds more than twice that).
    public static let winogradMemoryFloor = 32 << 20
    /// Models with at most this many bytes of parameters (yolov3-tiny: 35 MB) may spend up to 4×
    /// their parameters on transformed weights (`winogradAllowance`).
    public static let smallModelBytes = 64 << 20

    /// What `auto` may spend on transformed weights whatever twice the parameters leave:
    /// `winogradMemoryFloor`, or for a small model (`smallModelBytes`) 4× its `parameters`. A
    /// small model's process is mostly fixed costs (runtime, OpenBLAS, the photo: yolov3-tiny's
    /// `detect` held 125 MiB with 35 MB of weights), and 4× lets every layer take pre-transformed
    /// F(4×4), which pays most on small grids: yolov3-tiny at 416, 2 threads, three alternating
    /// pairs of processes (2026-11-24, Zen 4): 19.2–19.5 ms end to end with 32 MB (F(2×2) on the
    /// 13×13 layers, the last 26×26 one streamed) against 18.2–18.5 with every layer of 16
    /// channels or more pre-transformed F(4×4); its 13×13 × 512 → 1024 layer 4.38 → 3.82 ms, its
    /// layer 21 2.6 → 2.4 ms. `detect`'s peak RSS 127,844 → 199,732 KiB. Large models keep the
    /// floor: yolov3 at 800 has about 44 MB left under twice its weights.
    public static func winogradAllowance(parameters: Int) -> Int {
        parameters <= smallModelBytes ? max(winogradMemoryFloor, 4 * parameters) : winogradMemoryFloor
    }

    /// The method each layer runs under `algorithm` (nil for layers that are not convolutions).
    ///
    /// `auto` keeps a network of `batch` images within twice the parameter bytes darknet stores
    /// (about 2× the `.weights` file: issue #5's memory target) while it gives Winograd the
    /// layers where it pays. The budget for Winograd's extra weights (per 3×3 kernel F(4×4) holds
    /// 36 floats instead of 9, 3× more; F(2×2) 16, 7/9 more) is what remains of twice the
    /// parameters after the plain parameters, the activation arena (`MemoryPlan`), the workspace
    /// and `processReserveBytes`, but at least `winogradAllowance` (32 MB, more for small
    /// models); a layer whose workspace is larger than the others' pays for the growth too. So
    /// the choice depends on the input size: yolov3's arena is 33 MB at 416 and 71 MB at 608.
    /// With OpenBLAS's packed kernel, the large stride-2 layers get `WinogradStride2` first.
    ///
    /// It takes the Winograd-eligible layers with at least 16 input channels (below that the
    /// GEMMs are too thin to pay for the transforms: yolov3's first layer ran at 0.6× the
    /// im2col speed), one output size at a time, largest first: all the layers of a size get
    /// F(4×4) when that gives at least 100 tiles (outputs from about 40×40) and all of them fit
    /// it, else F(2×2) as many as fit, and the streamed F(2×2) the rest (it holds no more than
    /// the plain weights; only its workspace can grow: yolov3's 13×13 × 512 → 1024 layers ran
    /// 7–22% faster streamed than with im2col at 416, its 19×19 ones 13–23% at 608: 2 threads,
    /// alternating runs). Below 100 tiles F(4×4)'s few, thin GEMMs lose their edge,
    /// and where it does not fit, F(2×2) on every layer of a size beats F(4×4) on a third of
    /// them for the same bytes: on yolov3 at 416, 2 threads, `darknet-swift benchmark` gave per
    /// layer (im2col / F(4×4) / F(2×2), ms, loaded machine) 18.7 / 10.5 / 13.8 at 52×52,
    /// 17.8 / 11.2 / 11.9 at 26×26, 19.6 / 18.3 / 15.8 at 13×13.
    public func convolutionMethods(_ algorithm: ConvolutionAlgorithm, batch: Int = 1) -> [ConvolutionMethod?] {
        var methods: [ConvolutionMethod?] = layers.map { layer in
            guard case .convolutional(let conv) = layer.kind else { return nil }
            return conv.isPointwise ? .gemm : .im2col
        }
        switch algorithm {
        case .im2col:
            break
        case .winograd, .winogradF2, .winogradF2Streamed, .winogradStreamed:
            let forced: ConvolutionMethod = switch algorithm {
            case .winograd: .winograd
            case .winogradF2: .winogradF2
            case .winogradStreamed: .winogradStreamed
            default: .winogradF2Streamed
            }
            for layer in layers {
                guard case .convolutional(let conv) = layer.kind, conv.winogradEligible else { continue }
                methods[layer.index] = forced == .winogradStreamed && !Winograd.streamsPacked(filters: conv.filters)
                    ? .winogradF2Streamed : forced
            }
        case .auto:
            methods = autoMethods(batch: batch).methods
        }
        return methods
    }

    /// `auto`'s choice (see `convolutionMethods`), and whether the budget refused a layer a
    /// method it would otherwise have got (`autoIsMemoryBound`).
    private func autoMethods(batch: Int) -> (methods: [ConvolutionMethod?], bound: Bool) {
        var methods: [ConvolutionMethod?] = layers.map { layer in
            guard case .convolutional(let conv) = layer.kind else { return nil }
            return conv.isPointwise ? .gemm : .im2col
        }
        var candidates: [Candidate] = []
        for layer in layers {
            guard case .convolutional(let conv) = layer.kind, conv.winogradEligible, layer.input.channels >= 16 else { continue }
            let tiles = Winograd.tiles(.f4, outHeight: layer.output.height, outWidth: layer.output.width)
            candidates.append(Candidate(layer: layer, conv: conv, area: layer.output.height * layer.output.width,
                                        f4Tiles: tiles.rows * tiles.columns))
        }
        let float = MemoryLayout<Float>.stride
        var workspace = Network.workspaceCount(for: self, methods: methods, batch: batch)
        let parameters = WeightsReader.parameterBytes(for: self)
        let held = parameters + activationBytes(batch: batch) + workspace * float + processReserveBytes
        let twice = 2 * parameters - held
        let allowance = Self.winogradAllowance(parameters: parameters)
        var budget = max(twice, allowance)
        var bound = false
        /// Bytes `candidate` costs moving from its current method to `method` (the extra weights,
        /// and the workspace growth), and the workspace after.
        func cost(_ candidate: Candidate, _ method: ConvolutionMethod, workspace: Int) -> (bytes: Int, workspace: Int) {
            let layer = candidate.layer
            let weights = candidate.conv.filters * candidate.conv.fanIn(inputChannels: layer.input.channels) * float
            let needed = candidate.conv.workspaceCount(input: layer.input, output: layer.output, method: method, batch: batch)
            let held = methods[layer.index]?.floatsPerKernel ?? 9
            return (weights / 9 * (method.floatsPerKernel - held) + max(0, needed - workspace) * float, max(workspace, needed))
        }
        /// Gives `candidate` `method` when it fits the budget; says whether it did.
        func take(_ candidate: Candidate, _ method: ConvolutionMethod) -> Bool {
            let (bytes, grown) = cost(candidate, method, workspace: workspace)
            guard bytes <= budget else {
                bound = true
                return false
            }
            methods[candidate.layer.index] = method
            budget -= bytes
            workspace = grown
            return true
        }
        /// Gives every layer of `group` pre-transformed F(4×4) when all of them fit; says whether they did.
        func takeF4(_ group: [Candidate]) -> Bool {
            var groupBytes = 0, groupWorkspace = workspace
            for candidate in group {
                let (bytes, grown) = cost(candidate, .winograd, workspace: groupWorkspace)
                groupBytes += bytes
                groupWorkspace = grown
            }
            guard groupBytes <= budget else { return false }
            for candidate in group { methods[candidate.layer.index] = .winograd }
            budget -= groupBytes
            workspace = groupWorkspace
            return true
        }
        if PackedGEMM.active != nil {
            // Streamed F(4×4) everywhere (no parameter memory; from about 100 tiles it runs as fast
            // as pre-transformed F(4×4), whose weights come from memory every pass), then the
            // budget on the small grids, smallest first, where each weight serves few tiles and
            // the transform during the pass costs most: pre-transformed F(2×2) where F(4×4) has at
            // most 32 tiles, then F(4×4) pre-transformed layer by layer; what is left goes to the
            // large grids, a whole output size at a time, largest first (pre-transformed layers
            // can compute the 2×2 pool that follows them, `Network.fusedPools`). yolov3 at 416,
            // 2 threads, per layer (streamed F(4×4) / pre-transformed F(2×2) / pre-transformed
            // F(4×4), ms, 2026-11-24, Zen 4): 13×13 5.0 / 4.35 / 3.9, 26×26 3.3 / 3.8 / 3.2,
            // 52×52 2.93 / 4.1 / 3.05.
            for candidate in candidates {
                _ = take(candidate, Winograd.streamsPacked(filters: candidate.conv.filters) ? .winogradStreamed : .winogradF2Streamed)
            }
            // Then the stride-2 layers of large outputs, largest first (fewest channels: the
            // cheapest weights, 8× more bytes once transformed; they save more per MB than any
            // upgrade below): yolov3 at 416, 2 threads, per layer (im2col / WinogradStride2, ms,
            // alternating processes, 2026-11-24, Zen 4): 208×208 11.6 / 9.6–10.3, 104×104
            // 9.3–9.4 / 7.7–8.2, 52×52 8.4–8.5 / 6.9–7.4. The other stride-2 layers get the 2×2
            // tiles (`.f2`, 16/9 more bytes), before the small grids' F(2×2) when they have 144
            // tiles or more, else after them: yolov3 at 416 (im2col / `.f2`, ms, three alternating
            // pairs, 2026-11-24): 26×26 8.35–8.47 / 7.43–7.55 for 8.4 MB (0.11 ms a MB), 13×13
            // 8.26–8.45 / 7.67–7.77 for 33.5 MB (0.02 ms a MB; a 13×13 layer's F(2×2) saves 0.04
            // ms a MB, its F(4×4) upgrade 0.01).
            let stride2 = stride2Candidates()
            for candidate in stride2 where candidate.f4Tiles >= 144 { _ = take(candidate, .winogradStride2) }
            let stride2F2 = stride2.filter { methods[$0.layer.index] == .im2col }
            let tiles2 = { (candidate: Candidate) in
                let t = WinogradStride2.tiles(.f2, outHeight: candidate.layer.output.height, outWidth: candidate.layer.output.width)
                return t.rows * t.columns
            }
            for candidate in stride2F2 where tiles2(candidate) >= 144 { _ = take(candidate, .winogradStride2F2) }
            let small = candidates.filter { $0.f4Tiles < 100 }.sorted { ($0.area, $0.layer.index) < ($1.area, $1.layer.index) }
            for candidate in small where candidate.f4Tiles <= 32 { _ = take(candidate, .winogradF2) }
            for candidate in stride2F2 where tiles2(candidate) < 144 { _ = take(candidate, .winogradStride2F2) }
            for candidate in small { _ = take(candidate, .winograd) }
            // The floor is an allowance on top of twice the weights (yolov3-tiny, large batches):
            // spending it all does not make the process hold twice its weights.
            if twice < allowance { bound = false }
            for area in Set(candidates.filter { $0.f4Tiles >= 100 }.map(\.area)).sorted(by: >) {
                _ = takeF4(candidates.filter { $0.area == area })
            }
            return (methods, bound)
        }
        // One output size at a time, largest first: F(4×4) for all of its layers if they
        // all fit, else F(2×2) for as many as fit (yolov3 at 608: F(2×2) on all eleven 38×38
        // layers costs what F(4×4) on three would).
        for area in Set(candidates.map(\.area)).sorted(by: >) {
            let group = candidates.filter { $0.area == area }
            if group[0].f4Tiles >= 100, takeF4(group) { continue }
            for candidate in group where !take(candidate, .winogradF2) { _ = take(candidate, .winogradF2Streamed) }
        }
        return (methods, bound)
    }

    /// The 3×3 stride-2 convolutions `auto` may give `WinogradStride2`, largest output first: at
    /// least 16 input channels, `f4Tiles` their count of 4×4 output tiles. `.f4` needs 144 tiles
    /// (outputs from 48×48: yolov3's 52×52 one at 416 but not its 38×38 one at 608, whose 42 MB
    /// of transformed weights would push three 19×19 layers out of F(2×2)).
    private func stride2Candidates() -> [Candidate] {
        layers.compactMap { layer -> Candidate? in
            guard case .convolutional(let conv) = layer.kind, conv.winogradStride2Eligible, layer.input.channels >= 16 else { return nil }
            let tiles = WinogradStride2.tiles(.f4, outHeight: layer.output.height, outWidth: layer.output.width)
            return Candidate(layer: layer, conv: conv, area: layer.output.height * layer.output.width,
                             f4Tiles: tiles.rows * tiles.columns)
        }.sorted { ($0.area, -$0.layer.index) > ($1.area, -$1.layer.index) }
    }

    /// A convolution `auto` may give Winograd, with its output size and F(4×4) tile count.
    private struct Candidate {
        var layer: Layer
        var conv: Convolutional
        var area: Int
        var f4Tiles: Int
    }

    /// True when twice the parameters bound `auto`'s choice: the budget refused a layer a method
    /// it would otherwise have got (without the packed kernel: a layer got the streamed F(2×2) or
    /// stayed im2col; with it, a small grid's layer stayed streamed or short of F(4×4), and the
    /// budget was twice the weights rather than the floor). The
    /// process then runs within a few MB of twice the parameters (yolov3: 4–8 MB at 416, 608
    /// and 800), with no room for anything that grows, such as more photos in flight (`detect`
    /// then runs its stages one after another).
    public func autoIsMemoryBound(batch: Int = 1) -> Bool {
        autoMethods(batch: batch).bound
    }

    /// Bytes of the activation arena a network of `batch` images allocates (`MemoryPlan`),
    /// with the channel-major copy of a batch's input.
    public func activationBytes(batch: Int = 1) -> Int {
        let input = batch > 1 ? batch * inputShape.count : 0
        return (MemoryPlan(layers: layers, batch: batch).arenaFloats + input) * MemoryLayout<Float>.stride
    }

    /// Bytes of the workspace a network of `batch` images allocates when its layers run `methods`.
    public func workspaceBytes(methods: [ConvolutionMethod?], batch: Int = 1) -> Int {
        Network.workspaceCount(for: self, methods: methods, batch: batch) * MemoryLayout<Float>.stride
    }
}

extension ModelDescription {
    /// Bytes of parameters layer `index` holds at inference under `method`: folded weights
    /// (36/9 or 16/9 of them once transformed for Winograd) and biases; 0 for layers without parameters.
    public func parameterBytes(ofLayer index: Int, method: ConvolutionMethod?) -> Int {
        guard case .convolutional(let conv) = layers[index].kind else { return 0 }
        let weights = conv.filters * conv.fanIn(inputChannels: layers[index].input.channels)
        let held = weights / 9 * (method?.floatsPerKernel ?? 9)
        return (held + conv.filters) * MemoryLayout<Float>.stride
    }
}
