import Foundation

extension Image {
    /// The byte order of one interleaved 8-bit pixel in a camera or screen buffer.
    public enum PixelLayout: Sendable, Hashable {
        /// R G B (3 bytes), as `ffmpeg -pix_fmt rgb24` writes.
        case rgb
        /// R G B A (4 bytes); alpha is dropped.
        case rgba
        /// B G R A (4 bytes), as `kCVPixelFormatType_32BGRA` camera frames arrive; alpha is dropped.
        case bgra

        public var bytesPerPixel: Int { self == .rgb ? 3 : 4 }

        /// Offsets of red, green and blue inside a pixel.
        var offsets: (red: Int, green: Int, blue: Int) { self == .bgra ? (2, 1, 0) : (0, 1, 2) }
    }

    /// A 3-channel RGB image from interleaved 8-bit pixels, row by row, each row starting
    /// `bytesPerRow` bytes after the previous one (camera buffers pad their rows; the last row
    /// needs only its pixels). Samples are `byte / 255`, as the JPEG and PNG decoders give them.
    /// Throws `invalidPixelBuffer` when the sizes do not fit `pixels`, `tooLarge` past
    /// `maxPixels`; `name` labels the errors.
    public init(pixels: UnsafeRawBufferPointer, width: Int, height: Int, bytesPerRow: Int, layout: PixelLayout,
                name: String = "pixels", maxPixels: Int = Image.defaultMaxPixels) throws {
        guard width > 0, height > 0 else {
            throw ImageError.invalidPixelBuffer(name: name, reason: "invalid size \(width)x\(height)")
        }
        try checkDimensions(width: width, height: height, name: name, maxPixels: maxPixels)
        let rowBytes = width * layout.bytesPerPixel
        guard bytesPerRow >= rowBytes else {
            throw ImageError.invalidPixelBuffer(
                name: name, reason: "bytesPerRow \(bytesPerRow) is less than \(width) pixels × \(layout.bytesPerPixel) bytes")
        }
        let (strided, overflow) = bytesPerRow.multipliedReportingOverflow(by: height - 1)
        guard !overflow, strided <= pixels.count - rowBytes else {
            // The need itself may not fit an Int (bytesPerRow near Int.max): said in words then.
            let (needed, over) = strided.addingReportingOverflow(rowBytes)
            let need = overflow || over ? "more than \(Int.max)" : String(needed)
            throw ImageError.invalidPixelBuffer(
                name: name, reason: "\(pixels.count) bytes, but \(height) rows \(bytesPerRow) bytes apart need \(need)")
        }
        let plane = width * height
        let step = layout.bytesPerPixel
        let (r, g, b) = layout.offsets
        var data = [Float](repeating: 0, count: 3 * plane)
        data.withUnsafeMutableBufferPointer { out in
            byteToUnit.withUnsafeBufferPointer { lut in
                for y in 0..<height {
                    let row = y * bytesPerRow
                    for x in 0..<width {
                        let source = row + x * step
                        let target = y * width + x
                        out[target] = lut[Int(pixels[source + r])]
                        out[plane + target] = lut[Int(pixels[source + g])]
                        out[2 * plane + target] = lut[Int(pixels[source + b])]
                    }
                }
            }
        }
        self.init(width: width, height: height, channels: 3, data: data)
    }

    /// `init(pixels:width:height:bytesPerRow:layout:name:maxPixels:)` from an array.
    public init(pixels: [UInt8], width: Int, height: Int, bytesPerRow: Int, layout: PixelLayout,
                name: String = "pixels", maxPixels: Int = Image.defaultMaxPixels) throws {
        self = try pixels.withUnsafeBytes {
            try Image(pixels: $0, width: width, height: height, bytesPerRow: bytesPerRow, layout: layout, name: name,
                      maxPixels: maxPixels)
        }
    }

    /// Decodes a JPEG or PNG file held in memory (an upload, a database blob) exactly as
    /// `Image(contentsOf:)` decodes the file; `name` only labels errors.
    public init(decoding data: Data, name: String = "data", maxPixels: Int = Image.defaultMaxPixels) throws {
        try self.init(decoding: [UInt8](data), name: name, maxPixels: maxPixels)
    }

    /// The PNG file bytes `write(to:)` would write for a `.png` path (for writers of their own).
    public func pngData(name: String = "image") throws -> [UInt8] {
        guard channels == 1 || channels == 3, width > 0, height > 0 else {
            throw ImageError.unencodable(path: name, reason: "\(channels) channels, \(width)x\(height)")
        }
        return try encodePNG(interleavedBytes(), width: width, height: height, channels: channels, path: name)
    }
}
