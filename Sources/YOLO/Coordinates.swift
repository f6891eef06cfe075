/// A rectangle given by its origin corner and size, in whatever unit and origin convention
/// the caller states (pixels or 0...1, top-left or Vision's lower-left origin). Double, like
/// `CGRect`, so that it converts to one without loss.
public struct Rect: Sendable, Hashable, Codable {
    public var x: Double
    public var y: Double
    public var width: Double
    public var height: Double

    public init(x: Double, y: Double, width: Double, height: Double) {
        self.x = x
        self.y = y
        self.width = width
        self.height = height
    }

    public var minX: Double { x }
    public var minY: Double { y }
    public var maxX: Double { x + width }
    public var maxY: Double { y + height }
}

extension BoundingBox {
    /// Corners `(left, top, right, bottom)` of this centre/size box (top-left origin).
    public var corners: (left: Float, top: Float, right: Float, bottom: Float) { (left, top, right, bottom) }

    /// The box as an origin/size rectangle with a TOP-LEFT origin, in the box's own unit
    /// (normalised stays normalised): origin `(x − w/2, y − h/2)`.
    public var rect: Rect {
        Rect(x: Double(x) - Double(width) / 2, y: Double(y) - Double(height) / 2,
             width: Double(width), height: Double(height))
    }

    /// From a top-left-origin rectangle in the same unit: centre = origin + size/2.
    public init(rect: Rect) {
        self.init(x: Float(rect.x + rect.width / 2), y: Float(rect.y + rect.height / 2),
                  width: Float(rect.width), height: Float(rect.height))
    }

    /// The box (normalised, top-left origin) as Vision reports `boundingBox`: normalised,
    /// origin at the LOWER-left corner, y up — `origin.y = 1 − bottom`.
    public var visionRect: Rect {
        Rect(x: Double(x) - Double(width) / 2, y: 1 - (Double(y) + Double(height) / 2),
             width: Double(width), height: Double(height))
    }

    /// From a Vision `boundingBox` (normalised, lower-left origin): `top = 1 − maxY`.
    public init(visionRect rect: Rect) {
        self.init(x: Float(rect.x + rect.width / 2), y: Float(1 - rect.y - rect.height / 2),
                  width: Float(rect.width), height: Float(rect.height))
    }

    /// Normalised → pixels of a `imageWidth × imageHeight` image (top-left origin, Double,
    /// not rounded; `Detection.pixelBox` gives darknet's integer box).
    public func pixelRect(imageWidth: Int, imageHeight: Int) -> Rect {
        let r = rect
        return Rect(x: r.x * Double(imageWidth), y: r.y * Double(imageHeight),
                    width: r.width * Double(imageWidth), height: r.height * Double(imageHeight))
    }

    /// Pixels (top-left origin) → normalised. Sizes of 0 give non-finite values.
    public init(pixelRect rect: Rect, imageWidth: Int, imageHeight: Int) {
        let w = Double(imageWidth), h = Double(imageHeight)
        self.init(rect: Rect(x: rect.x / w, y: rect.y / h, width: rect.width / w, height: rect.height / h))
    }
}

/// How an image was turned into the network input — each case names the matching Core ML /
/// Vision `VNImageCropAndScaleOption` where there is one.
public enum InputPreparation: Sendable, Hashable {
    /// darknet's letterbox_image: scaled to fit with the aspect ratio kept, centred, padded;
    /// the scaled size is rounded down to whole pixels as darknet does (`LetterboxGeometry`).
    case letterbox
    /// Stretched to the network size, aspect ignored (Vision's `.scaleFill`, darknet's resize).
    case scaleFill
    /// Aspect-fit, centred, padded, with the exact (unrounded) scale (Vision's `.scaleFit`).
    case scaleFit
    /// Aspect-fill, centred, the overflow cropped (Vision's `.centerCrop`).
    case centerCrop
}

/// The mapping between boxes normalised to the network input and boxes normalised to the
/// original image, for one image size, network size and preparation.
///
/// Each preparation places the image as the rectangle `[offsetX, offsetX + scaledWidth] ×
/// [offsetY, offsetY + scaledHeight]` of network pixels (for `.centerCrop` the rectangle is
/// larger than the network and the offsets negative); `toImage` undoes that placement and
/// `toNetwork` applies it. Boxes outside the image are not clipped.
public struct InputGeometry: Sendable, Hashable {
    public let preparation: InputPreparation
    public let imageWidth: Int, imageHeight: Int
    public let networkWidth: Int, networkHeight: Int
    /// Where the image lies in the network input, in network pixels.
    public let placement: Rect

    /// Returns nil when a size is zero or negative.
    public init?(preparation: InputPreparation, imageWidth: Int, imageHeight: Int, networkWidth: Int, networkHeight: Int) {
        guard imageWidth > 0, imageHeight > 0, networkWidth > 0, networkHeight > 0 else { return nil }
        self.preparation = preparation
        self.imageWidth = imageWidth
        self.imageHeight = imageHeight
        self.networkWidth = networkWidth
        self.networkHeight = networkHeight
        let iw = Double(imageWidth), ih = Double(imageHeight)
        let nw = Double(networkWidth), nh = Double(networkHeight)
        switch preparation {
        case .letterbox:
            // LetterboxGeometry cannot fail: the sizes were checked above.
            let g = LetterboxGeometry(imageWidth: imageWidth, imageHeight: imageHeight,
                                      networkWidth: networkWidth, networkHeight: networkHeight)
            let sw = Double(g?.scaledWidth ?? networkWidth), sh = Double(g?.scaledHeight ?? networkHeight)
            placement = Rect(x: (nw - sw) / 2, y: (nh - sh) / 2, width: sw, height: sh)
        case .scaleFill:
            placement = Rect(x: 0, y: 0, width: nw, height: nh)
        case .scaleFit, .centerCrop:
            let scale = preparation == .scaleFit ? min(nw / iw, nh / ih) : max(nw / iw, nh / ih)
            let sw = iw * scale, sh = ih * scale
            placement = Rect(x: (nw - sw) / 2, y: (nh - sh) / 2, width: sw, height: sh)
        }
    }

    /// Network-normalised → image-normalised. For `.letterbox` this is darknet's
    /// correct_yolo_boxes arithmetic exactly (`LetterboxGeometry.correct`).
    public func toImage(_ box: BoundingBox) -> BoundingBox {
        if preparation == .letterbox,
           let g = LetterboxGeometry(imageWidth: imageWidth, imageHeight: imageHeight,
                                     networkWidth: networkWidth, networkHeight: networkHeight) {
            return g.correct(box)
        }
        let nw = Double(networkWidth), nh = Double(networkHeight)
        return BoundingBox(
            x: Float((Double(box.x) * nw - placement.x) / placement.width),
            y: Float((Double(box.y) * nh - placement.y) / placement.height),
            width: Float(Double(box.width) * nw / placement.width),
            height: Float(Double(box.height) * nh / placement.height))
    }

    /// Image-normalised → network-normalised: the inverse of `toImage` (exact up to Float
    /// rounding), e.g. to draw ground truth on the network input.
    public func toNetwork(_ box: BoundingBox) -> BoundingBox {
        let nw = Double(networkWidth), nh = Double(networkHeight)
        return BoundingBox(
            x: Float((Double(box.x) * placement.width + placement.x) / nw),
            y: Float((Double(box.y) * placement.height + placement.y) / nh),
            width: Float(Double(box.width) * placement.width / nw),
            height: Float(Double(box.height) * placement.height / nh))
    }
}
