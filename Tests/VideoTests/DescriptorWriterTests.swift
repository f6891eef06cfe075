import Foundation
@testable import Video
import XCTest

/// `DescriptorWriter`: a pipe whose reader is gone is EPIPE for the writer (with SIGPIPE at its
/// default action, which would end this test process), and no SIGPIPE is left pending.
final class DescriptorWriterTests: XCTestCase {
    func testABrokenPipeIsEPIPENotASignal() {
        let previous = signal(SIGPIPE, SIG_DFL)
        defer { signal(SIGPIPE, previous) }
        var fds: [Int32] = [-1, -1]
        XCTAssertEqual(pipe(&fds), 0)
        close(fds[0])
        defer { close(fds[1]) }
        XCTAssertEqual(DescriptorWriter.write([1, 2, 3], to: fds[1], suppressingSIGPIPE: true), EPIPE)
        var pending = sigset_t()
        sigpending(&pending)
        XCTAssertEqual(sigismember(&pending, SIGPIPE), 0)
    }

    func testAWholeBufferIsWrittenThroughShortWrites() throws {
        var fds: [Int32] = [-1, -1]
        XCTAssertEqual(pipe(&fds), 0)
        let bytes = (0..<(1 << 20)).map { UInt8(truncatingIfNeeded: $0 * 7) }  // more than a pipe holds
        final class Box: @unchecked Sendable { var data = Data() }
        let read = Box(), done = DispatchSemaphore(value: 0), readEnd = fds[0]
        Thread.detachNewThread {
            read.data = FileHandle(fileDescriptor: readEnd, closeOnDealloc: true).readDataToEndOfFile()
            done.signal()
        }
        XCTAssertNil(DescriptorWriter.write(bytes, to: fds[1]))
        close(fds[1])
        done.wait()
        XCTAssertEqual(Array(read.data), bytes)
        XCTAssertEqual(DescriptorWriter.write([1], to: -1), EBADF)
    }
}
