import Darknet
import Foundation
import Imaging
import YOLO

/// `detect`'s files per image: the annotated image (`--output`, `--output-dir`), the label
/// file (`--save-labels`) and the crops (`--crops`).
extension DetectRun {
    /// Claims every target of the image first (so an image whose targets exist writes none of
    /// them), then writes each under a temporary name and renames it. Crops are cut before
    /// the boxes are drawn on the photo. The photo is decoded again from its bytes when it
    /// did not travel with the item (batches above 1).
    func writeFiles(_ result: ImageResult, of input: InputImage, item: inout PipelineItem) throws {
        let annotated = try targets?.claim(for: input)
        let labelFile = try labels?.path(for: input, suffix: ".txt")
        if let labels, let labelFile { try labels.claim([labelFile], for: input) }
        let cropFiles = try crops.map { try Crops.names(for: result.detections, of: input, in: $0, names: names, png: item.png) }
        if let crops, let cropFiles { try crops.claim(cropFiles, for: input) }

        if let labels, let labelFile {
            try AtomicFile.write(Array(SaveLabels.text(result.detections).utf8), to: labelFile, replacing: labels.replacing, inputs: [input.path])
        }
        guard annotated != nil || cropFiles != nil else { return }
        // The item gives its photo up, so drawing on it does not copy it.
        guard var photo = try item.photo.take() ?? item.encoded.take().map({ try Image(decoding: $0, name: input.display) })
        else { return }
        if let cropFiles {
            for (bytes, file) in zip(try Crops.encode(result.detections, from: photo, png: item.png, name: input.display), cropFiles) {
                try AtomicFile.write(bytes, to: file, replacing: crops?.replacing ?? false, inputs: [input.path])
            }
        }
        if let annotated {
            Annotator.draw(result.detections, on: &photo, names: names, classes: detector.classCount)
            let bytes = annotated.pathExtension == "png" ? try photo.pngData(name: annotated.display)
                : try photo.jpegData(quality: 90, name: annotated.display)
            try AtomicFile.write(bytes, to: annotated, replacing: targets?.force ?? false, inputs: [input.path])
        }
    }
}
