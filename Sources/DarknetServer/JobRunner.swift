import Dispatch
import Foundation
import Hummingbird
import Imaging
import NIOCore
import NIOPosix

/// What every inference route does between reading a body and writing an answer: decode and
/// fit the image off the event loops (`NIOThreadPool`, one thread a core, which also bounds
/// how many photos are decoded at once), then wait for the model's queue, racing the
/// request's deadline; a client that closes its connection cancels the wait, which drops
/// its job if it has not started.
package struct JobRunner: Sendable {
    package let settings: ServerSettings

    package init(settings: ServerSettings) {
        self.settings = settings
    }

    /// `body` run on the blocking thread pool.
    package func offLoop<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await NIOThreadPool.singleton.runIfActive(body)
    }

    /// The network input of `upload` for `model` and the photo's size: decoded with `[net]`
    /// channels and fitted as `detect` (or `classify`) fits it.
    package func prepare(_ upload: ImageUpload, for model: ServedModel) async throws -> (input: [Float], width: Int, height: Int) {
        let maxPixels = settings.maxPixels
        return try await offLoop {
            let image = try upload.decoded(channels: model.model.net.channels, maxPixels: maxPixels)
            switch model.engine {
            case .detector(let detector): return (detector.prepare(image).data, image.width, image.height)
            case .classifier(let classifier): return (classifier.prepare(image).data, image.width, image.height)
            }
        }
    }

    /// `job`'s answer from `model`'s queue, by `deadline` (uptime nanoseconds), cancelled
    /// when `channel` closes.
    package func run(_ job: InferenceQueue.Job, on model: ServedModel, deadline: UInt64,
                     channel: any Channel) async throws -> InferenceQueue.Answer {
        let milliseconds = settings.deadlineMilliseconds
        // Passed already (decoding took the whole budget): answered here, never queued.
        guard DispatchTime.now().uptimeNanoseconds < deadline else { throw ServerError.deadlineExceeded(milliseconds: milliseconds) }
        let work = Task { () throws -> InferenceQueue.Answer in
            try await withThrowingTaskGroup(of: InferenceQueue.Answer?.self) { group in
                group.addTask { try await model.queue.submit(job, deadline: deadline) }
                group.addTask {
                    let now = DispatchTime.now().uptimeNanoseconds
                    try await Task.sleep(nanoseconds: deadline - min(deadline, now))
                    return nil
                }
                defer { group.cancelAll() }
                guard let first = try await group.next(), let answer = first else {
                    throw ServerError.deadlineExceeded(milliseconds: milliseconds)
                }
                return answer
            }
        }
        channel.closeFuture.whenComplete { _ in work.cancel() }
        do {
            return try await withTaskCancellationHandler { try await work.value } onCancel: { work.cancel() }
        } catch ServerError.deadlineExceeded {
            throw ServerError.deadlineExceeded(milliseconds: milliseconds)
        }
    }

    /// The uptime nanoseconds by which a request arriving now must be answered.
    package var deadline: UInt64 {
        DispatchTime.now().uptimeNanoseconds + UInt64(settings.deadlineMilliseconds) * 1_000_000
    }
}
