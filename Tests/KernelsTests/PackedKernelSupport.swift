@testable import Kernels
import Foundation
import TestSupport
import XCTest

/// The packed kernel the packed-GEMM tests drive. Missing it is a failure on a CPU with AVX2 or
/// more whose core the user did not name (the engine should run a core with one there:
/// `BLASCore`), and a skip, with the reason, where the core has none (an older CPU, or
/// `OPENBLAS_CORETYPE` naming such a core).
enum PackedKernelSupport {
    struct Missing: Error, CustomStringConvertible {
        var description: String
    }

    static func kernel() throws -> PackedGEMM.Kernel {
        if let kernel = PackedGEMM.kernel { return kernel }
        let named = ProcessInfo.processInfo.environment["OPENBLAS_CORETYPE"]
        let rung = BLASCore.rung(ofFlags: BLASCore.flags(fromCPUInfo: BLASCore.readCPUInfo()))
        if named != nil || rung < 2 {
            throw Skip.because("OpenBLAS's \(GEMM.coreName) core has no packed kernel here"
                               + (named.map { " (OPENBLAS_CORETYPE=\($0))" } ?? " (a CPU without AVX2)"))
        }
        throw Missing(description: "no packed kernel for OpenBLAS's \(GEMM.coreName) core on a CPU with "
                      + "\(BLASCore.rungNames[rung]): \(BLASCore.choice)")
    }
}
