import Darknet

/// `classify --format json`'s object for one image (and `serve`'s classify answer): path,
/// width, height, classes [{index, label, confidence}], best first.
package enum ClassifyReport {
    package static func json(path: String, width: Int, height: Int, scores: [Classifier.Score]) -> String {
        let classes = scores.map {
            "{\"index\":\($0.index),\"label\":\(JSONReport.quoted($0.label)),\"confidence\":\(JSONReport.number($0.confidence))}"
        }
        return "{\"path\":\(JSONReport.quoted(path)),\"width\":\(width),\"height\":\(height),"
            + "\"classes\":[\(classes.joined(separator: ","))]}"
    }
}
