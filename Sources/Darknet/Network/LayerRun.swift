import Kernels

/// One layer's forward pass on a batch of `batch` images, channel-major (`C × batch × H × W`,
/// see `Network`): where its input and output are, the other layers' outputs, its parameters,
/// the shared workspace and the kernels' context. Made by `Network` for each layer it runs.
struct LayerRun {
    var layer: Layer
    var batch: Int
    var context: KernelContext
    /// The previous layer's output (the network's input for the first layer).
    var input: UnsafePointer<Float>
    var output: UnsafeMutablePointer<Float>
    var workspace: UnsafeMutablePointer<Float>
    /// The layer's parameters (connected, batchnorm, local, weighted shortcut).
    var weights: LayerWeights?
    /// A convolution's prepared route, and what the network fuses into it: the following
    /// `[shortcut]`'s source to add, the following pool's output to fill.
    var convolution: PreparedConvolution?
    var residual: UnsafePointer<Float>?
    var pooled: UnsafeMutablePointer<Float>?
    /// Every layer's output in the arena (`offsets[i]` floats in).
    var arena: UnsafeMutablePointer<Float>
    var offsets: UnsafeBufferPointer<Int>
    var layers: [Layer]

    var threads: Int { context.threads }

    /// Layer `index`'s output (all `batch` images).
    func output(of index: Int) -> UnsafeMutablePointer<Float> { arena + offsets[index] }

    /// Floats of this layer's output for the whole batch.
    var outputCount: Int { layer.output.count * batch }

    /// `shape` seen as `C·batch` planes: what per-plane layers (pools, upsample, shortcut) run on.
    func planes(_ shape: TensorShape) -> TensorShape {
        TensorShape(channels: shape.channels * batch, height: shape.height, width: shape.width)
    }

    /// `shape` with each channel's `batch` planes as one taller plane (`[yolo]`, `[region]`, `[batchnorm]`).
    func stacked(_ shape: TensorShape) -> TensorShape {
        TensorShape(channels: shape.channels, height: shape.height * batch, width: shape.width)
    }

    /// Runs `body` on each image of the batch in CHW: the layers that mix channels and pixels of
    /// one image (`[connected]`, `[softmax]`, `[reorg]`, `[local]`, `maxpool_depth`). Image `b` is
    /// gathered into the workspace, and its output scattered back into the channel-major batch
    /// (`workspace` then holds the image and its output first). One image: `body(input, output)`.
    func eachImage(_ body: (UnsafePointer<Float>, UnsafeMutablePointer<Float>) -> Void) {
        guard batch > 1 else { return body(input, output) }
        let imageInput = workspace, imageOutput = workspace + layer.input.count
        for b in 0..<batch {
            Batch.gather(image: b, from: input, into: imageInput, shape: layer.input, batch: batch)
            body(UnsafePointer(imageInput), imageOutput)
            Batch.scatter(image: b, from: UnsafePointer(imageOutput), into: output, shape: layer.output, batch: batch)
        }
    }

    /// Workspace floats `eachImage` needs for a layer reading `input` and writing `output` (0 for one image).
    static func eachImageCount(_ layer: Layer, batch: Int) -> Int {
        batch > 1 ? layer.input.count + layer.output.count : 0
    }
}
