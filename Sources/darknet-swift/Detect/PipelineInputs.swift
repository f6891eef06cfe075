import Darknet
import Imaging

/// The network inputs of a `PipelineItem`, counted and made without holding them all: a
/// tiled photo keeps its decoded image (`tileSource`) and each tile is cut and prepared when
/// its batch runs, so `--tiles 64x64` (4,096 inputs of 2 MB at 416) holds one batch of
/// prepared tiles at a time, not 8 GB.
extension PipelineItem {
    /// Forward-pass inputs the item still needs: one per tile, or its prepared photo.
    var inputCount: Int {
        if let tiles, tileSource != nil { return tiles.count }
        return networkInputs.count
    }

    var isReady: Bool { inputCount > 0 }

    /// Input `index`: tile `index` cut from `tileSource` and prepared, or `networkInputs[index]`.
    func networkInput(_ index: Int, detector: Detector) -> Image {
        guard let tiles, let source = tileSource else { return networkInputs[index] }
        let tile = tiles[index]
        return detector.prepare(source.cropped(x: tile.x, y: tile.y, width: tile.width, height: tile.height))
    }
}
