/// AlexeyAB's darknet's flags, as `run_detector` (detector.c) and `main` (darknet.c) read
/// them, and what each becomes here: the one table behind both `detector`'s translation
/// (`DarknetTranslation`) and the hint a native command gives for a single-dash word
/// (`DarknetSpelling`). His `find_arg` takes a flag from anywhere on the line and removes it,
/// so the positional arguments are what is left, in order.
enum DarknetFlags {
    /// How many words a flag takes: his `find_arg` (none) or `find_int_arg`/`find_float_arg`/
    /// `find_char_arg` (one).
    enum Arity { case none, one }

    /// What a flag does in one `detector` subcommand.
    enum Meaning: Equatable {
        /// Becomes these native arguments; `value` stands for the flag's word.
        case native([String])
        /// He reads it and it changes nothing here (`-dont_show`: no window to show).
        case accepted
        /// Accepted with a note on stderr: what he does with it and why it changes nothing here.
        case noted(String)
        /// Refused, one line: what to do instead.
        case refused(String)
    }

    /// Stands for the flag's value in a `.native` translation.
    static let value = "\u{0}value"

    /// Every flag his `detector` subcommands read, with its arity (`-hier_thresh` is not his:
    /// he spells it `-hier`; it is taken as the same flag because scripts write it so).
    static let arity: [String: Arity] = [
        "dont_show": .none, "benchmark": .none, "benchmark_layers": .none, "show": .none, "letter_box": .none,
        "map": .none, "show_imgs": .none, "dontdraw_bbox": .none, "ext_output": .none, "save_labels": .none,
        "clear": .none, "cuda_debug_sync": .none,
        "points": .one, "mjpeg_port": .one, "avgframes": .one, "json_port": .one, "time_limit_sec": .one, "c": .one,
        "s": .one, "num_of_clusters": .one, "width": .one, "height": .one, "mAP_epochs": .one, "i": .one,
        "thresh": .one, "iou_thresh": .one, "hier": .one, "hier_thresh": .one,
        "http_post_host": .one, "out_filename": .one, "json_file_output": .one, "out": .one, "prefix": .one,
        "chart": .one, "gpus": .one,
    ]

    /// The GPU flags of darknet.c's `main`, read before any command: noted everywhere.
    static let gpuNote = "his GPU index; darknet-swift runs on the CPU"

    /// What `flag` means in `subcommand` (`test`, `map`, `valid`, `demo`); a flag his
    /// `run_detector` reads for another subcommand only is noted as unused, as his ignores it.
    static func meaning(of flag: String, in subcommand: String) -> Meaning {
        if flag == "i" { return .noted(gpuNote) }
        if flag == "gpus" || flag == "cuda_debug_sync" { return .noted("a GPU flag; darknet-swift runs on the CPU") }
        if let meaning = table[subcommand]?[flag] { return meaning }
        return .noted("his detector \(subcommand) does not read it either")
    }

    private static let hier: Meaning = .native(["--hier-thresh", value])

    /// Per subcommand, the flags his function for it reads (`test_detector`,
    /// `validate_detector_map`, `validate_detector`, `demo`).
    static let table: [String: [String: Meaning]] = [
        "test": [
            "thresh": .native(["--thresh", value]), "hier": hier, "hier_thresh": hier,
            "dont_show": .accepted, "benchmark": .accepted,
            "ext_output": .accepted,
            "out": .native(["--darknet-json", value]),
            "save_labels": .native(["--save-labels-beside-images"]),
            "letter_box": .native(["--letterbox"]),
            "benchmark_layers": .refused("per-layer times are darknet-swift benchmark CFG WEIGHTS"),
        ],
        "map": [
            "thresh": .native(["--thresh", value]), "iou_thresh": .native(["--iou-thresh", value]),
            "points": .native(["--points", value]), "dont_show": .accepted,
            "letter_box": .noted("his detector map fits images as [net] letter_box says, whatever the flag; so does this one (the cfg decides)"),
        ],
        "valid": [
            "out": .native(["--out-name", value]), "dont_show": .accepted,
        ],
        "demo": [
            "thresh": .native(["--thresh", value]), "hier": hier, "hier_thresh": hier,
            "dont_show": .accepted, "letter_box": .native(["--letterbox"]),
            "out_filename": .native([DemoTranslation.videoOutput, value]),
            "c": .native([DemoTranslation.camera, value]),
            "json_port": .native(["--http", value]),
            "mjpeg_port": .native(["--http", value]),
            "http_post_host": .refused("no HTTP posting: stream writes JSON lines to stdout or --jsonl FILE"),
            "json_file_output": .refused("stream --jsonl FILE writes one JSON line per frame"),
            "ext_output": .refused("stream prints one JSON line per frame, with each box"),
            "prefix": .refused("stream --annotate-to DIR writes the annotated frames as files"),
            "avgframes": .refused("stream --smooth N averages boxes over N frames"),
            "s": .refused("stream --every N keeps one frame in N, --fps R a rate"),
            "dontdraw_bbox": .refused("without boxes the video is the input: drop it and -out_filename"),
            "time_limit_sec": .refused("end the source instead (a file ends; Ctrl-C stops a camera, the video finalised)"),
            "benchmark": .refused("darknet-swift benchmark CFG WEIGHTS times the network"),
            "benchmark_layers": .refused("per-layer times are darknet-swift benchmark CFG WEIGHTS"),
        ],
    ]

    /// What a native command's user meant by darknet's `-flag`, for `DarknetSpelling`:
    /// `detector test`'s translation of it when it is one option, else advice; nil when the
    /// table does not know the flag.
    static func nativeAdvice(for flag: String) -> String? {
        switch flag {
        case "ext_output": return "use --format ext (his -ext_output lines)"
        case "i": return "drop it: darknet-swift runs on the CPU"
        default: break
        }
        switch table["test"]?[flag] {
        case .native(let words)?: return words.count > 1 ? "use \(words[0]) \(flag.uppercased())" : "did you mean \(words[0])?"
        case .accepted?: return "drop it: darknet-swift never opens a window"
        default: return nil
        }
    }
}
