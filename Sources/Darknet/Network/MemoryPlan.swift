/// Where each layer's output lives in ONE activation arena, sized from shape inference.
///
/// Liveness: a layer's output lives from the layer that writes it to the last layer that reads
/// it (the next layer, a `[route]` or a `[shortcut]` naming it); detection heads' outputs and the last
/// layer live to the end so they can be decoded. Time is the layer index; a block written by
/// layer `i` and last read by layer `j` is live over the closed interval `[i, j]`, so a layer's
/// output never shares floats with anything it reads.
///
/// Routes cost nothing (darknet's `forward_route_layer` copies; the values are the same):
/// - a `[route]` with one source is an alias of that source's output (of its channel block
///   `group_id` with AlexeyAB's `groups`, which is contiguous in CHW);
/// - a `[route]` with several sources owns a block `(ΣC)×H×W` and each source writes straight
///   into its channel slice (CHW planes are contiguous per channel), so an `[upsample]` feeding
///   a route writes into its consumer's slice. A source may join only one route this way (its
///   output has one address) and only without `groups`; otherwise the route copies, as
///   darknet does.
/// The block then lives from its first member's write to the last read of any member.
///
/// Shortcuts cost almost nothing: a same-shape `[shortcut]` (alpha = beta = 1, linear) right
/// after a convolution whose output nothing else reads shares its storage with that convolution
/// (`shortcutInPlace`; the convolution writes into the shortcut's block or route slice).
/// `Network` then has the convolution add the shortcut's source in its epilogue (or, when every
/// layer's output is observed, the shortcut adds it in place).
/// Pools a convolution may compute in its epilogue (`fusesPool`) are written during that
/// convolution: their blocks live from it on, so they never share floats with its input.
/// Blocks are placed first-fit by offset among the blocks whose intervals intersect.
///
/// With `batch` images every output holds `batch` times its floats, channel-major
/// (`C × batch × H × W`): a channel block of the batch is still contiguous, so routes (with or
/// without `groups`) are placed exactly as for one image, with offsets scaled by `batch`.
struct MemoryPlan: Equatable {
    /// One allocation inside the arena: floats `offset ..< offset + count`, live over layers
    /// `start ... end` (`end == layerCount` for outputs kept to the end).
    struct Block: Equatable {
        var start: Int
        var end: Int
        var offset: Int
        var count: Int
    }

    /// Float offset of each layer's output in the arena.
    var offsetOfLayer: [Int]
    /// Block holding each layer's output (a slice or an alias of it for in-place routes).
    var blockOfLayer: [Int]
    var blocks: [Block]
    /// Floats of the arena.
    var arenaFloats: Int
    /// Routes whose output is already in place (their forward does nothing).
    var routeInPlace: [Bool]
    /// Shortcuts whose output is their convolution's (`fusesShortcut`).
    var shortcutInPlace: [Bool]
    /// Pools their convolution may compute (`fusesPool`), whose blocks live from that convolution on.
    var poolWrittenEarly: [Bool]

    /// Offsets are rounded to 16 floats (64 bytes) so every block starts on a cache line (the
    /// arena itself starts on one: `Network.allocateOnCacheLines`).
    static let alignment = 16

    init(layers: [Layer], batch: Int = 1, inPlaceRoutes: Bool = true, inPlaceShortcuts: Bool = true) {
        let count = layers.count
        var lastUse = Array(0..<count)
        for layer in layers {
            if layer.readsPrevious, layer.index > 0 { lastUse[layer.index - 1] = max(lastUse[layer.index - 1], layer.index) }
            for source in layer.references { lastUse[source] = max(lastUse[source], layer.index) }
            if layer.isDetectionHead { lastUse[layer.index] = count }
        }
        if count > 0 { lastUse[count - 1] = count }

        // parent[i] = (layer whose storage holds i's output, float offset inside it).
        var parent = [(layer: Int, offset: Int)?](repeating: nil, count: count)
        var routeInPlace = [Bool](repeating: false, count: count)
        if inPlaceRoutes {
            for layer in layers {
                guard case .route(let route) = layer.kind else { continue }
                if route.sources.count == 1 {
                    // `groups`: the route takes block `groupID` of its source's channels.
                    let part = layers[route.sources[0]].output.count * batch / route.groups
                    parent[layer.index] = (route.sources[0], route.groupID * part)
                    routeInPlace[layer.index] = true
                    continue
                }
                // With `groups` > 1 each source keeps channels the route drops: it copies.
                let eligible = route.groups == 1 && Set(route.sources).count == route.sources.count
                    && route.sources.allSatisfy { parent[$0] == nil }
                guard eligible else { continue }
                var offset = 0
                for source in route.sources {
                    parent[source] = (layer.index, offset)
                    offset += layers[source].output.count * batch
                }
                routeInPlace[layer.index] = true
            }
        }
        var shortcutInPlace = [Bool](repeating: false, count: count)
        if inPlaceShortcuts {
            // The convolution writes into the shortcut's storage (its own block, or its slice
            // of a route): a forward link, like a route source's.
            for layer in layers where Self.fusesShortcut(layer, layers: layers) && lastUse[layer.index - 1] == layer.index
                && parent[layer.index - 1] == nil {
                parent[layer.index - 1] = (layer.index, 0)
                shortcutInPlace[layer.index] = true
            }
        }
        // Resolve chains: aliases point to earlier layers, slices to later multi-source routes and
        // fused convolutions to their shortcut, so no chain loops (a single-source route is never
        // anyone's slice target, and a fused convolution is read by its shortcut alone).
        var root = Array(0..<count)
        var offsetInRoot = [Int](repeating: 0, count: count)
        for index in 0..<count {
            var current = index
            var offset = 0
            while let (next, extra) = parent[current] {
                offset += extra
                current = next
            }
            root[index] = current
            offsetInRoot[index] = offset
        }

        var start = [Int](repeating: Int.max, count: count)
        var end = [Int](repeating: -1, count: count)
        for index in 0..<count {
            start[root[index]] = min(start[root[index]], index)
            end[root[index]] = max(end[root[index]], lastUse[index])
        }
        // A pool its convolution may compute (`fusesPool`) is written while that convolution
        // still reads its input: its storage is live from the convolution on.
        let referenced = Set(layers.flatMap(\.references))
        let poolWrittenEarly = layers.map { Self.fusesPool($0, layers: layers, referenced: referenced) }
        for layer in layers where poolWrittenEarly[layer.index] {
            start[root[layer.index]] = min(start[root[layer.index]], layer.index - 1)
        }
        let roots = (0..<count).filter { root[$0] == $0 }.sorted { (start[$0], $0) < (start[$1], $1) }
        var blocks: [Block] = []
        var blockOfRoot = [Int](repeating: -1, count: count)
        for r in roots {
            let size = (layers[r].output.count * batch + Self.alignment - 1) / Self.alignment * Self.alignment
            let overlapping = blocks.filter { $0.start <= end[r] && start[r] <= $0.end }.sorted { $0.offset < $1.offset }
            var offset = 0
            for other in overlapping {
                if offset + size <= other.offset { break }
                offset = max(offset, other.offset + other.count)
            }
            blockOfRoot[r] = blocks.count
            blocks.append(Block(start: start[r], end: end[r], offset: offset, count: size))
        }
        self.blocks = blocks
        self.blockOfLayer = (0..<count).map { blockOfRoot[root[$0]] }
        self.offsetOfLayer = (0..<count).map { blocks[blockOfRoot[root[$0]]].offset + offsetInRoot[$0] }
        self.arenaFloats = blocks.map { $0.offset + $0.count }.max() ?? 0
        self.routeInPlace = routeInPlace
        self.shortcutInPlace = shortcutInPlace
        self.poolWrittenEarly = poolWrittenEarly
    }

    /// True for a `[shortcut]` its previous layer, a convolution, can compute in its epilogue:
    /// one source other than that convolution, of the same shape, alpha = beta = 1 and a linear
    /// activation (darknet's `out = 1·conv + 1·source`, the same float sum). The plan also needs
    /// the convolution's output to be read by the shortcut alone.
    static func fusesShortcut(_ layer: Layer, layers: [Layer]) -> Bool {
        guard case .shortcut(let shortcut) = layer.kind, layer.index > 0, !shortcut.isMultilayer,
              shortcut.alpha == 1, shortcut.beta == 1, shortcut.activation == .linear,
              shortcut.source != layer.index - 1, layers[shortcut.source].output == layer.output,
              case .convolutional = layers[layer.index - 1].kind else { return false }
        return true
    }

    /// True for a `[maxpool]` its previous layer, a convolution, may compute (`Network.fusedPools`
    /// decides by the convolution's method): a 2×2 stride-2 pool that halves its input exactly
    /// (`Maxpool.halves`), after a convolution whose output nothing else reads (`referenced`:
    /// every layer's `references`). The plan makes its output live from the convolution on.
    static func fusesPool(_ layer: Layer, layers: [Layer], referenced: Set<Int>) -> Bool {
        guard case .maxpool(let pool) = layer.kind, layer.index > 0, pool.halves(layer.input),
              !referenced.contains(layer.index - 1), case .convolutional = layers[layer.index - 1].kind else { return false }
        return true
    }

    /// Floats allocated for all activations.
    var totalFloats: Int { arenaFloats }
}
