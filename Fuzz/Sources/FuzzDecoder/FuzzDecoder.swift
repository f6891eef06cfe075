import FuzzDriver
import YOLO

/// Reads fuzz bytes as the decoder's inputs: a head (yolo or region, anchors, mask, classes,
/// scale_x_y, new_coords), a tensor shape with arbitrary strides and offset (small signed
/// values, so zero, negative and out-of-range strides all occur), a network size, a threshold,
/// options, then the buffer (Float or UInt8/Float16-free elements from the remaining bytes).
/// The candidates then go through one of the five NMS schemes (the kind byte's high bits pick
/// it, and whether the IoU threshold is 0.45 or the fuzzed threshold).
struct Bytes {
    var data: UnsafeBufferPointer<UInt8>
    var position = 0
    mutating func byte() -> UInt8 {
        guard position < data.count else { return 0 }
        defer { position += 1 }
        return data[position]
    }
    /// Small signed value in -8...55, and sometimes a huge one to reach the overflow checks.
    mutating func small() -> Int {
        let b = byte()
        switch b {
        case 0xFF: return Int.max
        case 0xFE: return Int.min
        case 0xFD: return 1 << 40
        default: return Int(b % 64) - 8
        }
    }
    mutating func float() -> Float {
        var bits: UInt32 = 0
        for _ in 0..<4 { bits = bits << 8 | UInt32(byte()) }
        return Float(bitPattern: bits)
    }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzDecoder(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    var input = Bytes(data: UnsafeBufferPointer(start: data, count: size))
    let kind = input.byte()
    let classes = input.small()
    let anchorCount = Int(input.byte() % 16)
    var anchors: [Float] = []
    for _ in 0..<anchorCount { anchors.append(input.float()) }
    let maskCount = Int(input.byte() % 8)
    var mask: [Int] = []
    for _ in 0..<maskCount { mask.append(input.small()) }
    let head: DetectionHead
    if kind & 1 == 0 {
        head = .yolo(YOLOHead(anchors: anchors, mask: mask, classes: classes,
                              scaleXY: input.float(), newCoords: kind & 2 != 0))
    } else {
        head = .region(RegionHead(anchors: anchors, classes: classes, softmax: kind & 2 != 0))
    }
    let tensor = TensorDescriptor(
        channels: input.small(), height: input.small(), width: input.small(),
        channelStride: input.small(), rowStride: input.small(), columnStride: input.small(),
        offset: input.small())
    let networkWidth = input.small(), networkHeight = input.small()
    let threshold = input.float()
    let options = DecodeOptions(rawLogits: kind & 4 != 0, normalizedConfidence: kind & 8 != 0)
    var buffer: [Float] = []
    while input.position + 4 <= input.data.count && buffer.count < 1 << 16 { buffer.append(input.float()) }
    if let candidates = try? YOLODecoder.decode(buffer, tensor: tensor, head: head,
                                                networkWidth: networkWidth, networkHeight: networkHeight,
                                                threshold: threshold, options: options) {
        // Every NMS the engine offers, at a threshold that is usually darknet's.
        let nms = kind >> 4
        let iouThreshold: Float = nms & 8 == 0 ? 0.45 : threshold
        switch nms % 5 {
        case 0: _ = NMS.perClass(candidates, iouThreshold: iouThreshold)
        case 1: _ = NMS.byObjectness(candidates, iouThreshold: iouThreshold)
        case 2: _ = NMS.classAgnostic(candidates, iouThreshold: iouThreshold)
        case 3: _ = NMS.diou(candidates, iouThreshold: iouThreshold, beta: 0.6)
        default: _ = NMS.coreML(candidates, iouThreshold: iouThreshold, confidenceThreshold: threshold)
        }
    }
    return 0
}

/// SwiftPM links the target's entry point as `FuzzDecoder_main`; hand over to libFuzzer.
@_cdecl("FuzzDecoder_main")
public func fuzzDecoderMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    var count = argc
    var arguments = argv
    return LLVMFuzzerRunDriver(&count, &arguments) { data, size in data.map { fuzzDecoder($0, size) } ?? 0 }
}
