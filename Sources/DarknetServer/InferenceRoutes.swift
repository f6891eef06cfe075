import CommandSupport
import Darknet
import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import YOLO

/// The Open Inference Protocol's REST routes (KServe v2, as Triton and OpenVINO Model Server
/// serve them; docs/serve.md shows the tensors):
/// - `GET /v2/health/live` 200 while the process runs; `GET /v2/health/ready` 200 once every
///   model has loaded, 503 while loading and draining (the Kubernetes probes);
/// - `GET /v2` the server's metadata; `GET /v2/models/{name}` a model's (its input `images`
///   `[-1, C, H, W]` FP32 and outputs), `GET /v2/models/{name}/ready` 200 or 503;
/// - `POST /v2/models/{name}/infer` (`InferRequest`): a detector's outputs are its heads'
///   tensors (`yolo_16`…, `[N, C, H, W]`, as `Network.forward` gives them) and `detections`
///   (`[1, 1, K, 7]`: image, class, confidence, x_min, y_min, x_max, y_max as fractions of
///   the input, OpenVINO's DetectionOutput layout); a classifier's is its last layer's scores.
///   The N images join the model's queue as N jobs, so they batch with other requests.
package struct InferenceRoutes: Sendable {
    package let state: ServerState
    package let reader: BodyReader
    package let runner: JobRunner
    package static let version = "1"

    package func add(to router: Router<ServerContext>) {
        router.get("/v2/health/live") { _, _ in Reply.json("{\"live\":true}\n") }
        router.get("/v2/health/ready") { _, _ -> Response in
            let ready = state.isReady
            return Reply.json("{\"ready\":\(ready)}\n", status: ready ? .ok : .serviceUnavailable)
        }
        router.get("/v2") { _, _ in
            Reply.json("{\"name\":\"darknet-swift\",\"version\":\"\(Self.version)\",\"extensions\":[\"binary_tensor_data\"]}\n")
        }
        router.get("/v2/models") { _, _ in
            Reply.json("{\"models\":[" + state.names.map { JSONReport.quoted($0) }.joined(separator: ",") + "]}\n")
        }
        router.get("/v2/models/:name") { _, context in try metadata(context.parameters.get("name") ?? "") }
        router.get("/v2/models/:name/ready") { _, context -> Response in
            let name = context.parameters.get("name") ?? ""
            guard state.names.contains(name) else { throw ServerError.notFound("no model named \"\(name)\"") }
            let ready = state.isModelReady(name)
            return Reply.json("{\"name\":\(JSONReport.quoted(name)),\"ready\":\(ready)}\n", status: ready ? .ok : .serviceUnavailable)
        }
        router.post("/v2/models/:name/infer") { request, context in try await infer(request, context) }
        router.post("/v2/models/:name/versions/:version/infer") { request, context in try await infer(request, context) }
    }

    /// Every output a model offers, with its per-image shape.
    static func outputs(of model: ServedModel) -> [ServedModel.Tensor] {
        model.outputs + (model.isDetector ? [ServedModel.Tensor(name: ServedModel.detectionsName, shape: [1, 1, -1, 7])] : [])
    }

    func metadata(_ name: String) throws -> Response {
        let model = try state.model(name)
        func tensor(_ tensor: ServedModel.Tensor, batched: Bool) -> String {
            let shape = (batched ? [-1] : []) + tensor.shape
            return "{\"name\":\(JSONReport.quoted(tensor.name)),\"datatype\":\"FP32\",\"shape\":[\(shape.map(String.init).joined(separator: ","))]}"
        }
        let outputs = Self.outputs(of: model).map { tensor($0, batched: $0.name != ServedModel.detectionsName) }
        return Reply.json("{\"name\":\(JSONReport.quoted(model.name)),\"versions\":[\"\(Self.version)\"],\"platform\":\"darknet\","
            + "\"parameters\":{\"kind\":\"\(model.kind)\"},"
            + "\"inputs\":[\(tensor(model.input, batched: true))],\"outputs\":[\(outputs.joined(separator: ","))]}\n")
    }

    func infer(_ request: Request, _ context: ServerContext) async throws -> Response {
        let deadline = runner.deadline
        return try await reader.whileConnected(request) { body in try await infer(request, body, context, deadline: deadline) }
    }

    func infer(_ request: Request, _ body: ByteBuffer, _ context: ServerContext, deadline: UInt64) async throws -> Response {
        let model = try state.model(context.parameters.get("name") ?? "")
        let headerLength = try request.headers[HTTPField.Name("Inference-Header-Content-Length")!].map { text throws -> Int in
            guard let length = Int(text) else { throw ServerError.badRequest("Inference-Header-Content-Length: \(text): not a number") }
            return length
        }
        let bytes = Array(buffer: body)
        let parsed = try await runner.offLoop { try InferRequest(body: bytes, headerLength: headerLength, input: model.input) }
        let offered = Self.outputs(of: model)
        let wanted = parsed.outputs ?? offered.map { InferRequest.Output(name: $0.name, binary: parsed.binaryOutputs) }
        for output in wanted where !offered.contains(where: { $0.name == output.name }) {
            throw ServerError.badTensor("outputs: model \(model.name) has no output \"\(output.name)\" "
                + "(it has \(offered.map(\.name).joined(separator: ", ")))")
        }
        let work = try work(for: model, wanted: wanted, parsed: parsed)
        let net = model.model.net
        let answers = try await withThrowingTaskGroup(of: (Int, InferenceQueue.Answer).self) { group in
            for (index, image) in parsed.images.enumerated() {
                let job = InferenceQueue.Job(input: image, width: net.width, height: net.height, work: work)
                group.addTask { (index, try await runner.run(job, on: model, deadline: deadline, channel: context.channel)) }
            }
            var answers = [InferenceQueue.Answer?](repeating: nil, count: parsed.images.count)
            for try await (index, answer) in group { answers[index] = answer }
            return answers.compactMap { $0 }
        }
        let tensors = try InferResponse.tensors(wanted, answers: answers, model: model)
        return InferResponse.reply(model: model.name, id: parsed.id, tensors: tensors)
    }

    /// The job for each image: detections when only `detections` is asked, else the heads
    /// (and detections decoded from them); a classifier's scores.
    private func work(for model: ServedModel, wanted: [InferRequest.Output], parsed: InferRequest) throws -> InferenceQueue.Work {
        guard case .detector(let detector) = model.engine else { return .scores }
        let selection = DetectorSelection(options: detector.options, threshold: parsed.threshold, nmsThreshold: parsed.nms)
        let options = selection.resolved(for: detector.model)
        return wanted.allSatisfy({ $0.name == ServedModel.detectionsName }) ? .detect(options) : .outputs(options)
    }
}
