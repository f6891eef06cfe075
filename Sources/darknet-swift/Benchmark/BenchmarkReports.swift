import CommandSupport
import Darknet
import Foundation

/// `benchmark --format table`: a header naming the machine and weights, one row per layer,
/// then the end-to-end totals. Times in milliseconds.
enum BenchmarkTable {
    static func render(_ result: BenchmarkResult, rows: [BenchmarkRow]) -> String {
        let m = result.machine
        var text = "darknet-swift benchmark: \(result.cfg) at \(result.width)x\(result.height)\n"
        text += "date      \(m.date)\n"
        text += "commit    \(m.commit)\n"
        text += "cpu       \(m.cpu), \(m.cores) cores\n"
        text += "blas      \(m.blas) (core \(m.blasCore)), \(m.threads) thread\(m.threads == 1 ? "" : "s")"
            + "; packed weights: \(m.packedKernel ?? "none, cblas_sgemm only")\n"
        if let note = m.blasCoreNote { text += "blas core \(note)\n" }
        if result.gemm == .onednn {
            let support = (try? GEMMLibrary.onednnSupport.get()) ?? "oneDNN"
            text += "gemm      im2col and 1x1 products on \(support), one call per part; Winograd on OpenBLAS\n"
        }
        text += "weights   \(result.weights)"
            + (result.isSynthetic ? ": no weights file given, deterministic random weights (same speed as real ones)\n" : "\n")
        if let calibration = result.calibration {
            let int8 = result.rows.filter { $0.method == .int8 }.count
            let convolutions = result.rows.filter { $0.method != nil }.count
            text += "precision \(result.precision), calibration \(calibration): \(int8) of \(convolutions) convolutions int8\n"
        }
        text += String(format: "load      %.1f ms reading the weights (folding batch norm, Winograd transforms)\n",
                       result.loadSeconds * 1000)
        text += "runs      \(result.runs) after \(result.warmup) warm-up; each run is one plain forward (end-to-end) "
            + "and one profiled forward (layers)" + (result.batch > 1 ? ", then one batch-1 forward" : "") + "\n"
        if result.batch > 1 { text += "batch     \(result.batch) images per forward pass (times are per pass)\n" }
        if let peak = m.peakGflops {
            let n = Machine.peakSize
            text += String(format: "peak      sgemm %.1f GFLOPS", peak) + " (\(n)x\(n)x\(n), median of \(Machine.peakRepeats))\n"
        }
        text += "\n"

        var columns = ["layer", "type", "options", "method", "input", "", "output", "BFLOPs", "median ms", "p90 ms", "GFLOPS"]
        if m.peakGflops != nil { columns.append("% peak") }
        columns += ["% time", "im2col ms", "gemm ms", "epilogue ms"]
        var lines = [columns]
        for row in rows {
            let i = row.layer.input, o = row.layer.output
            var cells = [String(row.layer.index), row.layer.typeName, row.options, row.method.map(result.gemm.routeName) ?? "",
                         "\(i.width)x\(i.height)x\(i.channels)", "->", "\(o.width)x\(o.height)x\(o.channels)",
                         row.layer.bflops > 0 ? String(format: "%.3f", row.bflops) : "",
                         ms(row.median), ms(row.p90), row.layer.bflops > 0 ? String(format: "%.1f", row.gflops) : ""]
            if m.peakGflops != nil {
                cells.append(row.layer.bflops > 0 ? result.peakPercent(row).map { String(format: "%.1f", $0) } ?? "" : "")
            }
            cells.append(String(format: "%.1f", result.percent(row)))
            if let phases = row.phases {
                cells += [ms(phases.im2col), ms(phases.gemm), ms(phases.epilogue)]
            } else {
                cells += ["", "", ""]
            }
            lines.append(cells)
        }
        let leftAligned: Set<String> = ["type", "options", "method", "input", "output", ""]
        var widths = [Int](repeating: 0, count: columns.count)
        for line in lines { for (c, cell) in line.enumerated() { widths[c] = max(widths[c], cell.count) } }
        for line in lines {
            let cells = line.enumerated().map { c, cell in
                pad(cell, widths[c], left: leftAligned.contains(columns[c]))
            }
            text += cells.joined(separator: "  ").droppingTrailingSpaces + "\n"
        }
        text += "\n"
        text += "end-to-end  median \(ms(result.endToEndMedian)) ms, p90 \(ms(result.endToEndP90)) ms, "
            + String(format: "%.2f images/s, %.1f effective GFLOPS (%.3f BFLOPs)\n",
                     result.imagesPerSecond, result.effectiveGflops, result.totalBflops)
        if let single = result.singleImagesPerSecond {
            text += String(format: "batch 1     %.2f images/s; batch %d gives %.2fx the images/s\n",
                           single, result.batch, single > 0 ? result.imagesPerSecond / single : 0)
        }
        let e = result.endToEndMedian > 0 ? 100 / result.endToEndMedian : 0
        text += "layers      sum of layer medians \(ms(result.sumOfLayers)) ms = " + String(format: "%.1f%%", result.sumOfLayers * e)
            + " of end-to-end; median per-pass sum \(ms(result.layerSumMedian)) ms = "
            + String(format: "%.1f%%", result.layerSumMedian * e) + "\n"
        text += String(format: "profile     per-run layer sum / end-to-end: median %.3f over %d run%@, ",
                       result.layerSumRatioMedian, result.runs, result.runs == 1 ? "" : "s")
            + (result.layerSumsAccountForThePass
                ? "within 10%: the layer times account for the pass\n"
                : "more than 10% off: the layer times do not account for the pass (a busy machine? try --threads 1 --runs 20)\n")
        let (phases, other) = result.phaseTotals
        text += "phases      im2col / input transforms \(ms(phases.im2col)) ms, GEMM \(ms(phases.gemm)) ms, "
            + "epilogue / output transforms \(ms(phases.epilogue)) ms, other layers \(ms(other)) ms\n"
        return text + steadiness(result)
    }

    /// The `busy` line (`MachineLoad`) and the `spread` line, which flags an unsteady run
    /// (`BenchmarkResult.isUnsteady`).
    static func steadiness(_ result: BenchmarkResult) -> String {
        var text = "busy        "
        if let load = result.load {
            text += String(format: "other processes kept %.2f of %d cores busy during the runs; this one %.2f\n",
                           load.otherBusyCores, load.cores, load.ownBusyCores)
        } else {
            text += "unknown (no /proc/stat)\n"
        }
        guard result.runs > 1 else { return text + "spread      one run: its steadiness is unknown\n" }
        let spread = String(format: "end-to-end p90 is %.1f%% above the fastest pass (bound %.0f%%)",
                            result.endToEndSpread * 100, BenchmarkResult.unsteadyBound * 100)
        return text + (result.isUnsteady
            ? "spread      UNSTEADY: \(spread): the passes vary too much to trust; rerun on a quieter machine\n"
            : "spread      \(spread): steady\n")
    }

    /// Milliseconds with three significant decimals for small values.
    static func ms(_ seconds: Double) -> String {
        let value = seconds * 1000
        return String(format: value < 10 ? "%.3f" : "%.2f", value)
    }

    static func pad(_ text: String, _ width: Int, left: Bool) -> String {
        let padding = String(repeating: " ", count: max(0, width - text.count))
        return left ? text + padding : padding + text
    }
}

/// `benchmark --format csv`: a header and one line per layer (RFC 4180 quoting), times in ms;
/// the run's `other_busy_cores`, `end_to_end_spread` and `unsteady` on every line.
enum BenchmarkCSV {
    static func render(_ result: BenchmarkResult, rows: [BenchmarkRow]) -> String {
        var header = ["index", "type", "options", "method", "input_c", "input_h", "input_w", "output_c", "output_h", "output_w",
                      "bflops", "median_ms", "p90_ms", "gflops", "percent", "im2col_ms", "gemm_ms", "epilogue_ms",
                      "other_busy_cores", "end_to_end_spread", "unsteady"]
        if result.machine.peakGflops != nil { header.append("peak_percent") }
        var text = header.joined(separator: ",") + "\n"
        for row in rows {
            let i = row.layer.input, o = row.layer.output
            var cells = [String(row.layer.index), row.layer.typeName, field(row.options), row.method.map(result.gemm.routeName) ?? "",
                         String(i.channels), String(i.height), String(i.width),
                         String(o.channels), String(o.height), String(o.width),
                         String(format: "%.3f", row.bflops), msValue(row.median), msValue(row.p90),
                         String(format: "%.3f", row.gflops), String(format: "%.3f", result.percent(row))]
            cells += row.phases.map { [msValue($0.im2col), msValue($0.gemm), msValue($0.epilogue)] } ?? ["", "", ""]
            cells += [result.load.map { String(format: "%.3f", $0.otherBusyCores) } ?? "", String(format: "%.4f", result.endToEndSpread),
                      result.isUnsteady ? "true" : "false"]
            if let peak = result.peakPercent(row) { cells.append(String(format: "%.3f", peak)) }
            text += cells.joined(separator: ",") + "\n"
        }
        return text
    }

    static func msValue(_ seconds: Double) -> String { String(format: "%.4f", seconds * 1000) }

    /// A CSV field, quoted when it holds a comma, quote or line break.
    static func field(_ text: String) -> String {
        guard text.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" || $0 == "\r" }) else { return text }
        return "\"" + text.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }
}

/// `benchmark --format json`: one object, keys in a fixed order (tools and CI read them):
/// `machine`, `cfg`, `width`, `height`, `weights`, `precision`, `gemm` (`openblas` or
/// `onednn`), [`calibration`], `runs`, `warmup`, `layers` (index, type,
/// options, [method], input/output `[c, h, w]`, bflops, medianMs, p90Ms, gflops, percent, [peakPercent],
/// [phases {im2col, gemm, epilogue}]), `totalBflops`, `endToEndMedianMs`, `endToEndP90Ms`,
/// `sumOfLayersMs` (sum of layer medians), `layerSumMedianMs` (median over profiled passes of
/// their summed layer times), `layerSumRatioMedian` (median over runs of profiled sum / plain
/// pass), `endToEndMs` and `layerSumsMs` (each run's plain pass and profiled layer sum, in run
/// order), `imagesPerSecond`, `effectiveGflops`, `batch`, and with a batch above 1
/// `batch1ImagesPerSecond` (batch-1 passes timed in the same runs); then `loadMs` (reading the
/// weights, folding batch norm and the Winograd weight transforms), `machineLoad` (`cores`,
/// `otherBusyCores`, `ownBusyCores`; null without /proc/stat), `endToEndSpread`, `unsteady`
/// and `unsteadyBound`.
enum BenchmarkJSON {
    static func render(_ result: BenchmarkResult, rows: [BenchmarkRow]) -> String {
        let m = result.machine
        var machine = "\"date\":\(q(m.date)),\"commit\":\(q(m.commit)),\"cpu\":\(q(m.cpu)),\"cores\":\(m.cores),"
            + "\"blas\":\(q(m.blas)),\"blasCore\":\(q(m.blasCore)),\"threads\":\(m.threads),"
            + "\"packedKernel\":\(m.packedKernel.map(q) ?? "null")"
        if let note = m.blasCoreNote { machine += ",\"blasCoreNote\":\(q(note))" }
        if let peak = m.peakGflops { machine += ",\"peakGflops\":\(n(peak))" }
        let layers = rows.map { row -> String in
            let i = row.layer.input, o = row.layer.output
            var text = "{\"index\":\(row.layer.index),\"type\":\(q(row.layer.typeName)),\"options\":\(q(row.options)),"
                + (row.method.map { "\"method\":\(q(result.gemm.routeName($0)))," } ?? "")
                + "\"input\":[\(i.channels),\(i.height),\(i.width)],\"output\":[\(o.channels),\(o.height),\(o.width)],"
                + "\"bflops\":\(n(row.bflops)),\"medianMs\":\(n(row.median * 1000)),\"p90Ms\":\(n(row.p90 * 1000)),"
                + "\"gflops\":\(n(row.gflops)),\"percent\":\(n(result.percent(row)))"
            if let peak = result.peakPercent(row) { text += ",\"peakPercent\":\(n(peak))" }
            if let p = row.phases {
                text += ",\"phases\":{\"im2col\":\(n(p.im2col * 1000)),\"gemm\":\(n(p.gemm * 1000)),\"epilogue\":\(n(p.epilogue * 1000))}"
            }
            return text + "}"
        }
        return "{\"machine\":{\(machine)},\"cfg\":\(q(result.cfg)),\"width\":\(result.width),\"height\":\(result.height),"
            + "\"weights\":\(q(result.weights)),\"precision\":\(q(result.precision)),\"gemm\":\(q(result.gemm.rawValue)),"
            + (result.calibration.map { "\"calibration\":\(q($0))," } ?? "") + "\"runs\":\(result.runs),\"warmup\":\(result.warmup),"
            + "\"layers\":[\(layers.joined(separator: ","))],"
            + "\"totalBflops\":\(n(result.totalBflops)),\"endToEndMedianMs\":\(n(result.endToEndMedian * 1000)),"
            + "\"endToEndP90Ms\":\(n(result.endToEndP90 * 1000)),\"sumOfLayersMs\":\(n(result.sumOfLayers * 1000)),"
            + "\"layerSumMedianMs\":\(n(result.layerSumMedian * 1000)),\"layerSumRatioMedian\":\(n(result.layerSumRatioMedian)),"
            + "\"endToEndMs\":[\(result.endToEnd.map { n($0 * 1000) }.joined(separator: ","))],"
            + "\"layerSumsMs\":[\(result.layerSums.map { n($0 * 1000) }.joined(separator: ","))],"
            + "\"imagesPerSecond\":\(n(result.imagesPerSecond)),\"effectiveGflops\":\(n(result.effectiveGflops)),"
            + "\"batch\":\(result.batch)" + (result.singleImagesPerSecond.map { ",\"batch1ImagesPerSecond\":\(n($0))" } ?? "")
            + ",\"loadMs\":\(n(result.loadSeconds * 1000)),\"machineLoad\":\(machineLoad(result.load)),"
            + "\"endToEndSpread\":\(n(result.endToEndSpread)),\"unsteady\":\(result.isUnsteady),"
            + "\"unsteadyBound\":\(n(BenchmarkResult.unsteadyBound))}"
    }

    private static func machineLoad(_ load: MachineLoad?) -> String {
        guard let load else { return "null" }
        return "{\"cores\":\(load.cores),\"otherBusyCores\":\(n(load.otherBusyCores)),\"ownBusyCores\":\(n(load.ownBusyCores))}"
    }

    private static func q(_ text: String) -> String { JSONReport.quoted(text) }

    /// Six decimals are plenty for milliseconds, GFLOPS and percentages.
    private static func n(_ value: Double) -> String { JSONReport.number(double: (value * 1e6).rounded() / 1e6) }
}
