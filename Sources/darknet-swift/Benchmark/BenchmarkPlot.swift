import CommandSupport
import Darknet
import Foundation

/// `benchmark --plot FILE.svg`: a horizontal bar per layer (median ms, layer order), split
/// into im2col / GEMM / epilogue for convolutions (in proportion to the phase medians).
enum BenchmarkPlot {
    enum Error: Swift.Error, CustomStringConvertible {
        case badExtension(String)
        case cannotWrite(String, reason: String)

        var description: String {
            switch self {
            case .badExtension(let path): return "\(path): the plot must end in .svg"
            case .cannotWrite(let path, let reason): return "\(path): cannot write the plot (\(reason))"
            }
        }
    }

    static let colors = (im2col: "#f28e2b", gemm: "#4e79a7", epilogue: "#59a14f", other: "#9c9c9c")

    /// Fails early (before measuring) when the plot could not be written (`OutputFile`'s
    /// rules; `inputs` are the cfg and weights).
    static func check(_ path: String, force: Bool, inputs: [String] = []) throws {
        guard URL(fileURLWithPath: path).pathExtension.lowercased() == "svg" else { throw Error.badExtension(path) }
        try OutputFile.check(RawPath(argument: path), replacing: force, inputs: inputs.map(RawPath.init(argument:)))
    }

    /// Writes `svg` to `path` by `AtomicFile` (an `O_EXCL` temporary; `link` unless `force`).
    static func write(_ svg: String, to path: String, force: Bool, inputs: [String] = []) throws {
        do {
            try AtomicFile.write(Array(svg.utf8), to: RawPath(argument: path), replacing: force,
                                 inputs: inputs.map(RawPath.init(argument:)))
        } catch OutputFile.Error.failed(_, let action, let code) {
            throw Error.cannotWrite(path, reason: "\(action): \(String(cString: strerror(code)))")
        }
    }

    static func render(_ result: BenchmarkResult) -> String {
        let rows = result.rows
        let rowHeight = 16.0, barHeight = 11.0
        let labelWidth = 250.0, plotWidth = 620.0, right = 90.0
        let top = 96.0
        let width = labelWidth + plotWidth + right
        let height = top + Double(rows.count) * rowHeight + 40
        let longest = rows.map(\.median).max() ?? 0
        let step = tickStep(longest * 1000)
        let axisMax = max(step, (longest * 1000 / step).rounded(.up) * step)
        let scale = plotWidth / axisMax  // pixels per millisecond
        let m = result.machine
        let weights = result.isSynthetic ? result.weights.replacingOccurrences(of: "synthetic", with: "synthetic weights")
            : "weights " + URL(fileURLWithPath: result.weights).lastPathComponent

        var svg = """
        <?xml version="1.0" encoding="UTF-8"?>
        <svg xmlns="http://www.w3.org/2000/svg" width="\(f(width))" height="\(f(height))" viewBox="0 0 \(f(width)) \(f(height))" font-family="DejaVu Sans, Helvetica, Arial, sans-serif" font-size="11">
        <rect width="100%" height="100%" fill="#ffffff"/>
        <text x="12" y="22" font-size="15" font-weight="bold">\(x(URL(fileURLWithPath: result.cfg).lastPathComponent)) at \(result.width)x\(result.height): median time per layer (ms)</text>
        <text x="12" y="40">\(x(m.cpu)), \(m.threads) of \(m.cores) cores, OpenBLAS core \(x(m.blasCore)); commit \(x(m.commit)); \(x(m.date))</text>
        <text x="12" y="56">\(x(weights)); end-to-end median \(BenchmarkTable.ms(result.endToEndMedian)) ms (\(String(format: "%.2f", result.imagesPerSecond)) images/s, \(String(format: "%.1f", result.effectiveGflops)) GFLOPS); sum of layer medians \(BenchmarkTable.ms(result.sumOfLayers)) ms</text>

        """
        var legendX = 12.0
        for (name, color) in [("im2col", colors.im2col), ("GEMM", colors.gemm), ("bias + activation", colors.epilogue),
                              ("other layers", colors.other)] {
            svg += "<rect x=\"\(f(legendX))\" y=\"68\" width=\"11\" height=\"11\" fill=\"\(color)\"/>"
            svg += "<text x=\"\(f(legendX + 15))\" y=\"78\">\(name)</text>\n"
            legendX += 30 + Double(name.count) * 6.5
        }
        // Grid and axis labels.
        var tick = 0.0
        while tick <= axisMax + step / 2 {
            let tx = labelWidth + tick * scale
            svg += "<line x1=\"\(f(tx))\" y1=\"\(f(top - 4))\" x2=\"\(f(tx))\" y2=\"\(f(top + Double(rows.count) * rowHeight))\" stroke=\"#e0e0e0\"/>"
            svg += "<text x=\"\(f(tx))\" y=\"\(f(top - 8))\" text-anchor=\"middle\" fill=\"#555555\">\(tickLabel(tick))</text>\n"
            tick += step
        }
        for (n, row) in rows.enumerated() {
            let y = top + Double(n) * rowHeight
            let label = "\(row.layer.index) \(row.layer.typeName) \(row.options)"
            svg += "<text x=\"\(f(labelWidth - 6))\" y=\"\(f(y + barHeight - 1))\" text-anchor=\"end\">\(x(label))</text>"
            let total = row.median * 1000 * scale
            var segments: [(String, String, Double)] = []
            if let p = row.phases, p.total > 0 {
                for (name, color, value) in [("im2col", colors.im2col, p.im2col), ("GEMM", colors.gemm, p.gemm),
                                             ("bias + activation", colors.epilogue, p.epilogue)] where value > 0 {
                    segments.append((name + " " + BenchmarkTable.ms(value) + " ms", color, total * value / p.total))
                }
            } else {
                segments.append((row.layer.typeName + " " + BenchmarkTable.ms(row.median) + " ms", colors.other, total))
            }
            var sx = labelWidth
            for (title, color, w) in segments {
                svg += "<rect x=\"\(f(sx))\" y=\"\(f(y))\" width=\"\(f(max(w, 0.5)))\" height=\"\(f(barHeight))\" fill=\"\(color)\">"
                svg += "<title>\(x(title))</title></rect>"
                sx += w
            }
            svg += "<text x=\"\(f(labelWidth + total + 4))\" y=\"\(f(y + barHeight - 1))\" fill=\"#333333\">"
            svg += "\(BenchmarkTable.ms(row.median))</text>\n"
        }
        svg += "<text x=\"\(f(labelWidth + plotWidth / 2))\" y=\"\(f(height - 12))\" text-anchor=\"middle\" fill=\"#555555\">milliseconds (median of \(result.runs) run\(result.runs == 1 ? "" : "s"))</text>\n"
        svg += "</svg>\n"
        return svg
    }

    /// A 1, 2 or 5 × 10ᵏ step giving about five to ten ticks up to `maximum`.
    static func tickStep(_ maximum: Double) -> Double {
        guard maximum > 0, maximum.isFinite else { return 1 }
        let raw = maximum / 6
        let magnitude = pow(10, floor(log10(raw)))
        for factor in [1.0, 2.0, 5.0] where factor * magnitude >= raw { return factor * magnitude }
        return 10 * magnitude
    }

    static func tickLabel(_ value: Double) -> String {
        value == value.rounded() ? String(Int(value)) : String(format: "%g", value)
    }

    /// Coordinates with at most two decimals.
    static func f(_ value: Double) -> String { String(format: "%.2f", value).replacingOccurrences(of: ".00", with: "") }

    /// XML text escaping.
    static func x(_ text: String) -> String {
        var out = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case let s where s.value < 0x20 && s != "\t" && s != "\n": out += "?"
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out
    }
}
