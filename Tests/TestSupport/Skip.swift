import Foundation
import XCTest
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Every skip the tests make. SwiftPM's parallel runner (`tools/test`) reports a skipped test as
/// passed, so each skip is also appended, one line, to `$DARKNET_SWIFT_SKIP_LOG` when it is set:
/// tools/test counts and lists them.
public enum Skip {
    /// An `XCTSkip` with `reason`, recorded in the skip log; throw it.
    public static func because(_ reason: String, file: StaticString = #filePath, line: UInt = #line) -> XCTSkip {
        if let path = ProcessInfo.processInfo.environment["DARKNET_SWIFT_SKIP_LOG"], !path.isEmpty {
            // One write(2) with O_APPEND: whole lines even with tests in several processes.
            let fd = open(path, O_WRONLY | O_APPEND | O_CREAT, 0o644)
            if fd >= 0 {
                let text = Array((reason.replacingOccurrences(of: "\n", with: " ") + "\n").utf8)
                _ = text.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
                close(fd)
            }
        }
        return XCTSkip(reason, file: file, line: line)
    }
}
