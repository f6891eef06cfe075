import FuzzDriver
import Darknet

/// cfg text → parser → shape inference (ModelDescription) → memory plan size.
/// Any input must give a model or a thrown error; a trap is a finding.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzCfg(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let text = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
    if let model = try? ModelDescription(text: text, file: "fuzz.cfg") {
        _ = WeightsReader.parameterBytes(for: model)
        _ = model.totalBflops
        // `summary --methods` and `Network`: the memory plan, the workspace and auto's budget.
        let methods = model.convolutionMethods(ExecutionOptions())
        _ = model.workspaceBytes(methods: methods)
        _ = model.activationBytes()
    }
    return 0
}

/// SwiftPM links the target's entry point as `FuzzCfg_main`; hand over to libFuzzer.
@_cdecl("FuzzCfg_main")
public func fuzzCfgMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    var count = argc
    var arguments = argv
    return LLVMFuzzerRunDriver(&count, &arguments) { data, size in data.map { fuzzCfg($0, size) } ?? 0 }
}
