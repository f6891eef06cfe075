import Darknet
import Foundation

/// darknet's layer table (`make_*_layer`'s fprintf lines) plus the total BFLOPs.
enum LayerTable {
    static func render(_ model: ModelDescription) -> String {
        var text = "layer     filters    size              input                output\n"
        for layer in model.layers {
            text += String(format: "%5d ", layer.index) + row(layer) + "\n"
        }
        text += String(format: "Total BFLOPs: %.3f (sum of the rows; exact %.3f)\n", model.roundedBflops, model.totalBflops)
        return text
    }

    static func row(_ layer: Layer) -> String {
        let i = layer.input, o = layer.output
        let shapes = String(format: "%4d x%4d x%4d   ->  %4d x%4d x%4d", i.width, i.height, i.channels, o.width, o.height, o.channels)
        switch layer.kind {
        case .convolutional(let conv):
            let kernel: String
            if conv.strideY != conv.stride {  // AlexeyAB's "%2dx%2d/%2dx%2d"
                kernel = String(format: "conv  %5d %2dx%2d/%2dx%2d ", conv.filters, conv.size, conv.size, conv.stride, conv.strideY)
            } else if conv.dilation > 1 {  // AlexeyAB's "%2d x%2d/%2d(%1d)"
                kernel = String(format: "conv  %5d %2d x%2d/%2d(%1d)", conv.filters, conv.size, conv.size, conv.stride, conv.dilation)
            } else {
                kernel = String(format: "conv  %5d %2d x%2d /%2d  ", conv.filters, conv.size, conv.size, conv.stride)
            }
            // AlexeyAB's table marks an XNOR layer "convX".
            return (conv.xnor ? "convX" + kernel.dropFirst(5) : kernel) + shapes + String(format: "  %5.3f BFLOPs", layer.bflops)
        case .maxpool(let pool):
            if pool.depthChannels != nil {  // AlexeyAB's "max-depth" row
                return String(format: "max-depth    %d x %d / %d  ", pool.size, pool.size, pool.stride) + shapes
            }
            return String(format: "max          %d x %d / %d  ", pool.size, pool.size, pool.stride) + shapes
        case .upsample(let upsample):
            if upsample.reverse { return String(format: "downsample         %2dx  ", upsample.stride) + shapes }
            return String(format: "upsample           %2dx  ", upsample.stride) + shapes
        case .route(let route):
            return "route " + route.sources.map { " \($0)" }.joined()
        case .shortcut(let shortcut):
            return String(format: "res  %3d                ", shortcut.source) + shapes
        case .yolo:
            return "yolo"
        case .avgpool:
            return String(format: "avg                     %4d x%4d x%4d   ->  %4d", i.width, i.height, i.channels, o.channels)
        case .connected(let connected):
            return String(format: "connected                            %4d  ->  %4d", i.count, connected.outputs)
        case .softmax:
            return String(format: "softmax                                        %4d", i.count)
        case .dropout(let dropout):
            return String(format: "dropout       p = %.2f               %4d  ->  %4d", dropout.probability, i.count, i.count)
        case .batchnorm:
            return String(format: "Batch Normalization Layer: %d x %d x %d image", i.width, i.height, i.channels)
        case .cost:
            return String(format: "cost                                           %4d", i.count)
        case .sam(let sam):
            return String(format: "scale Layer: %d", sam.source)
        case .scaleChannels(let scale):
            return String(format: "scale Layer: %d", scale.source)
        case .reorg(let reorg):
            return String(format: "reorg              /%2d  %4d x%4d x%4d   ->  %4d x%4d x%4d", reorg.stride,
                          i.width, i.height, i.channels, o.width, o.height, o.channels)
        case .local(let local):  // darknet's make_local_layer line
            return String(format: "Local Layer: %d x %d x %d image, %d filters -> %d x %d x %d image",
                          i.height, i.width, i.channels, local.filters, o.height, o.width, o.channels)
        case .crop:  // darknet's make_crop_layer line
            return String(format: "Crop Layer: %d x %d -> %d x %d x %d image", i.height, i.width, o.height, o.width, o.channels)
        case .region:
            return "detection"
        case .gaussianYolo:
            return "Gaussian_yolo"
        case .reorg3d(let reorg):
            return String(format: "reorg3d            /%2d  ", reorg.stride) + shapes
        case .localAvgpool(let local):
            return String(format: "avg          %d x %d / %d  ", local.pool.size, local.pool.size, local.pool.stride) + shapes
        case .contrastive:
            return "contrastive"
        case .empty:
            return "empty                   " + shapes
        case .activation(let layer):
            return String(format: "Activation Layer: %d inputs", i.count) + " (\(layer.activation.cfgName))"
        case .detection:
            return "Detection Layer"
        case .crnn(let crnn):  // AlexeyAB's make_crnn_layer line
            return String(format: "CRNN Layer: %d x %d x %d image, %d filters", i.height, i.width, i.channels, crnn.outputFilters)
        case .implicit(let implicit):  // AlexeyAB's make_implicit_layer line
            return String(format: "implicit Layer: %d x %d", implicit.filters, implicit.atoms)
        }
    }
}
