@testable import Darknet
import Foundation
import XCTest

/// AlexeyAB's layer table (`AlexeyABTable`, each layer's `tableRow(dialect: .alexeyAB)`): his
/// `make_*_layer` lines and his total. Every expected line here is his darknet's own output
/// (commit 59596d78, CPU only) on these cases written as cfgs with an AlexeyAB key in `[net]`,
/// compared with `tools/oracle/ab_tables.py --compare`; whole tables of the project's fixture
/// cfgs are `SummaryAlexeyABTableTests`.
final class AlexeyABTableTests: XCTestCase {
    /// His rows for `LayerTextTests.cases`, in order, from layer 1 (the `[contrastive]` row is
    /// his layout: his darknet itself stops there, as the `[yolo]` has no `embedding_layer`).
    static let rows: [[String]] = [
        ["conv      4       3 x 3/ 2     16 x  16 x   8 ->    8 x   8 x   4 0.000 BF"],
        ["conv      4       3x 3/ 2x 1   16 x  16 x   8 ->    8 x  16 x   4 0.000 BF"],
        ["conv      8/   2  3 x 3/ 1(2)  16 x  16 x   8 ->   16 x  16 x   8 0.000 BF"],
        ["convX     8       3 x 3/ 1     16 x  16 x   8 ->   16 x  16 x   8 0.000 BF"],
        ["max                2x 2/ 2     16 x  16 x   8 ->    8 x   8 x   8 0.000 BF", "max-depth          1x 1/ 1      8 x   8 x   8 ->    8 x   8 x   3 0.000 BF"],
        ["downsample               2x    16 x  16 x   8 ->    8 x   8 x   8", "upsample                 4x     8 x   8 x   8 ->   32 x  32 x   8"],
        ["route  0 \t\t                       1/2 ->   16 x  16 x   4 ", "route  1 0 \t                           ->   16 x  16 x  12 "],
        ["conv      8       1 x 1/ 1     16 x  16 x   8 ->   16 x  16 x   8 0.000 BF", "Shortcut Layer: 0,  wt = 0, wn = 0, outputs:  16 x  16 x   8 0.000 BF", "Shortcut Layer: 2, 0,  wt = 0, wn = 0, outputs:  16 x  16 x   8 0.000 BF"],
        ["reorg_old              / 2    16 x  16 x   8   ->     8 x   8 x  32", "reorg_old              / 2     8 x   8 x  32   ->    16 x  16 x   8", "reorg                    / 2   16 x  16 x   8 ->    8 x   8 x  32", "reorg                    / 2    8 x   8 x  32 ->   16 x  16 x   8"],
        ["avg                            16 x  16 x   8 ->      8", "scale Layer: 0"],
        ["conv      1       1 x 1/ 1     16 x  16 x   8 ->   16 x  16 x   1 0.000 BF", "scale Layer: 0", "scale Layer: 2"],
        ["Crop Layer: 16 x 16 -> 8 x 8 x 8 image", "Crop Layer: 8 x 8 -> 4 x 4 x 8 image"],
        ["softmax                                        2048", "dropout    p = 0.300        2048  ->   2048", "cost                                           2048"],
        ["Local Layer: 16 x 16 x 8 image, 2 filters -> 16 x 16 x 2 image"],
        ["avg                2x 2/ 2     16 x  16 x   8 ->    8 x   8 x   8 0.000 BF", "Activation Layer: 512 inputs", "empty ", "empty "],
        ["implicit Layer: 4 x 1 \t mean=0.00, std=0.20 ", "CRNN Layer: 1 x 1 x 4 image, 4 filters\nconv      3       3 x 3/ 1      1 x   1 x   4 ->    1 x   1 x   3 0.000 BF\nconv      3       3 x 3/ 1      1 x   1 x   3 ->    1 x   1 x   3 0.000 BF\nconv      4       3 x 3/ 1      1 x   1 x   3 ->    1 x   1 x   4 0.000 BF"],
        ["Batch Normalization Layer: 16 x 16 x 8 image", "connected                            2048  ->     7"],
        ["conv     10       1 x 1/ 1     16 x  16 x   8 ->   16 x  16 x  10 0.000 BF", "[Gaussian_yolo] iou loss: mse (2), iou_norm: 0.75, obj_norm: 1.00, cls_norm: 1.00, delta_norm: 1.00, scale: 1.00, point: 1"],
        ["conv      6       1 x 1/ 1     16 x  16 x   8 ->   16 x  16 x   6 0.000 BF", "yolo\n[yolo] params: iou loss: mse (2), iou_norm: 0.75, obj_norm: 1.00, cls_norm: 1.00, delta_norm: 1.00, scale_x_y: 1.00", "contrastive   16 x  16 x   1 x emb_size    6 x batch:    1  classes =    1, step =  256 \ndetection "],
        ["conv      6       1 x 1/ 1     16 x  16 x   8 ->   16 x  16 x   6 0.000 BF", "detection"],
        ["Detection Layer"],
    ]

    func testEverySectionSaysHisRow() throws {
        XCTAssertEqual(Self.rows.count, LayerTextTests.cases.count)
        for ((body, _), expected) in zip(LayerTextTests.cases, Self.rows) {
            let model = try ModelDescription(text: LayerTextTests.prelude + body)
            XCTAssertEqual(model.layers.count, expected.count + 1, body)
            for (layer, row) in zip(model.layers.dropFirst(), expected) {
                XCTAssertEqual(layer.tableRow(dialect: .alexeyAB), row, "\(body)layer \(layer.index)")
            }
        }
    }

    /// DropBlock as `parse_dropout` settles its sizes (an absolute size past the input is cut to
    /// it; neither size is 7; both: the absolute one), and his default probability, 0.2.
    func testDropoutRows() throws {
        let model = try ModelDescription(text: "[net]\nwidth=32\nheight=24\nchannels=8\n[convolutional]\nfilters=8\nsize=1\n"
            + "[dropout]\ndropblock=1\nprobability=0.1\n[dropout]\ndropblock=1\ndropblock_size_rel=0.5\n"
            + "[dropout]\ndropblock=1\ndropblock_size_abs=40\n[dropout]\ndropblock=1\ndropblock_size_abs=3\ndropblock_size_rel=0.3\n"
            + "[dropout]\n")
        XCTAssertEqual(model.dialect.dialect, .alexeyAB)
        XCTAssertEqual(model.layers.dropFirst().map { $0.tableRow(dialect: .alexeyAB) }, [
            "dropblock    p = 0.100   l.dropblock_size_abs = 7    6144  ->   6144",
            "dropblock    p = 0.200   l.dropblock_size_rel = 0.50    6144  ->   6144",
            "dropblock    p = 0.200   l.dropblock_size_abs = 24    6144  ->   6144",
            "dropblock    p = 0.200   l.dropblock_size_abs = 3    6144  ->   6144",
            "dropout    p = 0.200        6144  ->   6144",
        ])
    }

    /// Strides that differ, routes of four sources and of groups, a weighted shortcut whose
    /// sources have other channels (his `(…) + (…)` lines), BFLOPs that round, an XNOR layer
    /// with `bin_output`, the `[yolo] params:` of Float normalizers, and his total, which counts
    /// the maxpool and the shortcut (pjreddie's count, convolutions only, differs).
    func testRowsAndTotal() throws {
        let strides = try ModelDescription(text: "[net]\nwidth=32\nheight=24\nchannels=8\nmosaic=1\n[convolutional]\nfilters=8\nsize=1\n"
            + "[maxpool]\nsize=3\nstride_x=2\nstride_y=1\n[local_avgpool]\nsize=2\nstride_x=1\nstride_y=2\n"
            + "[maxpool]\nmaxpool_depth=1\nout_channels=2\nstride_x=2\nstride_y=1\n")
        XCTAssertEqual(strides.layers.dropFirst().map { $0.tableRow(dialect: .alexeyAB) }, [
            "max               3x 3/ 2x 1   32 x  24 x   8 ->   16 x  24 x   8 0.000 BF",
            "avg               2x 2/ 1x 2   16 x  24 x   8 ->   16 x  12 x   8 0.000 BF",
            "max-depth          1x 1/ 2     16 x  12 x   8 ->   16 x  12 x   2 0.000 BF",
        ])
        let sources = try ModelDescription(text: "[net]\nwidth=32\nheight=24\nchannels=8\n" + String(repeating: "[convolutional]\nfilters=8\nsize=1\n", count: 4)
            + "[route]\nlayers=0,1,2,3\n[route]\nlayers=0,1,2\ngroups=4\ngroup_id=3\n"
            + "[shortcut]\nfrom=0,1,2\nweights_type=per_channel\nweights_normalization=softmax\n[upsample]\nstride=2\n")
        XCTAssertEqual(sources.layers.dropFirst(4).map { $0.tableRow(dialect: .alexeyAB) }, [
            "route  0 1 2 3 \t                   ->   32 x  24 x  32 ",
            "route  0 1 2 \t                       3/4 ->   32 x  24 x   6 ",
            "Shortcut Layer: 0, 1, 2,  wt = 2, wn = 2, outputs:  32 x  24 x   6 0.000 BF"
                + String(repeating: "\n (  32 x  24 x   6) + (  32 x  24 x   8) ", count: 3),
            "upsample                 2x    32 x  24 x   6 ->   64 x  48 x   6",
        ])
        let big = try ModelDescription(text: "[net]\nwidth=416\nheight=416\nchannels=3\nmosaic=1\n"
            + "[convolutional]\nfilters=64\nsize=3\npad=1\n[maxpool]\nsize=2\nstride=2\n"
            + "[convolutional]\nfilters=64\nsize=3\npad=1\nxnor=1\nbin_output=1\n[shortcut]\nfrom=-2\n"
            + "[implicit]\nfilters=64\nmean=1.5\nstd=0.025\n[convolutional]\nfilters=14\nsize=1\n"
            + "[yolo]\nclasses=2\nnum=9\nmask=0,1\niou_loss=diou\niou_normalizer=0.075\nobj_normalizer=0.125\n"
            + "cls_normalizer=0.375\ndelta_normalizer=2.5\nscale_x_y=1.125\n")
        XCTAssertEqual(big.layers.map { $0.tableRow(dialect: .alexeyAB) }, [
            "conv     64       3 x 3/ 1    416 x 416 x   3 ->  416 x 416 x  64 0.598 BF",
            "max                2x 2/ 2    416 x 416 x  64 ->  208 x 208 x  64 0.011 BF",
            "convXB   64       3 x 3/ 1    208 x 208 x  64 ->  208 x 208 x  64 0.100 BF",
            "Shortcut Layer: 1,  wt = 0, wn = 0, outputs: 208 x 208 x  64 0.003 BF",
            "implicit Layer: 64 x 1 \t mean=1.50, std=0.03 ",
            "conv     14       1 x 1/ 1      1 x   1 x  64 ->    1 x   1 x  14 0.000 BF",
            "yolo\n[yolo] params: iou loss: diou (3), iou_norm: 0.08, obj_norm: 0.12, cls_norm: 0.38, delta_norm: 2.50, scale_x_y: 1.12",
        ])
        XCTAssertEqual(AlexeyABTable.total(big.alexeyABTotalBflops), "Total BFLOPS 0.712 ")
        // pjreddie's count: the two convolutions, the XNOR one at full cost.
        XCTAssertEqual(big.totalBflops, 0.598 + 3.190, accuracy: 0.001)
        XCTAssertEqual(big.layers[1].alexeyABBflops, Float(2 * 2 * 64 * 208 * 208) / 1e9, accuracy: 1e-9)
        XCTAssertEqual(big.layers[3].alexeyABBflops, Float(208 * 208 * 64) / 1e9, accuracy: 1e-9)
    }

    /// His int products wrap as his 32-bit `int` does before the division.
    func testProductsWrapAsHisInts() {
        XCTAssertEqual(AlexeyABTable.bflops(product: [2, 3]), 6e-9)
        XCTAssertEqual(AlexeyABTable.bflops(product: [65536, 32768]), Float(Double(Int32.min) / 1e9))
    }
}
