import CommandSupport
import Darknet
import HTTPTypes
import Hummingbird
import YOLO

/// An Open Inference Protocol infer response: `{"model_name", "model_version", "id",
/// "outputs": [{name, datatype FP32, shape, data}]}`; an output asked for as binary has
/// `parameters.binary_data_size` instead of `data`, its little-endian bytes following the
/// JSON, whose length is then the `Inference-Header-Content-Length` header.
package enum InferResponse {
    package struct Tensor: Sendable {
        package var name: String
        package var shape: [Int]
        package var values: [Float]
        package var binary: Bool
    }

    /// The `wanted` outputs of `answers` (one per image, in order), batched along the first axis.
    package static func tensors(_ wanted: [InferRequest.Output], answers: [InferenceQueue.Answer],
                                model: ServedModel) throws -> [Tensor] {
        try wanted.map { output in
            if output.name == ServedModel.detectionsName {
                var rows: [Float] = []
                for (image, answer) in answers.enumerated() {
                    for d in detections(of: answer) {
                        rows += [Float(image), Float(d.classId), d.confidence, d.box.x - d.box.width / 2, d.box.y - d.box.height / 2,
                                 d.box.x + d.box.width / 2, d.box.y + d.box.height / 2]
                    }
                }
                return Tensor(name: output.name, shape: [1, 1, rows.count / 7, 7], values: rows, binary: output.binary)
            }
            guard let tensor = model.outputs.first(where: { $0.name == output.name }) else {
                throw ServerError.badTensor("outputs: no output \"\(output.name)\"")
            }
            var values: [Float] = []
            values.reserveCapacity(answers.count * tensor.shape.reduce(1, *))
            for answer in answers {
                switch answer {
                case .outputs(let layers, _):
                    guard let layer = layers.first(where: { Network.layerName($0.layer, in: model.model) == output.name }) else {
                        throw ServerError.inferenceFailed("model \(model.name): no output \(output.name) in the answer")
                    }
                    values += layer.values
                case .scores(let scores): values += scores
                case .detections: throw ServerError.inferenceFailed("model \(model.name): no tensors in the answer")
                }
            }
            return Tensor(name: output.name, shape: [answers.count] + tensor.shape, values: values, binary: output.binary)
        }
    }

    private static func detections(of answer: InferenceQueue.Answer) -> [Detection] {
        switch answer {
        case .detections(let found), .outputs(_, let found): found
        case .scores: []
        }
    }

    package static func reply(model: String, id: String?, tensors: [Tensor]) -> Response {
        var binary: [UInt8] = []
        let outputs = tensors.map { tensor -> String in
            let head = "{\"name\":\(JSONReport.quoted(tensor.name)),\"datatype\":\"FP32\",\"shape\":[\(tensor.shape.map(String.init).joined(separator: ","))],"
            if tensor.binary {
                tensor.values.withUnsafeBytes { raw in
                    if UInt32(littleEndian: 1) == 1 { binary += raw } else {
                        for value in tensor.values { withUnsafeBytes(of: value.bitPattern.littleEndian) { binary += $0 } }
                    }
                }
                return head + "\"parameters\":{\"binary_data_size\":\(tensor.values.count * 4)}}"
            }
            return head + "\"data\":[\(tensor.values.map { JSONReport.number($0) }.joined(separator: ","))]}"
        }
        let json = "{\"model_name\":\(JSONReport.quoted(model)),\"model_version\":\"\(InferenceRoutes.version)\","
            + (id.map { "\"id\":\(JSONReport.quoted($0))," } ?? "") + "\"outputs\":[\(outputs.joined(separator: ","))]}"
        guard tensors.contains(where: \.binary) else { return Reply.json(json) }
        let header = Array(json.utf8)
        return Reply.body(header + binary, type: "application/octet-stream",
                          headers: [HTTPField.Name("Inference-Header-Content-Length")!: String(header.count)])
    }
}
