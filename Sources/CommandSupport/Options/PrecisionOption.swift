import ArgumentParser
import Darknet

/// `--precision` and `--calibration`: f32, or int8 on the convolutions a calibration file marks
/// (`Precision`). Declared here once, for every command that runs or plans a detector.
package struct PrecisionOption: ParsableArguments {
    package enum Choice: String, ExpressibleByArgument, CaseIterable, Sendable {
        case f32, int8
    }

    @Option(help: "Arithmetic of the convolutions: f32, or int8 (needs --calibration and oneDNN, see --version).")
    package var precision: Choice = .f32

    @Option(help: ArgumentHelp("The calibration file for --precision int8 (made by `darknet-swift calibrate`).", valueName: "file"))
    package var calibration: String?

    package init() {}

    package func validate() throws {
        if precision == .int8 && calibration == nil {
            throw ValidationError("--precision int8 needs a calibration file: make one with `darknet-swift calibrate CFG WEIGHTS IMAGES... -o FILE`, then pass --calibration FILE")
        }
        if precision == .f32, calibration != nil {
            throw ValidationError("--calibration is read only with --precision int8")
        }
    }

    /// The calibration file to read, for int8.
    package var calibrationFile: String? { precision == .int8 ? calibration : nil }
}
