import COpenBLAS
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The OpenBLAS kernel set ("core") the engine runs on, settled once, before the first product.
///
/// A DYNAMIC_ARCH OpenBLAS picks its core when it loads, from the CPU's vendor, family and
/// model. A CPU newer than the library can get a core far below what it runs: OpenBLAS 0.3.21
/// (Debian 12) has no case for Intel family 6 extended models 11 and 12 (Raptor Lake, Arrow
/// Lake, Emerald Rapids…), and its `get_coretype` falls through to the Pentium 4 case,
/// `Prescott`, an SSE3 kernel. The
/// same library ranks cores by the CPU's features when it does not recognise the CPU at all
/// (`gotoblas_dynamic_init`): AVX-512 with BF16 → `Cooperlake`, AVX-512 → `SkylakeX`, AVX2 →
/// `Haswell`, AVX → `Sandybridge`. `rung(ofCore:)` and `rung(ofFlags:)` are that ranking.
///
/// The rule (`replacement`): when the user has not named a core (`OPENBLAS_CORETYPE`) and
/// OpenBLAS's pick sits on a lower rung than the CPU's features, OpenBLAS is initialised again,
/// through its own `gotoblas_dynamic_init`, on the core of the CPU's rung (or the highest the
/// library has below it). `OPENBLAS_CORETYPE` is set for that call only. A core the user named,
/// a core outside the ranking (another architecture, another BLAS) and a pick already on the
/// CPU's rung are left as they are. If OpenBLAS does not end on a higher rung, its own pick is
/// restored.
package enum BLASCore {
    /// What OpenBLAS picked and what the engine runs on.
    package struct Choice: Sendable, Equatable {
        /// The core OpenBLAS picked when it loaded (`openblas_get_corename`).
        package var picked: String
        /// The core OpenBLAS runs now.
        package var running: String
        /// Why `running` is not `picked`, or why a replacement failed; nil when nothing was tried.
        package var note: String?
    }

    /// Settled on first use; every path into OpenBLAS goes through `GEMM`, which reads it first.
    package static let choice: Choice = settle()

    /// Whether the running core's sgemm kernels give an element of C the same bits wherever its
    /// call's rows and columns are cut (at multiples of 16): so with the AVX-512 cores' kernels
    /// (`PackedGEMM.smallKernelCores`, 0.3.21's `KERNEL.SKYLAKEX`), not with `Haswell`'s, `Zen`'s
    /// or `Prescott`'s (GEMM.swift). The engine cuts by shape alone, so its bits never depend on
    /// the thread count; two routes that cut one product differently (bands and passes, a fused
    /// pool and a pool apart) agree bit for bit only here.
    package static var ignoresTheCut: Bool { PackedGEMM.smallKernelCores.contains(choice.running.uppercased()) }

    /// The core the rule puts in place of `picked`, or nil to keep it.
    ///
    /// - `userNamed`: `OPENBLAS_CORETYPE` is set (the user's choice stands).
    /// - `flags`: the CPU's feature flags, as Linux's /proc/cpuinfo spells them.
    /// - `available`: whether the library has a core (its `gotoblas_<CORE>` table).
    package static func replacement(picked: String, flags: Set<String>, userNamed: Bool,
                                    available: (String) -> Bool) -> String? {
        guard !userNamed, let pickedRung = rung(ofCore: picked) else { return nil }
        let cpuRung = rung(ofFlags: flags)
        guard cpuRung > pickedRung else { return nil }
        return ladder[(pickedRung + 1)...cpuRung].reversed().first(where: available)
    }

    /// The core each rung of `rung(ofFlags:)` is run on, lowest first.
    static let ladder = ["Prescott", "Sandybridge", "Haswell", "SkylakeX", "Cooperlake"]

    /// What each rung's CPUs have, for the notes.
    static let rungNames = ["SSE3", "AVX", "AVX2", "AVX-512", "AVX-512 with BF16"]

    /// A core's rung on `ladder` by the instructions its kernels use (OpenBLAS 0.3.21's x86-64
    /// cores); nil for a name outside it.
    package static func rung(ofCore name: String) -> Int? {
        switch name.lowercased() {
        case "cooperlake", "sapphirerapids": 4
        case "skylakex": 3
        case "haswell", "zen", "excavator": 2
        case "sandybridge", "bulldozer", "piledriver", "steamroller": 1
        case "prescott", "core2", "penryn", "dunnington", "nehalem", "atom", "nano", "barcelona",
             "opteron", "opteron_sse3", "bobcat", "katmai", "coppermine", "northwood", "banias", "athlon": 0
        default: nil
        }
    }

    /// The CPU's rung by its features, as OpenBLAS 0.3.21 ranks an unknown CPU: AVX-512 means
    /// F, CD, BW, DQ and VL (what `SkylakeX`'s kernels use; Linux lists a flag only when the OS
    /// saves its registers), BF16 is `avx512_bf16`, AVX2 needs FMA too.
    package static func rung(ofFlags flags: Set<String>) -> Int {
        let avx512: Set = ["avx512f", "avx512cd", "avx512bw", "avx512dq", "avx512vl"]
        if avx512.isSubset(of: flags) { return flags.contains("avx512_bf16") ? 4 : 3 }
        if flags.contains("avx2") && flags.contains("fma") { return 2 }
        return flags.contains("avx") ? 1 : 0
    }

    /// The words after `flags :` on the first such line of a /proc/cpuinfo text.
    package static func flags(fromCPUInfo text: String) -> Set<String> {
        for line in text.split(separator: "\n") where line.hasPrefix("flags") {
            guard let colon = line.firstIndex(of: ":") else { continue }
            return Set(line[line.index(after: colon)...].split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\n" })
                .map(String.init))
        }
        return []
    }

    /// A symbol among the process's global ones (OpenBLAS is linked, so its internals are there
    /// too), or nil: `dlsym(RTLD_DEFAULT, name)`, whose handle is null on Linux and −2 on Darwin.
    static func symbol(_ name: String) -> UnsafeMutableRawPointer? {
        #if canImport(Darwin)
        dlsym(RTLD_DEFAULT, name)
        #else
        dlsym(nil, name)
        #endif
    }

    static func settle() -> Choice {
        let picked = currentCore()
        let cpuFlags = flags(fromCPUInfo: readCPUInfo())
        let features = rungNames[rung(ofFlags: cpuFlags)]
        guard let wanted = replacement(picked: picked, flags: cpuFlags,
                                       userNamed: getenv("OPENBLAS_CORETYPE") != nil,
                                       available: { symbol("gotoblas_" + $0.uppercased()) != nil })
        else { return Choice(picked: picked, running: picked, note: nil) }
        typealias Call = @convention(c) () -> Void
        guard let quitSymbol = symbol("gotoblas_dynamic_quit"), let initSymbol = symbol("gotoblas_dynamic_init") else {
            return Choice(picked: picked, running: picked,
                          note: "OpenBLAS picked \(picked) for this CPU, which has \(features), and cannot be initialised again")
        }
        let quit = unsafeBitCast(quitSymbol, to: Call.self), initialise = unsafeBitCast(initSymbol, to: Call.self)
        setenv("OPENBLAS_CORETYPE", wanted, 1)
        quit()
        initialise()
        unsetenv("OPENBLAS_CORETYPE")
        let running = currentCore()
        if let now = rung(ofCore: running), let before = rung(ofCore: picked), now > before {
            return Choice(picked: picked, running: running,
                          note: "OpenBLAS picked \(picked) for this CPU, which has \(features): running \(running)")
        }
        quit()
        initialise()
        return Choice(picked: picked, running: currentCore(),
                      note: "OpenBLAS picked \(picked) for this CPU, which has \(features); asked for \(wanted), it ran \(running), so \(picked) stays")
    }

    static func currentCore() -> String {
        guard let name = openblas_get_corename() else { return "unknown" }
        return String(cString: name)
    }

    /// The first `flags` line of /proc/cpuinfo on Linux; empty elsewhere or when it cannot be read.
    static func readCPUInfo() -> String {
        #if os(Linux)
        guard let file = fopen("/proc/cpuinfo", "r") else { return "" }
        defer { fclose(file) }
        var line: UnsafeMutablePointer<CChar>?
        var capacity = 0
        defer { free(line) }
        while getline(&line, &capacity, file) > 0, let line {
            let text = String(cString: line)
            if text.hasPrefix("flags") { return text }
        }
        #endif
        return ""
    }
}
