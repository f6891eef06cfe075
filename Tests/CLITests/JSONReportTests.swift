@testable import darknet_swift
import CommandSupport
import Foundation
import XCTest

final class JSONReportTests: XCTestCase {
    func testQuotingRoundTripsThroughAJSONParser() throws {
        for name in ["plain.jpg", "quote\"d.jpg", "back\\slash.jpg", "tab\there.jpg", "ünïcødé 🐕.jpg", "nl\n.jpg", "bell\u{7}.jpg"] {
            let quoted = JSONReport.quoted(name)
            let parsed = try JSONSerialization.jsonObject(with: Data("[\(quoted)]".utf8)) as? [String]
            XCTAssertEqual(parsed, [name])
        }
    }

    func testNonFiniteNumbersBecomeNull() {
        XCTAssertEqual(JSONReport.number(.nan), "null")
        XCTAssertEqual(JSONReport.number(0.5), "0.5")
        XCTAssertEqual(JSONReport.number(double: .infinity), "null")
        XCTAssertEqual(JSONReport.number(double: 0.299), "0.299")
    }
}
