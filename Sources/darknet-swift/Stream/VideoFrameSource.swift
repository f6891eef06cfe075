import Dispatch
import Foundation
import Video

/// `stream`'s frames from a `VideoSource` (a file, camera, network stream or image
/// sequence): RGB24 frames with the source's timestamps. A failure of the source, after the
/// reconnections `--reconnect` allows, ends the frames with `StreamError.source`.
struct VideoFrameSource: FrameSource {
    let source: VideoSource

    var framesRead: Int { source.framesRead }

    mutating func next() throws(StreamError) -> FrameItem? {
        do {
            guard let frame = try source.next() else { return nil }
            return .frame(Frame(index: frame.index, bytes: frame.pixels,
                                pixels: .raw(width: frame.width, height: frame.height, format: .rgb24),
                                arrival: DispatchTime.now().uptimeNanoseconds, pts: frame.pts))
        } catch {
            throw .source(error)
        }
    }

    func stop() { source.stop() }
}
