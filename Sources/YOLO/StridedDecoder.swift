/// How the values in a head's tensor were produced.
public struct DecodeOptions: Sendable, Hashable {
    /// `true`: the tensor holds logits, no activation applied (an exported convolution output).
    /// The decoder then does what darknet's layer does first:
    /// - `[yolo]`: logistic on x, y, objectness and class scores (with `newCoords`, on w and h
    ///   too: those models put the logistic in the preceding convolution), then
    ///   `x·scaleXY − (scaleXY − 1)/2` on x and y (AlexeyAB's forward_yolo_layer `scal_add_cpu`);
    /// - `[region]`: logistic on x, y and objectness, softmax across classes (region_layer.c
    ///   forward_region_layer, blas.c `softmax`), or logistic when the head has `softmax = false`.
    ///
    /// `false` (default): the tensor is the layer's output as darknet computes it (all of the
    /// above already applied, `scale_x_y` included) — what the Darknet engine hands over.
    public var rawLogits: Bool
    /// Replace each slot's class scores by a softmax across classes of their logits before
    /// multiplying by objectness, so they sum to 1 (some apps show this). For `[yolo]` heads the
    /// logits are the raw values, or `ln(p / (1 − p))` of activated scores (p clamped to
    /// [2^-126, 1 − 2^-24]). `[region]` heads with `softmax = true` already are; they are left as they are.
    public var normalizedConfidence: Bool
    /// `[region]` only: keep every slot, as pjreddie's get_region_detections does — one whose
    /// objectness is not above the threshold as a candidate with objectness 0, no probability
    /// and an empty box. `NMS.perClass` then swaps those to the end as his do_nms_sort does,
    /// which reorders the others and so decides ties (equal scores from identical cells, such
    /// as a letterbox's bars). Off, they are left out (same detections, ties aside).
    public var keepsEveryRegionSlot: Bool

    public init(rawLogits: Bool = false, normalizedConfidence: Bool = false, keepsEveryRegionSlot: Bool = false) {
        self.rawLogits = rawLogits
        self.normalizedConfidence = normalizedConfidence
        self.keepsEveryRegionSlot = keepsEveryRegionSlot
    }
}

extension YOLODecoder {
    /// Decodes one head's output from any layout and element type.
    ///
    /// - `buffer`: the tensor's elements; `tensor` says where `(channel, row, column)` is
    ///   (NCHW, NHWC or any strides, see `TensorDescriptor`). The tensor has
    ///   `anchors × (4 + 1 + classes)` channels and the grid is `tensor.width × tensor.height`.
    /// - `head`: `.yolo` (anchors in network pixels, `mask`, `scaleXY`, `newCoords`) or
    ///   `.region` (anchors in grid cells, softmax classes).
    /// - `threshold`: a slot is kept if its objectness is `> threshold`, and each class
    ///   probability (objectness × score) is kept if `> threshold`, else stored as 0 — as
    ///   darknet's get_yolo_detections / get_region_detections do. darknet's region layer also
    ///   returns the other slots with objectness 0; they are left out here (do_nms_sort drops them).
    ///
    /// Boxes (normalised to the network input, before `correctBoxes`), values read as `Float`:
    /// - `[yolo]` (get_yolo_box): `x = (col + x)/gridW`, `y = (row + y)/gridH` in Float;
    ///   `w = exp(tw)·anchorW/netW` in double rounded to Float, or with `newCoords`
    ///   `w = tw·tw·4·anchorW/netW` in Float (AlexeyAB); likewise h.
    /// - `[region]` (get_region_box): `x = (col + x)/gridW`, `w = exp(tw)·anchorW/gridW`.
    ///
    /// Candidates come in darknet's order: `[yolo]` cells row-major, then anchor slots;
    /// `[region]` anchor slots, then cells row-major (its `dets[n·w·h + cell]`). With a `Float`
    /// NCHW tensor, post-activation, this returns exactly what `decode(_:gridWidth:...)` returns.
    public static func decode<Element: TensorElement>(
        _ buffer: UnsafeBufferPointer<Element>, tensor: TensorDescriptor, head: DetectionHead,
        networkWidth: Int, networkHeight: Int, threshold: Float, options: DecodeOptions = .init()
    ) throws(DecodeError) -> [Candidate] {
        let channels = try head.validatedChannels()
        if case .region(let region) = head, region.tree != nil { throw .treeHead }
        if networkWidth < 1 || networkHeight < 1 {
            throw .head(.nonPositiveNetworkSize(width: networkWidth, height: networkHeight))
        }
        try tensor.validate(bufferCount: buffer.count)
        if tensor.channels != channels { throw .channelMismatch(expected: channels, actual: tensor.channels) }

        let classes = head.classes
        let entries = 5 + classes
        let gridW = Float(tensor.width), gridH = Float(tensor.height)
        var values = [Float](repeating: 0, count: entries)
        var candidates: [Candidate] = []
        // darknet's orders: get_yolo_detections walks cells, then anchors; get_region_detections
        // fills dets[n·w·h + cell], anchors outermost.
        // Zero strides can describe a grid larger than the buffer: check the products.
        let cellProduct = tensor.width.multipliedReportingOverflow(by: tensor.height)
        let slotProduct = cellProduct.partialValue.multipliedReportingOverflow(by: head.anchorCount)
        if cellProduct.overflow || slotProduct.overflow {
            throw .head(.shapeTooLarge(gridWidth: tensor.width, gridHeight: tensor.height,
                                       maskCount: head.anchorCount, classes: classes))
        }
        let cells = cellProduct.partialValue
        let slots = slotProduct.partialValue
        // Zero strides let a few elements describe a huge grid; walking it would not end in any
        // useful time. Without aliasing a tensor never has more elements than its buffer, so
        // refuse grids of more than max(buffer, 2^24) elements.
        let elements = slots.multipliedReportingOverflow(by: entries)
        if elements.overflow || elements.partialValue > max(buffer.count, 1 << 24) {
            throw .head(.shapeTooLarge(gridWidth: tensor.width, gridHeight: tensor.height,
                                       maskCount: head.anchorCount, classes: classes))
        }
        let anchorMajor: Bool
        if case .region = head { anchorMajor = true } else { anchorMajor = false }
        for slot in 0..<slots {
            let n = anchorMajor ? slot / cells : slot % head.anchorCount
            let cell = anchorMajor ? slot % cells : slot / head.anchorCount
            let row = cell / tensor.width, col = cell % tensor.width
            let base = n * entries
            var objectness = buffer[tensor.index(base + 4, row, col)].floatValue
            if options.rawLogits { objectness = darknetLogistic(objectness) }
            if !(objectness > threshold) {
                if anchorMajor && options.keepsEveryRegionSlot {
                    candidates.append(Candidate(box: BoundingBox(x: 0, y: 0, width: 0, height: 0), objectness: 0,
                                                probabilities: [Float](repeating: 0, count: classes)))
                }
                continue
            }
            for e in 0..<entries { values[e] = buffer[tensor.index(base + e, row, col)].floatValue }
            values[4] = objectness
            let box: BoundingBox
            switch head {
            case .yolo(let yolo):
                // Normalising replaces the class activation: softmax of the logits.
                if options.normalizedConfidence { normalizeYOLOScores(&values, raw: options.rawLogits) }
                if options.rawLogits { activateYOLO(&values, head: yolo, classes: !options.normalizedConfidence) }
                box = yoloBox(values, head: yolo, anchor: yolo.mask[n], col: col, row: row,
                              gridW: gridW, gridH: gridH, networkWidth: networkWidth, networkHeight: networkHeight)
            case .region(let region):
                if options.normalizedConfidence && !region.softmax {
                    normalizeYOLOScores(&values, raw: options.rawLogits)
                    if options.rawLogits {
                        values[0] = darknetLogistic(values[0])
                        values[1] = darknetLogistic(values[1])
                    }
                } else if options.rawLogits {
                    activateRegion(&values, head: region)
                }
                box = BoundingBox(
                    x: (Float(col) + values[0]) / gridW,
                    y: (Float(row) + values[1]) / gridH,
                    width: Float(doubleExp(Double(values[2])) * Double(region.anchors[2 * n]) / Double(tensor.width)),
                    height: Float(doubleExp(Double(values[3])) * Double(region.anchors[2 * n + 1]) / Double(tensor.height)))
            }
            var probabilities = [Float](repeating: 0, count: classes)
            for j in 0..<classes {
                let probability = objectness * values[5 + j]
                probabilities[j] = probability > threshold ? probability : 0
            }
            candidates.append(Candidate(box: box, objectness: objectness, probabilities: probabilities))
        }
        return candidates
    }

    /// `decode(_:tensor:head:...)` on an array.
    public static func decode<Element: TensorElement>(
        _ array: [Element], tensor: TensorDescriptor, head: DetectionHead,
        networkWidth: Int, networkHeight: Int, threshold: Float, options: DecodeOptions = .init()
    ) throws(DecodeError) -> [Candidate] {
        let result: Result<[Candidate], DecodeError> = array.withUnsafeBufferPointer { buffer in
            Result { () throws(DecodeError) -> [Candidate] in
                try decode(buffer, tensor: tensor, head: head, networkWidth: networkWidth,
                           networkHeight: networkHeight, threshold: threshold, options: options)
            }
        }
        return try result.get()
    }

    /// forward_yolo_layer on one slot's raw values (objectness already done): logistic on x, y
    /// and classes (and w, h for `newCoords`), then darknet's `scal_add_cpu` on x and y:
    /// `x = x·scale + beta` in Float with `beta = (float)(-0.5·(scale − 1))`.
    /// `classes: false` leaves the class scores alone.
    static func activateYOLO(_ values: inout [Float], head: YOLOHead, classes: Bool = true) {
        values[0] = darknetLogistic(values[0])
        values[1] = darknetLogistic(values[1])
        if head.newCoords {
            values[2] = darknetLogistic(values[2])
            values[3] = darknetLogistic(values[3])
        }
        if classes { for j in 5..<values.count { values[j] = darknetLogistic(values[j]) } }
        let scale = head.scaleXY
        let beta = Float(-0.5 * (Double(scale) - 1))
        values[0] = values[0] * scale + beta
        values[1] = values[1] * scale + beta
    }

    /// forward_region_layer on one slot's raw values (objectness already done): logistic on
    /// x and y, then blas.c `softmax` across the class scores (temperature 1: `e = exp(v − max)`
    /// in double rounded to Float, Float sum, Float division) or a logistic on each.
    static func activateRegion(_ values: inout [Float], head: RegionHead) {
        values[0] = darknetLogistic(values[0])
        values[1] = darknetLogistic(values[1])
        if head.softmax {
            darknetSoftmax(&values, from: 5)
        } else {
            for j in 5..<values.count { values[j] = darknetLogistic(values[j]) }
        }
    }

    /// Replaces the class scores (from index 5) by a softmax of their logits.
    static func normalizeYOLOScores(_ values: inout [Float], raw: Bool) {
        if !raw {
            for j in 5..<values.count {
                let p = min(max(values[j], Float.leastNormalMagnitude), 1 - Float.ulpOfOne / 2)
                values[j] = Float(doubleLog(Double(p) / (1 - Double(p))))
            }
        }
        darknetSoftmax(&values, from: 5)
    }

    /// get_yolo_box (AlexeyAB's, with `new_coords`) on one slot's activated values.
    static func yoloBox(_ v: [Float], head: YOLOHead, anchor: Int, col: Int, row: Int,
                        gridW: Float, gridH: Float, networkWidth: Int, networkHeight: Int) -> BoundingBox {
        let anchorW = head.anchors[2 * anchor], anchorH = head.anchors[2 * anchor + 1]
        let x = (Float(col) + v[0]) / gridW
        let y = (Float(row) + v[1]) / gridH
        if head.newCoords {
            return BoundingBox(x: x, y: y,
                               width: v[2] * v[2] * 4 * anchorW / Float(networkWidth),
                               height: v[3] * v[3] * 4 * anchorH / Float(networkHeight))
        }
        return BoundingBox(x: x, y: y,
                           width: Float(doubleExp(Double(v[2])) * Double(anchorW) / Double(networkWidth)),
                           height: Float(doubleExp(Double(v[3])) * Double(anchorH) / Double(networkHeight)))
    }
}

/// blas.c `softmax(input, n, temp = 1, stride, output)` over `values[start...]`: largest
/// starts at −FLT_MAX and takes each value `> largest`; `e = exp(v − largest)` (Float
/// subtraction, double exp rounded to Float); Float running sum; each `e / sum` in Float.
/// An empty range does nothing.
func darknetSoftmax(_ values: inout [Float], from start: Int) {
    if start >= values.count { return }
    var largest = -Float.greatestFiniteMagnitude
    for i in start..<values.count where values[i] > largest { largest = values[i] }
    var sum: Float = 0
    for i in start..<values.count {
        let e = Float(doubleExp(Double(values[i] - largest)))
        sum += e
        values[i] = e
    }
    for i in start..<values.count { values[i] /= sum }
}
