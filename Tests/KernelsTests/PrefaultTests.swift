@testable import Kernels
import TestSupport
import XCTest
#if canImport(Glibc)
import Glibc
#endif

/// `Prefault` maps pages ahead of a copy and never changes what they hold.
final class PrefaultTests: XCTestCase {
    #if os(Linux)
    /// Pages of `region` that are resident, by `mincore`.
    private func residentPages(_ region: UnsafeMutableRawPointer, bytes: Int) -> Int {
        let pages = (bytes + 4095) / 4096
        var vector = [UInt8](repeating: 0, count: pages)
        XCTAssertEqual(mincore(region, bytes, &vector), 0)
        return vector.filter { $0 & 1 == 1 }.count
    }

    /// Fresh anonymous memory: no page is resident before, every page after (in slices shared
    /// across workers), and the pages read as zero.
    func testWriteMapsFreshPages() throws {
        let bytes = 9 << 20 + 123
        let region = try XCTUnwrap(mmap(nil, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0))
        XCTAssertNotEqual(region, MAP_FAILED)
        defer { munmap(region, bytes) }
        XCTAssertEqual(residentPages(region, bytes: bytes), 0)
        // Kernels before 5.14 lack MADV_POPULATE_WRITE (the hint then does nothing).
        let probe = try XCTUnwrap(mmap(nil, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0))
        defer { munmap(probe, 4096) }
        if madvise(probe, 4096, 23) != 0 { throw Skip.because("this kernel has no MADV_POPULATE_WRITE") }
        Prefault.write(UnsafeMutableRawBufferPointer(start: region, count: bytes), threads: 2)
        XCTAssertEqual(residentPages(region, bytes: bytes), (bytes + 4095) / 4096)
        let floats = region.assumingMemoryBound(to: Float.self)
        XCTAssertTrue((0..<(bytes / 4)).allSatisfy { floats[$0] == 0 })
    }

    /// Memory already written keeps its contents, including a range that starts mid-page.
    func testWriteKeepsWhatIsThere() {
        var values = (0..<300_000).map { Float($0) }
        values.withUnsafeMutableBytes { bytes in
            Prefault.write(UnsafeMutableRawBufferPointer(rebasing: bytes[10..<bytes.count]))
            Prefault.write(bytes, threads: 2)
            Prefault.read(UnsafeRawBufferPointer(bytes))
        }
        XCTAssertEqual(values, (0..<300_000).map { Float($0) })
    }
    #endif
}
