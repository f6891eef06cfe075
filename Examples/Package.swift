// swift-tools-version:6.0
// A small app that uses darknet-swift as a library, the way an outside package would.
import PackageDescription

let package = Package(
    name: "Examples",
    platforms: [.macOS(.v13)],
    dependencies: [
        .package(name: "darknet-swift", path: ".."),
    ],
    targets: [
        .executableTarget(
            name: "DetectPhoto",
            dependencies: [
                .product(name: "Darknet", package: "darknet-swift"),
                .product(name: "Imaging", package: "darknet-swift"),
                .product(name: "YOLO", package: "darknet-swift"),
            ]
        ),
        // The Video product: frames with timestamps from a file, camera or stream (needs the
        // ffmpeg program at run time, nothing to build).
        .executableTarget(
            name: "DetectVideo",
            dependencies: [
                .product(name: "Darknet", package: "darknet-swift"),
                .product(name: "Video", package: "darknet-swift"),
            ]
        ),
    ]
)
