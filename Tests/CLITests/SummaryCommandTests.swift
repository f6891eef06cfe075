import Foundation
import TestSupport
import XCTest

final class SummaryCommandTests: XCTestCase {
    func testYolov3At416() throws {
        let result = try CLI.run(["summary", try TestData.path("cfg/yolov3.cfg"), "--size", "416"])
        XCTAssertEqual(result.status, 0, result.stderr)
        let lines = result.stdout.split(separator: "\n")
        XCTAssertEqual(lines.first, "layer     filters    size              input                output")
        XCTAssertTrue(lines.contains("    0 conv     32  3 x 3 / 1   416 x 416 x   3   ->   416 x 416 x  32  0.299 BFLOPs"))
        XCTAssertTrue(lines.contains("   36 res   33                  52 x  52 x 256   ->    52 x  52 x 256"))
        XCTAssertTrue(lines.contains("   86 route  85 61"), result.stdout)
        XCTAssertTrue(lines.contains("  106 yolo"))
        XCTAssertEqual(lines.suffix(4), [
            "Total BFLOPs: 65.862 (sum of the rows; exact 65.864)",
            "dialect   pjreddie (nothing AlexeyAB-only)",
            "input     letterbox (no letter_box in a pjreddie cfg: darknet detect letterboxes)",
            "nms       default (nms_kind of the last [yolo] (layer 106, line 780))",
        ])
    }

    /// An AlexeyAB-dialect detector: the first thing only his parser reads, that the table is
    /// his darknet's, the fitting his `detector test` uses, and the last head's nms_kind, each
    /// with its line.
    func testAlexeyABChoicesAreSaid() throws {
        let folder = try CLI.temporaryFolder(self)
        let cfg = folder.appendingPathComponent("v4.cfg")
        try """
        [net]
        width=64
        height=64
        channels=3
        mosaic=1

        [convolutional]
        filters=18
        size=1
        activation=mish

        [yolo]
        mask=0,1,2
        anchors=4,6, 8,10, 12,9
        classes=1
        num=3
        nms_kind=greedynms
        """.write(to: cfg, atomically: true, encoding: .utf8)
        let result = try CLI.run(["summary", cfg.path])
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertEqual(result.stdout.split(separator: "\n").suffix(4), [
            "dialect   AlexeyAB (key 'mosaic' at \(cfg.path):5)",
            "table     AlexeyAB's darknet's (parse_network_cfg_custom's lines at batch 1, as his detector test prints them)",
            "input     stretch (no letter_box in an AlexeyAB cfg (key 'mosaic' at line 5): detector test resizes)",
            "nms       greedynms (nms_kind of the last [yolo] (layer 1, line 12))",
        ])
        // A classifier says its dialect only.
        try "[net]\nwidth=8\nheight=8\nchannels=3\n[convolutional]\nfilters=4\nsize=1\n[avgpool]\n[softmax]\n"
            .write(to: cfg, atomically: true, encoding: .utf8)
        let classifier = try CLI.run(["summary", cfg.path])
        XCTAssertEqual(classifier.stdout.split(separator: "\n").last, "dialect   pjreddie (nothing AlexeyAB-only)")
    }

    /// A class tree says how the cfg's darknet picks a class from it.
    func testClassTreesAreSaid() throws {
        let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("DarknetTests/Fixtures")
        let expected = [
            ("zoo6-tree", "tree      layer 4: 14 classes in 7 groups; the class where the tree's running product falls to --hier-thresh (pjreddie's detector test)"),
            ("alexeyab/tree", "tree      layer 4: 14 classes in 7 groups; the last class whose path probability is above 0.5 (AlexeyAB's detector test)"),
            ("zoo6-tree-classifier", "tree      layer 3: 14 classes in 7 groups; classify scores the leaves' path probabilities (pjreddie's classifier predict)"),
            ("alexeyab/tree-classifier", "tree      layer 3: 14 classes in 7 groups; classify scores every class's path probability (AlexeyAB's classifier predict)"),
        ]
        for (name, line) in expected {
            let result = try CLI.run(["summary", fixtures.appendingPathComponent("\(name).cfg").path])
            XCTAssertEqual(result.status, 0, result.stderr)
            XCTAssertEqual(result.stdout.split(separator: "\n").last.map(String.init), line, name)
        }
    }

    /// `--methods` at the cfg's own 608 (the method column as wide as its name, the memory lines
    /// after the table). With OpenBLAS's packed kernel: Winograd on every 3×3 layer with 16
    /// channels or more but layer 1 (stride 2 on 32 channels, in bands like the first layer): the
    /// four other stride-2 ones in the stride-2 Winograd, one 19×19 layer transformed at load
    /// (the budget, smallest grids first), the others streamed. Without it nothing streams.
    func testMethodsAt608() throws {
        let result = try CLI.run(["summary", try TestData.path("cfg/yolov3.cfg"), "--methods"])
        XCTAssertEqual(result.status, 0, result.stderr)
        let lines = result.stdout.split(separator: "\n").map(String.init)
        XCTAssertTrue(lines.contains("convolutions with --conv-algorithm auto:"), result.stdout)
        let kernel = try XCTUnwrap(lines.last, result.stdout)
        XCTAssertTrue(kernel.hasPrefix("packed weights: "), result.stdout)
        // Rows of the method table by layer: method and parameters MB (the column is as wide as
        // the longest method name, which differs with and without the packed kernel).
        var rows: [Int: String] = [:]
        for line in lines {
            let words = line.split(separator: " ")
            if words.count == 3, let layer = Int(words[0]), Double(words[2]) != nil { rows[layer] = "\(words[1]) \(words[2])" }
        }
        XCTAssertEqual(rows[0], "im2col-bands 0.004", result.stdout)
        XCTAssertEqual(rows[1], "im2col-bands 0.074", result.stdout)
        XCTAssertEqual(rows[62], "winograd-stride2 52.433", result.stdout)
        XCTAssertEqual(rows[64], "winograd 75.502", result.stdout)
        if kernel.hasPrefix("packed weights: sgemm_kernel_") {
            XCTAssertTrue(lines.contains("layer  method             parameters MB"), result.stdout)
            XCTAssertTrue(lines.contains("   35  winograd-streamed          1.181"), result.stdout)
            XCTAssertTrue(lines.contains("   39  winograd-streamed          4.721"), result.stdout)
            XCTAssertTrue(lines.contains("   70  winograd-streamed         18.878"), result.stdout)
            XCTAssertEqual(Array(lines.suffix(3).prefix(2)), [
                "total 348.9 MB of parameters (247.7 MB as darknet stores them); 36 Winograd layers",
                "activations 71.0 MB, workspace 11.5 MB (one image)",
            ])
        } else {
            XCTAssertEqual(kernel, "packed weights: none, cblas_sgemm only")
            XCTAssertFalse(result.stdout.contains("winograd-streamed"), result.stdout)
            XCTAssertEqual(rows[70], "im2col 18.878", result.stdout)
        }
    }

    func testTiny() throws {
        let result = try CLI.run(["summary", try TestData.path("cfg/yolov3-tiny.cfg")])
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertTrue(result.stdout.contains("   11 max          2 x 2 / 1    13 x  13 x 512   ->    13 x  13 x 512"))
        XCTAssertTrue(result.stdout.contains("   19 upsample            2x    13 x  13 x 128   ->    26 x  26 x 128"))
        XCTAssertTrue(result.stdout.contains("\nTotal BFLOPs: 5.567 (sum of the rows; exact 5.565)\ndialect   pjreddie"), result.stdout)
    }

    /// Every row as Debian's darknet prints it loading alexnet.cfg at 128×128 (copied from its
    /// stderr): conv, max, connected, dropout and softmax rows.
    func testAlexnetRowsAreDarknets() throws {
        let result = try CLI.run(["summary", try TestData.path("cfg/alexnet.cfg"), "--size", "128"])
        XCTAssertEqual(result.status, 0, result.stderr)
        let rows = result.stdout.split(separator: "\n").dropFirst().prefix { !$0.hasPrefix("Total BFLOPs") }.map(String.init)
        XCTAssertEqual(rows, [
            "    0 conv     96 11 x11 / 4   128 x 128 x   3   ->    30 x  30 x  96  0.063 BFLOPs",
            "    1 max          3 x 3 / 2    30 x  30 x  96   ->    14 x  14 x  96",
            "    2 conv    256  5 x 5 / 1    14 x  14 x  96   ->    14 x  14 x 256  0.241 BFLOPs",
            "    3 max          3 x 3 / 2    14 x  14 x 256   ->     6 x   6 x 256",
            "    4 conv    384  3 x 3 / 1     6 x   6 x 256   ->     6 x   6 x 384  0.064 BFLOPs",
            "    5 conv    384  3 x 3 / 1     6 x   6 x 384   ->     6 x   6 x 384  0.096 BFLOPs",
            "    6 conv    256  3 x 3 / 1     6 x   6 x 384   ->     6 x   6 x 256  0.064 BFLOPs",
            "    7 max          3 x 3 / 2     6 x   6 x 256   ->     2 x   2 x 256",
            "    8 connected                            1024  ->  4096",
            "    9 dropout       p = 0.50               4096  ->  4096",
            "   10 connected                            4096  ->  4096",
            "   11 dropout       p = 0.50               4096  ->  4096",
            "   12 connected                            4096  ->  1000",
            "   13 softmax                                        1000",
        ])
    }

    /// darknet53 at 64: the global average pool row.
    func testAvgpoolRow() throws {
        let result = try CLI.run(["summary", try TestData.path("cfg/darknet53.cfg"), "--size", "64"])
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertTrue(result.stdout.contains("\n   75 avg                        2 x   2 x1024   ->  1024\n"), result.stdout)
    }

    /// yolov2's [reorg] and [region] rows, as darknet prints them (`reorg /2 …`, `detection`).
    func testYolov2ReorgAndRegionRows() throws {
        let result = try CLI.run(["summary", try TestData.path("cfg/yolov2.cfg"), "--size", "416"])
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertTrue(result.stdout.contains("\n   27 reorg              / 2    26 x  26 x  64   ->    13 x  13 x 256\n"), result.stdout)
        XCTAssertTrue(result.stdout.contains("\n   31 detection\n"), result.stdout)
    }

    /// AlexeyAB's dilated (`3 x 3/ 1(2)`) and anisotropic (`3x 3/ 2x 1`) convolution rows, in his
    /// table (a `dilation` makes the cfg his).
    func testDilationAndStrideXYRows() throws {
        let folder = try CLI.temporaryFolder(self)
        let cfg = folder.appendingPathComponent("alexeyab.cfg")
        try "[net]\nwidth=32\nheight=32\nchannels=3\n[convolutional]\nfilters=4\nsize=3\npad=1\ndilation=2\n[convolutional]\nfilters=4\nsize=3\npad=1\nstride_x=2\nstride_y=1\n"
            .write(to: cfg, atomically: true, encoding: .utf8)
        let result = try CLI.run(["summary", cfg.path])
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertTrue(result.stdout.hasPrefix("""
               layer   filters  size/strd(dil)      input                output
               0 conv      4       3 x 3/ 1(2)  32 x  32 x   3 ->   32 x  32 x   4 0.000 BF
               1 conv      4       3x 3/ 2x 1   32 x  32 x   4 ->   16 x  32 x   4 0.000 BF
            Total BFLOPS 0.000 \n
            """), result.stdout)
    }

    func testBadCfgIsOneLineWithFileAndLine() throws {
        let folder = try CLI.temporaryFolder(self)
        let cfg = folder.appendingPathComponent("bad.cfg")
        try "[net]\nwidth=32\nheight=32\nchannels=3\n[convolutional]\nfilters=x\n".write(to: cfg, atomically: true, encoding: .utf8)
        let result = try CLI.run(["summary", cfg.path])
        XCTAssertEqual(result.status, 2, "a model error")
        XCTAssertEqual(result.stderr, "darknet-swift: error: \(cfg.path):6 [convolutional] 'filters': 'x' is not an integer\n")
        XCTAssertEqual(result.stdout, "")
    }

    func testMissingCfg() throws {
        let result = try CLI.run(["summary", "/nonexistent/model.cfg"])
        XCTAssertEqual(result.status, 2)
        XCTAssertEqual(result.stderr, "darknet-swift: error: /nonexistent/model.cfg: no such file\n")
    }
}

extension SummaryCommandTests {
    func testUnknownKeyIsAWarningOrWithStrictAnError() throws {
        let folder = try CLI.temporaryFolder(self)
        let cfg = folder.appendingPathComponent("extra.cfg")
        try "[net]\nwidth=32\nheight=32\nchannels=3\n[convolutional]\nfilters=4\nsparkle=1\n".write(to: cfg, atomically: true, encoding: .utf8)
        let lenient = try CLI.run(["summary", cfg.path])
        XCTAssertEqual(lenient.status, 0)
        XCTAssertEqual(lenient.stderr, "darknet-swift: \(cfg.path):7 [convolutional] 'sparkle': warning: unknown key 'sparkle' in [convolutional] is ignored\n")
        let strict = try CLI.run(["summary", cfg.path, "--strict"])
        XCTAssertEqual(strict.status, 2)
        XCTAssertEqual(strict.stderr, "darknet-swift: error: \(cfg.path):7 [convolutional] 'sparkle': unknown key 'sparkle' in [convolutional] (--strict)\n")
        XCTAssertEqual(strict.stdout, "")
    }
}
