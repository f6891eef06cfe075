@testable import darknet_swift
import CommandSupport
import Foundation
import Imaging
import TestSupport
import XCTest

/// Issue #53 items 1–3: every file the CLI writes goes through one primitive (`AtomicFile`,
/// `OutputFile`): `O_EXCL` temporaries under random names, regular targets only, never an
/// input, and no replacing without `--force`, even when another run creates the file meanwhile.
final class OutputFileTests: XCTestCase {
    func tinyModel(_ folder: URL) throws -> String {
        let cfg = folder.appendingPathComponent("tiny.cfg")
        try "[net]\nwidth=8\nheight=8\nchannels=3\n[avgpool]\n[connected]\noutput=3\nactivation=linear\n[softmax]\n"
            .write(to: cfg, atomically: true, encoding: .utf8)
        return cfg.path
    }

    func type(_ path: String) -> mode_t {
        var info = stat()
        return lstat(path, &info) == 0 ? info.st_mode & S_IFMT : 0
    }

    /// Item 1: a link planted under the temporary name `benchmark --plot` used
    /// (`.NAME.PID.tmp`, the PID known to the shell that execs the binary) is never followed:
    /// the file it points to keeps its bytes. No privilege is needed to plant it, which is
    /// what makes it an attack on a root run in a shared folder.
    func testPlotNeverFollowsAPlantedTemporary() throws {
        let folder = try CLI.temporaryFolder(self)
        let victim = folder.appendingPathComponent("victim")
        try "precious\n".write(to: victim, atomically: true, encoding: .utf8)
        let plot = folder.appendingPathComponent("plot.svg").path
        let script = "ln -s '\(victim.path)' '\(folder.path)/.plot.svg.'$$'.tmp' && exec \"$BIN\" benchmark '\(try tinyModel(folder))' "
            + "--runs 1 --warmup 0 --plot '\(plot)' --format json"
        let result = try CLI.shell(script)
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertEqual(try String(contentsOf: victim, encoding: .utf8), "precious\n", "the planted link was followed")
        XCTAssertTrue(try String(contentsOfFile: plot, encoding: .utf8).hasPrefix("<?xml"))
    }

    /// Item 1: a plot that cannot be written (`ulimit -f`: a full disk) leaves no temporary,
    /// and the error names the file and the system's reason, not a Foundation error.
    func testFailedPlotLeavesNoTemporary() throws {
        let folder = try CLI.temporaryFolder(self)
        let plot = folder.appendingPathComponent("plot.svg").path
        let result = try CLI.shell("ulimit -f 1; trap '' XFSZ; exec \"$BIN\" benchmark '\(try tinyModel(folder))' "
            + "--runs 1 --warmup 0 --plot '\(plot)' --format json > /dev/null")
        XCTAssertEqual(result.status, 1, result.stderr)
        XCTAssertTrue(result.stderr.contains("\(plot): cannot write the plot"), result.stderr)
        XCTAssertTrue(result.stderr.contains("File too large"), result.stderr)
        XCTAssertFalse(result.stderr.contains("NSCocoaErrorDomain"), result.stderr)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted(), ["tiny.cfg"])
    }

    /// Item 2: `--force` never replaces what is not a regular file: a FIFO (anyone can make
    /// one) and a character device (made with mknod where the test may: as root).
    func testForceNeverReplacesSpecialFiles() throws {
        let folder = try CLI.temporaryFolder(self)
        let cfg = try tinyModel(folder)
        var nodes: [(path: String, type: mode_t)] = []
        for name in ["fifo.weights", "fifo.svg", "fifo.png"] {
            let path = folder.appendingPathComponent(name).path
            XCTAssertEqual(mkfifo(path, 0o600), 0)
            nodes.append((path, S_IFIFO))
        }
        var device = false
        for name in ["null.weights", "null.svg", "null.png"] {
            let path = folder.appendingPathComponent(name).path
            if mknod(path, S_IFCHR | 0o600, dev_t(1 << 8 | 3)  /* makedev(1, 3): /dev/null */) == 0 {
                nodes.append((path, S_IFCHR))
                device = true
            }
        }
        for (path, type) in nodes {
            let command: [String]
            switch (path as NSString).pathExtension {
            case "weights": command = ["synth-weights", cfg, path, "--force"]
            case "svg": command = ["benchmark", cfg, "--runs", "1", "--warmup", "0", "--plot", path, "--force", "--format", "json"]
            default: command = ["detect"] + (try CLI.tinyDetector()) + [try TestData.path("data/dog.jpg"), "--output", path, "--force", "--quiet"]
            }
            let result = try CLI.run(command, timeout: 600)
            XCTAssertNotEqual(result.status, 0, "\(command[0]) \(path)")
            XCTAssertTrue(result.stderr.contains("not a regular file: refusing to replace it"), result.stderr)
            XCTAssertEqual(self.type(path), type, "\(command[0]) replaced \(path)")
        }
        if !device { throw Skip.because("mknod is not permitted here (not root): only FIFOs were checked") }
    }

    /// Item 2: a run never writes its own input, even with `--force`: `synth-weights C C` and
    /// `stream --jsonl F < F` (standard input) keep their bytes.
    func testForceNeverOverwritesAnInput() throws {
        let folder = try CLI.temporaryFolder(self)
        let cfg = try tinyModel(folder)
        let before = try Data(contentsOf: URL(fileURLWithPath: cfg))
        let synth = try CLI.run(["synth-weights", cfg, cfg, "--force"], timeout: 600)
        XCTAssertEqual(synth.status, 2, synth.stderr)
        XCTAssertTrue(synth.stderr.contains("is an input of this run"), synth.stderr)
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: cfg)), before)

        let frames = folder.appendingPathComponent("frames.mjpeg")
        let bytes = try Data(contentsOf: URL(fileURLWithPath: try TestData.path("data/dog.jpg")))
        try bytes.write(to: frames)
        let stream = try CLI.run(["stream"] + CLI.tinyDetector() + ["--jsonl", frames.path, "--force"], timeout: 600, stdin: frames)
        XCTAssertNotEqual(stream.status, 0, stream.stderr)
        XCTAssertTrue(stream.stderr.contains("is an input of this run"), stream.stderr)
        XCTAssertEqual(try Data(contentsOf: frames), bytes, "stream emptied its own input")
    }

    /// Item 3: the no-replace rule is the write itself: a target that appears after the
    /// early check is not replaced (what a second run into the same folder does).
    func testWriteWithoutForceNeverReplacesAFileThatAppeared() throws {
        let folder = try CLI.temporaryFolder(self)
        let target = RawPath(argument: folder.appendingPathComponent("a.txt").path)
        try AtomicFile.write(Array("first\n".utf8), to: target, replacing: false)
        XCTAssertThrowsError(try AtomicFile.write(Array("second\n".utf8), to: target, replacing: false)) { error in
            XCTAssertEqual(String(describing: error), "\(target.display) already exists (use --force to overwrite it)")
        }
        XCTAssertEqual(try String(contentsOfFile: target.display, encoding: .utf8), "first\n")
        try AtomicFile.write(Array("third\n".utf8), to: target, replacing: true)
        XCTAssertEqual(try String(contentsOfFile: target.display, encoding: .utf8), "third\n")
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: folder.path), ["a.txt"], "no temporary left")
    }

    /// The results files written as a run goes (`detect --json/--csv…`, `valid`'s files)
    /// follow the same rules: a link or a FIFO is never replaced, even with `--force`; a file
    /// that appears while the run works is not replaced without it; an input is never a target.
    func testResultsFilesFollowTheSameRules() throws {
        let folder = try CLI.temporaryFolder(self)
        let dog = try TestData.path("data/dog.jpg")
        let victim = folder.appendingPathComponent("victim")
        try "precious\n".write(to: victim, atomically: true, encoding: .utf8)
        let link = folder.appendingPathComponent("results.json").path
        XCTAssertEqual(symlink(victim.path, link), 0)
        let linked = try CLI.run(["detect"] + CLI.tinyDetector() + [dog, "--json", link, "--force", "--quiet"], timeout: 600)
        XCTAssertEqual(linked.status, 2, linked.stderr)
        XCTAssertTrue(linked.stderr.contains("is a symbolic link, not a regular file"), linked.stderr)
        XCTAssertEqual(try String(contentsOf: victim, encoding: .utf8), "precious\n")

        let fifo = folder.appendingPathComponent("fifo").path
        XCTAssertEqual(mkfifo(fifo, 0o600), 0)
        let piped = try CLI.run(["detect"] + CLI.tinyDetector() + [dog, "--csv", fifo, "--force", "--quiet"], timeout: 600)
        XCTAssertEqual(piped.status, 2, piped.stderr)
        XCTAssertTrue(piped.stderr.contains("is a FIFO, not a regular file"), piped.stderr)
        XCTAssertEqual(type(fifo), S_IFIFO)

        let input = try CLI.run(["detect"] + CLI.tinyDetector() + [victim.path, "--csv", victim.path, "--force", "--quiet"], timeout: 600)
        XCTAssertNotEqual(input.status, 0, input.stderr)
        XCTAssertEqual(try String(contentsOf: victim, encoding: .utf8), "precious\n")

        // Created after the early check, before the rename: kept, and the run says so.
        let target = RawPath(argument: folder.appendingPathComponent("late.csv").path)
        let file = try ResultFile(target.display, force: false)
        try file.write("a,b\n")
        try "theirs\n".write(toFile: target.display, atomically: true, encoding: .utf8)
        XCTAssertThrowsError(try file.finish()) { error in
            XCTAssertEqual(String(describing: error), "\(target.display) already exists (use --force to overwrite it)")
        }
        XCTAssertEqual(try String(contentsOfFile: target.display, encoding: .utf8), "theirs\n")
        XCTAssertFalse(try FileManager.default.contentsOfDirectory(atPath: folder.path).contains { $0.contains(".tmp-") },
                       "no temporary left")
    }

    /// Item 3: two runs into one `--output-dir` at once: each annotated image is written by
    /// exactly one of them; the other reports it as existing.
    func testConcurrentRunsIntoOneFolderNeverOverwriteEachOther() throws {
        let folder = try CLI.temporaryFolder(self)
        let photos = folder.appendingPathComponent("photos")
        try FileManager.default.createDirectory(at: photos, withIntermediateDirectories: true)
        let count = 60
        let small = try Image(contentsOf: try TestData.path("data/dog.jpg")).resized(width: 64, height: 48)
        try small.write(to: photos.appendingPathComponent("p0.jpg").path)
        for i in 1..<count {
            try FileManager.default.copyItem(atPath: photos.appendingPathComponent("p0.jpg").path,
                                             toPath: photos.appendingPathComponent("p\(i).jpg").path)
        }
        let out = folder.appendingPathComponent("out").path
        let run = "\"$BIN\" detect '\(try CLI.tinyDetector().joined(separator: "' '"))' '\(photos.path)' --size 64 --quiet --output-dir '\(out)'"
        let result = try CLI.shell("\(run) 2>'\(folder.path)/a' & \(run) 2>'\(folder.path)/b'; wait")
        XCTAssertEqual(result.status, 0, result.stderr)
        let refused = try ["a", "b"].map {
            try String(contentsOfFile: folder.appendingPathComponent($0).path, encoding: .utf8)
                .split(separator: "\n").filter { $0.contains("already exists") }.count
        }
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: out).filter { $0.hasSuffix(".jpg") }.count, count)
        XCTAssertEqual(2 * count - refused[0] - refused[1], count, "images written by both runs: \(refused)")
    }
}
