@testable import Kernels
import XCTest
#if canImport(Glibc)
import Glibc
#endif

/// The convolutions' lap timer (`PhaseTimer`).
final class TimingTests: XCTestCase {
    /// The lap timer puts the time since its previous lap into the named phase.
    func testPhaseTimerLaps() {
        var timer = PhaseTimer()
        timer.lap(\.im2col)
        timer.lap(\.gemm)
        timer.lap(\.gemm)
        XCTAssertGreaterThanOrEqual(timer.phases.im2col, 0)
        XCTAssertGreaterThanOrEqual(timer.phases.gemm, 0)
        XCTAssertEqual(timer.phases.epilogue, 0, "never lapped")
        XCTAssertEqual(timer.phases.total, timer.phases.im2col + timer.phases.gemm)
    }

    /// The banded layers' phases: each phase's mean over the workers that spent any time.
    func testMeanOverTheWorkersThatRan() {
        var spent = [ConvolutionPhases(im2col: 1, gemm: 4, epilogue: 0.5), ConvolutionPhases(im2col: 3, gemm: 2, epilogue: 0.5),
                     ConvolutionPhases()]
        let mean = spent.withUnsafeBufferPointer { ConvolutionPhases.mean(ofWorkers: $0) }
        XCTAssertEqual(mean, ConvolutionPhases(im2col: 2, gemm: 3, epilogue: 0.5))
        let none = [ConvolutionPhases()]
        XCTAssertEqual(none.withUnsafeBufferPointer { ConvolutionPhases.mean(ofWorkers: $0) }, ConvolutionPhases())
        spent[2] += ConvolutionPhases(im2col: 2, gemm: 3, epilogue: 0.5)
        XCTAssertEqual(spent[2], ConvolutionPhases(im2col: 2, gemm: 3, epilogue: 0.5))
    }

    /// A lap shared among three phases (`Im2colBands`): the shares go to their phases, capped so
    /// the three add up to the lap, and the rest to the main phase.
    func testLapSharedAmongThreePhases() {
        var timer = PhaseTimer()
        usleep(20_000)
        timer.lap(\.gemm, shares: (\.im2col, 0.004), (\.epilogue, 0.002))
        XCTAssertEqual(timer.phases.im2col, 0.004)
        XCTAssertEqual(timer.phases.epilogue, 0.002)
        XCTAssertGreaterThanOrEqual(timer.phases.gemm, 0.014 - 1e-9)
        var capped = PhaseTimer()
        capped.lap(\.gemm, shares: (\.im2col, 1000), (\.epilogue, 1000))
        XCTAssertEqual(capped.phases.epilogue, 0, "nothing left of the lap")
        XCTAssertEqual(capped.phases.gemm, 0)
        XCTAssertGreaterThan(capped.phases.im2col, 0)
        XCTAssertLessThan(capped.phases.im2col, 1)
    }
}
