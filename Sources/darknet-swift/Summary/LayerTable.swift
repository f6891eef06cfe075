import Darknet
import Foundation

/// darknet's layer table (`make_*_layer`'s fprintf lines, each layer's `Layer.tableRow`) plus
/// the total BFLOPs.
enum LayerTable {
    static func render(_ model: ModelDescription) -> String {
        var text = "layer     filters    size              input                output\n"
        for layer in model.layers {
            text += String(format: "%5d ", layer.index) + layer.tableRow(dialect: model.dialect.dialect) + "\n"
        }
        text += String(format: "Total BFLOPs: %.3f (sum of the rows; exact %.3f)\n", model.roundedBflops, model.totalBflops)
        return text
    }
}
