/// A frame rate as a fraction (`30000/1001` for NTSC's 29.97), exact, as ffmpeg states it.
public struct FrameRate: Sendable, Equatable, CustomStringConvertible {
    public var numerator: Int
    public var denominator: Int

    /// nil unless both parts are positive (ffmpeg writes `0/0` for an unknown rate).
    public init?(numerator: Int, denominator: Int) {
        guard numerator > 0, denominator > 0 else { return nil }
        self.numerator = numerator
        self.denominator = denominator
    }

    /// `"15/1"`, `"30000/1001"`, `"25"`.
    public init?(_ text: some StringProtocol) {
        let parts = text.split(separator: "/")
        guard parts.count == 1 || parts.count == 2, let numerator = Int(parts[0]) else { return nil }
        self.init(numerator: numerator, denominator: parts.count == 2 ? Int(parts[1]) ?? 0 : 1)
    }

    /// Frames per second.
    public var value: Double { Double(numerator) / Double(denominator) }

    /// As ffmpeg's options take it: `15/1`, `30000/1001`.
    public var description: String { "\(numerator)/\(denominator)" }
}
