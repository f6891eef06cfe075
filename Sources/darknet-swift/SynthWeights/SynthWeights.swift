import ArgumentParser
import CommandSupport
import Darknet
import Foundation

struct SynthWeights: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "synth-weights",
        abstract: "Write deterministic synthetic weights for a cfg.",
        discussion: """
        The file has darknet's layout (header 0.2.0, then every layer's parameters in the order \
        the cfg's darknet reads them) and the values of the engine's generator (SyntheticWeights, \
        spec v1) for --seed: the same cfg, size and seed give the same bytes on every machine. \
        Detections on such weights mean nothing, but they let you try a model without its \
        weights, time it, and check that a darknet build and this engine give the same answers \
        on the same file.

        EXAMPLES:
          darknet-swift synth-weights yolov4-tiny.cfg yolov4-tiny-synthetic.weights
          darknet-swift synth-weights darknet19.cfg darknet19.weights --seed 7 --size 256
        """
    )

    @Argument(help: "Darknet .cfg file.")
    var cfg: String

    @Argument(help: "The .weights file to write.")
    var output: String

    @Option(help: "Seed of the generator.")
    var seed: UInt64 = 1

    @OptionGroup var size: SizeOption<Size>

    @Flag(help: "Overwrite an existing file.")
    var force = false

    @OptionGroup var strict: StrictOption

    /// `--size` as `classify` takes it, worded for a file whose `[connected]` layers it sizes.
    enum Size: SizeRule {
        static let help = "Network input width and height (overrides [net]; it sizes [connected] layers)."
    }

    func run() throws {
        do {
            let model = try ModelLoader(cfg: cfg, weights: nil, options: ModelOptions(size: size.size, strict: strict.strict)).model()
            let target = RawPath(argument: output)
            let inputs = [RawPath(argument: cfg)]
            try OutputFile.check(target, replacing: force, inputs: inputs)
            let bytes = SyntheticWeights.bytes(for: model, seed: seed)
            try AtomicFile.write(bytes, to: target, replacing: force, inputs: inputs)
            let checksum = String(format: "%016llx", SyntheticWeights.fnv1a64(bytes))
            try StandardOutput.write("\(target.display): \(bytes.count) bytes, seed \(seed), FNV-1a 64 \(checksum)\n")
        } catch {
            throw conclude(error)
        }
    }
}
