@testable import Darknet
import Foundation
import TestSupport
import XCTest

/// A per-layer golden written by `tools/oracle/darknet-oracle.c layers` (see Fixtures/README.md):
/// statistics and a fixed sample of every layer's output from Debian's `libdarknet.so`.
struct LayerGolden: Decodable {
    struct Layer: Decodable {
        var index: Int
        var type: String
        var out_c: Int
        var out_h: Int
        var out_w: Int
        var count: Int
        var mean: Double
        var std: Double
        var min: Double
        var max: Double
        var samples: [[Double]]
    }

    /// What `darknet-oracle synth-weights` reported, for goldens made with synthetic weights.
    struct Synthetic: Decodable {
        var specVersion: Int
        var seed: UInt64
        var bytes: Int
        var fnv1a64: String
    }

    var layers: [Layer]
    var width: Int
    var height: Int
    var syntheticWeights: Synthetic?

    static func load(_ url: URL) throws -> LayerGolden {
        try JSONDecoder().decode(LayerGolden.self, from: Data(contentsOf: url))
    }
}

/// Compares every layer of `network` run on the synthetic input with the golden.
///
/// Tolerance: |ours − darknet's| ≤ `tolerance · (1 + layerStd)` per sampled value, and the
/// same bound on mean, std, min and max. darknet sums with its own GEMM loop order and
/// applies batch norm after the convolution; we fold it and sum in OpenBLAS's order, so
/// float rounding differs by about 1e-6 relative per layer and accumulates over depth.
func assertMatchesGolden(_ network: Network, _ golden: LayerGolden, tolerance: Double,
                         file: StaticString = #filePath, line: UInt = #line) throws {
    XCTAssertEqual(golden.layers.count, network.model.layers.count, file: file, line: line)
    var worst = (error: 0.0, layer: -1)
    try network.forward(SyntheticWeights.input(network.model.inputShape)) { layer, values in
        let expected = golden.layers[layer.index]
        XCTAssertEqual(expected.type, layer.typeName, file: file, line: line)
        XCTAssertEqual([expected.out_c, expected.out_h, expected.out_w],
                       [layer.output.channels, layer.output.height, layer.output.width], "layer \(layer.index)", file: file, line: line)
        guard expected.count == values.count else { return }
        let scale = 1 + expected.std
        var sum = 0.0, sumSquares = 0.0, low = Double.infinity, high = -Double.infinity
        for value in values {
            let v = Double(value)
            sum += v; sumSquares += v * v
            low = Swift.min(low, v); high = Swift.max(high, v)
        }
        let mean = sum / Double(values.count)
        let std = (Swift.max(0, sumSquares / Double(values.count) - mean * mean)).squareRoot()
        var errors = [abs(mean - expected.mean), abs(std - expected.std), abs(low - expected.min), abs(high - expected.max)]
        for sample in expected.samples {
            errors.append(abs(Double(values[Int(sample[0])]) - sample[1]))
        }
        let error = (errors.max() ?? 0) / scale
        if error > worst.error { worst = (error, layer.index) }
        XCTAssertLessThanOrEqual(error, tolerance,
                                 "layer \(layer.index) (\(layer.typeName)) differs from darknet by \(error) × (1 + std)",
                                 file: file, line: line)
    }
    print("worst relative difference \(worst.error) at layer \(worst.layer)")
}
