/// A scalar type a runtime can hand the decoder: `Float`, `Double` and, where the platform
/// has it, `Float16` (Core ML's `.float16` multi-arrays). Values are read as `Float`, so a
/// `Float` tensor decodes bit for bit as darknet does, and `Double` / `Float16` tensors decode
/// as their values rounded to `Float`.
public protocol TensorElement: Sendable {
    /// The value rounded to the nearest `Float`.
    var floatValue: Float { get }
}

extension Float: TensorElement {
    @inlinable public var floatValue: Float { self }
}

extension Double: TensorElement {
    @inlinable public var floatValue: Float { Float(self) }
}

// Float16 exists in the Swift standard library on Linux (x86_64, arm64) and on Apple
// arm64 platforms, but is unavailable on macOS x86_64.
#if !(os(macOS) && arch(x86_64))
@available(macOS 11.0, iOS 14.0, tvOS 14.0, watchOS 7.0, *)
extension Float16: TensorElement {
    @inlinable public var floatValue: Float { Float(self) }
}
#endif
