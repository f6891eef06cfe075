import Kernels

/// The arithmetic a network's convolutions run in (`ExecutionOptions.precision`).
public enum Precision: Sendable, Hashable {
    /// Single-precision floats everywhere: darknet's answers within float rounding.
    case f32
    /// The convolutions `calibration` marks `int8` run on 8-bit integers (`Int8Convolution`):
    /// u8 activations × s8 weights summed exactly in 32 bits by oneDNN's GEMM, each layer's
    /// input quantized with the calibration's scale and zero point and its output turned back
    /// into floats with bias, activation and residual; every other layer runs in f32. Needs
    /// oneDNN at run time (`OneDNN`); the calibration must be the model's (its checksums).
    case int8(Calibration)

    /// `f32` or `int8`, as `--precision` spells it.
    public var name: String {
        switch self {
        case .f32: "f32"
        case .int8: "int8"
        }
    }

    /// The calibration, for `int8`.
    public var calibration: Calibration? {
        if case .int8(let calibration) = self { return calibration }
        return nil
    }
}

extension Precision {
    /// For `int8`: that oneDNN loaded, and that the calibration is `model`'s (its cfg's
    /// checksum, the weights' checksum, its layers); nothing for `f32`. `weightsSHA256` is
    /// called only then; nil: the weights came as values, which cannot be checked, so int8 is refused.
    func check(_ model: ModelDescription, weightsFile: String, weightsSHA256: () -> String?) throws(Int8Error) {
        guard case .int8(let calibration) = self else { return }
        if case .failure(let unavailable) = OneDNN.loaded { throw .unavailable(reason: unavailable.reason) }
        try calibration.check(model, weightsFile: weightsFile, weightsSHA256: weightsSHA256())
    }
}

extension Precision {
    /// What `int8` runs on in this process (`oneDNN 2.6.3 (libdnnl.so.2), avx512_core_vnni,
    /// 256-level activations`), or why it cannot run (`Int8Error.unavailable`).
    public static var int8Support: Result<String, Int8Error> {
        switch OneDNN.loaded {
        case .success(let library):
            .success("oneDNN \(library.version) (\(library.file)), \(library.isa), \(library.activationLevels + 1)-level activations")
        case .failure(let unavailable): .failure(.unavailable(reason: unavailable.reason))
        }
    }
}
