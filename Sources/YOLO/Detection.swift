/// One (box, class) whose probability is above the threshold — one line of darknet's
/// draw_detections output (`name: NN%`).
public struct Detection: Sendable, Hashable, Codable {
    public var classId: Int
    /// The candidate's probability for `classId` (objectness × class score).
    public var confidence: Float
    /// Centre and size normalised to the image.
    public var box: BoundingBox

    public init(classId: Int, confidence: Float, box: BoundingBox) {
        self.classId = classId
        self.confidence = confidence
        self.box = box
    }

    /// The box in image pixels as darknet's draw_detections computes it:
    /// `int left = (b.x-b.w/2.)*im.w;` (double arithmetic, C truncation toward zero), and
    /// likewise right = (x + w/2)·imageWidth, top and bottom with y, h and imageHeight.
    /// darknet then clips left and top at 0 and right and bottom at size − 1; here all four
    /// are clamped to 0...imageWidth−1 / 0...imageHeight−1 (darknet's draw_box clamps the
    /// rest when drawing), and NaN maps to 0. A non-positive image size gives zeros.
    public func pixelBox(imageWidth: Int, imageHeight: Int) -> PixelBox {
        let x = Double(box.x), y = Double(box.y)
        let halfW = Double(box.width) / 2.0, halfH = Double(box.height) / 2.0
        return PixelBox(
            left: pixel((x - halfW) * Double(imageWidth), size: imageWidth),
            top: pixel((y - halfH) * Double(imageHeight), size: imageHeight),
            right: pixel((x + halfW) * Double(imageWidth), size: imageWidth),
            bottom: pixel((y + halfH) * Double(imageHeight), size: imageHeight))
    }
}

/// C's `(int)value` (truncation toward zero) clamped to 0...size−1, without trapping on
/// NaN or values outside `Int`'s range.
private func pixel(_ value: Double, size: Int) -> Int {
    let upper = max(size - 1, 0)
    if value.isNaN || value < 0 { return 0 }        // truncates to <= 0, clamps to 0
    if value >= Double(upper) { return upper }      // truncates to >= upper, clamps to upper
    return Int(value)                               // 0 <= value < upper: fits, truncates
}

/// A box in integer image pixels, edges inclusive, as darknet draws it.
public struct PixelBox: Sendable, Hashable, Codable {
    public var left: Int
    public var top: Int
    public var right: Int
    public var bottom: Int

    public init(left: Int, top: Int, right: Int, bottom: Int) {
        self.left = left
        self.top = top
        self.right = right
        self.bottom = bottom
    }
}

/// Every (candidate, class) with probability `> threshold`, in candidate order then class
/// order — the order in which darknet's draw_detections prints them.
public func detections(from candidates: [Candidate], threshold: Float) -> [Detection] {
    var result: [Detection] = []
    for candidate in candidates {
        for (classId, probability) in candidate.probabilities.enumerated() where probability > threshold {
            result.append(Detection(classId: classId, confidence: probability, box: candidate.box))
        }
    }
    return result
}
