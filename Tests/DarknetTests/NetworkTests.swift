import Foundation
import TestSupport
import XCTest
#if canImport(Glibc)
import Glibc
#endif
@testable import Darknet

final class NetworkTests: XCTestCase {
    /// After the first call, `forwardViews` allocates nothing: the arena does not move, the
    /// returned views are the same pointers into it, and glibc's bytes in use (`malloc_info`;
    /// one thread) do not grow over ten calls. (A malloc freed again within the same call is
    /// invisible to that count; the identity checks catch buffers that would be reallocated.)
    /// The count is the whole process's: in one run of the full suite in CI (2026-11-24) it grew
    /// by 16,400 bytes once where the test alone never moved it, so the test takes the least
    /// growth of three rounds of ten calls; anything `forward` keeps per call raises every round.
    func testForwardViewsAllocatesNothingAfterTheFirstCall() throws {
        let model = try ModelDescription(contentsOf: try TestData.cfg("yolov3-tiny"), width: 128, height: 128)
        let bytes = SyntheticWeights.bytes(for: model, seed: 4)
        let weights = try bytes.withUnsafeBytes { try WeightsReader.read($0, file: "synthetic", for: model) }
        let network = try Network(model: model, weights: weights, options: ExecutionOptions(threads: 1))
        let input = SyntheticWeights.input(model.inputShape)
        try input.withUnsafeBufferPointer { input in
            let first = try network.forwardViews(input)
            let arena = network.arenaBase
            XCTAssertEqual(first.count, 2)
            #if canImport(Glibc)
            let report = UnsafeMutableBufferPointer<CChar>.allocate(capacity: 1 << 16)
            defer { report.deallocate() }
            for _ in 0..<3 { _ = Self.heapInUse(report) }
            var growths: [Int] = []
            growths.reserveCapacity(3)
            #endif
            for _ in 0..<3 {
                #if canImport(Glibc)
                let before = Self.heapInUse(report)
                #endif
                for _ in 0..<10 {
                    let views = try network.forwardViews(input)
                    XCTAssertEqual(views.map(\.baseAddress), first.map(\.baseAddress))
                    XCTAssertEqual(network.arenaBase, arena)
                }
                #if canImport(Glibc)
                growths.append(Self.heapInUse(report) - before)
                #endif
            }
            #if canImport(Glibc)
            // XCTest's own bookkeeping moves a few hundred bytes; any tensor forward kept would
            // be ≥ 16 KB (the smallest output here, 255×4×4 floats) and ten calls keep ten.
            XCTAssertLessThan(growths.min()!, 4096, "forwardViews kept \(growths) bytes over rounds of 10 calls")
            #endif
            // The views hold what `forward` returns.
            let copied = try network.forward(Array(input))
            let views = try network.forwardViews(input)
            XCTAssertEqual(copied.map(\.values), views.map { Array($0) })
            for view in views {
                let offset = UnsafePointer(arena).distance(to: view.baseAddress!)
                XCTAssertTrue(offset >= 0 && offset + view.count <= network.plan.arenaFloats)
            }
        }
    }

    #if canImport(Glibc)
    /// glibc's `malloc_info(0, …)` XML (looked up with `dlsym`: Glibc's module map does not
    /// export <malloc.h>), written into `buffer`, allocated by the caller before measuring.
    static func heapReport(_ buffer: UnsafeMutableBufferPointer<CChar>) -> String {
        typealias MallocInfo = @convention(c) (Int32, UnsafeMutablePointer<FILE>?) -> Int32
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "malloc_info") else { return "no malloc_info" }
        let mallocInfo = unsafeBitCast(symbol, to: MallocInfo.self)
        buffer.update(repeating: 0)
        guard let file = fmemopen(buffer.baseAddress, buffer.count - 1, "w") else { return "fmemopen failed" }
        _ = mallocInfo(0, file)
        fclose(file)
        return String(cString: buffer.baseAddress!)
    }

    /// Bytes in use on the heap per `malloc_info`: the arenas' current size plus mmapped
    /// chunks, minus their free chunks (the totals at the end of the report).
    static func heapInUse(_ buffer: UnsafeMutableBufferPointer<CChar>) -> Int {
        let report = heapReport(buffer)
        guard let totals = report.range(of: "</heap>", options: .backwards) else { return -1 }
        // e.g. `<total type="rest" count="5" size="1234"/>`: the number after the tag's `size="`.
        func size(_ tag: String) -> Int {
            guard let start = report.range(of: tag, range: totals.upperBound..<report.endIndex),
                  let sizeKey = report.range(of: "size=\"", range: start.upperBound..<report.endIndex),
                  let quote = report[sizeKey.upperBound...].firstIndex(of: "\"") else { return 0 }
            return Int(report[sizeKey.upperBound..<quote]) ?? 0
        }
        return size("<system type=\"current\"") + size("<total type=\"mmap\"")
            - size("<total type=\"fast\"") - size("<total type=\"rest\"")
    }
    #endif

    /// Every buffer the network allocates, and so every block of the plan (whose offsets are
    /// rounded to 16 floats), starts on a 64-byte cache line: OpenBLAS's 64-byte loads of a
    /// tensor must not straddle two lines. Small and large sizes, since malloc serves them
    /// differently.
    func testBuffersStartOnCacheLines() throws {
        let line = MemoryPlan.alignment * MemoryLayout<Float>.stride
        XCTAssertEqual(line, 64)
        func onLine(_ pointer: UnsafeMutablePointer<Float>) -> Bool { UInt(bitPattern: pointer) % UInt(line) == 0 }
        for (size, batch) in [(32, 2), (128, 1), (416, 2)] {
            let model = try ModelDescription(contentsOf: try TestData.cfg("yolov3-tiny"), width: size, height: size)
            let bytes = SyntheticWeights.bytes(for: model, seed: 4)
            let weights = try bytes.withUnsafeBytes { try WeightsReader.read($0, file: "synthetic", for: model) }
            let network = try Network(model: model, weights: weights, options: ExecutionOptions(threads: 1), batch: batch)
            let (workspace, batchInput) = network.scratchBases
            XCTAssertTrue(onLine(network.arenaBase), "arena at \(network.arenaBase), \(size)×\(size)")
            XCTAssertTrue(onLine(workspace), "workspace at \(workspace), \(size)×\(size)")
            XCTAssertEqual(batchInput == nil, batch == 1)
            if let batchInput { XCTAssertTrue(onLine(batchInput), "batch input at \(batchInput), \(size)×\(size)") }
            XCTAssertFalse(network.plan.blocks.isEmpty)
            for block in network.plan.blocks {
                XCTAssertTrue(onLine(network.arenaBase + block.offset), "a block at float \(block.offset), \(size)×\(size)")
            }
        }
    }

    func testForwardViewsRejectsAWrongInputSize() throws {
        let model = try ModelDescription(text: "[net]\nwidth=4\nheight=4\nchannels=1\n[maxpool]\nsize=2\nstride=2\n")
        let network = try Network(model: model, weights: ModelWeights())
        let input = [Float](repeating: 0, count: 15)
        XCTAssertThrowsError(try input.withUnsafeBufferPointer { try network.forwardViews($0) }) { error in
            guard case NetworkError.inputSize(_, 15)? = error as? NetworkError else { return XCTFail("\(error)") }
        }
    }
}
