import Foundation
import YOLO

/// What `map` prints: AlexeyAB's lines from `validate_detector_map` (detector.c), with his
/// `printf` formats, plus the mAP over COCO's IoU thresholds; or one JSON object with every figure.
struct MapResult {
    var report: EvaluationReport
    /// `DetectionEvaluation.meanAveragePrecisionOverCOCOThresholds`.
    var coco: Double
    var names: [String]
    /// Images in the list (evaluated or failed).
    var images: Int
    var failures: [MapRun.Failure]
    var missingLabels: [String]

    /// His stdout after the detections: the counts, a line per class, the figures at the
    /// confidence threshold, the mAP; then the mAP@0.50:0.95 line he does not print.
    func text() -> String {
        var text = String(format: "\n detections_count = %d, unique_truth_count = %d  \n", report.detectionCount, report.truthCount)
        for (classId, ap) in report.averagePrecisions.enumerated() {
            text += String(format: "class_id = %d, name = ", classId) + escapedForTerminal(name(classId))
                + String(format: ", ap = %2.2f%%   \t (TP = %d, FP = %d) \n", ap * 100,
                         report.threshold.truePositives[classId], report.threshold.falsePositives[classId])
        }
        let conf = Double(report.confidenceThreshold)
        text += String(format: "\n for conf_thresh = %1.2f, precision = %1.2f, recall = %1.2f, F1-score = %1.2f \n",
                       conf, Double(report.precision), Double(report.recall), Double(report.f1))
        text += String(format: " for conf_thresh = %0.2f, TP = %d, FP = %d, FN = %d, average IoU = %2.2f %% \n",
                       conf, report.truePositives, report.falsePositives, report.falseNegatives, Double(report.averageIoU * 100))
        text += String(format: "\n IoU threshold = %2.0f %%, ", Double(report.iouThreshold * 100))
        text += report.points > 0 ? String(format: "used %d Recall-points \n", report.points) : "used Area-Under-Curve for each unique Recall \n"
        let map = report.meanAveragePrecision
        text += String(format: " mean average precision (mAP@%0.2f) = %f, or %2.2f %% \n", Double(report.iouThreshold), map, map * 100)
        text += String(format: " mean average precision (mAP@0.50:0.95) = %f, or %2.2f %% \n", coco, coco * 100)
        return text
    }

    /// One JSON object: the run (thresholds, points, images, failures, missing label files, the
    /// detector's choices), the figures at the confidence threshold, both mAPs and a row per class.
    func json(choices: String) -> String {
        let n = JSONReport.number(_:), d = { (value: Double) in JSONReport.number(double: value) }
        let classes = report.averagePrecisions.indices.map { c -> String in
            let precision = report.precision(ofClass: c), recall = report.recall(ofClass: c)
            return "{\"classId\":\(c),\"name\":\(JSONReport.quoted(name(c))),\"averagePrecision\":\(d(report.averagePrecisions[c])),"
                + "\"objects\":\(report.truthPerClass[c]),\"truePositives\":\(report.threshold.truePositives[c]),"
                + "\"falsePositives\":\(report.threshold.falsePositives[c]),"
                + "\"falseNegatives\":\(report.truthPerClass[c] - report.threshold.truePositives[c]),"
                + "\"precision\":\(n(precision)),\"recall\":\(n(recall)),\"f1\":\(n(2 * precision * recall / (precision + recall))),"
                + "\"averageIoU\":\(n(report.averageIoU(ofClass: c)))}"
        }
        let failed = failures.map { "{\"path\":\(JSONReport.quoted($0.path)),\"error\":\(JSONReport.quoted($0.reason))}" }
        return "{\"images\":\(images),\"evaluated\":\(images - failures.count),\"failed\":[\(failed.joined(separator: ","))],"
            + "\"missingLabels\":[\(missingLabels.map(JSONReport.quoted).joined(separator: ","))],\(choices)"
            + "\"iouThreshold\":\(n(report.iouThreshold)),\"confidenceThreshold\":\(n(report.confidenceThreshold)),"
            + "\"points\":\(report.points),\"detections\":\(report.detectionCount),\"objects\":\(report.truthCount),"
            + "\"truePositives\":\(report.truePositives),\"falsePositives\":\(report.falsePositives),"
            + "\"falseNegatives\":\(report.falseNegatives),\"precision\":\(n(report.precision)),\"recall\":\(n(report.recall)),"
            + "\"f1\":\(n(report.f1)),\"averageIoU\":\(n(report.averageIoU)),"
            + "\"meanAveragePrecision\":\(d(report.meanAveragePrecision)),\"meanAveragePrecision50To95\":\(d(coco)),"
            + "\"classes\":[\(classes.joined(separator: ","))]}\n"
    }

    /// The stderr line when images failed or had no label file.
    var summary: String {
        "\(images) image\(images == 1 ? "" : "s"): \(images - failures.count) evaluated, \(failures.count) failed"
            + (missingLabels.isEmpty ? "" : ", \(missingLabels.count) without a label file (counted with no objects)")
    }

    private func name(_ classId: Int) -> String { TextReport.name(classId, names) }
}
