@testable import Darknet
import Foundation
import TestSupport
import XCTest

/// Each layer's row in `summary`'s table and its options in `benchmark` (`Layer.tableRow`,
/// `Layer.optionsSummary`, said by the layer files): darknet's `make_*_layer` lines in
/// pjreddie's layout, as the CLI printed them when it held the text itself (AlexeyAB's rows of
/// the same cases: `AlexeyABTableTests`). The CLI tests check whole tables of real cfgs; these
/// pin every section and every variant of a row.
final class LayerTextTests: XCTestCase {
    /// A `[net]` of 16×16×8 and a 1×1 convolution of 8 filters (layer 0), then each case's
    /// sections, whose rows and options follow in layer order from layer 1.
    static let prelude = "[net]\nwidth=16\nheight=16\nchannels=8\n[convolutional]\nfilters=8\nsize=1\n"

    static let cases: [(body: String, rows: [(row: String, options: String)])] = [
        ("[convolutional]\nfilters=4\nsize=3\nstride=2\npad=1\nactivation=leaky\n",
         [("conv      4  3 x 3 / 2    16 x  16 x   8   ->     8 x   8 x   4  0.000 BFLOPs", "4 3x3/2 leaky")]),
        ("[convolutional]\nfilters=4\nsize=3\nstride_x=2\nstride_y=1\npad=1\nactivation=leaky\n",
         [("conv      4  3x 3/ 2x 1   16 x  16 x   8   ->     8 x  16 x   4  0.000 BFLOPs", "4 3x3/2x1 leaky")]),
        ("[convolutional]\nfilters=8\nsize=3\ndilation=2\npad=1\ngroups=2\nactivation=mish\n",
         [("conv      8  3 x 3/ 1(2)  16 x  16 x   8   ->    16 x  16 x   8  0.000 BFLOPs", "8 3x3/1 mish groups 2 dilation 2")]),
        ("[convolutional]\nfilters=8\nsize=3\nxnor=1\npad=1\nbatch_normalize=1\n",
         [("convX     8  3 x 3 / 1    16 x  16 x   8   ->    16 x  16 x   8  0.000 BFLOPs", "8 3x3/1 logistic")]),
        ("[maxpool]\nsize=2\nstride=2\n[maxpool]\nmaxpool_depth=1\nout_channels=3\n",
         [("max          2 x 2 / 2    16 x  16 x   8   ->     8 x   8 x   8", "2x2/2"),
          ("max-depth    1 x 1 / 1     8 x   8 x   8   ->     8 x   8 x   3", "depth -> 3")]),
        ("[upsample]\nstride=-2\n[upsample]\nstride=4\n",
         [("downsample          2x    16 x  16 x   8   ->     8 x   8 x   8", "/2"),
          ("upsample            4x     8 x   8 x   8   ->    32 x  32 x   8", "4x")]),
        ("[route]\nlayers=-1\ngroups=2\ngroup_id=1\n[route]\nlayers=-1,-2\n",
         [("route  0", "layers 0 group 1/2"), ("route  1 0", "layers 1 0")]),
        ("[convolutional]\nfilters=8\nsize=1\n[shortcut]\nfrom=-2\nactivation=leaky\n[shortcut]\nfrom=-1,-3\n",
         [("conv      8  1 x 1 / 1    16 x  16 x   8   ->    16 x  16 x   8  0.000 BFLOPs", "8 1x1/1 logistic"),
          ("res    0                  16 x  16 x   8   ->    16 x  16 x   8", "from 0 leaky"),
          ("res    2                  16 x  16 x   8   ->    16 x  16 x   8", "from 2,0")]),
        ("[reorg]\nstride=2\n[reorg]\nstride=2\nreverse=1\n[reorg3d]\nstride=2\n[reorg3d]\nstride=2\nreverse=1\n",
         [("reorg              / 2    16 x  16 x   8   ->     8 x   8 x  32", "/2"),
          ("reorg              / 2     8 x   8 x  32   ->    16 x  16 x   8", "/2 reverse"),
          ("reorg3d            / 2    16 x  16 x   8   ->     8 x   8 x  32", "/2"),
          ("reorg3d            / 2     8 x   8 x  32   ->    16 x  16 x   8", "/2 reverse")]),
        ("[avgpool]\n[scale_channels]\nfrom=-2\n",
         [("avg                       16 x  16 x   8   ->     8", ""), ("scale Layer: 0", "from 0")]),
        ("[convolutional]\nfilters=1\nsize=1\n[scale_channels]\nfrom=-2\nscale_wh=1\n[sam]\nfrom=-1\n",
         [("conv      1  1 x 1 / 1    16 x  16 x   8   ->    16 x  16 x   1  0.000 BFLOPs", "1 1x1/1 logistic"),
          ("scale Layer: 0", "from 0 scale_wh"), ("scale Layer: 2", "from 2")]),
        ("[crop]\ncrop_height=8\ncrop_width=8\nnoadjust=1\n[crop]\ncrop_height=4\ncrop_width=4\n",
         [("Crop Layer: 16 x 16 -> 8 x 8 x 8 image", "8x8 noadjust"), ("Crop Layer: 8 x 8 -> 4 x 4 x 8 image", "4x4")]),
        ("[softmax]\ngroups=2\n[dropout]\nprobability=0.3\n[cost]\n",
         [("softmax                                        2048", "groups 2"),
          ("dropout       p = 0.30               2048  ->  2048", "p 0.30"),
          ("cost                                           2048", "")]),
        ("[local]\nfilters=2\nsize=3\nstride=1\npad=1\nactivation=leaky\n",
         [("Local Layer: 16 x 16 x 8 image, 2 filters -> 16 x 16 x 2 image", "2 3x3/1 leaky")]),
        ("[local_avgpool]\nsize=2\nstride=2\n[activation]\nactivation=swish\n[empty]\n[silence]\n",
         [("avg          2 x 2 / 2    16 x  16 x   8   ->     8 x   8 x   8", "2x2/2"),
          ("Activation Layer: 512 inputs (swish)", "swish"),
          ("empty                      8 x   8 x   8   ->     8 x   8 x   8", ""),
          ("empty                      8 x   8 x   8   ->     8 x   8 x   8", "")]),
        ("[implicit]\nfilters=4\n[crnn]\noutput=4\nhidden=3\nsize=3\npad=1\nactivation=leaky\n",
         [("implicit Layer: 4 x 1", "4x1"), ("CRNN Layer: 1 x 1 x 4 image, 4 filters", "hidden 3 3x3 leaky")]),
        ("[batchnorm]\n[connected]\noutput=7\nactivation=relu\n",
         [("Batch Normalization Layer: 16 x 16 x 8 image", ""), ("connected                            2048  ->     7", "7 relu")]),
        ("[convolutional]\nfilters=10\nsize=1\n[Gaussian_yolo]\nclasses=1\nnum=1\n",
         [("conv     10  1 x 1 / 1    16 x  16 x   8   ->    16 x  16 x  10  0.000 BFLOPs", "10 1x1/1 logistic"),
          ("Gaussian_yolo", "classes 1")]),
        ("[convolutional]\nfilters=6\nsize=1\n[yolo]\nclasses=1\nnum=1\n[contrastive]\nyolo_layer=-1\n",
         [("conv      6  1 x 1 / 1    16 x  16 x   8   ->    16 x  16 x   6  0.000 BFLOPs", "6 1x1/1 logistic"),
          ("yolo", "classes 1"), ("contrastive", "")]),
        ("[convolutional]\nfilters=6\nsize=1\n[region]\nclasses=1\nnum=1\n",
         [("conv      6  1 x 1 / 1    16 x  16 x   8   ->    16 x  16 x   6  0.000 BFLOPs", "6 1x1/1 logistic"),
          ("detection", "classes 1")]),
        ("[detection]\nside=16\nnum=1\nclasses=3\ncoords=4\n", [("Detection Layer", "classes 3")]),
    ]

    func testEverySectionSaysItsRowAndOptions() throws {
        var named: Set<String> = []
        for (body, rows) in Self.cases {
            let model = try ModelDescription(text: Self.prelude + body)
            XCTAssertEqual(model.layers.count, rows.count + 1, body)
            for (layer, expected) in zip(model.layers.dropFirst(), rows) {
                XCTAssertEqual(layer.tableRow(dialect: .pjreddie), expected.row, "\(body)layer \(layer.index)")
                XCTAssertEqual(layer.optionsSummary, expected.options, "\(body)layer \(layer.index)")
                named.insert(layer.typeName)
            }
        }
        XCTAssertEqual(named, Set(LayerRegistry.types.map { $0.name }), "every registered section has a case here")
    }

    /// Every layer of every fixture cfg says a row of one line in pjreddie's layout and of one or
    /// more non-empty lines in AlexeyAB's, and options of at most one line.
    func testEveryFixtureLayerHasOneLineRows() throws {
        let folder = try TestData.fixture("alexeyab").deletingLastPathComponent()
        let names = try FileManager.default.subpathsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".cfg") }
        XCTAssertGreaterThan(names.count, 10)
        for name in names {
            let model = try ModelDescription(contentsOf: folder.appendingPathComponent(name).path)
            for layer in model.layers {
                let row = layer.tableRow(dialect: .pjreddie)
                XCTAssertFalse(row.isEmpty || row.contains("\n"), "\(name) layer \(layer.index): \(row)")
                let lines = layer.tableRow(dialect: .alexeyAB).components(separatedBy: "\n")
                XCTAssertFalse(lines.contains(""), "\(name) layer \(layer.index): \(lines)")
                XCTAssertFalse(layer.optionsSummary.contains("\n"), "\(name) layer \(layer.index)")
            }
        }
    }

    /// A layer that says nothing of its own gets the section name in 24 columns and its shapes.
    func testDefaultRowIsTheNameThenTheShapes() throws {
        let model = try ModelDescription(text: Self.prelude + "[empty]\n")
        XCTAssertEqual(model.layers[1].tableRow(dialect: .pjreddie), "empty" + String(repeating: " ", count: 19) + model.layers[1].tableShapes)
        XCTAssertEqual(model.layers[1].tableShapes, "  16 x  16 x   8   ->    16 x  16 x   8")
    }
}
