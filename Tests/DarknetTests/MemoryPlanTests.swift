import TestSupport
import XCTest
@testable import Darknet

final class MemoryPlanTests: XCTestCase {
    /// Every plan of the real cfgs never lets a layer write over a value still to be read.
    func testRealCfgsNeverOverwriteLiveOutputs() throws {
        for name in ["yolov3", "yolov3-spp", "yolov3-tiny", "darknet53", "densenet201"] {
            let model = try ModelDescription(contentsOf: try TestData.cfg(name), width: 416, height: 416)
            let plan = MemoryPlan(layers: model.layers)
            Self.check(plan, model.layers, name)
            let naive = model.layers.reduce(0) { $0 + $1.output.count }
            XCTAssertLessThan(plan.arenaFloats, naive / 2, "\(name): the arena should reuse most floats")
        }
    }

    /// yolov3's routes are all in place: the single-source ones alias, the two concatenations
    /// (upsample + a backbone layer) are written by their sources.
    func testYolov3RoutesAreFree() throws {
        let model = try ModelDescription(contentsOf: try TestData.cfg("yolov3"), width: 416, height: 416)
        let plan = MemoryPlan(layers: model.layers)
        let routes = model.layers.filter { if case .route = $0.kind { return true } else { return false } }
        XCTAssertEqual(routes.count, 4)
        for route in routes { XCTAssertTrue(plan.routeInPlace[route.index], "route \(route.index)") }
        // With copies, the routes' own blocks make the arena no smaller.
        XCTAssertLessThanOrEqual(plan.arenaFloats, MemoryPlan(layers: model.layers, inPlaceRoutes: false).arenaFloats)
    }

    /// Random small cfgs (convs, maxpools and upsamples of stride 1, routes of 1–3 earlier
    /// layers, some with `groups=2`, shortcuts between equal shapes) give plans that pass the same checks.
    func testRandomCfgsNeverOverwriteLiveOutputs() throws {
        var generator = SplitMix64(state: 5)
        for trial in 0..<200 {
            let text = Self.randomCfg(&generator)
            let model = try ModelDescription(text: text)
            Self.check(MemoryPlan(layers: model.layers), model.layers, "trial \(trial):\n\(text)")
        }
    }

    /// Plans for batches (every block `batch` times larger, route slices scaled) pass the same checks.
    func testBatchedPlansNeverOverwriteLiveOutputs() throws {
        let model = try ModelDescription(contentsOf: try TestData.cfg("yolov3"), width: 416, height: 416)
        for batch in [2, 3] {
            let plan = MemoryPlan(layers: model.layers, batch: batch)
            Self.check(plan, model.layers, "yolov3, batch \(batch)", batch: batch)
            XCTAssertEqual(plan.arenaFloats, batch * MemoryPlan(layers: model.layers).arenaFloats, accuracy: 16 * model.layers.count)
        }
        var generator = SplitMix64(state: 17)
        for trial in 0..<100 {
            let text = Self.randomCfg(&generator)
            let model = try ModelDescription(text: text)
            Self.check(MemoryPlan(layers: model.layers, batch: 3), model.layers, "trial \(trial):\n\(text)", batch: 3)
        }
    }

    /// yolov3's 23 shortcuts each follow a convolution read by nothing else: all in place, and
    /// the arena is no larger than with a block of their own.
    func testYolov3ShortcutsAreInPlace() throws {
        let model = try ModelDescription(contentsOf: try TestData.cfg("yolov3"), width: 416, height: 416)
        let plan = MemoryPlan(layers: model.layers)
        let shortcuts = model.layers.filter { if case .shortcut = $0.kind { return true } else { return false } }
        XCTAssertEqual(shortcuts.count, 23)
        for shortcut in shortcuts { XCTAssertTrue(plan.shortcutInPlace[shortcut.index], "shortcut \(shortcut.index)") }
        XCTAssertLessThanOrEqual(plan.arenaFloats, MemoryPlan(layers: model.layers, inPlaceShortcuts: false).arenaFloats)
    }

    /// Fused shortcuts change nothing: unobserved (each convolution adds its shortcut's source
    /// in its epilogue), the outputs are the bits of the plan where every shortcut adds into its
    /// own block, for every convolution method (Winograd transformed at load and streamed, im2col
    /// in whole matrices and in bands), one image and two.
    func testFusedShortcutsGiveTheSameOutputs() throws {
        var generator = SplitMix64(state: 21)
        var fused = 0
        for trial in 0..<60 {
            let text = Self.randomCfg(&generator)
            let model = try ModelDescription(text: text)
            fused += MemoryPlan(layers: model.layers).shortcutInPlace.filter { $0 }.count
            let bytes = SyntheticWeights.bytes(for: model, seed: UInt64(trial))
            let weights = try bytes.withUnsafeBytes { try WeightsReader.read($0, file: "synthetic", for: model) }
            let image = SyntheticWeights.input(model.inputShape)
            for algorithm in [ConvolutionAlgorithm.im2col, .winograd, .winogradStreamed] {
                // Bands on the 8×8 images every other trial (`Im2colBands`: 2 rows a band).
                var blocking = Blocking()
                if trial % 2 == 1 { (blocking.bandFloats, blocking.bandMinimumColumns) = (16, 8) }
                let options = ExecutionOptions(threads: 2, convolutionAlgorithm: algorithm, blocking: blocking)
                for batch in [1, 2] {
                    let input = Array([[Float]](repeating: image, count: batch).joined())
                    let prepared = try PreparedModel(model: model, weights: weights, options: options, batch: batch)
                    let outputs = try [true, false].map { inPlace in
                        try Network(prepared, batch: batch, inPlaceRoutes: true, inPlaceShortcuts: inPlace).forward(input).map(\.values)
                    }
                    XCTAssertEqual(outputs[0].map { $0.map(\.bitPattern) }, outputs[1].map { $0.map(\.bitPattern) },
                                   "trial \(trial), \(algorithm), batch \(batch):\n\(text)")
                }
            }
        }
        XCTAssertGreaterThanOrEqual(fused, 8, "the random cfgs should fuse shortcuts")
    }

    /// The checks catch a plan that reuses floats too early, a route source off its slice, or a
    /// shortcut in place where it cannot be.
    func testChecksFindBrokenPlans() throws {
        let model = try ModelDescription(contentsOf: try TestData.cfg("yolov3"), width: 416, height: 416)
        var early = MemoryPlan(layers: model.layers)
        early.offsetOfLayer[2] = early.offsetOfLayer[1]  // layer 2 reads layer 1 (and 3 reads it via the shortcut)
        XCTAssertFalse(Self.problems(early, model.layers).isEmpty)
        var offSlice = MemoryPlan(layers: model.layers)
        offSlice.offsetOfLayer[85] += 16  // the upsample feeding route 86
        XCTAssertFalse(Self.problems(offSlice, model.layers).isEmpty)
        var offConvolution = MemoryPlan(layers: model.layers)
        offConvolution.offsetOfLayer[4] += 16  // shortcut 4, in place over convolution 3
        XCTAssertFalse(Self.problems(offConvolution, model.layers).isEmpty)
        var notShortcut = MemoryPlan(layers: model.layers)
        notShortcut.shortcutInPlace[6] = true  // a convolution over convolution 5, which layer 8 reads too
        notShortcut.offsetOfLayer[6] = notShortcut.offsetOfLayer[5]
        XCTAssertFalse(Self.problems(notShortcut, model.layers).isEmpty)
        // yolov3-tiny's pool 3 over layer 1, convolution 2's input (free once 2 has run, but
        // convolution 2 writes the fused pool while it reads layer 1).
        let tiny = try ModelDescription(contentsOf: try TestData.cfg("yolov3-tiny"), width: 416, height: 416)
        var overInput = MemoryPlan(layers: tiny.layers)
        XCTAssertEqual(Self.problems(overInput, tiny.layers), [])
        overInput.offsetOfLayer[3] = overInput.offsetOfLayer[1]
        XCTAssertTrue(Self.problems(overInput, tiny.layers).contains("pool 3 overlaps its convolution's input (layer 1)"))
    }

    /// In-place routes and shortcuts change nothing: every layer's output (observed, so each
    /// in-place shortcut adds in place) equals the plan where routes copy and shortcuts have blocks of their own.
    func testInPlaceRoutesAndShortcutsGiveTheSameOutputsAsCopies() throws {
        var generator = SplitMix64(state: 9)
        for trial in 0..<20 {
            let text = Self.randomCfg(&generator)
            let model = try ModelDescription(text: text)
            let bytes = SyntheticWeights.bytes(for: model, seed: UInt64(trial))
            let weights = try bytes.withUnsafeBytes { try WeightsReader.read($0, file: "synthetic", for: model) }
            let input = SyntheticWeights.input(model.inputShape)
            var copied: [[Float]] = []
            let prepared = try PreparedModel(model: model, weights: weights)
            try Network(prepared, inPlaceRoutes: false, inPlaceShortcuts: false)
                .forward(input) { _, values in copied.append(Array(values)) }
            var inPlace: [[Float]] = []
            try Network(prepared, inPlaceRoutes: true)
                .forward(input) { _, values in inPlace.append(Array(values)) }
            XCTAssertEqual(inPlace, copied, "trial \(trial):\n\(text)")
        }
    }

    /// The checks, computed from the layers without the planner's code:
    /// - an in-place route's sources sit back to back at its offset (one source: its block `group_id` at the route's offset);
    /// - between a layer's write and the last read of its value (directly, or through the
    ///   in-place routes containing it; `[yolo]` and the last layer: to the end), no other
    ///   layer writes floats overlapping it, except an in-place shortcut over its convolution's
    ///   output, which must sit at that output, read by nothing else, with a source of the same
    ///   shape other than that convolution (alpha = beta = 1, linear);
    /// - a pool its convolution may compute (2×2, stride 2, even input, after a convolution read by
    ///   nothing else) does not overlap that convolution's input;
    /// - every output fits in the arena.
    static func check(_ plan: MemoryPlan, _ layers: [Layer], _ name: String, batch: Int = 1,
                      file: StaticString = #filePath, line: UInt = #line) {
        let problems = Self.problems(plan, layers, batch: batch)
        XCTAssertEqual(problems, [], name, file: file, line: line)
    }

    /// With `batch`, every output holds `batch` times its floats (channel-major batches).
    static func problems(_ plan: MemoryPlan, _ layers: [Layer], batch: Int = 1) -> [String] {
        var problems: [String] = []
        let count = layers.count
        var lastRead = Array(0..<count)
        for layer in layers {
            if layer.readsPrevious, layer.index > 0 { lastRead[layer.index - 1] = max(lastRead[layer.index - 1], layer.index) }
            for source in layer.references { lastRead[source] = max(lastRead[source], layer.index) }
            if case .yolo = layer.kind { lastRead[layer.index] = count }
        }
        lastRead[count - 1] = count
        // Reading an in-place route reads its sources: propagate from the last layer back.
        for layer in layers.reversed() {
            guard case .route(let route) = layer.kind, plan.routeInPlace[layer.index] else { continue }
            var offset = plan.offsetOfLayer[layer.index]
            if route.sources.count == 1 {  // an alias of the source's channel block `groupID`
                offset -= route.groupID * (layers[route.sources[0]].output.count * batch / route.groups)
            } else if route.groups > 1 {
                problems.append("route \(layer.index): several sources with groups cannot be in place")
            }
            for source in route.sources {
                lastRead[source] = max(lastRead[source], lastRead[layer.index])
                if plan.offsetOfLayer[source] != offset { problems.append("route \(layer.index): source \(source) not at its slice") }
                if route.sources.count > 1 { offset += layers[source].output.count * batch }
            }
        }
        for layer in layers where plan.shortcutInPlace[layer.index] {
            let conv = layer.index - 1
            guard case .shortcut(let shortcut) = layer.kind, conv >= 0, case .convolutional = layers[conv].kind,
                  shortcut.sources == [shortcut.source], shortcut.source != conv,
                  layers[shortcut.source].output == layer.output, shortcut.alpha == 1, shortcut.beta == 1,
                  shortcut.activation == .linear else {
                problems.append("layer \(layer.index): in place, but not a shortcut its convolution can add")
                continue
            }
            if plan.offsetOfLayer[layer.index] != plan.offsetOfLayer[conv] {
                problems.append("shortcut \(layer.index): not at its convolution's output")
            }
            if lastRead[conv] != layer.index { problems.append("shortcut \(layer.index): layer \(conv) is read after it") }
        }
        // A 2×2 stride-2 pool of an even input after a convolution nothing else reads may be
        // written by that convolution (`Network.fusedPools`), while it still reads its input.
        for layer in layers where layer.index >= 2 {
            guard case .maxpool(let pool) = layer.kind, pool.depthChannels == nil, pool.size == 2, pool.stride == 2,
                  pool.strideY == 2, pool.padding <= 1, layer.input.height % 2 == 0, layer.input.width % 2 == 0,
                  case .convolutional = layers[layer.index - 1].kind, lastRead[layer.index - 1] == layer.index else { continue }
            let input = layer.index - 2
            let (low, high) = (plan.offsetOfLayer[layer.index], plan.offsetOfLayer[layer.index] + layer.output.count * batch)
            let (inputLow, inputHigh) = (plan.offsetOfLayer[input], plan.offsetOfLayer[input] + layers[input].output.count * batch)
            if low < inputHigh && inputLow < high {
                problems.append("pool \(layer.index) overlaps its convolution's input (layer \(input))")
            }
        }
        func writes(_ b: Int) -> Bool {
            if case .route = layers[b].kind { return !plan.routeInPlace[b] }
            return true
        }
        /// An in-place shortcut writes over its convolution's output by design.
        func inPlace(_ a: Int, _ b: Int) -> Bool { plan.shortcutInPlace[b] && a == b - 1 }
        for a in 0..<count {
            let lowA = plan.offsetOfLayer[a], highA = lowA + layers[a].output.count * batch
            if highA > plan.arenaFloats { problems.append("layer \(a) outside the arena") }
            guard a + 1 < count else { continue }
            for b in (a + 1)..<min(lastRead[a] + 1, count) where writes(b) && !inPlace(a, b) {
                let lowB = plan.offsetOfLayer[b], highB = lowB + layers[b].output.count * batch
                if lowB < highA && lowA < highB {
                    problems.append("layer \(b) overwrites layer \(a)'s output before layer \(lastRead[a]) reads it")
                }
            }
        }
        return problems
    }

    static func randomCfg(_ generator: inout SplitMix64) -> String {
        var text = "[net]\nwidth=8\nheight=8\nchannels=3\n"
        var channels: [Int] = []
        let count = 4 + Int(generator.next() % 14)
        for index in 0..<count {
            let choice = index == 0 ? 0 : generator.next() % 6
            switch choice {
            case 0, 1:
                let filters = 1 + Int(generator.next() % 6)
                text += "[convolutional]\nfilters=\(filters)\nsize=\(generator.next() % 2 == 0 ? 1 : 3)\npad=1\nactivation=leaky\nbatch_normalize=\(generator.next() % 2)\n"
                channels.append(filters)
            case 2:
                text += "[maxpool]\nsize=\(1 + generator.next() % 3)\nstride=1\n"
                channels.append(channels[index - 1])
            case 3:
                text += "[upsample]\nstride=1\n"
                channels.append(channels[index - 1])
            case 4:
                let sourceCount = 1 + Int(generator.next() % 3)
                let sources = (0..<sourceCount).map { _ in Int(generator.next() % UInt64(index)) }
                text += "[route]\nlayers=\(sources.map { String($0 - index) }.joined(separator: ","))\n"
                // AlexeyAB's groups (yolov4-tiny): half of each source's channels.
                if sources.allSatisfy({ channels[$0] % 2 == 0 }), generator.next() % 2 == 0 {
                    text += "groups=2\ngroup_id=\(generator.next() % 2)\n"
                    channels.append(sources.reduce(0) { $0 + channels[$1] } / 2)
                } else {
                    channels.append(sources.reduce(0) { $0 + channels[$1] })
                }
            default:
                if let from = (0..<(index - 1)).last(where: { channels[$0] == channels[index - 1] }) {
                    text += "[shortcut]\nfrom=\(from - index)\nactivation=linear\n"
                } else {
                    text += "[maxpool]\nsize=2\nstride=1\n"
                }
                channels.append(channels[index - 1])
            }
        }
        return text
    }
}
