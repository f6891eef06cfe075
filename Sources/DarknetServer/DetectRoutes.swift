import CommandSupport
import Darknet
import Dispatch
import Hummingbird
import NIOCore
import YOLO

/// `POST /v1/models/{name}/detect` and `POST /v1/models/{name}/classify`: a JPEG or PNG (the
/// raw body or a `multipart/form-data` file) in, `detect`'s (or `classify`'s) JSON for that
/// image out. The detections are `detect`'s for the same file and options, bit for bit: the
/// same decode, fitting, network, thresholds and NMS (`DetectorSelection`), the same renderer.
///
/// Query: `thresh` (0...1; default the cfg's darknet's, as `detect`), `nms` (0...1, 0 turns it
/// off; default 0.45), `classes` (names or numbers, comma-separated), `format` (`json`: the
/// object `detect --format jsonl` prints; `darknet-json`: `detect --format darknet-json`'s
/// document, AlexeyAB's `-out` file); classify: `top` (1...1000, default 5).
package struct DetectRoutes: Sendable {
    package let state: ServerState
    package let reader: BodyReader
    package let runner: JobRunner

    package func add(to router: Router<ServerContext>) {
        router.post("/v1/models/:name/detect") { request, context in try await detect(request, context) }
        router.post("/v1/models/:name/classify") { request, context in try await classify(request, context) }
    }

    func detect(_ request: Request, _ context: ServerContext) async throws -> Response {
        let deadline = runner.deadline
        return try await reader.whileConnected(request) { body in try await detect(request, body, context, deadline: deadline) }
    }

    func detect(_ request: Request, _ body: ByteBuffer, _ context: ServerContext, deadline: UInt64) async throws -> Response {
        let model = try state.model(context.parameters.get("name") ?? "")
        guard case .detector(let detector) = model.engine else {
            throw ServerError.wrongKind("model \(model.name) is a classifier: POST /v1/models/\(model.name)/classify")
        }
        let query = try DetectQuery(request.uri.queryParameters, names: model.names)
        let upload = try ImageUpload(body: Array(buffer: body), contentType: request.headers[.contentType])
        let decodeStart = DispatchTime.now().uptimeNanoseconds
        let prepared = try await runner.prepare(upload, for: model)
        let inferenceStart = DispatchTime.now().uptimeNanoseconds
        let selection = DetectorSelection(options: detector.options, threshold: query.threshold, nmsThreshold: query.nms)
        let options = selection.resolved(for: detector.model)
        let job = InferenceQueue.Job(input: prepared.input, width: prepared.width, height: prepared.height, work: .detect(options))
        guard case .detections(let found) = try await runner.run(job, on: model, deadline: deadline, channel: context.channel) else {
            throw ServerError.inferenceFailed("model \(model.name): no detections in the answer")
        }
        let end = DispatchTime.now().uptimeNanoseconds
        let result = ImageResult(path: upload.name, width: prepared.width, height: prepared.height,
                                 detections: query.filter.apply(found),
                                 decodeSeconds: Double(inferenceStart - decodeStart) / 1e9,
                                 inferenceSeconds: Double(end - inferenceStart) / 1e9)
        switch query.format {
        case .json:
            let threshold = query.threshold.map { DefaultThreshold(value: $0, reason: "the request's thresh") }
                ?? selection.thresholdChoice(detector.model)
            let choices = JSONReport.choices(detector, options: options, threshold: threshold)
            return Reply.json(JSONReport.render(result, names: model.names, choices: choices) + "\n")
        case .darknetJSON:
            return Reply.json("[\n" + DarknetJSONReport.render(result, frameId: 1, names: model.names) + "\n]")
        }
    }

    func classify(_ request: Request, _ context: ServerContext) async throws -> Response {
        let deadline = runner.deadline
        return try await reader.whileConnected(request) { body in try await classify(request, body, context, deadline: deadline) }
    }

    func classify(_ request: Request, _ body: ByteBuffer, _ context: ServerContext, deadline: UInt64) async throws -> Response {
        let model = try state.model(context.parameters.get("name") ?? "")
        guard case .classifier(let classifier) = model.engine else {
            throw ServerError.wrongKind("model \(model.name) is a detector: POST /v1/models/\(model.name)/detect")
        }
        let top = try DetectQuery.integer("top", in: request.uri.queryParameters, range: 1...1000) ?? 5
        let upload = try ImageUpload(body: Array(buffer: body), contentType: request.headers[.contentType])
        let prepared = try await runner.prepare(upload, for: model)
        let job = InferenceQueue.Job(input: prepared.input, width: prepared.width, height: prepared.height, work: .scores)
        guard case .scores(let scores) = try await runner.run(job, on: model, deadline: deadline, channel: context.channel) else {
            throw ServerError.inferenceFailed("model \(model.name): no scores in the answer")
        }
        let best = Classifier.top(top, of: scores, labels: classifier.labels)
        return Reply.json(ClassifyReport.json(path: upload.name, width: prepared.width, height: prepared.height, scores: best) + "\n")
    }
}

/// The query of a detect request, checked: a value out of range or a class not in the
/// model's names is `badQuery`, naming the parameter.
package struct DetectQuery: Sendable {
    package enum Format: String, Sendable {
        case json
        case darknetJSON = "darknet-json"
    }

    package var threshold: Float?
    package var nms: Float?
    package var filter = DetectionFilter()
    package var format = Format.json

    package init(_ query: Hummingbird.Parameters, names: [String]) throws(ServerError) {
        threshold = try Self.fraction("thresh", in: query)
        nms = try Self.fraction("nms", in: query)
        if let classes = query.get("classes") {
            do { filter.classes = try DetectionFilter.classIds(String(classes), names: names) } catch {
                switch error {
                case .unknown(let name):
                    throw .badQuery("classes=\(classes): unknown class \"\(name)\" (names or numbers below \(names.count))")
                case .noClass:
                    throw .badQuery("classes=\(classes): names no class (it would keep no detection)")
                }
            }
        }
        if let value = query.get("format") {
            guard let format = Format(rawValue: String(value)) else { throw .badQuery("format=\(value): expected json or darknet-json") }
            self.format = format
        }
    }

    static func fraction(_ key: String, in query: Hummingbird.Parameters) throws(ServerError) -> Float? {
        guard let text = query.get(key) else { return nil }
        guard let value = Float(String(text)), value.isFinite, (0...1).contains(value) else {
            throw .badQuery("\(key)=\(text): expected a number in 0...1")
        }
        return value
    }

    static func integer(_ key: String, in query: Hummingbird.Parameters, range: ClosedRange<Int>) throws(ServerError) -> Int? {
        guard let text = query.get(key) else { return nil }
        guard let value = Int(String(text)), range.contains(value) else { throw .badQuery("\(key)=\(text): expected an integer in \(range)") }
        return value
    }
}
