/// A batch-1 activation shape, darknet's `c × h × w` (CHW, planar).
public struct TensorShape: Sendable, Hashable, CustomStringConvertible {
    public var channels: Int
    public var height: Int
    public var width: Int

    public init(channels: Int, height: Int, width: Int) {
        self.channels = channels
        self.height = height
        self.width = width
    }

    /// Element count; nil when it would overflow (shapes come from untrusted cfgs).
    public var checkedCount: Int? {
        let (hw, o1) = height.multipliedReportingOverflow(by: width)
        let (chw, o2) = hw.multipliedReportingOverflow(by: channels)
        return (o1 || o2) ? nil : chw
    }

    public var count: Int { channels * height * width }

    /// `w x h x c`, darknet's order in its layer table.
    public var description: String { "\(width) x \(height) x \(channels)" }
}
