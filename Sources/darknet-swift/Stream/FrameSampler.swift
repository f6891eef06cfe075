/// `--every N` and `--fps F`: which frames are detected. `--every N` takes frames 0, N, 2N, …
/// of the source; `--fps F` takes the first frame of each 1/F-second slot of the source's
/// timestamps (slot `⌊(pts − first pts) · F⌋`), so a 30 fps source at `--fps 10` gives every
/// third frame and a variable-rate source at most F frames a second. A timestamp that goes
/// back (a live source reconnected) starts the slots again. Frames without a timestamp are
/// all taken.
struct FrameSampler: Equatable {
    var every: Int?
    var fps: Double?
    private var firstPts: Double?
    private var lastSlot = Int.min
    private var lastPts: Double?

    init(every: Int? = nil, fps: Double? = nil) {
        self.every = every
        self.fps = fps
    }

    var isSampling: Bool { every != nil || fps != nil }

    mutating func takes(index: Int, pts: Double?) -> Bool {
        if let every { return index % every == 0 }
        guard let fps, let pts else { return true }
        if let last = lastPts, pts < last { firstPts = nil; lastSlot = Int.min }
        lastPts = pts
        let first = firstPts ?? pts
        firstPts = first
        let slot = Int(((pts - first) * fps + 1e-9).rounded(.down))
        guard slot > lastSlot else { return false }
        lastSlot = slot
        return true
    }
}
