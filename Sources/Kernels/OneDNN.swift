#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// oneDNN (Intel's deep-learning library, Apache-2.0), loaded at run time for its integer GEMM
/// (`dnnl_gemm_s8s8s32`) and, for `--gemm onednn`, its `dnnl_sgemm`: nothing is linked, so a
/// build without it, and a user who asks for neither, needs nothing installed. Debian 12 ships
/// 2.6.3 (`libdnnl2`); the GEMM API is the same in 3.x. `DARKNET_SWIFT_ONEDNN` names another
/// file to load (a path or a soname).
///
/// Threads: Debian's build runs its products on OpenMP threads of its own. The engine calls
/// one GEMM per part on each of its own workers (`Int8GEMM`; `GEMM` for `dnnl_sgemm`), each
/// told to run alone (`omp_set_num_threads(1)` on the calling thread before every call), so
/// oneDNN starts no threads and never competes with the worker pool. `OMP_WAIT_POLICY=passive` is set before
/// the library loads, unless the user set it, so that a team another caller starts sleeps
/// instead of spinning when it is idle.
///
/// Exactness: on CPUs with VNNI (`vpdpbusd`) the products are exact for any s8 operands. On
/// the others oneDNN multiplies through `vpmaddubsw`, whose 16-bit sums of pairs saturate when
/// both operands are large; its s8×s8 GEMM is exact there when the second operand stays in
/// −64...63 (7 bits). `loaded` runs both checks (`selfCheck`) and records how many levels the
/// activations may use (`Library.activationLevels`: 255, or 127): the engine's answers are
/// then exact integer products on every CPU, or int8 is refused with the reason.
package enum OneDNN {
    typealias GEMMs8s8s32 = @convention(c) (CChar, CChar, CChar, Int, Int, Int, Float, UnsafePointer<Int8>?, Int, Int8,
                                             UnsafePointer<Int8>?, Int, Int8, Float, UnsafeMutablePointer<Int32>?, Int,
                                             UnsafePointer<Int32>?) -> Int32
    typealias GEMMu8s8s32 = @convention(c) (CChar, CChar, CChar, Int, Int, Int, Float, UnsafePointer<UInt8>?, Int, UInt8,
                                             UnsafePointer<Int8>?, Int, Int8, Float, UnsafeMutablePointer<Int32>?, Int,
                                             UnsafePointer<Int32>?) -> Int32
    typealias SGEMM = @convention(c) (CChar, CChar, Int, Int, Int, Float, UnsafePointer<Float>?, Int, UnsafePointer<Float>?,
                                      Int, Float, UnsafeMutablePointer<Float>?, Int) -> Int32
    typealias SetThreads = @convention(c) (Int32) -> Void

    /// The loaded library and what its self-check found.
    package struct Library: @unchecked Sendable {
        let gemmS8S8S32: GEMMs8s8s32
        let gemmU8S8S32: GEMMu8s8s32
        let sgemm: SGEMM
        let setThreads: SetThreads?
        /// The file loaded (`libdnnl.so.2`).
        package let file: String
        /// `2.6.3`.
        package let version: String
        /// The instruction set oneDNN dispatches to (`avx512_core_vnni`), `dnnl_get_effective_cpu_isa`'s name.
        package let isa: String
        /// Quantized activations lie in `0...activationLevels` (stored as that minus
        /// `activationOffset`): 255 where the products are exact on full bytes, 127 where only
        /// 7-bit activations are (see `OneDNN`).
        package let activationLevels: Int32
        /// What is subtracted from a quantized activation to store it as `Int8`: 128 or 64.
        package var activationOffset: Int32 { (activationLevels + 1) / 2 }

        /// `C[m×n] = A[m×k] · B[k×n]` in Int32 on the calling thread alone (row-major, `lda`,
        /// `ldb`, `ldc` the row pitches): `dnnl_gemm_s8s8s32` with no offsets, α = 1, β = 0.
        package func multiply(m: Int, n: Int, k: Int, a: UnsafePointer<Int8>, lda: Int, b: UnsafePointer<Int8>, ldb: Int,
                              c: UnsafeMutablePointer<Int32>, ldc: Int) {
            setThreads?(1)
            var offset: Int32 = 0
            let status = gemmS8S8S32(CChar(UInt8(ascii: "N")), CChar(UInt8(ascii: "N")), CChar(UInt8(ascii: "F")), m, n, k, 1,
                                     a, lda, 0, b, ldb, 0, 0, c, ldc, &offset)
            precondition(status == 0, "dnnl_gemm_s8s8s32 failed (status \(status)) on \(m)×\(n)×\(k)")
        }

        /// `C[m×n] = Aᵀ · Bᵀ` in Int32 on the calling thread alone, `A` stored `k × m` (UInt8,
        /// pitch `lda`), `B` stored `n × k` (Int8, pitch `ldb`): `dnnl_gemm_u8s8s32` transposing
        /// both, no offsets. With `A` the unfolded input and `B` the weights, C is the
        /// convolution's output transposed (`Int8GEMM.multiplyTransposed`).
        package func multiplyTransposed(m: Int, n: Int, k: Int, a: UnsafePointer<UInt8>, lda: Int, b: UnsafePointer<Int8>, ldb: Int,
                                        c: UnsafeMutablePointer<Int32>, ldc: Int) {
            setThreads?(1)
            var offset: Int32 = 0
            let status = gemmU8S8S32(CChar(UInt8(ascii: "T")), CChar(UInt8(ascii: "T")), CChar(UInt8(ascii: "F")), m, n, k, 1,
                                     a, lda, 0, b, ldb, 0, 0, c, ldc, &offset)
            precondition(status == 0, "dnnl_gemm_u8s8s32 failed (status \(status)) on \(m)×\(n)×\(k)")
        }

        /// `C[m×n] = A[m×k] · B[k×n] (+ C when accumulate)` in Float on the calling thread alone:
        /// `dnnl_sgemm` with β = 0 (or 1). Its bits depend only on the operands and the shape,
        /// since oneDNN is told to use one thread on every call (`GEMM` cuts the parts by shape).
        package func multiply(m: Int, n: Int, k: Int, a: UnsafePointer<Float>, lda: Int, b: UnsafePointer<Float>, ldb: Int,
                              c: UnsafeMutablePointer<Float>, ldc: Int, accumulate: Bool = false) {
            setThreads?(1)
            let status = sgemm(CChar(UInt8(ascii: "N")), CChar(UInt8(ascii: "N")), m, n, k, 1, a, lda, b, ldb,
                               accumulate ? 1 : 0, c, ldc)
            precondition(status == 0, "dnnl_sgemm failed (status \(status)) on \(m)×\(n)×\(k)")
        }
    }

    /// The library for int8, or why there is none (one line, naming what to install): loaded,
    /// and its integer products exact in the self-check.
    package static let loaded: Result<Library, Unavailable> = opened.flatMap(checked)

    /// The library, nil when it is missing or failed its self-check.
    package static var library: Library? { try? loaded.get() }

    /// The library for `dnnl_sgemm` alone (f32, `--gemm onednn`), or why there is none: loaded
    /// with its functions, whatever the int8 self-check found (f32 products need no exactness).
    package static let sgemmLibrary: Result<Library, Unavailable> = opened

    /// Why int8 (or `dnnl_sgemm`) cannot run: the sentence for an error message.
    package struct Unavailable: Error, Sendable, Equatable, CustomStringConvertible {
        package var reason: String
        package var description: String { reason }
    }

    /// Files tried in turn (Linux sonames of 2.x and 3.x, then macOS's).
    static let candidates = ["libdnnl.so.2", "libdnnl.so.3", "libdnnl.2.dylib", "libdnnl.3.dylib"]

    /// The file opened and its functions found, not yet self-checked (`activationLevels` 255).
    private static let opened: Result<Library, Unavailable> = open()

    static func open() -> Result<Library, Unavailable> {
        setenv("OMP_WAIT_POLICY", "passive", 0)
        let named = getenv("DARKNET_SWIFT_ONEDNN").map { String(cString: $0) }.flatMap { $0.isEmpty ? nil : $0 }
        var handle: UnsafeMutableRawPointer?
        var file = ""
        for name in named.map({ [$0] }) ?? candidates {
            handle = dlopen(name, RTLD_NOW | RTLD_LOCAL)
            file = name
            if handle != nil { break }
        }
        guard let handle else {
            let tried = named.map { "\($0) (DARKNET_SWIFT_ONEDNN)" } ?? candidates[0]
            return .failure(Unavailable(reason: "oneDNN is not installed (\(tried) not found): run tools/install-deps --int8 (Debian: apt-get install libdnnl2)"))
        }
        func symbol<T>(_ name: String, as type: T.Type) -> T? {
            dlsym(handle, name).map { unsafeBitCast($0, to: type) }
        }
        typealias ISA = @convention(c) () -> Int32
        typealias Version = @convention(c) () -> UnsafeRawPointer?
        guard let gemm = symbol("dnnl_gemm_s8s8s32", as: GEMMs8s8s32.self), let sgemm = symbol("dnnl_sgemm", as: SGEMM.self),
              let unsigned = symbol("dnnl_gemm_u8s8s32", as: GEMMu8s8s32.self),
              let isa = symbol("dnnl_get_effective_cpu_isa", as: ISA.self), let version = symbol("dnnl_version", as: Version.self)
        else { return .failure(Unavailable(reason: "\(file) lacks oneDNN's GEMM functions (dnnl_gemm_s8s8s32, dnnl_gemm_u8s8s32, dnnl_sgemm)")) }
        // dnnl_version_t starts with three ints: major, minor, patch.
        let numbers = version().map { v in (0..<3).map { v.load(fromByteOffset: 4 * $0, as: Int32.self) } } ?? []
        return .success(Library(gemmS8S8S32: gemm, gemmU8S8S32: unsigned, sgemm: sgemm,
                                setThreads: symbol("omp_set_num_threads", as: SetThreads.self), file: file,
                                version: numbers.map(String.init).joined(separator: "."), isa: isaName(isa()), activationLevels: 255))
    }

    /// `opened` with the activation levels its integer products are exact on (see `OneDNN`),
    /// or the reason int8 cannot run on this CPU.
    static func checked(_ opened: Library) -> Result<Library, Unavailable> {
        if selfCheck(opened, activationRange: -128...127) { return .success(opened) }
        let library = Library(gemmS8S8S32: opened.gemmS8S8S32, gemmU8S8S32: opened.gemmU8S8S32, sgemm: opened.sgemm,
                          setThreads: opened.setThreads, file: opened.file, version: opened.version, isa: opened.isa,
                          activationLevels: 127)
        if selfCheck(library, activationRange: -64...63) { return .success(library) }
        return .failure(Unavailable(reason: "oneDNN \(library.version)'s int8 GEMM gave wrong products in its self-check on this CPU (\(library.isa))"))
    }

    /// `dnnl_cpu_isa_t`'s values as oneDNN names them.
    static func isaName(_ value: Int32) -> String {
        switch value {
        case 0x1: "sse41"
        case 0x3: "avx"
        case 0x7: "avx2"
        case 0x407: "avx2_vnni"
        case 0x27: "avx512_core"
        case 0x67: "avx512_core_vnni"
        case 0xE7: "avx512_core_bf16"
        case 0x3E7: "avx512_core_amx"
        default: "isa 0x" + String(value, radix: 16)
        }
    }

    /// True when both products the engine calls are exact with weights at ±127 and activations
    /// at the ends of `activationRange` (the worst case for saturating pair sums), on a shape
    /// that takes the library's blocked kernels (several panels in every dimension): s8×s8 with
    /// the activations stored signed, and u8×s8 with them unsigned (shifted up by the range's
    /// lower end, as `Quantization` stores them for `multiplyTransposed`).
    static func selfCheck(_ library: Library, activationRange: ClosedRange<Int8>) -> Bool {
        let (m, n, k) = (48, 80, 160)
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        func bit() -> Bool {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return state >> 63 == 1
        }
        let a = (0..<(m * k)).map { _ in bit() ? Int8(127) : Int8(-127) }
        let b = (0..<(k * n)).map { _ in bit() ? activationRange.upperBound : activationRange.lowerBound }
        var c = [Int32](repeating: 0, count: m * n), transposed = c
        let shift = -Int(activationRange.lowerBound)
        let unsigned = b.map { UInt8(Int($0) + shift) }
        a.withUnsafeBufferPointer { a in
            c.withUnsafeMutableBufferPointer { c in
                b.withUnsafeBufferPointer { b in
                    library.multiply(m: m, n: n, k: k, a: a.baseAddress!, lda: k, b: b.baseAddress!, ldb: n, c: c.baseAddress!, ldc: n)
                }
            }
            // Cᵀ (n × m) = Bᵀ · Aᵀ, with B unsigned stored k × n and A stored m × k.
            transposed.withUnsafeMutableBufferPointer { t in
                unsigned.withUnsafeBufferPointer { u in
                    library.multiplyTransposed(m: n, n: m, k: k, a: u.baseAddress!, lda: n, b: a.baseAddress!, ldb: k,
                                               c: t.baseAddress!, ldc: m)
                }
            }
        }
        let reference = Int8GEMM.reference(m: m, n: n, k: k, a: a, b: b)
        let rowSums = (0..<m).map { i in a[(i * k)..<((i + 1) * k)].reduce(0) { $0 + Int($1) } }
        let unsignedMatches = (0..<m).allSatisfy { i in
            (0..<n).allSatisfy { j in Int(transposed[j * m + i]) == Int(reference[i * n + j]) + shift * rowSums[i] }
        }
        return c == reference && unsignedMatches
    }
}
