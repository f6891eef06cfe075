import Darknet
import Foundation
import Imaging
import TestSupport
import XCTest
import YOLO

/// The YOLO module's strided decoder fed by the engine: yolov3-tiny with the real weights on
/// the letterboxed dog.jpg, the two [yolo] layers' outputs (darknet's post-activation layout,
/// NCHW) decoded through `YOLODecoder.decode(_:tensor:head:...)` — as given and as an NHWC
/// copy — give darknet's boxes (Fixtures/yolov3-tiny-dog.json, written by libdarknet) within
/// DetectorTests' tolerances: probabilities within 0.005, boxes within 1e-3, pixels within 1.
final class YOLODecodeOnDogTests: XCTestCase {
    func testStridedDecodeOfEngineOutputsMatchesDarknet() throws {
        let golden = try JSONDecoder().decode(DetectionGolden.self,
                                              from: Data(contentsOf: try TestData.fixture("yolov3-tiny-dog.json")))
        let cfg = try TestData.cfg("yolov3-tiny"), weights = try TestData.path("yolov3-tiny.weights")
        let network = try Network(cfg: cfg, weights: weights)
        let detector = try Detector(cfg: cfg, weights: weights)   // for its letterbox, `prepare`
        let image = try Image(contentsOf: try TestData.path("data/dog.jpg"))
        let net = network.model.net
        let outputs = try network.forward(detector.prepare(image).data)

        var nchwCandidates: [Candidate] = [], nhwcCandidates: [Candidate] = [], darknetEntryPoint: [Candidate] = []
        var heads = 0
        for output in outputs {
            guard case .yolo(let yolo) = network.model.layers[output.layer].kind else { continue }
            heads += 1
            let (c, h, w) = (output.shape.channels, output.shape.height, output.shape.width)
            XCTAssertEqual(c, 255, "3 anchors x (5 + 80 classes)")
            nchwCandidates += try YOLODecoder.decode(output.values, tensor: .nchw(channels: c, height: h, width: w), head: .yolo(yolo.head),
                                                     networkWidth: net.width, networkHeight: net.height, threshold: 0.5)
            var nhwc = [Float](repeating: 0, count: output.values.count)
            for ch in 0..<c { for y in 0..<h { for x in 0..<w { nhwc[(y * w + x) * c + ch] = output.values[(ch * h + y) * w + x] } } }
            nhwcCandidates += try YOLODecoder.decode(nhwc, tensor: .nhwc(channels: c, height: h, width: w), head: .yolo(yolo.head),
                                                     networkWidth: net.width, networkHeight: net.height, threshold: 0.5)
            darknetEntryPoint += try YOLODecoder.decode(output.values, gridWidth: w, gridHeight: h, head: yolo.head,
                                                        networkWidth: net.width, networkHeight: net.height, threshold: 0.5)
        }
        XCTAssertEqual(heads, 2)
        XCTAssertEqual(nchwCandidates, darknetEntryPoint, "NCHW Float, post-activation: the engine's own decode, bit for bit")
        XCTAssertEqual(nhwcCandidates, nchwCandidates, "the NHWC copy decodes to the same candidates")
        XCTAssertEqual(nchwCandidates.count, 5, "darknet's candidateBoxes (objectness > 0.5): \(golden.detections.count) detections on 5 boxes")

        for candidates in [nchwCandidates, nhwcCandidates] {
            var corrected = candidates
            correctBoxes(&corrected, imageWidth: image.width, imageHeight: image.height,
                         networkWidth: net.width, networkHeight: net.height, mapping: .letterbox)
            assertMatchesDarknet(detections(from: NMS.perClass(corrected, iouThreshold: 0.45), threshold: 0.5), golden, image: image)
        }
    }
}
