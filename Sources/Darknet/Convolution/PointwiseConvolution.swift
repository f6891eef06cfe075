import Kernels

/// A 1×1 stride-1 convolution without padding: darknet's im2col is the identity there, so the
/// products are one GEMM per group on the input itself, `filters × C` · `C × (images·H·W)`
/// (a batch is channel-major, so each channel's row holds every image's pixels), each GEMM
/// worker finishing the part of the output it just computed (`Epilogue`). `segments` cuts each
/// image's columns as if it were alone, so a batch gives each image its own bits.
struct PointwiseConvolution: ConvolutionRoute {
    let spec: ConvolutionSpec
    /// `filters × C/groups`, as darknet stores them (batch norm folded in).
    let weights: [Float]

    init(_ spec: ConvolutionSpec, weights: [Float]) {
        self.spec = spec
        self.weights = weights
    }

    var method: ConvolutionMethod { .gemm }
    var parameterBytes: Int { (weights.count + spec.biases.count) * MemoryLayout<Float>.stride }
    func workspaceCount(images: Int, blocking: Blocking) -> Int { 0 }
    var poolsRows: Bool { false }

    func run(_ io: ConvolutionIO, workspace: UnsafeMutablePointer<Float>, context: KernelContext, timer: inout PhaseTimer?) {
        let g = spec.group
        let columns = io.images * g.spatial
        weights.withUnsafeBufferPointer { w in
            spec.biases.withUnsafeBufferPointer { biases in
                for group in 0..<spec.groups {
                    let (input, output) = (io.input(spec, group: group), io.output(spec, group: group))
                    let epilogue = io.epilogue(spec, group: group, biases: biases.baseAddress!)
                    let seconds = GEMM.multiply(m: g.filters, n: columns, k: g.channels,
                                                a: w.baseAddress! + group * g.filters * g.channels, lda: g.channels,
                                                b: input.base, ldb: columns, c: output.base, ldc: columns,
                                                segments: io.images, threads: context.threads, timeEpilogue: timer != nil) {
                        filter, start, count in
                        epilogue.finish(start, count: count, filter: filter, offset: output.base.distance(to: start))
                    }
                    timer?.lap(\.gemm, \.epilogue, secondSeconds: seconds)
                }
            }
        }
    }
}
