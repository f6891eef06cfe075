/// How the image was fitted into the network input.
public enum InputMapping: Sendable, Hashable {
    /// darknet's letterbox_image: scaled to fit, aspect kept, centred, rest padded.
    case letterbox
    /// Resized to the network size, aspect ignored: normalised boxes need no change.
    case stretch
}

/// The size darknet gives an image inside the network input when letterboxing, as both
/// letterbox_image (image.c) and correct_yolo_boxes (yolo_layer.c) compute it:
/// ```c
/// if (((float)netw/w) < ((float)neth/h)) { new_w = netw; new_h = (h * netw)/w; }
/// else                                   { new_h = neth; new_w = (w * neth)/h; }
/// ```
/// (Float ratios for the test, integer division for the size.)
public struct LetterboxGeometry: Sendable, Hashable {
    public let imageWidth: Int, imageHeight: Int
    public let networkWidth: Int, networkHeight: Int
    /// Width and height of the scaled image inside the network input.
    public let scaledWidth: Int, scaledHeight: Int

    /// Returns nil when any size is zero or negative.
    public init?(imageWidth: Int, imageHeight: Int, networkWidth: Int, networkHeight: Int) {
        guard imageWidth > 0, imageHeight > 0, networkWidth > 0, networkHeight > 0 else { return nil }
        self.imageWidth = imageWidth
        self.imageHeight = imageHeight
        self.networkWidth = networkWidth
        self.networkHeight = networkHeight
        if Float(networkWidth) / Float(imageWidth) < Float(networkHeight) / Float(imageHeight) {
            scaledWidth = networkWidth
            scaledHeight = Self.product(imageHeight, networkWidth, dividedBy: imageWidth)
        } else {
            scaledHeight = networkHeight
            scaledWidth = Self.product(imageWidth, networkHeight, dividedBy: imageHeight)
        }
    }

    /// (a × b) / c for positive values, truncating like C, without overflowing the product.
    /// The quotient is at most about the network size here, so it always fits.
    private static func product(_ a: Int, _ b: Int, dividedBy c: Int) -> Int {
        let wide = a.multipliedFullWidth(by: b)
        if wide.high == 0 && wide.low <= UInt(Int.max) { return Int(wide.low) / c }
        let quotient = c.dividingFullWidth(wide)
        return quotient.quotient
    }

    /// Maps a box normalised to the network input to one normalised to the image — darknet's
    /// correct_yolo_boxes with relative = 1, in its mixed precision:
    /// ```c
    /// b.x = (b.x - (netw - new_w)/2./netw) / ((float)new_w/netw);   // double, stored as float
    /// b.y = (b.y - (neth - new_h)/2./neth) / ((float)new_h/neth);
    /// b.w *= (float)netw/new_w;                                     // float
    /// b.h *= (float)neth/new_h;
    /// ```
    /// Note: Debian's libdarknet is built with -Ofast, which turns the two Float divisions
    /// `(float)netw/new_w`, `(float)neth/new_h` into `rcpps` + one Newton step (CPU-dependent
    /// last bit). This follows the C source (IEEE division), so width and height can differ
    /// from that binary by a couple of units in the last place; x and y match it exactly.
    ///
    /// `reciprocalRatio`: AlexeyAB's correct_yolo_boxes for `[yolo]` heads scales w and h by
    /// `1/ratiow` with `ratiow = (float)new_w/netw` (both Float) instead of `(float)netw/new_w`;
    /// the two can differ in the last bit. x and y are the same either way.
    public func correct(_ box: BoundingBox, reciprocalRatio: Bool = false) -> BoundingBox {
        let netW = Double(networkWidth), netH = Double(networkHeight)
        let offsetX = Double(networkWidth - scaledWidth) / 2.0 / netW
        let offsetY = Double(networkHeight - scaledHeight) / 2.0 / netH
        let scaleX = Float(scaledWidth) / Float(networkWidth)
        let scaleY = Float(scaledHeight) / Float(networkHeight)
        return BoundingBox(
            x: Float((Double(box.x) - offsetX) / Double(scaleX)),
            y: Float((Double(box.y) - offsetY) / Double(scaleY)),
            width: box.width * (reciprocalRatio ? 1 / scaleX : Float(networkWidth) / Float(scaledWidth)),
            height: box.height * (reciprocalRatio ? 1 / scaleY : Float(networkHeight) / Float(scaledHeight)))
    }
}

/// darknet's correct_yolo_boxes with relative = 1: maps boxes normalised to the network
/// input to boxes normalised to the original image. `.letterbox` undoes the letterbox
/// padding and scale (see `LetterboxGeometry.correct`); `.stretch` leaves boxes unchanged.
/// Sizes that are zero or negative leave the boxes unchanged too. `reciprocalRatio`: see
/// `LetterboxGeometry.correct(_:reciprocalRatio:)` (AlexeyAB's `[yolo]` heads).
public func correctBoxes(
    _ candidates: inout [Candidate], imageWidth: Int, imageHeight: Int,
    networkWidth: Int, networkHeight: Int, mapping: InputMapping, reciprocalRatio: Bool = false
) {
    guard mapping == .letterbox,
          let geometry = LetterboxGeometry(imageWidth: imageWidth, imageHeight: imageHeight,
                                           networkWidth: networkWidth, networkHeight: networkHeight)
    else { return }
    for i in candidates.indices {
        candidates[i].box = geometry.correct(candidates[i].box, reciprocalRatio: reciprocalRatio)
    }
}
