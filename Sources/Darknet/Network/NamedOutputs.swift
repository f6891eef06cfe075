/// Layer outputs by name, for code that runs the network raw and decodes outputs itself.
///
/// A layer's name is its cfg section and index, `yolo_82`, as OpenCV DNN names the layers
/// of a Darknet model, so code written against either runtime finds the same outputs.
extension Network {
    /// Name of layer `index`: `<section>_<index>`.
    public func layerName(_ index: Int) -> String { Self.layerName(index, in: model) }

    /// Name of layer `index` of `model` (a caller without a network: a server's metadata).
    public static func layerName(_ index: Int, in model: ModelDescription) -> String {
        "\(model.layers[index].typeName)_\(index)"
    }

    /// Names of the layers `forward` returns (every `[yolo]`, else the last layer).
    public var outputNames: [String] { outputLayers.map(layerName) }

    /// Runs the network and returns its outputs keyed by ``layerName(_:)``.
    public func forwardNamed(_ input: [Float]) throws -> [String: LayerOutput] {
        var named: [String: LayerOutput] = [:]
        for output in try forward(input) { named[layerName(output.layer)] = output }
        return named
    }
}
