@testable import Darknet
import Foundation
import Imaging
import Kernels
import TestSupport
import XCTest

/// `Calibrator` and the calibration file: the same images give the same bytes on any thread
/// count; the layers kept f32 and why; a calibration refuses another cfg or weights file; the
/// file's errors name their field. On the project's yolov7-tiny-shaped cfg (Fixtures/map) with
/// synthetic weights and seeded images, so nothing needs fetching.
final class CalibrationTests: XCTestCase {
    struct Model {
        var model: ModelDescription
        var cfg: String
        var weights: String
        var weightsBytes: [UInt8]
    }

    static func model(_ testCase: XCTestCase, name: String = "v7-tiny") throws -> Model {
        let cfg = try String(contentsOf: TestData.fixture("map/\(name).cfg"), encoding: .utf8)
        let folder = try TestData.temporaryFolder(testCase)
        let cfgPath = folder.appendingPathComponent("\(name).cfg").path
        try Data(cfg.utf8).write(to: URL(fileURLWithPath: cfgPath))
        let model = try ModelDescription(contentsOf: cfgPath)
        let bytes = SyntheticWeights.bytes(for: model, seed: 1)
        let weights = folder.appendingPathComponent("\(name).weights").path
        try Data(bytes).write(to: URL(fileURLWithPath: weights))
        return Model(model: model, cfg: cfgPath, weights: weights, weightsBytes: bytes)
    }

    /// Seeded images of three sizes: smooth gradients with noise, as photos are mostly smooth.
    static func images() -> [Image] {
        var generator = SplitMix64(state: 21)
        return [(200, 150), (97, 131), (160, 160)].map { width, height in
            let data = (0..<(3 * width * height)).map { i -> Float in
                let (x, y) = (Float(i % width) / Float(width), Float(i / width % height) / Float(height))
                return min(1, max(0, 0.5 * x + 0.4 * y * Float(i / (width * height) + 1) / 3 + generator.uniform(-0.1, 0.1)))
            }
            return Image(width: width, height: height, channels: 3, data: data)
        }
    }

    static func calibrate(_ m: Model, threads: Int, options: Calibrator.Options = .init()) throws -> Calibration {
        let calibrator = try Calibrator(model: m.model, weightsFile: m.weights, execution: ExecutionOptions(threads: threads),
                                        options: options)
        let images = Self.images()
        return try calibrator.calibrate(count: images.count) { images[$0] }
    }

    func testSameImagesGiveTheSameFileOnAnyThreadCount() throws {
        _ = try TestTools.requireOneDNN(OneDNN.loaded)
        let m = try Self.model(self)
        let one = try Self.calibrate(m, threads: 1).jsonData()
        let three = try Self.calibrate(m, threads: 3).jsonData()
        XCTAssertEqual(one, three)
        let entropy = try Self.calibrate(m, threads: 2, options: .init(method: .entropy)).jsonData()
        XCTAssertEqual(entropy, try Self.calibrate(m, threads: 1, options: .init(method: .entropy)).jsonData())
        XCTAssertNotEqual(entropy, one, "the entropy method chose other ranges")
    }

    /// The first convolution and those feeding a head stay f32, with the reason; the others run
    /// int8 unless their error is above the bound; every convolution is listed, with its error.
    func testLayersKeptF32AndWhy() throws {
        _ = try TestTools.requireOneDNN(OneDNN.loaded)
        let m = try Self.model(self)
        let calibration = try Self.calibrate(m, threads: 2)
        let convolutions = m.model.layers.filter { if case .convolutional = $0.kind { true } else { false } }.map(\.index)
        XCTAssertEqual(calibration.layers.map(\.layer), convolutions)
        let heads = m.model.layers.filter(\.isDetectionHead).map { $0.index - 1 }
        for entry in calibration.layers {
            XCTAssertNotNil(entry.error, "layer \(entry.layer)")
            XCTAssertTrue(entry.low <= 0 && entry.high >= 0 && entry.low >= entry.min && entry.high <= entry.max, "\(entry)")
            if entry.layer == convolutions[0] {
                XCTAssertEqual(entry.precision, .f32)
                XCTAssertEqual(entry.reason, "the first convolution")
            } else if heads.contains(entry.layer) {
                XCTAssertEqual(entry.precision, .f32)
                XCTAssertTrue(entry.reason?.hasPrefix("feeds the [yolo] layer") == true, entry.reason ?? "")
            } else if entry.precision == .f32 {
                XCTAssertGreaterThan(entry.error!, calibration.errorBound, "\(entry)")
                XCTAssertTrue(entry.reason?.hasPrefix("error ") == true, entry.reason ?? "")
            } else {
                XCTAssertLessThanOrEqual(entry.error!, calibration.errorBound)
            }
        }
        XCTAssertGreaterThan(calibration.int8Layers.count, convolutions.count / 2, "most layers run int8")
        // A bound below every error keeps them all f32, with that reason.
        let strict = try Self.calibrate(m, threads: 2, options: .init(errorBound: 1e-9))
        XCTAssertEqual(strict.int8Layers, [])
        // The planner runs int8 exactly the layers marked so.
        let methods = m.model.convolutionMethods(ExecutionOptions(precision: .int8(calibration)))
        XCTAssertEqual(Set(methods.indices.filter { methods[$0] == .int8 }), calibration.int8Layers)
    }

    func testChecksumsRefuseAnotherModel() throws {
        _ = try TestTools.requireOneDNN(OneDNN.loaded)
        let m = try Self.model(self)
        let calibration = try Self.calibrate(m, threads: 2)
        let options = ExecutionOptions(precision: .int8(calibration))
        XCTAssertNoThrow(try PreparedModel(model: m.model, weightsFile: m.weights, options: options))
        var changed = m.weightsBytes
        changed[changed.count - 1] ^= 1
        XCTAssertThrowsError(try changed.withUnsafeBytes { try PreparedModel(model: m.model, weightsBytes: $0, file: "changed.weights",
                                                                              options: options) }) { error in
            guard case Int8Error.mismatch(_, "weights", _, "changed.weights", _)? = error as? Int8Error else {
                return XCTFail("\(error)")
            }
            XCTAssertTrue("\(error)".contains("darknet-swift calibrate"), "\(error)")
        }
        let text = try String(contentsOfFile: m.cfg, encoding: .utf8) + "\n# one more line\n"
        let other = try ModelDescription(text: text, file: "other.cfg")
        XCTAssertThrowsError(try PreparedModel(model: other, weightsFile: m.weights, options: options)) { error in
            guard case Int8Error.mismatch(_, "cfg", _, "other.cfg", _)? = error as? Int8Error else { return XCTFail("\(error)") }
        }
        let values = try WeightsReader.read(contentsOf: m.weights, for: m.model)
        XCTAssertThrowsError(try PreparedModel(model: m.model, weights: values, options: options)) { error in
            XCTAssertEqual(error as? Int8Error, .unverifiable(what: "weights"))
        }
    }

    /// The file read back is the calibration written; each broken field is named.
    func testFileRoundTripAndErrors() throws {
        let layer = Calibration.Layer(layer: 2, precision: .int8, reason: nil, low: -0.5, high: 7.5, min: -0.7, max: 9, error: 0.01)
        let calibration = Calibration(cfg: .init(file: "a.cfg", sha256: String(repeating: "a", count: 64)),
                                      weights: .init(file: "a.weights", sha256: String(repeating: "b", count: 64)),
                                      input: .init(width: 160, height: 160), method: .percentile, percentile: 99.99, images: 3,
                                      errorBound: 0.05, layers: [layer])
        XCTAssertTrue(layer.scale == 8 / Float(255) && layer.zeroPoint == 16, "\(layer)")
        let bytes = Array(try calibration.jsonData())
        XCTAssertEqual(try Calibration(bytes: bytes, file: "a.calib"), calibration)
        func problem(_ text: String) -> String? {
            do {
                _ = try Calibration(bytes: Array(text.utf8), file: "x.calib")
                return nil
            } catch {
                return "\(error)"
            }
        }
        let json = String(decoding: bytes, as: UTF8.self)
        XCTAssertEqual(problem("{"), "x.calib: not a darknet-swift calibration file: not JSON")
        XCTAssertEqual(problem(json.replacingOccurrences(of: "darknet-swift calibration", with: "other")),
                       "x.calib: not a darknet-swift calibration file: \"format\" is not \"darknet-swift calibration\"")
        XCTAssertTrue(problem(json.replacingOccurrences(of: "\"version\" : 1", with: "\"version\" : 2"))?.contains("\"version\" 2") == true)
        XCTAssertTrue(problem(json.replacingOccurrences(of: "\"scale\" : ", with: "\"scale\" : \"x\", \"was\" : "))?
            .contains("layers[0].scale") == true, problem(json.replacingOccurrences(of: "\"scale\" : ", with: "\"scale\" : \"x\", \"was\" : ")) ?? "")
        XCTAssertTrue(problem(json.replacingOccurrences(of: "\"low\" : -0.5", with: "\"low\" : 0.5"))?
            .contains("low 0.5 and high 7.5") == true)
        XCTAssertTrue(problem(json.replacingOccurrences(of: "\"sha256\" : \"aaaa", with: "\"sha25\" : \"aaaa"))?
            .contains("cfg.sha256 is missing") == true)
        var twice = calibration
        twice.layers.append(layer)
        XCTAssertTrue(problem(String(decoding: try twice.jsonData(), as: UTF8.self))?.contains("layer 2 is listed twice") == true)
        // A layer that is no convolution of the model.
        let m = try Self.model(self)
        var wrong = calibration
        (wrong.cfg.sha256, wrong.layers[0].layer) = (m.model.sourceSHA256!, 1)
        if case .convolutional = m.model.layers[1].kind { wrong.layers[0].layer = m.model.layers.count }
        XCTAssertThrowsError(try wrong.check(cfgOf: m.model)) { error in
            guard case Int8Error.layer? = error as? Int8Error else { return XCTFail("\(error)") }
        }
    }

    /// Without VNNI the engine quantizes to 128 levels: the file's 256-level scale and zero point scaled.
    func testQuantizationOnFewerLevels() {
        let layer = Calibration.Layer(layer: 0, precision: .int8, reason: nil, low: -1, high: 3, min: -1, max: 3, error: nil)
        let calibration = Calibration(cfg: .init(file: "", sha256: ""), weights: .init(file: "", sha256: ""),
                                      input: .init(width: 1, height: 1), method: .percentile, percentile: 99.99, images: 1,
                                      errorBound: 0.05, layers: [layer])
        let full = calibration.quantization(ofLayer: 0, levels: 255)!
        let seven = calibration.quantization(ofLayer: 0, levels: 127)!
        XCTAssertEqual(full, ActivationQuantization(scale: 4 / Float(255), zeroPoint: 64, levels: 255))
        XCTAssertEqual(seven.scale, full.scale * 255 / 127)
        XCTAssertEqual(seven.zeroPoint, 32)
        XCTAssertNil(calibration.quantization(ofLayer: 1, levels: 255))
    }
}
