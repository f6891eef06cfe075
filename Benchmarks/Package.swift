// swift-tools-version:6.1
// darknet-swift's benchmark suites (ordo-one's package-benchmark). Run them from this folder:
//   swift package benchmark
// A package of its own, beside the root one, so the root package (and everyone who depends
// on it) never resolves package-benchmark: the root Package.swift does not mention it.
import PackageDescription

/// One executable target per suite, found by package-benchmark under Benchmarks/<Name>/.
func suite(_ name: String, _ products: [String]) -> Target {
    .executableTarget(
        name: name,
        dependencies: ["BenchmarkSupport", .product(name: "Benchmark", package: "benchmark")]
            + products.map { .product(name: $0, package: "darknet-swift") },
        path: "Benchmarks/\(name)",
        plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
    )
}

let package = Package(
    name: "darknet-swift-benchmarks",
    platforms: [.macOS(.v13)],
    dependencies: [
        // The root package by path, named so it does not matter what its folder is called.
        .package(name: "darknet-swift", path: ".."),
        .package(url: "https://github.com/ordo-one/benchmark", from: "1.38.1", traits: ["MallocInterposer"]),
    ],
    targets: [
        // Shared helpers: data lookup, throughput metrics, single-layer networks, generated images.
        .target(
            name: "BenchmarkSupport",
            dependencies: [
                .product(name: "Darknet", package: "darknet-swift"),
                .product(name: "Imaging", package: "darknet-swift"),
                .product(name: "Benchmark", package: "benchmark"),
            ]
        ),
        suite("Layers", ["Darknet"]),
        suite("Images", ["Imaging"]),
        suite("Postprocessing", ["YOLO"]),
        suite("EndToEnd", ["Darknet", "Imaging", "YOLO"]),
    ]
)
