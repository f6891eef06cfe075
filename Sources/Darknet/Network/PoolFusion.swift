extension Network {
    /// The `[maxpool]` layers their convolution computes (true at the pool's index): a 2×2
    /// stride-2 pool that halves an even input exactly (`Maxpool.halves`) right after a
    /// convolution whose output nothing else reads (`plan.poolWrittenEarly`: the plan keeps the
    /// pool's output apart from the convolution's input), when that convolution's route can
    /// pool the rows it finishes (`ConvolutionRoute.poolsRows`: Winograd with weights
    /// transformed at load, im2col in bands of even rows).
    ///
    /// The convolution then pools each pair of output rows as it finishes them, while they are
    /// still in its caches, straight into the pool's output (`ConvolutionIO.pooled`), and the
    /// pool does nothing: the same values, and no second pass over the convolution's output
    /// (yolov3-tiny ran 3.5% faster, docs/bench-log.md). The convolution's own block stays in the
    /// plan (observed passes, the tests' per-layer outputs, run the two layers apart), but it
    /// may be left unwritten. yolov3-tiny: the pools after layers 0, 2, 4 and 6 (layer 8's
    /// output is also routed, so pool 9 runs apart; pool 11 has stride 1).
    static func fusedPools(model: ModelDescription, convolutions: [PreparedConvolution?], plan: MemoryPlan) -> [Bool] {
        model.layers.map { layer in
            guard plan.poolWrittenEarly[layer.index], let convolution = convolutions[layer.index - 1] else { return false }
            return convolution.route.poolsRows
        }
    }
}
