/// The tensors a Winograd layer of either stride reads and writes, channel-major with the
/// images of a batch (`TensorView`).
struct WinogradOperands {
    var input: TensorView
    var output: MutableTensorView
    var epilogue: Epilogue
    /// The fused 2×2 stride-2 pool's output (F(4×4) transformed at load only), written instead of `output`.
    var pooled: MutableTensorView?

    /// The same tensors from image `image` on: its planes, the residual at its output's place,
    /// its pooled planes.
    func from(image: Int) -> WinogradOperands {
        var placed = self
        placed.input.base = input.plane(image: image, channel: 0)
        placed.output.base = output.plane(image: image, channel: 0)
        placed.epilogue.residual = epilogue.residual.map { $0 + output.base.distance(to: placed.output.base) }
        if let pooled { placed.pooled?.base = pooled.plane(image: image, channel: 0) }
        return placed
    }
}

/// What a Winograd variant computes in one pass: the input transform, the products and the
/// output transform over tile rows `tileRows` of `images` images from `operands`' first, in
/// `workspace`, on up to `threads` workers with `slots` workers' scratch (F(4×4) stride 1:
/// `Winograd.Pass`; stride 2: `WinogradStride2.Pass`). The variants differ in tiles,
/// transforms and layout; how a layer is cut into passes or bands is `Winograd.drive`'s alone.
/// A generic parameter of `drive`, so each variant's pass is specialised, never an existential.
protocol WinogradPass {
    func run(_ operands: WinogradOperands, images: Int, tileRows: Range<Int>, workspace: UnsafeMutablePointer<Float>,
             threads: Int, slots: Int, timer: inout PhaseTimer?)
}

extension Winograd {
    /// How a layer's tile rows are shared out (each variant's sizes pick it).
    enum Schedule {
        /// `count` bands an image, each band's three phases on one worker in its own
        /// `perWorker` floats of the workspace (`runBands` says why).
        case bands(count: Int, perWorker: Int)
        /// Passes of `images` images (all, or one) × `tileRows` tile rows (the last pass of an
        /// image may have fewer), each phase shared out over the workers.
        case passes(images: Int, tileRows: Int)
    }

    /// The tiled-pass driver of both strides: `pass` over the `grid.rows` tile rows of each of
    /// `images` images of layer `g`, as `schedule` cuts them. Banded, the timer gets the
    /// workers' mean time in each phase; in passes, each pass laps it.
    static func drive<Pass: WinogradPass>(_ pass: Pass, _ operands: WinogradOperands, _ g: ConvolutionGeometry,
                                          grid: (rows: Int, columns: Int), images: Int, schedule: Schedule,
                                          workspace: UnsafeMutablePointer<Float>, threads: Int, timer: inout PhaseTimer?) {
        switch schedule {
        case .bands(let bands, let perWorker):
            let phases = runBands(images: images, bands: bands, tileRows: grid.rows,
                                  work: images * g.filters * g.channels * grid.rows * grid.columns, threads: threads,
                                  timed: timer != nil) { worker, image, rows, timer in
                pass.run(operands.from(image: image), images: 1, tileRows: rows, workspace: workspace + worker * perWorker,
                         threads: 1, slots: 1, timer: &timer)
            }
            timer?.lap(\.gemm, shares: (\.im2col, phases.im2col), (\.epilogue, phases.epilogue))
        case .passes(let passImages, let passRows):
            for image in Swift.stride(from: 0, to: images, by: passImages) {
                let placed = operands.from(image: image)
                for first in Swift.stride(from: 0, to: grid.rows, by: passRows) {
                    pass.run(placed, images: passImages, tileRows: first..<min(grid.rows, first + passRows),
                             workspace: workspace, threads: threads, slots: maximumWorkers, timer: &timer)
                }
            }
        }
    }
}
