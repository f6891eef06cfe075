// swift-tools-version:6.1
import PackageDescription

let package = Package(
    name: "darknet-swift",
    platforms: [.macOS(.v13)],
    products: [
        .library(name: "YOLO", targets: ["YOLO"]),
        .library(name: "Darknet", targets: ["Darknet"]),
        .library(name: "Imaging", targets: ["Imaging"]),
        // Video files, cameras and network streams through the `ffmpeg` program (a child
        // process found on PATH, nothing linked): a product of its own, so a package using
        // Darknet, Imaging or YOLO never builds it.
        .library(name: "Video", targets: ["Video"]),
        .executable(name: "darknet-swift", targets: ["darknet-swift"]),
        // `serve`: detection over HTTP on Hummingbird 2 (SwiftNIO). A product of its own, so
        // neither the libraries nor the `darknet-swift` executable build NIO; `darknet-swift
        // serve` runs this binary when it is installed beside it (see docs/serve.md).
        .executable(name: "darknet-swift-serve", targets: ["darknet-swift-serve"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        // Only for `swift package generate-documentation`; a plugin, never linked into products.
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.4.0"),
        // The server's alone (`DarknetServer`, `darknet-swift-serve`). Hummingbird without its
        // default traits: no swift-configuration to build.
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1", traits: []),
        .package(url: "https://github.com/apple/swift-http-types", from: "1.8.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-metrics", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.4.1"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
    ],
    targets: [
        // Thin system-library targets. Only the GEMM wrapper and the codec files import them.
        .systemLibrary(
            name: "COpenBLAS",
            path: "Sources/COpenBLAS",
            pkgConfig: "openblas",
            providers: [.apt(["libopenblas-dev"]), .brew(["openblas"])]
        ),
        .systemLibrary(
            name: "CJPEG",
            path: "Sources/CJPEG",
            pkgConfig: "libturbojpeg",
            providers: [.apt(["libturbojpeg0-dev", "libjpeg62-turbo-dev"]), .brew(["jpeg-turbo"])]
        ),
        .systemLibrary(
            name: "CPNG",
            path: "Sources/CPNG",
            pkgConfig: "libpng",
            providers: [.apt(["libpng-dev"]), .brew(["libpng"])]
        ),
        // Decoder, NMS and box geometry: the Swift standard library only. On Linux its
        // `rounded()` and `floor` calls need libm, which nothing else links for a YOLO-only app.
        .target(name: "YOLO", linkerSettings: [.linkedLibrary("m", .when(platforms: [.linux]))]),
        // GEMM, packed GEMM, im2col, Winograd, parallel loops, epilogue math, timing: knows no
        // layer, cfg or network type. The only target that imports the BLAS shim.
        .target(name: "Kernels", dependencies: ["COpenBLAS"]),
        .target(name: "Darknet", dependencies: ["YOLO", "Imaging", "Kernels"]),
        .target(name: "Imaging", dependencies: ["CJPEG", "CPNG"]),
        // Decodes and encodes video by running `ffmpeg` (see VideoSource, VideoWriter); Imaging
        // for the frames' `Image`, nothing of the engine.
        .target(name: "Video", dependencies: ["Imaging"]),
        // What the command-line executables share: the model files and options (`--size`,
        // `--strict`, `--threads`, `--conv-algorithm`, `--batch`), each declared once; model
        // loading with its file checks; raw paths and file reading. A plain target, never part
        // of a product.
        .target(
            name: "CommandSupport",
            dependencies: [
                "Darknet", "YOLO", "Imaging",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        .executableTarget(
            name: "darknet-swift",
            dependencies: [
                "CommandSupport", "Darknet", "YOLO", "Imaging", "Video",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        // The HTTP service: model registry, dynamic batching, routes (detect, classify, the Open
        // Inference Protocol, metrics, the page), limits and lifecycle. A plain target, only in
        // the `darknet-swift-serve` product.
        .target(
            name: "DarknetServer",
            dependencies: [
                "CommandSupport", "Darknet", "YOLO", "Imaging",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "CoreMetrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]
        ),
        .executableTarget(
            name: "darknet-swift-serve",
            dependencies: [
                "DarknetServer", "CommandSupport",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        // What every test target shares: the fetched-data lookup (skip, or fail under
        // DARKNET_SWIFT_REQUIRE_DATA), external tools, the seeded generator, tolerances. A plain
        // target (it imports XCTest), never part of a product.
        .target(name: "TestSupport", path: "Tests/TestSupport"),
        .testTarget(name: "YOLOTests", dependencies: ["YOLO", "TestSupport"]),
        .testTarget(name: "KernelsTests", dependencies: ["Kernels", "TestSupport"]),
        .testTarget(name: "DarknetTests", dependencies: ["Darknet", "YOLO", "Imaging", "TestSupport"], resources: [.copy("Fixtures")]),
        .testTarget(name: "VideoTests", dependencies: ["Video", "Imaging", "TestSupport"]),
        .testTarget(name: "ImagingTests", dependencies: ["Imaging", "TestSupport"], resources: [.copy("Fixtures")]),
        // Darknet for `SyntheticWeights` (models of the tests' own cfgs, run through the binary).
        .testTarget(name: "CLITests", dependencies: ["darknet-swift", "CommandSupport", "Imaging", "Darknet", "TestSupport"], exclude: ["Fixtures"]),
        // The server through its real binary on loopback (and its batching queue in-process).
        .testTarget(name: "ServerTests", dependencies: ["darknet-swift-serve", "darknet-swift", "DarknetServer", "CommandSupport", "Imaging", "Darknet", "TestSupport"],
                    exclude: ["Scripts"]),
    ]
)
