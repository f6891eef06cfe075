extension Network {
    /// The `[maxpool]` layers their convolution computes (true at the pool's index): a 2×2
    /// stride-2 pool that halves an even input exactly (`Maxpool.halves`) right after a
    /// convolution whose output nothing else reads (`plan.poolWrittenEarly`: the plan keeps the
    /// pool's output apart from the convolution's input), when that convolution runs
    /// filter-major Winograd products (not streamed) or im2col in bands of even rows (`Im2colBands`).
    ///
    /// The convolution then pools each pair of output rows as it finishes them, while they are
    /// still in its caches, straight into the pool's output (`Convolutional.forward`'s
    /// `pooled`), and the pool does nothing: the same values, and no second pass over the
    /// convolution's output. The convolution's own block stays in the plan (observed passes, the
    /// tests' per-layer outputs, run the two layers apart), but Winograd never writes it.
    /// yolov3-tiny: the pools after layers 0, 2, 4 and 6 (layer 8's output is also routed, so
    /// pool 9 runs apart; pool 11 has stride 1).
    static func fusedPools(model: ModelDescription, parameters: [ConvolutionWeights?], plan: MemoryPlan) -> [Bool] {
        let layers = model.layers
        return layers.map { layer in
            guard plan.poolWrittenEarly[layer.index], case .convolutional(let conv) = layers[layer.index - 1].kind,
                  let weights = parameters[layer.index - 1], weights.stride2 == nil else { return false }
            if weights.winogradVariant != nil {
                return !weights.winogradStreamed && weights.winogradOrientation != .tileMajor
            }
            let convolution = layers[layer.index - 1]
            guard !conv.isPointwise, conv.groups == 1,
                  let rows = Im2colBands.bandRows(k: conv.fanIn(inputChannels: convolution.input.channels),
                                                  outHeight: convolution.output.height, outWidth: convolution.output.width)
            else { return false }
            return rows % 2 == 0
        }
    }
}
