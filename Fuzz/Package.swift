// swift-tools-version:6.0
// libFuzzer harnesses, kept out of the root package so normal builds are unaffected.
// Built by tools/fuzz with `-sanitize=fuzzer,address -parse-as-library`; each target is one
// harness exporting LLVMFuzzerTestOneInput. Seed corpora: Tests/Fuzz/Fixtures/<harness>, made by
// tools/fuzz-seeds.
import PackageDescription

let package = Package(
    name: "darknet-swift-fuzz",
    dependencies: [.package(name: "darknet-swift", path: "..")],
    targets: [
        .target(name: "FuzzDriver"),
        .executableTarget(name: "FuzzCfg", dependencies: ["FuzzDriver", .product(name: "Darknet", package: "darknet-swift")]),
        .executableTarget(name: "FuzzWeights", dependencies: ["FuzzDriver", .product(name: "Darknet", package: "darknet-swift")]),
        .executableTarget(name: "FuzzImage", dependencies: ["FuzzDriver", .product(name: "Imaging", package: "darknet-swift")]),
        .executableTarget(name: "FuzzDecoder", dependencies: ["FuzzDriver", .product(name: "YOLO", package: "darknet-swift")]),
        .executableTarget(name: "FuzzNames", dependencies: ["FuzzDriver", .product(name: "Darknet", package: "darknet-swift")]),
    ]
)
