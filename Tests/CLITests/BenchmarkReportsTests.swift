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
