import Foundation

/// An Open Inference Protocol (KServe v2) REST infer request, as `tritonclient` sends it:
/// a JSON header (`id`, `parameters`, `inputs` [{name, shape, datatype, data | parameters.
/// binary_data_size}], `outputs` [{name, parameters.binary_data}]), alone or, with the
/// binary-data extension, as the first `Inference-Header-Content-Length` bytes of the body
/// followed by each binary input's bytes in input order (little-endian FP32).
///
/// Rules: one input, `images`, FP32, shape `[N, C, H, W]` with `C × H × W` the model's
/// `[net]` and 1 ≤ N ≤ 64; its `data` flat or nested, exactly `N·C·H·W` finite numbers.
/// Anything else is `badTensor` or `badRequest`, naming the field.
package struct InferRequest: Sendable {
    package struct Output: Sendable {
        package var name: String
        package var binary: Bool
    }

    package var id: String?
    package var batch: Int
    /// `batch` images, each `C·H·W` floats.
    package var images: [[Float]]
    /// The outputs asked for; nil: every output of the model.
    package var outputs: [Output]?
    /// `parameters.binary_data_output`: every output as binary unless it says otherwise.
    package var binaryOutputs: Bool
    /// `parameters.threshold` and `parameters.nms` for the `detections` output.
    package var threshold: Float?
    package var nms: Float?

    package static let maximumBatch = 64

    package init(body: [UInt8], headerLength: Int?, input expected: ServedModel.Tensor) throws(ServerError) {
        let jsonEnd = headerLength ?? body.count
        guard jsonEnd >= 0, jsonEnd <= body.count else {
            throw .badRequest("Inference-Header-Content-Length \(jsonEnd) is not within the body's \(body.count) bytes")
        }
        let object: [String: Any]
        do {
            guard let parsed = try JSONSerialization.jsonObject(with: Data(body[..<jsonEnd])) as? [String: Any] else {
                throw ServerError.badRequest("the infer request is not a JSON object")
            }
            object = parsed
        } catch let error as ServerError {
            throw error
        } catch {
            throw .badRequest("the infer request is not JSON: \(error.localizedDescription)")
        }
        id = object["id"].map { "\($0)" }
        let parameters = object["parameters"] as? [String: Any] ?? [:]
        binaryOutputs = parameters["binary_data_output"] as? Bool ?? false
        threshold = try Self.fraction(parameters["threshold"], field: "parameters.threshold")
        nms = try Self.fraction(parameters["nms"], field: "parameters.nms")
        guard let inputs = object["inputs"] as? [[String: Any]], inputs.count == 1 else {
            throw .badTensor("inputs: expected one input, \(expected.name)")
        }
        let input = inputs[0]
        guard input["name"] as? String == expected.name else {
            throw .badTensor("inputs[0].name: expected \"\(expected.name)\", got \(input["name"].map { "\($0)" } ?? "none")")
        }
        guard input["datatype"] as? String == "FP32" else {
            throw .badTensor("inputs[0].datatype: expected FP32, got \(input["datatype"].map { "\($0)" } ?? "none")")
        }
        let shape = (input["shape"] as? [Any])?.compactMap { ($0 as? NSNumber)?.intValue } ?? []
        guard shape.count == 4, Array(shape[1...]) == expected.shape, (1...Self.maximumBatch).contains(shape[0]) else {
            throw .badTensor("inputs[0].shape: expected [N, \(expected.shape.map(String.init).joined(separator: ", "))] "
                + "with N in 1...\(Self.maximumBatch), got \(shape)")
        }
        batch = shape[0]
        let perImage = expected.shape.reduce(1, *)
        let count = batch * perImage
        let values: [Float]
        if let size = (input["parameters"] as? [String: Any])?["binary_data_size"] as? Int {
            guard size == count * 4, jsonEnd + size == body.count else {
                throw .badTensor("inputs[0].parameters.binary_data_size: \(size) bytes, expected \(count * 4) "
                    + "(\(count) FP32) and \(body.count - jsonEnd) after the header")
            }
            values = Self.floats(body[jsonEnd...])
        } else {
            guard headerLength == nil || jsonEnd == body.count else {
                throw .badRequest("\(body.count - jsonEnd) bytes after the header, but no input has binary_data_size")
            }
            guard let data = input["data"] else { throw .badTensor("inputs[0]: neither data nor parameters.binary_data_size") }
            var flat: [Float] = []
            flat.reserveCapacity(count)
            try Self.flatten(data, into: &flat, limit: count)
            guard flat.count == count else { throw .badTensor("inputs[0].data: \(flat.count) numbers, expected \(count)") }
            values = flat
        }
        if let bad = values.firstIndex(where: { !$0.isFinite }) {
            throw .badTensor("inputs[0]: value \(bad) is not a finite number")
        }
        images = (0..<batch).map { Array(values[($0 * perImage)..<(($0 + 1) * perImage)]) }
        if let requested = object["outputs"] as? [[String: Any]] {
            outputs = try requested.enumerated().map { index, output throws(ServerError) in
                guard let name = output["name"] as? String else { throw .badTensor("outputs[\(index)].name: missing") }
                let binary = (output["parameters"] as? [String: Any])?["binary_data"] as? Bool ?? binaryOutputs
                return Output(name: name, binary: binary)
            }
        }
    }

    private static func fraction(_ value: Any?, field: String) throws(ServerError) -> Float? {
        guard let value else { return nil }
        guard let number = (value as? NSNumber)?.floatValue, number.isFinite, (0...1).contains(number) else {
            throw .badTensor("\(field): expected a number in 0...1")
        }
        return number
    }

    /// Little-endian FP32 values of `bytes` (whose count is a multiple of 4).
    static func floats(_ bytes: ArraySlice<UInt8>) -> [Float] {
        var values = [Float](repeating: 0, count: bytes.count / 4)
        values.withUnsafeMutableBytes { target in
            bytes.withUnsafeBytes { target.copyMemory(from: $0) }
        }
        if UInt32(littleEndian: 1) != 1 {
            for index in values.indices { values[index] = Float(bitPattern: values[index].bitPattern.byteSwapped) }
        }
        return values
    }

    /// Appends the numbers of `value` (a number or nested arrays of them), at most `limit`.
    private static func flatten(_ value: Any, into flat: inout [Float], limit: Int) throws(ServerError) {
        if let array = value as? [Any] {
            for item in array {
                try flatten(item, into: &flat, limit: limit)
                if flat.count > limit { throw .badTensor("inputs[0].data: more than \(limit) numbers") }
            }
        } else if let number = value as? NSNumber, !(value is Bool) {
            flat.append(number.floatValue)
        } else {
            throw .badTensor("inputs[0].data: \(type(of: value)) at number \(flat.count), expected a number")
        }
    }
}
