import FuzzDriver
import Darknet

/// A small cfg with every layer kind that reads weights (conv with and without batch norm,
/// grouped conv, connected, batchnorm); the input is the .weights bytes.
let cfg = """
[net]
width=8
height=8
channels=3

[convolutional]
batch_normalize=1
filters=4
size=3
stride=1
pad=1
activation=leaky

[convolutional]
filters=4
groups=2
size=1
stride=1
activation=linear

[batchnorm]

[maxpool]
size=2
stride=2

[connected]
output=5
activation=linear
"""

nonisolated(unsafe) let model = try! ModelDescription(text: cfg, file: "fuzz.cfg")

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzWeights(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = UnsafeRawBufferPointer(start: data, count: size)
    _ = try? WeightsReader.readHeader(bytes, file: "fuzz.weights")
    _ = try? WeightsReader.read(bytes, file: "fuzz.weights", for: model)
    return 0
}

/// SwiftPM links the target's entry point as `FuzzWeights_main`; hand over to libFuzzer.
@_cdecl("FuzzWeights_main")
public func fuzzWeightsMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    var count = argc
    var arguments = argv
    return LLVMFuzzerRunDriver(&count, &arguments) { data, size in data.map { fuzzWeights($0, size) } ?? 0 }
}
