import Foundation
import XCTest

/// `summary` on an AlexeyAB-dialect cfg prints his darknet's layer table line for line: his
/// header, rows (route groups `1/2`, maxpool and shortcut BFLOPs, `[yolo] params:` lines,
/// multi-line `[crnn]` and `[contrastive]` rows) and `Total BFLOPS`. The expected tables are
/// his darknet's own output on the project's fixture cfgs (Fixtures/alexeyab-tables, each
/// headed by its command and his commit; `tools/oracle/ab_tables.py` writes them).
final class SummaryAlexeyABTableTests: XCTestCase {
    static let tables = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("Fixtures/alexeyab-tables")
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// `summary`'s table: its stdout up to the total line.
    func summaryTable(_ cfg: String) throws -> (lines: [String], stdout: String) {
        let result = try CLI.run(["summary", cfg])
        XCTAssertEqual(result.status, 0, result.stderr)
        let lines = result.stdout.components(separatedBy: "\n")
        let end = lines.firstIndex { $0.hasPrefix("Total BFLOPS") || $0.hasPrefix("Total BFLOPs") } ?? lines.count - 1
        return (Array(lines[...end]), result.stdout)
    }

    func testEveryFixtureTableIsHis() throws {
        let names = try FileManager.default.contentsOfDirectory(atPath: Self.tables.path).filter { $0.hasSuffix(".txt") }.sorted()
        XCTAssertGreaterThanOrEqual(names.count, 13)
        for name in names {
            let text = try String(contentsOf: Self.tables.appendingPathComponent(name), encoding: .utf8)
            let header = try XCTUnwrap(text.components(separatedBy: "\n").first, name)
            // "# AlexeyAB's layer table for Tests/…/tiny-v4.cfg (tools/oracle/ab_tables.py): …"
            let cfg = try XCTUnwrap(header.components(separatedBy: " for ").dropFirst().first?.components(separatedBy: " ").first,
                                    name)
            let expected = text.components(separatedBy: "\n").filter { !$0.hasPrefix("#") && !$0.isEmpty }
            let (lines, stdout) = try summaryTable(Self.root.appendingPathComponent(cfg).path)
            XCTAssertEqual(lines.count, expected.count, "\(name)\n\(stdout)")
            for (index, (line, his)) in zip(lines, expected).enumerated() {
                XCTAssertEqual(line, his, "\(name) line \(index + 1)")
            }
            XCTAssertTrue(stdout.contains("\ntable     AlexeyAB's darknet's (parse_network_cfg_custom's lines"), stdout)
        }
    }

    /// Every fixture cfg `summary` reads as AlexeyAB's has his table among the fixtures, and
    /// every pjreddie one keeps pjreddie's table (no `table` line, pjreddie's total).
    func testEveryAlexeyABFixtureCfgHasHisTable() throws {
        let tables = try FileManager.default.contentsOfDirectory(atPath: Self.tables.path)
        let fixtures = Self.root.appendingPathComponent("Tests/DarknetTests/Fixtures")
        let cfgs = try FileManager.default.subpathsOfDirectory(atPath: fixtures.path).filter { $0.hasSuffix(".cfg") }
        XCTAssertGreaterThan(cfgs.count, 15)
        for cfg in cfgs {
            let (lines, stdout) = try summaryTable(fixtures.appendingPathComponent(cfg).path)
            let table = cfg.replacingOccurrences(of: "/", with: "-").replacingOccurrences(of: ".cfg", with: ".txt")
            if stdout.contains("\ndialect   AlexeyAB ") {
                XCTAssertTrue(tables.contains(table), "\(cfg) has no table of his: run tools/oracle/ab_tables.py")
                XCTAssertEqual(lines.last?.hasPrefix("Total BFLOPS "), true, stdout)
            } else {
                XCTAssertFalse(tables.contains(table), cfg)
                XCTAssertEqual(lines.first, "layer     filters    size              input                output", stdout)
                XCTAssertFalse(stdout.contains("\ntable "), stdout)
            }
        }
    }
}
