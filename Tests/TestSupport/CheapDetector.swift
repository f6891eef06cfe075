/// A detector cfg whose forward pass costs next to nothing, for tests of what surrounds the
/// network: a `pool`×`pool` max pool (stride `pool`), a 1×1 convolution of 18 filters and a
/// one-class `[yolo]` head of three anchors, on a `size`×`size` RGB input.
public enum CheapDetector {
    public static func cfg(size: Int, pool: Int) -> String {
        let lines = ["[net]", "width=\(size)", "height=\(size)", "channels=3",
                     "[maxpool]", "size=\(pool)", "stride=\(pool)",
                     "[convolutional]", "filters=18", "size=1", "stride=1", "activation=linear",
                     "[yolo]", "mask=0,1,2", "anchors=10,14, 23,27, 37,58", "classes=1", "num=3"]
        return lines.joined(separator: "\n") + "\n"
    }
}
