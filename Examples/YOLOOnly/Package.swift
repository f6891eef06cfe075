// swift-tools-version:6.0
// A package that depends on the `YOLO` product alone (no Darknet, no Imaging, no system
// libraries): what an app decoding another runtime's tensors links. CI builds and runs it.
import PackageDescription

let package = Package(
    name: "YOLOOnly",
    platforms: [.macOS(.v13)],
    dependencies: [
        .package(name: "darknet-swift", path: "../.."),
    ],
    targets: [
        .executableTarget(
            name: "DecodeTensor",
            dependencies: [.product(name: "YOLO", package: "darknet-swift")]
        ),
    ]
)
