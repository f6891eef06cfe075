@testable import Kernels
import XCTest

/// `Winograd.drive`, the tiled-pass driver of both strides, with a pass that only records what
/// it is given: every tile row of every image exactly once, in passes (the whole batch at once,
/// or image by image) and in bands, with each pass's operands placed at its first image and
/// each band in its own worker's slice of the workspace.
final class WinogradDriverTests: XCTestCase {
    /// Records, per image and tile row, how many passes covered it; and what each pass was told.
    struct Recorder: WinogradPass {
        nonisolated(unsafe) let visits: UnsafeMutableBufferPointer<Int>
        nonisolated(unsafe) let misplaced: UnsafeMutablePointer<Int>
        let tileRows: Int
        let origin: UnsafePointer<Float>
        let workspace: UnsafeMutablePointer<Float>
        let perWorker: Int?

        func run(_ operands: WinogradOperands, images: Int, tileRows rows: Range<Int>, workspace: UnsafeMutablePointer<Float>,
                 threads: Int, slots: Int, timer: inout PhaseTimer?) {
            let first = origin.distance(to: operands.input.base) / operands.input.imageStride
            if origin.distance(to: operands.input.base) % operands.input.imageStride != 0
                || UnsafePointer(operands.output.base) != origin + first * operands.output.imageStride {
                misplaced.pointee += 1
            }
            if let perWorker {
                let offset = self.workspace.distance(to: workspace)
                if images != 1 || threads != 1 || slots != 1 || offset % perWorker != 0 { misplaced.pointee += 1 }
            } else if workspace != self.workspace || slots != Winograd.maximumWorkers {
                misplaced.pointee += 1
            }
            for image in first..<(first + images) {
                for row in rows { visits[image * tileRows + row] += 1 }
            }
        }
    }

    func testEveryTileRowOfEveryImageOnce() {
        let g = ConvolutionGeometry(channels: 2, height: 37, width: 9, filters: 3, outHeight: 37, outWidth: 9, size: 3,
                                    strideX: 1, strideY: 1, pad: 1)
        let grid = (rows: 10, columns: 3)
        let images = 3
        let schedules: [Winograd.Schedule] = [.passes(images: images, tileRows: grid.rows), .passes(images: 1, tileRows: 4),
                                              .passes(images: 1, tileRows: 1), .bands(count: 4, perWorker: 5),
                                              .bands(count: 10, perWorker: 1)]
        var planes = [Float](repeating: 0, count: images * g.height * g.width * g.channels)
        var workspace = [Float](repeating: 0, count: 64)
        for schedule in schedules {
            var visits = [Int](repeating: 0, count: images * grid.rows)
            let misplaced = UnsafeMutablePointer<Int>.allocate(capacity: 1)
            misplaced.initialize(to: 0)
            defer { misplaced.deallocate() }
            planes.withUnsafeMutableBufferPointer { planes in
                workspace.withUnsafeMutableBufferPointer { workspace in
                    visits.withUnsafeMutableBufferPointer { visits in
                        let base = planes.baseAddress!
                        let perWorker: Int? = if case .bands(_, let perWorker) = schedule { perWorker } else { nil }
                        let recorder = Recorder(visits: visits, misplaced: misplaced, tileRows: grid.rows,
                                                origin: UnsafePointer(base), workspace: workspace.baseAddress!,
                                                perWorker: perWorker)
                        let biases = [Float](repeating: 0, count: g.filters)
                        biases.withUnsafeBufferPointer { biases in
                            let operands = WinogradOperands(
                                input: TensorView(base, channels: g.channels, height: g.height, width: g.width, images: images),
                                output: MutableTensorView(base, channels: g.filters, height: g.outHeight, width: g.outWidth,
                                                          images: images),
                                epilogue: Epilogue(biases: biases.baseAddress!, activation: .linear), pooled: nil)
                            var timer: PhaseTimer? = nil
                            Winograd.drive(recorder, operands, g, grid: grid, images: images, schedule: schedule,
                                           workspace: workspace.baseAddress!, threads: 2, timer: &timer)
                        }
                    }
                }
            }
            XCTAssertEqual(visits, [Int](repeating: 1, count: images * grid.rows), "\(schedule)")
            XCTAssertEqual(misplaced.pointee, 0, "\(schedule)")
        }
    }
}
