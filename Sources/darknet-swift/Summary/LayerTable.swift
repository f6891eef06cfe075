import Darknet
import Foundation

/// The layer table of the cfg's darknet (each layer's `Layer.tableRow` in its dialect).
///
/// pjreddie's: his header, `%5d ` and each `make_*_layer` line, then the total BFLOPs as the sum
/// of the rows' three-decimal figures and exactly. AlexeyAB's, as `parse_network_cfg_custom`
/// prints it: his header, `%4d ` and each layer's lines, then `Total BFLOPS %5.3f ` (his Float
/// sum, which counts maxpools and shortcuts). His notes on the cfg's keys (`jitter: Using
/// default …`, `Unused field: …`) and what he prints on stdout (`nms_kind: …`) are not part of it.
enum LayerTable {
    static func render(_ model: ModelDescription) -> String {
        let dialect = model.dialect.dialect
        if dialect == .alexeyAB {
            var text = AlexeyABTable.header + "\n"
            for layer in model.layers {
                text += AlexeyABTable.index(layer.index) + layer.tableRow(dialect: dialect) + "\n"
            }
            return text + AlexeyABTable.total(model.alexeyABTotalBflops) + "\n"
        }
        var text = "layer     filters    size              input                output\n"
        for layer in model.layers {
            text += String(format: "%5d ", layer.index) + layer.tableRow(dialect: dialect) + "\n"
        }
        text += String(format: "Total BFLOPs: %.3f (sum of the rows; exact %.3f)\n", model.roundedBflops, model.totalBflops)
        return text
    }
}
