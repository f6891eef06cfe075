/// What every kernel call is told by its caller: how many workers it may use, which sgemm
/// kernel drives the packed products, and how large its blocks are. A network fixes one when it
/// is made and passes it to every call, so two networks with different settings run side by
/// side in one process, each with its own.
package struct KernelContext: Sendable {
    /// Workers for the GEMMs and the parallel loops (the calling thread is one of them).
    package var threads: Int
    /// OpenBLAS's own kernel, driven with operands packed once (`PackedGEMM`); nil: `cblas_sgemm` only.
    package var packed: PackedGEMM.Kernel?
    package var blocking: Blocking
    /// oneDNN, when the im2col and 1×1 products run through its `dnnl_sgemm` (each part one
    /// single-threaded call, cut as `GEMM` cuts them); nil: OpenBLAS. Winograd stays on OpenBLAS.
    package var onednn: OneDNN.Library?

    /// The packed kernel the im2col and 1×1 routes drive: none when their products run on oneDNN.
    package var productKernel: PackedGEMM.Kernel? { onednn == nil ? packed : nil }

    /// Most workers one call can use (the worker pool's limit); `init` clamps to it, so no
    /// count given reaches the pool's precondition.
    package static let maximumThreads = WorkerPool.maximumWorkers

    package init(threads: Int, packed: PackedGEMM.Kernel? = PackedGEMM.kernel, blocking: Blocking = Blocking(),
                 onednn: OneDNN.Library? = nil) {
        self.threads = min(max(1, threads), Self.maximumThreads)
        self.packed = packed
        self.blocking = blocking
        self.onednn = onednn
    }

    /// One thread, the packed kernel when there is one, the default blocks (tests, tools).
    package static let serial = KernelContext(threads: 1)
}

/// The sizes the kernels cut their work into. The defaults are what the engine runs with; tests
/// make them small to reach the block edges on small shapes.
public struct Blocking: Sendable, Hashable {
    /// Floats of im2col matrix unfolded at a time: larger images are unfolded and multiplied in
    /// blocks of output rows (8 MB keeps yolov3's largest unfold from needing 50 MB; GEMMs of
    /// 2M/k columns or more stay efficient).
    public var im2colFloats = 1 << 21
    /// Floats of Winograd's `V` and `M` processed at a time (10 MB): large images are transformed
    /// and multiplied in blocks of tile rows.
    public var winogradFloats = 5 << 19
    /// Tile rows of output (4 rows each) from which a Winograd layer runs in bands, each band
    /// all three phases on one worker (`Winograd.runBands`), and about how many tile rows
    /// a band takes. 16 and 4: yolov3's and the tiny models' 104×104 and 208×208 layers; on
    /// their 52×52 grids (13 tile rows) two workers could not share the bands evenly.
    public var winogradBandedMinimumTileRows = 16
    public var winogradBandTileRows = 4
    /// Floats of one worker's band of a short, wide im2col matrix (`Im2colBands`: 1 MB, a core's L2).
    public var bandFloats = 1 << 18
    /// Fewest output columns a band may have, or its GEMM gets too thin.
    public var bandMinimumColumns = 400
    /// Bands a layer is cut into at least, while each keeps `bandMinimumColumns` columns: enough
    /// for two workers to share them evenly, and for a free core to take over a busy one's.
    public var bandMinimumCount = 32

    public init() {}
}
