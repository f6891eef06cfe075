import FuzzDriver
import Imaging

/// JPEG / PNG bytes → Image (format by magic bytes). A decompression bomb must be refused by
/// the decoder's `maxPixels` (low here so the fuzzer cannot spend its time on huge images).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzImage(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = [UInt8](UnsafeBufferPointer(start: data, count: size))
    if let image = try? Image(decoding: bytes, name: "fuzz.img", maxPixels: 1 << 20) {
        _ = image.letterboxed(width: 32, height: 32)
    }
    return 0
}

/// SwiftPM links the target's entry point as `FuzzImage_main`; hand over to libFuzzer.
@_cdecl("FuzzImage_main")
public func fuzzImageMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    var count = argc
    var arguments = argv
    return LLVMFuzzerRunDriver(&count, &arguments) { data, size in data.map { fuzzImage($0, size) } ?? 0 }
}
