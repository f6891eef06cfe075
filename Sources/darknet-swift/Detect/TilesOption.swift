import YOLO

/// `detect --tiles COLSxROWS | auto`: the grid each image is cut into (`TileGrid`, whose
/// tiles overlap by 10% of a tile past each inner edge; `TileMerge` joins and merges their
/// detections). `auto` picks per image: about one tile per network input size.
enum TilesOption: Equatable {
    case grid(columns: Int, rows: Int)
    case auto

    init?(_ text: String) {
        if text == "auto" { self = .auto; return }
        let parts = text.split(separator: "x", omittingEmptySubsequences: false)
        guard parts.count == 2, let columns = Int(parts[0]), let rows = Int(parts[1]),
              (1...TileGrid.maximumTilesPerSide).contains(columns), (1...TileGrid.maximumTilesPerSide).contains(rows)
        else { return nil }
        self = .grid(columns: columns, rows: rows)
    }

    static let usage = "--tiles must be COLSxROWS (each 1...\(TileGrid.maximumTilesPerSide), e.g. 2x2) or auto"

    /// The tiles of an image of this size for a network of this input size; nil when the
    /// grid is one tile (the image is detected whole, as without --tiles).
    func tiles(imageWidth: Int, imageHeight: Int, networkWidth: Int, networkHeight: Int) -> [TileRect]? {
        let grid: TileGrid
        switch self {
        case .grid(let columns, let rows): grid = TileGrid(columns: columns, rows: rows)
        case .auto: grid = .auto(imageWidth: imageWidth, imageHeight: imageHeight, networkWidth: networkWidth, networkHeight: networkHeight)
        }
        let tiles = grid.tiles(imageWidth: imageWidth, imageHeight: imageHeight)
        return tiles.count > 1 ? tiles : nil
    }
}
