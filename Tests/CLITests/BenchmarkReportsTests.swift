@testable import darknet_swift
import XCTest

final class BenchmarkReportsTests: XCTestCase {
    func testCSVFieldsAreQuotedOnlyWhenNeeded() {
        XCTAssertEqual(BenchmarkCSV.field("layers 85 61"), "layers 85 61")
        XCTAssertEqual(BenchmarkCSV.field("a,b"), "\"a,b\"")
        XCTAssertEqual(BenchmarkCSV.field("say \"hi\""), "\"say \"\"hi\"\"\"")
    }

    func testMillisecondsKeepThreeSignificantDecimalsWhenSmall() {
        XCTAssertEqual(BenchmarkTable.ms(0.0012344), "1.234")
        XCTAssertEqual(BenchmarkTable.ms(0.0123456), "12.35")
    }
}

/// `benchmark`'s load reading and unsteady flag, on given numbers (the CLI tests check the
/// fields exist; nothing here times anything).
final class BenchmarkSteadinessTests: XCTestCase {
    /// Two /proc/stat readings 400 ticks of two CPUs apart: 300 busy ticks (user, nice, system,
    /// irq, softirq, steal; guest time is inside user), of which this process's 1.2 s = 120.
    func testLoadIsOtherProcessesBusyTicksOverAllTicks() throws {
        let before = """
        cpu  1000 10 200 5000 50 5 5 0 7 0
        cpu0 500 5 100 2500 25 3 2 0 7 0
        cpu1 500 5 100 2500 25 2 3 0 0 0
        intr 1 2 3
        """
        let after = """
        cpu  1220 20 262 5090 60 7 8 3 9 0
        cpu0 610 10 131 2545 30 4 4 2 9 0
        cpu1 610 10 131 2545 30 3 4 1 0 0
        """
        let start = try XCTUnwrap(MachineLoad.sample(procStat: before, ownSeconds: 3.0))
        XCTAssertEqual(start, MachineLoad.Sample(busyTicks: 1220, totalTicks: 6270, cores: 2, ownSeconds: 3.0))
        let end = try XCTUnwrap(MachineLoad.sample(procStat: after, ownSeconds: 4.2))
        let load = try XCTUnwrap(MachineLoad.between(start, end, ticksPerSecond: 100))
        XCTAssertEqual(load.cores, 2)
        XCTAssertEqual(load.otherBusyCores, 180.0 / 400 * 2, accuracy: 1e-12)
        XCTAssertEqual(load.ownBusyCores, 120.0 / 400 * 2, accuracy: 1e-12)
        // This process's time counted more finely than the ticks: never below 0 for the others.
        let quiet = try XCTUnwrap(MachineLoad.between(start, end, ticksPerSecond: 1000))
        XCTAssertEqual(quiet.otherBusyCores, 0)
        XCTAssertEqual(quiet.ownBusyCores, 300.0 / 400 * 2, accuracy: 1e-12)
        // No tick passed, or a text without a full `cpu` line: no reading.
        XCTAssertNil(MachineLoad.between(start, start, ticksPerSecond: 100))
        XCTAssertNil(MachineLoad.sample(procStat: "cpu0 1 2 3\nintr 4\n", ownSeconds: 0))
        XCTAssertNil(MachineLoad.sample(procStat: "cpu  1 2 3 4 5\n", ownSeconds: 0))
    }

    /// `(p90 − fastest) / fastest` with the nearest-rank p90, flagged above 10%.
    func testSpreadAndTheUnsteadyFlag() {
        XCTAssertEqual(BenchmarkResult.spread([0.1]), 0, "one run cannot tell")
        XCTAssertEqual(BenchmarkResult.spread([]), 0)
        XCTAssertEqual(BenchmarkResult.spread([0.100, 0.105, 0.102]), 0.05, accuracy: 1e-12)
        // Ten runs: the p90 is the ninth fastest, so one slow outlier does not count.
        let ten = [0.100, 0.101, 0.102, 0.103, 0.104, 0.105, 0.106, 0.107, 0.108, 0.300]
        XCTAssertEqual(BenchmarkResult.spread(ten), 0.08, accuracy: 1e-12)
        var result = BenchmarkResult(machine: machine, cfg: "x.cfg", width: 32, height: 32, weights: "synthetic (seed 1)",
                                     warmup: 0, rows: [], endToEnd: ten, layerSums: ten)
        XCTAssertFalse(result.isUnsteady)
        XCTAssertEqual(BenchmarkTable.steadiness(result),
                       "busy        unknown (no /proc/stat)\nspread      end-to-end p90 is 8.0% above the fastest pass (bound 10%): steady\n")
        result.endToEnd = [0.100, 0.100, 0.100, 0.100, 0.100, 0.100, 0.100, 0.100, 0.111, 0.300]
        result.load = MachineLoad(cores: 2, otherBusyCores: 1.25, ownBusyCores: 0.75)
        XCTAssertTrue(result.isUnsteady)
        XCTAssertEqual(BenchmarkTable.steadiness(result), "busy        other processes kept 1.25 of 2 cores busy during the runs; this one 0.75\n"
                       + "spread      UNSTEADY: end-to-end p90 is 11.0% above the fastest pass (bound 10%): the passes vary too much to trust; rerun on a quieter machine\n")
        result.endToEnd = [0.1]
        XCTAssertEqual(BenchmarkTable.steadiness(result).split(separator: "\n").last, "spread      one run: its steadiness is unknown")
    }

    private var machine: Machine {
        Machine(date: "d", commit: "c", cpu: "cpu", cores: 2, blas: "b", blasCore: "k", blasCoreNote: nil, packedKernel: nil,
                threads: 2, peakGflops: nil)
    }
}
