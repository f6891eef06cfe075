import Foundation
import YOLO

/// `--classes`, `--max-detections`: applied to the detector's output (after NMS).
package struct DetectionFilter: Sendable {
    package var classes: Set<Int>?
    package var maxDetections: Int?

    package init(classes: Set<Int>? = nil, maxDetections: Int? = nil) {
        self.classes = classes
        self.maxDetections = maxDetections
    }

    package func apply(_ detections: [Detection]) -> [Detection] {
        var kept = detections
        if let classes { kept = kept.filter { classes.contains($0.classId) } }
        if let maxDetections, kept.count > maxDetections {
            // Highest confidence first; ties keep the detector's order.
            kept = kept.enumerated().sorted { $0.element.confidence != $1.element.confidence
                ? $0.element.confidence > $1.element.confidence : $0.offset < $1.offset }
                .prefix(maxDetections).map(\.element)
        }
        return kept
    }

    /// A `--classes` list (a server's `classes=`) with an entry that is neither a name nor a
    /// class number, or naming no class at all (it would keep no detection).
    package enum ClassesError: Error, CustomStringConvertible {
        case unknown(String)
        case noClass(list: String)

        package var description: String {
            switch self {
            case .unknown(let name): "--classes: unknown class \"\(name)\""
            case .noClass(let list): "--classes \"\(list)\" names no class (it would keep no detection)"
            }
        }
    }

    /// Resolves `--classes dog,car` (names from the names file, or class numbers).
    package static func classIds(_ list: String, names: [String]) throws(ClassesError) -> Set<Int> {
        var ids = Set<Int>()
        for item in list.split(separator: ",").map({ $0.trimmingCharacters(in: .whitespaces) }) where !item.isEmpty {
            if let index = names.firstIndex(of: item) {
                ids.insert(index)
            } else if let number = Int(item), number >= 0, number < names.count {
                ids.insert(number)
            } else {
                throw .unknown(item)
            }
        }
        if ids.isEmpty { throw .noClass(list: list) }
        return ids
    }
}
