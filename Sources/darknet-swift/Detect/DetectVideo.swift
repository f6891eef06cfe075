import ArgumentParser
import CommandSupport
import Foundation
import Video

/// `detect` on a video file, camera, network stream or image sequence: `stream`'s run
/// (`StreamRun`) on its frames, one record per frame in detect's `--format` (`text`: darknet's
/// lines headed `video.mp4 frame 12 at 0.800 s: Predicted in … seconds.`; `jsonl`: stream's
/// JSON lines), `--output FILE.mp4` the annotated video. Sampling, tracking, pacing and
/// reconnecting are `stream`'s options.
extension Detect {
    /// The video among the inputs (`VideoInput`), nil when there is none; a video must be the
    /// only input.
    func videoInput() throws -> VideoInput? {
        guard let video = inputs.images.lazy.filter({ $0 != "-" }).compactMap(VideoInput.init(argument:)).first else { return nil }
        guard inputs.images.count == 1, inputs.list == nil else {
            throw ValidationError("\(video) is a video: give it as detect's only input (or use darknet-swift stream)")
        }
        let refused: [(Bool, String)] = [
            (outputDir != nil, "--output-dir"), (saveLabels != nil, "--save-labels"), (crops != nil, "--crops"),
            (tiles != nil, "--tiles"), (shard != nil, "--shard"), (skipExisting, "--skip-existing"),
            (imageIds.imageIds != nil, "--image-ids"), (batch.batch > 1, "--batch"),
            (format != .text && format != .jsonl, "--format \(format.rawValue)"), (saveLabelsBesideImages, "--save-labels-beside-images"),
            (!resultFiles.requested.isEmpty, "--json, --jsonl, --csv, --coco and --darknet-json FILE"),
        ]
        if let option = refused.first(where: \.0)?.1 {
            throw ValidationError("\(option) is for images, not for a video (\(video)); see darknet-swift stream for videos")
        }
        if let output, VideoWriter.formats[(output as NSString).pathExtension.lowercased()] == nil {
            throw ValidationError("--output \(output): a video needs a video file name (.mp4, .mkv, .mov, .avi or .webm)")
        }
        return video
    }

    func runVideo(_ video: VideoInput) throws {
        var run = StreamRun(input: .video(video))
        run.command = "detect"
        run.format = format == .text ? .text(label: video.description) : .json
        run.output = output
        run.inputs = [files.cfg, files.weights]
        run.force = force
        run.quiet = quiet
        try run.run {
            let loader = ModelLoader(cfg: files.cfg, weights: files.weights,
                                     options: ModelOptions(size: size.size, strict: strict.strict, threads: engine.threads,
                                                           convolutionAlgorithm: engine.convolutionAlgorithm, gemm: engine.gemm,
                                                           calibration: engine.calibration))
            let detector = try loader.detector(detection.detectorOptions)
            let names = try loader.classNames(detection.names, data: try data.read(), classes: detector.classCount)
            return (detector, names, try detection.filter(names: names))
        }
    }
}
