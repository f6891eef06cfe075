extension Winograd {
    /// Most workers that share a banded layer, each with a band's workspace (V and M of its
    /// tile rows): as many as the stream's (`streamedWorkers`), so that banding does not grow a
    /// network's workspace and move `auto`'s memory budget.
    static let bandedWorkers = streamedWorkers

    /// Bands an image's `tileRows` tile rows are cut into, for a Winograd layer (either stride)
    /// whose tile row takes `floatsPerTileRow` floats of workspace, or nil to run it in passes
    /// whose phases are each shared out: from `blocking.winogradBandedMinimumTileRows` tile
    /// rows, an even number of bands (even shares for two workers) of at most
    /// `blocking.winogradBandTileRows`, and few enough rows that `bandedWorkers` bands fit
    /// `blocking.winogradFloats` as a pass does (so banding never grows the workspace); at most
    /// one band a tile row.
    static func bandCount(tileRows: Int, floatsPerTileRow: Int, _ blocking: Blocking) -> Int? {
        guard tileRows >= blocking.winogradBandedMinimumTileRows else { return nil }
        let fitting = blocking.winogradFloats / bandedWorkers / floatsPerTileRow
        let rows = max(1, min(blocking.winogradBandTileRows, fitting))
        let bands = (tileRows + rows - 1) / rows
        return min(tileRows, bands + bands % 2)
    }

    /// Tile rows `first..<end` of band `band` of `bands` over `rows` tile rows.
    static func band(_ band: Int, of bands: Int, rows: Int) -> Range<Int> { rows * band / bands..<rows * (band + 1) / bands }

    /// Runs `pass(worker, image, rows, &timer)` for band `rows` of every image, `bands` bands an
    /// image over `tileRows` tile rows, on up to `bandedWorkers` workers: each band's three
    /// phases on one worker, in that worker's slice of the workspace (the caller's `pass`
    /// picks it by `worker`). `work` is the layer's multiply-adds (how many workers it is worth).
    ///
    /// A band's V and M are written and read by the worker that owns the band, and bands are
    /// numbered down the image, so each worker keeps to its part of the image from one layer to
    /// the next (`WorkerPool`'s shares): no core reads what another wrote but at the bands'
    /// edges. Shared out by phase, every phase read all of the previous one's output. The bits
    /// are the same: each tile's transforms and each column of a product are computed the same
    /// way whatever the tiles beside them, and the bands depend only on the shape.
    ///
    /// Returns, when `timed` (`pass` then gets a timer), the workers' mean seconds in each phase
    /// (else zeros).
    static func runBands(images: Int, bands: Int, tileRows: Int, work: Int, threads: Int, timed: Bool,
                         _ pass: (_ worker: Int, _ image: Int, _ rows: Range<Int>, _ timer: inout PhaseTimer?) -> Void)
        -> ConvolutionPhases {
        let workers = max(1, min(threads, bandedWorkers, images * bands))
        return withUnsafeTemporaryAllocation(of: ConvolutionPhases.self, capacity: bandedWorkers) { spent in
            spent.initialize(repeating: ConvolutionPhases())
            nonisolated(unsafe) let spent = spent
            Parallel.forWorkers(of: images * bands, work: work, threads: workers, maximumWorkers: bandedWorkers) { worker, range in
                for item in range {
                    let (image, index) = item.quotientAndRemainder(dividingBy: bands)
                    var timer: PhaseTimer? = timed ? PhaseTimer() : nil
                    pass(worker, image, band(index, of: bands, rows: tileRows), &timer)
                    if let phases = timer?.phases { spent[worker] += phases }
                }
            }
            return ConvolutionPhases.mean(ofWorkers: UnsafeBufferPointer(spent))
        }
    }
}
