import XCTest
@testable import YOLO

/// Tile rectangles, mapping boxes back to the image, and the merge rule (`TileMerge`).
final class TilesTests: XCTestCase {
    func testTwoByTwoTilesOverlapByAMarginPastInnerEdgesOnly() {
        let tiles = TileGrid(columns: 2, rows: 2).tiles(imageWidth: 1000, imageHeight: 600)
        // Cores 500×300; margins 10% of a core: 50 px across, 30 px down; none past the border.
        XCTAssertEqual(tiles, [TileRect(x: 0, y: 0, width: 550, height: 330), TileRect(x: 450, y: 0, width: 550, height: 330),
                               TileRect(x: 0, y: 270, width: 550, height: 330), TileRect(x: 450, y: 270, width: 550, height: 330)])
        let three = TileGrid(columns: 3, rows: 1).tiles(imageWidth: 100, imageHeight: 10)
        // Cores 0..<33, 33..<66, 66..<100 (integer division), margin round(33.3 × 0.1) = 3.
        XCTAssertEqual(three.map { $0.x ..< $0.x + $0.width }, [0 ..< 36, 30 ..< 69, 63 ..< 100])
        XCTAssertEqual(three.map(\.height), [10, 10, 10])
        // Every pixel is in some tile.
        for x in 0..<100 { XCTAssertTrue(three.contains { $0.x <= x && x < $0.x + $0.width }) }
    }

    func testGridsAreClampedToThePixelsAndOneTileIsTheImage() {
        XCTAssertEqual(TileGrid(columns: 1, rows: 1).tiles(imageWidth: 7, imageHeight: 5), [TileRect(x: 0, y: 0, width: 7, height: 5)])
        XCTAssertEqual(TileGrid(columns: 10, rows: 1).tiles(imageWidth: 3, imageHeight: 2).count, 3)
        XCTAssertEqual(TileGrid(columns: 500, rows: 500).tiles(imageWidth: 5000, imageHeight: 5000).count, 64 * 64)
        XCTAssertEqual(TileGrid(columns: 2, rows: 2).tiles(imageWidth: 0, imageHeight: 5), [])
    }

    func testAutoGivesTilesAboutTheNetworkSize() {
        XCTAssertEqual(TileGrid.auto(imageWidth: 1546, imageHeight: 1152, networkWidth: 416, networkHeight: 416),
                       TileGrid(columns: 4, rows: 3))
        XCTAssertEqual(TileGrid.auto(imageWidth: 768, imageHeight: 576, networkWidth: 416, networkHeight: 416),
                       TileGrid(columns: 2, rows: 1))
        // DarkHelp's example: 1024×768 through a 416×320 network.
        XCTAssertEqual(TileGrid.auto(imageWidth: 1024, imageHeight: 768, networkWidth: 416, networkHeight: 320),
                       TileGrid(columns: 2, rows: 2))
        XCTAssertEqual(TileGrid.auto(imageWidth: 300, imageHeight: 200, networkWidth: 416, networkHeight: 416),
                       TileGrid(columns: 1, rows: 1))
        XCTAssertEqual(TileGrid.auto(imageWidth: 100_000, imageHeight: 10, networkWidth: 32, networkHeight: 32).columns, 64)
    }

    func testMappingABoxBack() {
        let tile = TileRect(x: 450, y: 270, width: 550, height: 330)
        let d = Detection(classId: 3, confidence: 0.9, box: BoundingBox(x: 0.5, y: 0.25, width: 0.2, height: 0.1))
        let mapped = d.mapped(from: tile, imageWidth: 1000, imageHeight: 600)
        XCTAssertEqual(mapped.box.x * 1000, 450 + 275, accuracy: 1e-3)
        XCTAssertEqual(mapped.box.y * 600, 270 + 82.5, accuracy: 1e-3)
        XCTAssertEqual(mapped.box.width * 1000, 110, accuracy: 1e-3)
        XCTAssertEqual(mapped.box.height * 600, 33, accuracy: 1e-3)
        XCTAssertEqual(mapped.classId, 3)
        XCTAssertEqual(mapped.confidence, 0.9)
    }

    // MARK: merging. Image 1000×600 in 2×1 tiles: left 0..<550, right 450..<1000.

    let tiles = TileGrid(columns: 2, rows: 1).tiles(imageWidth: 1000, imageHeight: 600)

    /// A detection given by its pixel edges in the image, expressed in `tile`.
    func detection(_ classId: Int, _ confidence: Float, left: Float, top: Float, right: Float, bottom: Float,
                   in tile: TileRect) -> Detection {
        let l = (left - Float(tile.x)) / Float(tile.width), r = (right - Float(tile.x)) / Float(tile.width)
        let t = (top - Float(tile.y)) / Float(tile.height), b = (bottom - Float(tile.y)) / Float(tile.height)
        return Detection(classId: classId, confidence: confidence, box: BoundingBox(left: l, top: t, right: r, bottom: b))
    }

    func pixels(_ d: Detection) -> [Float] {
        [d.box.left * 1000, d.box.top * 600, d.box.right * 1000, d.box.bottom * 600].map { ($0 * 10).rounded() / 10 }
    }

    func merge(_ left: [Detection], _ right: [Detection], nms: Float = 0.45, agnostic: Bool = false) -> [Detection] {
        TileMerge.merge([left, right], tiles: tiles, imageWidth: 1000, imageHeight: 600, nmsThreshold: nms, agnostic: agnostic)
    }

    /// An object over the shared edge: each tile sees the part inside it, cut by its edge;
    /// the two are joined into one box, with the higher confidence.
    func testPiecesCutByASharedEdgeAreJoined() {
        let l = detection(0, 0.6, left: 400, top: 100, right: 549, bottom: 300, in: tiles[0])
        let r = detection(0, 0.8, left: 451, top: 110, right: 640, bottom: 310, in: tiles[1])
        // Their IoU is under NMS's threshold: NMS alone would keep both.
        XCTAssertLessThan(l.mapped(from: tiles[0], imageWidth: 1000, imageHeight: 600).box
                            .iou(r.mapped(from: tiles[1], imageWidth: 1000, imageHeight: 600).box), 0.45)
        let merged = merge([l], [r])
        XCTAssertEqual(merged.count, 1)
        XCTAssertEqual(pixels(merged[0]), [400, 100, 640, 310])
        XCTAssertEqual(merged[0].confidence, 0.8)
    }

    /// Whole objects seen twice in the shared band are removed by NMS, keeping the more confident.
    func testDuplicatesInTheSharedBandAreSuppressed() {
        let l = detection(2, 0.7, left: 470, top: 50, right: 530, bottom: 120, in: tiles[0])
        let r = detection(2, 0.9, left: 472, top: 52, right: 531, bottom: 119, in: tiles[1])
        let merged = merge([l], [r])
        XCTAssertEqual(merged.count, 1)
        XCTAssertEqual(merged[0].confidence, 0.9)
        XCTAssertEqual(merge([l], [r], nms: 0).count, 2, "NMS off keeps both")
    }

    /// Not joined: another class; pieces that do not line up along the edge; a box that does
    /// not reach its tile's edge (two neighbouring objects each seen whole); a box at the
    /// image's own border.
    func testWhatIsNotJoined() {
        let l = detection(0, 0.6, left: 400, top: 100, right: 549, bottom: 300, in: tiles[0])
        XCTAssertEqual(merge([l], [detection(1, 0.8, left: 451, top: 110, right: 640, bottom: 310, in: tiles[1])]).count, 2)
        XCTAssertEqual(merge([l], [detection(0, 0.8, left: 451, top: 280, right: 640, bottom: 500, in: tiles[1])]).count, 2)
        let whole = detection(0, 0.6, left: 380, top: 100, right: 500, bottom: 300, in: tiles[0])
        let neighbour = detection(0, 0.7, left: 505, top: 100, right: 620, bottom: 300, in: tiles[1])
        XCTAssertEqual(merge([whole], [neighbour]).count, 2)
        let atBorder = detection(0, 0.6, left: 0, top: 100, right: 120, bottom: 300, in: tiles[0])
        XCTAssertEqual(merge([atBorder], [neighbour]).count, 2)
    }

    /// A piece cut by the edge is joined to the whole object the neighbour saw: the result is the whole box.
    func testAPieceJoinsTheWholeObject() {
        let whole = detection(5, 0.9, left: 470, top: 200, right: 545, bottom: 260, in: tiles[0])
        let piece = detection(5, 0.4, left: 450, top: 201, right: 546, bottom: 259, in: tiles[1])
        let merged = merge([whole], [piece])
        XCTAssertEqual(merged.count, 1)
        XCTAssertEqual(pixels(merged[0]), [450, 200, 546, 260])
    }

    /// Joins are transitive: an object over four tiles becomes one box.
    func testAnObjectOverFourTilesIsOneBox() {
        let grid = TileGrid(columns: 2, rows: 2).tiles(imageWidth: 1000, imageHeight: 600)
        // The object spans 400...600 × 200...400; each tile sees its part, cut by its inner edges.
        let parts = grid.map { tile -> [Detection] in
            let l = max(400, Float(tile.x)), r = min(600, Float(tile.x + tile.width))
            let t = max(200, Float(tile.y)), b = min(400, Float(tile.y + tile.height))
            return [detection(7, 0.5, left: l, top: t, right: r, bottom: b, in: tile)]
        }
        let merged = TileMerge.merge(parts, tiles: grid, imageWidth: 1000, imageHeight: 600, nmsThreshold: 0.45)
        XCTAssertEqual(merged.count, 1)
        XCTAssertEqual(pixels(merged[0]), [400, 200, 600, 400])
    }

    func testOrderIsTileByTileAndAgnosticNMSCrossesClasses() {
        let a = detection(1, 0.5, left: 10, top: 10, right: 60, bottom: 60, in: tiles[0])
        let b = detection(2, 0.9, left: 700, top: 10, right: 760, bottom: 60, in: tiles[1])
        let c = detection(3, 0.6, left: 11, top: 11, right: 61, bottom: 61, in: tiles[0])
        XCTAssertEqual(merge([a, c], [b]).map(\.classId), [1, 3, 2])
        XCTAssertEqual(merge([a, c], [b], agnostic: true).map(\.classId), [3, 2])
    }
}
