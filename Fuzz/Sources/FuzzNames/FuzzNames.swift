import Darknet
import Foundation
import FuzzDriver

/// Names-file bytes → `ClassNames.parse`: a list of names or a thrown error; a trap is a finding.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzNames(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    _ = try? ClassNames.parse(Data(bytes: data, count: size), file: "fuzz.names")
    return 0
}

/// SwiftPM links the target's entry point as `FuzzNames_main`; hand over to libFuzzer.
@_cdecl("FuzzNames_main")
public func fuzzNamesMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    var count = argc
    var arguments = argv
    return LLVMFuzzerRunDriver(&count, &arguments) { data, size in data.map { fuzzNames($0, size) } ?? 0 }
}
