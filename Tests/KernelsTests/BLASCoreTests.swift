@testable import Kernels
import XCTest

final class BLASCoreTests: XCTestCase {
    static let avx512: Set<String> = ["avx", "avx2", "fma", "avx512f", "avx512cd", "avx512bw", "avx512dq", "avx512vl"]
    static func everyCore(_ core: String) -> Bool { true }

    /// OpenBLAS 0.3.21 on an Emerald Rapids Xeon picks Prescott; the CPU's features say Cooperlake.
    func testAFallbackBelowTheCPUIsReplacedByTheCPUsRung() {
        let bf16 = Self.avx512.union(["avx512_bf16"])
        XCTAssertEqual(BLASCore.replacement(picked: "Prescott", flags: bf16, userNamed: false, available: Self.everyCore), "Cooperlake")
        XCTAssertEqual(BLASCore.replacement(picked: "Prescott", flags: Self.avx512, userNamed: false, available: Self.everyCore), "SkylakeX")
        XCTAssertEqual(BLASCore.replacement(picked: "Nehalem", flags: ["avx", "avx2", "fma"], userNamed: false, available: Self.everyCore), "Haswell")
        XCTAssertEqual(BLASCore.replacement(picked: "Haswell", flags: bf16, userNamed: false, available: Self.everyCore), "Cooperlake")
        XCTAssertEqual(BLASCore.replacement(picked: "Core2", flags: ["sse3", "avx"], userNamed: false, available: Self.everyCore), "Sandybridge")
    }

    /// A library without the CPU's core gets the highest one it has above the pick, or none.
    func testTheHighestCoreTheLibraryHasIsTaken() {
        let bf16 = Self.avx512.union(["avx512_bf16"])
        XCTAssertEqual(BLASCore.replacement(picked: "Prescott", flags: bf16, userNamed: false,
                                            available: { $0 != "Cooperlake" }), "SkylakeX")
        XCTAssertEqual(BLASCore.replacement(picked: "Prescott", flags: bf16, userNamed: false,
                                            available: { $0 == "Haswell" }), "Haswell")
        XCTAssertNil(BLASCore.replacement(picked: "Haswell", flags: bf16, userNamed: false, available: { $0 == "Haswell" }))
        XCTAssertNil(BLASCore.replacement(picked: "Prescott", flags: bf16, userNamed: false, available: { _ in false }))
    }

    /// Kept: a core the user named, a pick on the CPU's rung or above it, a name outside the ladder.
    func testOtherPicksStand() {
        let bf16 = Self.avx512.union(["avx512_bf16"])
        XCTAssertNil(BLASCore.replacement(picked: "Prescott", flags: bf16, userNamed: true, available: Self.everyCore))
        XCTAssertNil(BLASCore.replacement(picked: "Cooperlake", flags: bf16, userNamed: false, available: Self.everyCore))
        XCTAssertNil(BLASCore.replacement(picked: "Zen", flags: ["avx", "avx2", "fma"], userNamed: false, available: Self.everyCore))
        XCTAssertNil(BLASCore.replacement(picked: "SkylakeX", flags: ["avx", "avx2", "fma"], userNamed: false, available: Self.everyCore),
                     "a pick above what the flags say (flags unread) is never lowered")
        XCTAssertNil(BLASCore.replacement(picked: "Prescott", flags: [], userNamed: false, available: Self.everyCore))
        XCTAssertNil(BLASCore.replacement(picked: "NEOVERSEN1", flags: bf16, userNamed: false, available: Self.everyCore))
        XCTAssertNil(BLASCore.replacement(picked: "unknown", flags: bf16, userNamed: false, available: Self.everyCore))
    }

    /// AVX-512 needs all five of SkylakeX's subsets; AVX2 needs FMA.
    func testTheCPUsRung() {
        XCTAssertEqual(BLASCore.rung(ofFlags: Self.avx512.union(["avx512_bf16"])), 4)
        XCTAssertEqual(BLASCore.rung(ofFlags: Self.avx512), 3)
        XCTAssertEqual(BLASCore.rung(ofFlags: Self.avx512.subtracting(["avx512vl"])), 2)
        XCTAssertEqual(BLASCore.rung(ofFlags: ["avx", "avx2"]), 1)
        XCTAssertEqual(BLASCore.rung(ofFlags: ["sse3"]), 0)
        XCTAssertEqual(BLASCore.rung(ofCore: "COOPERLAKE"), 4, "case does not matter")
        XCTAssertEqual(BLASCore.rung(ofCore: "Zen"), 2)
        XCTAssertNil(BLASCore.rung(ofCore: "Power10"))
        for (rung, core) in BLASCore.ladder.enumerated() { XCTAssertEqual(BLASCore.rung(ofCore: core), rung, core) }
    }

    /// The first processor's `flags` line; nothing when there is none.
    func testFlagsAreReadFromCPUInfo() {
        let text = """
        processor\t: 0
        vendor_id\t: GenuineIntel
        flags\t\t: fpu sse3 avx avx2 fma avx512f avx512_bf16
        bugs\t\t: spectre_v1
        processor\t: 1
        flags\t\t: fpu
        """
        XCTAssertEqual(BLASCore.flags(fromCPUInfo: text), ["fpu", "sse3", "avx", "avx2", "fma", "avx512f", "avx512_bf16"])
        XCTAssertEqual(BLASCore.flags(fromCPUInfo: "processor\t: 0\n"), [])
        XCTAssertEqual(BLASCore.flags(fromCPUInfo: "flags\t\t: avx avx2\n"), ["avx", "avx2"], "the line as read, newline and all")
        #if os(Linux)
        XCTAssertTrue(BLASCore.flags(fromCPUInfo: BLASCore.readCPUInfo()).contains("fpu") || BLASCore.readCPUInfo().isEmpty)
        #endif
    }

    /// What this type is for: on this machine, unless the user named a core, the engine runs a
    /// core on the CPU's rung or above it, and from AVX2 on one with a packed kernel (OpenBLAS
    /// 0.3.21 on an Emerald Rapids Xeon ran Prescott, with none).
    func testThisCPUGetsItsRungsCore() {
        let cpuRung = BLASCore.rung(ofFlags: BLASCore.flags(fromCPUInfo: BLASCore.readCPUInfo()))
        if let named = ProcessInfo.processInfo.environment["OPENBLAS_CORETYPE"] {
            XCTAssertEqual(BLASCore.choice.running, BLASCore.choice.picked, "OPENBLAS_CORETYPE=\(named) stands")
            return
        }
        XCTAssertGreaterThanOrEqual(BLASCore.rung(ofCore: GEMM.coreName) ?? -1, cpuRung, "\(BLASCore.choice)")
        if cpuRung >= 2 { XCTAssertNotNil(PackedGEMM.kernel, "\(BLASCore.choice)") }
    }

    /// On this machine: the engine runs the core OpenBLAS reports, never one below its own pick;
    /// a replacement says why, and one the user named stands.
    func testThisMachinesChoice() {
        let choice = BLASCore.choice
        XCTAssertEqual(choice.running, BLASCore.currentCore())
        XCTAssertEqual(GEMM.coreName, choice.running)
        if ProcessInfo.processInfo.environment["OPENBLAS_CORETYPE"] != nil {
            XCTAssertNil(choice.note)
            XCTAssertEqual(choice.running, choice.picked)
        }
        if choice.running != choice.picked {
            XCTAssertGreaterThan(BLASCore.rung(ofCore: choice.running) ?? -1, BLASCore.rung(ofCore: choice.picked) ?? 5)
            XCTAssertTrue(choice.note?.hasPrefix("OpenBLAS picked \(choice.picked) for this CPU") ?? false, "\(choice)")
        }
    }
}
