@testable import DarknetServer
import XCTest

final class ModelSpecTests: XCTestCase {
    func testParsesNameAndFiles() throws {
        XCTAssertEqual(try ModelSpec(parsing: "yolo=a.cfg,b.weights"), ModelSpec(name: "yolo", cfg: "a.cfg", weights: "b.weights"))
        XCTAssertEqual(try ModelSpec(parsing: "y-1.v2=a=b.cfg,w,coco.data"),
                       ModelSpec(name: "y-1.v2", cfg: "a=b.cfg", weights: "w", names: "coco.data"))
    }

    func testRefusesWhatCouldBeAPathOrIsIncomplete() {
        for (value, error) in [("a.cfg,b.weights", ModelSpec.ParseError.missingName("a.cfg,b.weights")),
                               ("../x=a,b", .badName("../x")), (".x=a,b", .badName(".x")), ("a/b=a,b", .badName("a/b")),
                               ("=a,b", .badName("")), ("x=a", .fileCount("x=a", count: 1)), ("x=a,b,c,d", .fileCount("x=a,b,c,d", count: 4)),
                               ("x=a,,c", .emptyFile("x=a,,c"))] {
            XCTAssertThrowsError(try ModelSpec(parsing: value), value) { XCTAssertEqual($0 as? ModelSpec.ParseError, error, value) }
        }
        XCTAssertFalse(ModelSpec.isValidName(String(repeating: "a", count: 65)))
    }
}
