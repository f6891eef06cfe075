// swift-tools-version:6.0
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
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        // Only for `swift package generate-documentation`; a plugin, never linked into products.
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.4.0"),
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
        .testTarget(name: "CLITests", dependencies: ["darknet-swift", "Imaging", "Darknet", "TestSupport"], exclude: ["Fixtures"]),
    ]
)
