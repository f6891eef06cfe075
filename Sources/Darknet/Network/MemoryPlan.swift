/// Which buffer holds each layer's output, reusing buffers once no later layer reads them.
///
/// Liveness: a layer's output lives until the last layer that reads it (the next layer, a
/// `[route]` or a `[shortcut]` that names it); `[yolo]` outputs and the last layer live to
/// the end so they can be decoded. Buffers are handed out best-fit from the free ones.
struct MemoryPlan: Equatable {
    /// Buffer id of each layer's output.
    var bufferOfLayer: [Int]
    /// Floats each buffer holds.
    var bufferSizes: [Int]
    /// Layers whose output can be released right after each layer runs.
    var releasedAfter: [[Int]]

    init(layers: [Layer]) {
        let count = layers.count
        var lastUse = Array(0..<count)
        for layer in layers {
            if layer.readsPrevious, layer.index > 0 { lastUse[layer.index - 1] = max(lastUse[layer.index - 1], layer.index) }
            for source in layer.references { lastUse[source] = max(lastUse[source], layer.index) }
            if case .yolo = layer.kind { lastUse[layer.index] = Int.max }
        }
        if count > 0 { lastUse[count - 1] = Int.max }

        var releasedAfter = [[Int]](repeating: [], count: count)
        for (index, last) in lastUse.enumerated() where last != Int.max {
            releasedAfter[last].append(index)
        }

        var bufferOfLayer = [Int](repeating: -1, count: count)
        var sizes: [Int] = []
        var free: [Int] = []
        for layer in layers {
            let needed = layer.output.count
            // Best fit among free buffers; otherwise grow the largest free one or make a new one.
            let fitting = free.filter { sizes[$0] >= needed }.min { sizes[$0] < sizes[$1] }
            let chosen: Int
            if let fitting {
                chosen = fitting
            } else if let largest = free.max(by: { sizes[$0] < sizes[$1] }) {
                chosen = largest
                sizes[largest] = needed
            } else {
                chosen = sizes.count
                sizes.append(needed)
            }
            free.removeAll { $0 == chosen }
            bufferOfLayer[layer.index] = chosen
            for released in releasedAfter[layer.index] {
                free.append(bufferOfLayer[released])
            }
        }
        self.bufferOfLayer = bufferOfLayer
        self.bufferSizes = sizes
        self.releasedAfter = releasedAfter
    }

    /// Floats allocated for all activations.
    var totalFloats: Int { bufferSizes.reduce(0, +) }
}
