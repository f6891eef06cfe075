import Darknet
import Foundation

/// `summary --methods`: how each convolution computes under a `--conv-algorithm` (and, with
/// `--precision int8`, which run `int8`, as the calibration marks them; with `--gemm onednn`,
/// which multiply on `dnnl_sgemm`) and the parameter
/// memory it holds, after darknet's table; then the memory totals and the OpenBLAS kernel
/// driven with packed weights, if any (`auto`'s choice depends on it).
enum MethodTable {
    static func render(_ model: ModelDescription, options: ExecutionOptions) -> String {
        let methods = model.convolutionMethods(options)
        var flags = options.precision.calibration == nil ? "" : " --precision \(options.precision.name)"
        if options.gemm != .openblas { flags += " --gemm \(options.gemm.rawValue)" }
        var text = "\nconvolutions with --conv-algorithm \(options.convolutionAlgorithm.rawValue)\(flags):\n"
        let width = max(11, methods.compactMap { $0.map(options.routeName)?.count }.max() ?? 0)
        text += "layer  " + "method".padding(toLength: width, withPad: " ", startingAt: 0) + "  parameters MB\n"
        var total = 0, plain = 0
        for layer in model.layers {
            guard let method = methods[layer.index] else {
                // Connected, local, batchnorm…: held as darknet stores them.
                let stored = WeightsReader.parameterBytes(of: layer, in: model)
                (total, plain) = (total + stored, plain + stored)
                continue
            }
            let bytes = model.parameterBytes(ofLayer: layer.index, method: method)
            total += bytes
            plain += model.parameterBytes(ofLayer: layer.index, method: .im2col)
            let name = options.routeName(method).padding(toLength: width, withPad: " ", startingAt: 0)
            text += String(format: "%5d  ", layer.index) + name + String(format: "  %13.3f\n", Double(bytes) / 1e6)
        }
        let count = methods.compactMap { $0 }.filter { $0.isWinograd }.count
        let int8 = methods.filter { $0 == .int8 }.count
        text += String(format: "total %.1f MB of parameters (%.1f MB as darknet stores them); %d Winograd layers",
                       Double(total) / 1e6, Double(plain) / 1e6, count)
        text += options.precision.calibration == nil ? "\n" : ", \(int8) int8 layers\n"
        text += String(format: "activations %.1f MB, workspace %.1f MB (one image)\n",
                       Double(model.activationBytes()) / 1e6, Double(model.workspaceBytes(methods: methods, options: options)) / 1e6)
        // What `auto` chooses depends on it (`ModelDescription.convolutionMethods`).
        text += "packed weights: \(options.packedKernel ?? "none, cblas_sgemm only")\n"
        return text
    }
}
