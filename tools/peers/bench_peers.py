"""Interleaved forward-time and whole-process comparison of darknet-swift with its peers:
Debian's darknet, OpenCV DNN, ONNX Runtime and OpenVINO (f32, and its own default precision).
Driven by tools/bench-peers (which sets up the venv, builds darknet-swift and writes the
synthetic weights); prints a Markdown report on stdout, progress on stderr.

Before a model's rounds it is converted to ONNX (tools/peers/darknet_onnx.py --check: the
graph's head inputs must agree with OpenCV DNN's, which the tests tie to darknet's).

Each round runs darknet first (pjreddie cfgs only: Debian's darknet reads no AlexeyAB cfg),
then the other peers back to back in an order rotated from round to round, so that no peer
always follows the same one. For every peer:
  forward process   one process that loads the model, runs 1 unmeasured forward pass and
                    then --forwards measured ones; the round's value is their median.
                    darknet-swift: `benchmark CFG WEIGHTS --format json` (endToEndMedianMs)
                    darknet:       `darknet detector test DATA CFG WEIGHTS -out PRED` fed
                                   the photo path on stdin (1 + forwards) times; its
                                   "Predicted in X seconds" times network_predict only
                    OpenCV:        tools/peers/opencv_forward.py (net.forward only)
                    ONNX Runtime, OpenVINO: tools/peers/onnx_forward.py (the inference call)
  whole process     one complete run: load + one inference on the photo; its wall time and
                    its peak RSS (ru_maxrss from wait4 of that very process).
Reported: median over rounds (min-max of the per-round values), each peer's ratio
darknet-swift / peer, and against the faster f32 peer of ONNX Runtime and OpenVINO f32 the
median (min-max) of the per-round ratios (measured seconds apart).

--load N keeps N busy processes (one `yes > /dev/null` each) running through every round:
the engine and its peers share the cores with them, as on a loaded machine.

Around each round's forward processes, tools/peers/cross_core.py checks whether the first two
cores share a cache (a read of what the other core wrote, against a read of its own data): on
some shared virtual machines they stop doing so for seconds to minutes, and programs that split
a pass over both cores slow down by different amounts. Each round is marked shared, split or
mixed, and the ratios to the faster f32 peer are also given over the shared and the split rounds.
"""
import argparse
import datetime
import json
import os
import platform
import re
import statistics
import subprocess
import sys
import tempfile
import time

import cross_core

FAST = ["darknet-swift", "darknet-swift-int8", "opencv", "onnxruntime", "openvino-f32", "openvino-default"]
F32_PEERS = ["onnxruntime", "openvino-f32"]
LABELS = {"darknet-swift": "darknet-swift", "darknet-swift-int8": "darknet-swift int8",
          "darknet": "darknet (1 thread)", "opencv": "OpenCV DNN",
          "onnxruntime": "ONNX Runtime f32", "openvino-f32": "OpenVINO f32",
          "openvino-default": "OpenVINO default precision"}
BUSY_LIMIT = 0.25


def log(message):
    print(f"bench-peers: {message}", file=sys.stderr, flush=True)


class RunError(Exception):
    pass


def run(cmd, cwd, stdin_text=None):
    """Runs cmd; returns (stdout, stderr, wall seconds, peak RSS in KiB) of that process."""
    with tempfile.TemporaryFile("w+") as stdin, tempfile.TemporaryFile("w+") as out, \
            tempfile.TemporaryFile("w+") as err:
        if stdin_text is not None:
            stdin.write(stdin_text)
            stdin.flush()
            stdin.seek(0)
        start = time.perf_counter()
        process = subprocess.Popen(cmd, cwd=cwd, stdin=stdin, stdout=out, stderr=err)
        _, status, usage = os.wait4(process.pid, 0)
        wall = time.perf_counter() - start
        process.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        stdout, stderr = out.read(), err.read()
    if process.returncode != 0:
        tail = "\n".join(stderr.strip().splitlines()[-8:])
        raise RunError(f"{' '.join(cmd)} exited with {process.returncode}:\n{tail}")
    return stdout, stderr, wall, usage.ru_maxrss


def write_cfg(source, target, size):
    """Copy of a cfg with batch=1, subdivisions=1 and width=height=size in [net] (darknet
    takes batch and the input size from the cfg; OpenCV and the converter too)."""
    lines, in_net = [], False
    with open(source) as f:
        for line in f:
            key = line.split("=", 1)[0].strip() if "=" in line else ""
            stripped = line.strip()
            if stripped.startswith("["):
                in_net = stripped in ("[net]", "[network]")
                lines.append(line if line.endswith("\n") else line + "\n")
                if in_net:
                    lines.append(f"batch=1\nsubdivisions=1\nwidth={size}\nheight={size}\n")
                continue
            if in_net and key in ("batch", "subdivisions", "width", "height"):
                continue
            lines.append(line)
    with open(target, "w") as f:
        f.writelines(lines)


def parse_predicted(stdout):
    return [float(s) * 1000 for s in re.findall(r"Predicted in ([0-9.eE+-]+) seconds", stdout)]


class Peers:
    def __init__(self, args, workdir):
        self.args = args
        self.workdir = workdir
        self.data_file = os.path.join(workdir, "peers.data")
        with open(self.data_file, "w") as f:
            f.write(f"classes=80\nnames={args.names}\n")
        self.versions = {}
        self.precisions = {"darknet-swift": "f32", "darknet-swift-int8": "int8 (oneDNN u8×s8)",
                           "darknet": "f32", "opencv": "f32"}
        self.blas = None
        self.swift_commit = args.commit
        self.busy = []  # CPU use by others before each round

    # ---- forward processes: list of measured forward times (ms) ----

    def forward(self, peer, model, runs=None, warmup=1):
        a, size, threads = self.args, str(self.args.size), str(self.args.threads)
        n = a.forwards if runs is None else runs
        if peer in ("darknet-swift", "darknet-swift-int8"):
            cmd = [a.swift, "benchmark", model["cfg"], model["weights"], "--size", size, "--threads", threads,
                   "--format", "json", "--warmup", str(warmup), "--runs", str(n)] + int8_args(peer, model)
            report = json.loads(run(cmd, self.workdir)[0])
            machine = report.get("machine", {})
            if "blas" in machine:
                self.blas = f"{machine['blas'].split(' NO_')[0]}, core {machine.get('blasCore', 'unknown')}"
                if "blasCoreNote" in machine:
                    self.blas += f" ({machine['blasCoreNote']})"
            self.swift_commit = machine.get("commit", self.swift_commit)
            return [float(report["endToEndMedianMs"])]
        if peer == "darknet":
            cmd = [a.darknet, "detector", "test", self.data_file, model["cfg"], model["weights"], "-thresh",
                   model["thresh"], "-out", os.path.join(self.workdir, "darknet-prediction")]
            times = parse_predicted(run(cmd, self.workdir, (a.image + "\n") * (n + warmup))[0])
            if len(times) != n + warmup:
                raise RunError(f"darknet: expected {n + warmup} 'Predicted in' lines, got {len(times)}")
            return times[warmup:]
        if peer == "opencv":
            cmd = [a.python, a.opencv_script, model["cfg"], model["weights"], a.image, size, threads, str(warmup), str(n)]
        else:
            cmd = [a.python, a.onnx_script, peer, model["onnx"], a.image, size, threads, str(warmup), str(n)]
        report = json.loads(run(cmd, self.workdir)[0])
        self.versions[peer] = report.get("opencv") or f"{report['version']}, {report['precision']}"
        if "precision" in report:
            self.precisions[peer] = report["precision"]
        return report["forwardMs"]

    # ---- whole processes: (wall seconds, peak RSS KiB) ----

    def whole(self, peer, model):
        a, size, threads = self.args, str(self.args.size), str(self.args.threads)
        if peer in ("darknet-swift", "darknet-swift-int8"):
            cmd = [a.swift, "detect", model["cfg"], model["weights"], a.image, "--size", size, "--threads", threads,
                   "--names", a.names, "--thresh", model["thresh"], "--format", "json"] + int8_args(peer, model)
        elif peer == "darknet":
            cmd = [a.darknet, "detect", model["cfg"], model["weights"], a.image, "-thresh", model["thresh"], "-out",
                   os.path.join(self.workdir, "darknet-prediction")]
        elif peer == "opencv":
            cmd = [a.python, a.opencv_script, model["cfg"], model["weights"], a.image, size, threads, "0", "1"]
        else:
            cmd = [a.python, a.onnx_script, peer, model["onnx"], a.image, size, threads, "0", "1"]
        _, _, wall, rss = run(cmd, self.workdir)
        return wall, rss


def int8_args(peer, model):
    """darknet-swift's int8 options for the int8 peer (the model's calibration file)."""
    return ["--precision", "int8", "--calibration", model["calibration"]] if peer == "darknet-swift-int8" else []


def round_order(number, peers):
    """Round `number` (from 1): darknet first, then the others rotated by one each round."""
    fast = [p for p in FAST if p in peers]
    shift = (number - 1) % len(fast)
    return [p for p in ["darknet"] if p in peers] + fast[shift:] + fast[:shift]


def bench_model(peers, model):
    a = peers.args
    cfg = os.path.join(peers.workdir, os.path.basename(model["source"]).replace(".cfg", f"-{a.size}.cfg"))
    write_cfg(model["source"], cfg, a.size)
    model["cfg"] = cfg
    model["onnx"] = cfg.replace(".cfg", ".onnx")
    check, _, _, _ = run([a.python, a.onnx_converter, cfg, model["weights"], model["onnx"], "--check"], peers.workdir)
    log(check.strip())
    if a.int8_images:
        # The calibration names the cfg's checksum and input size: made on this very copy.
        model["calibration"] = cfg.replace(".cfg", ".calib")
        run([a.swift, "calibrate", cfg, model["weights"], a.int8_images, "--size", str(a.size), "--threads",
             str(a.threads), "-o", model["calibration"], "--force"], peers.workdir)
        log(f"{model['label']}: calibrated on {a.int8_images} for the int8 run")
    used = ["darknet-swift"] + (["darknet"] if model["darknet"] else []) + \
        [p for p in FAST[1:] if p != "darknet-swift-int8" or model["calibration"]]
    forward = {p: [] for p in used}
    whole = {p: [] for p in used}
    cache = {"states": [], "reads": []}  # per round; every probe's (own, cross) GB/s
    for r in range(1, model["rounds"] + 1):
        busy = cpu_busy()
        peers.busy.append(busy)
        if busy > BUSY_LIMIT and not a.load:
            log(f"warning: other processes use {busy:.0%} of the CPU")
        before = cross_core.probe()
        for peer in round_order(r, used):
            forward[peer].append(statistics.median(peers.forward(peer, model)))
        after = cross_core.probe()
        cache["states"].append(cross_core.state(before, after))
        cache["reads"] += [probe for probe in (before, after) if probe is not None]
        for peer in round_order(r, used):
            whole[peer].append(peers.whole(peer, model))
        log(f"{model['label']} round {r}/{model['rounds']} (cores' cache: {cache['states'][-1]}): forward ms " +
            ", ".join(f"{p} {forward[p][-1]:.1f}" for p in used))
    return used, forward, whole, cache


def faster_f32(forward):
    """The f32 peer (ONNX Runtime or OpenVINO f32) with the lower median."""
    return min(F32_PEERS, key=lambda p: statistics.median(forward[p]))


def paired_ratio(numerators, denominators):
    """Median (min-max) of the per-round ratios."""
    ratios = [a / b for a, b in zip(numerators, denominators)]
    med = statistics.median(ratios)
    if len(ratios) == 1:
        return f"{med:.2f}"
    return f"{med:.2f} ({min(ratios):.2f}–{max(ratios):.2f})"


def cpu_model():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.lower().startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown CPU"


def fmt_ms(values):
    med = statistics.median(values)
    if len(values) == 1:
        return f"{med:.1f}"
    return f"{med:.1f} ({min(values):.1f}–{max(values):.1f})"


def report(args, peers, results, started):
    threads = args.threads
    lines = []
    load = f", with {args.load} competing busy process{'es' if args.load > 1 else ''} (`yes > /dev/null`)" \
        if args.load else ", no competing load"
    lines.append(f"Measured {started:%Y-%m-%d} on {cpu_model()} ({os.cpu_count()} cores, "
                 f"{platform.system()} {platform.machine()}), input {args.size}×{args.size}, {threads} threads{load}, "
                 f"photo `{os.path.basename(args.image)}`, "
                 f"{args.forwards} measured forward pass{'es' if args.forwards > 1 else ''} per process after 1 warm-up.")
    lines.append("")
    version = args.swift_version.splitlines()[0] if args.swift_version.strip() else "darknet-swift (version unknown)"
    lines.append(f"- {version}, commit `{peers.swift_commit}`, {peers.blas or 'BLAS core unknown'} "
                 "(OPENBLAS_CORETYPE and OPENBLAS_L2_SIZE unset: OpenBLAS's own kernel choice, "
                 "or the engine's where OpenBLAS does not know the CPU)")
    if any("darknet" in used for _, (used, _, _, _, _) in results):
        lines.append(f"- darknet: Debian package {args.darknet_version} (pjreddie's C code, single-threaded: "
                     "this build has no OpenMP and no BLAS); it reads no AlexeyAB cfg")
    lines.append(f"- OpenCV DNN {peers.versions.get('opencv', 'unknown')} (CPU backend, Winograd on), "
                 f"ONNX Runtime {peers.versions.get('onnxruntime', 'unknown')}, "
                 f"OpenVINO {peers.versions.get('openvino-f32', 'unknown')} and with its default "
                 f"({peers.versions.get('openvino-default', 'unknown')}); Python {platform.python_version()}; "
                 "ONNX graphs by tools/peers/darknet_onnx.py, checked against OpenCV DNN first")
    busy = " (**other processes competed for the cores: rerun on an idle machine**)" \
        if max(peers.busy) > BUSY_LIMIT and not args.load else ""
    lines.append(f"- CPU use by other processes, sampled for 1 s before each round: median "
                 f"{statistics.median(peers.busy):.0%}, max {max(peers.busy):.0%}{busy}")
    lines.append("")
    lines.append("**Network forward**, median ms over rounds (min–max of the per-round medians); darknet-swift: "
                 "`benchmark`'s `endToEndMedianMs`. In brackets: darknet-swift's time / the peer's (below 1: "
                 "darknet-swift is faster). Last column: the same against the faster f32 peer (ONNX Runtime or "
                 "OpenVINO f32), median (min–max) of the per-round ratios.")
    lines.append("")
    columns = ["darknet-swift", "darknet", "opencv", "onnxruntime", "openvino-f32", "openvino-default"]
    if any("darknet-swift-int8" in used for _, (used, _, _, _, _) in results):
        columns.insert(1, "darknet-swift-int8")
    lines.append("| Model | Rounds | " + " | ".join(LABELS[p] for p in columns) + " | vs the faster f32 peer |")
    lines.append("|---|---:|" + "---:|" * (len(columns) + 1))
    for label, (used, forward, _, rounds, _) in results:
        swift = statistics.median(forward["darknet-swift"])
        cells = []
        for p in columns:
            if p not in used:
                cells.append("—")
            elif p == "darknet-swift":
                cells.append(fmt_ms(forward[p]))
            else:
                cells.append(f"{fmt_ms(forward[p])} ({swift / statistics.median(forward[p]):.2f})")
        best = faster_f32(forward)
        lines.append(f"| {label} | {rounds} | " + " | ".join(cells) +
                     f" | {paired_ratio(forward['darknet-swift'], forward[best])} ({LABELS[best]}) |")
    lines.append("")
    if "darknet-swift-int8" in columns:
        lines += precision_table(peers, results)
    lines.append("**By the state of the cores' caches** around each round's forward processes "
                 "(tools/peers/cross_core.py: a read of what the other core wrote at "
                 f"{cross_core.SHARED:.0%} of the speed of a core's read of its own data or more before and after "
                 f"the round: shared; below {cross_core.SPLIT:.0%} both times: split; else mixed). darknet-swift's "
                 "time / the faster f32 peer's, median (min–max) of the per-round ratios over those rounds; "
                 "and the medians of the probes' reads, a core's own and across cores:")
    lines.append("")
    lines.append("| Model | Rounds shared / split / mixed | Shared rounds | Split rounds | Reads own / across, GB/s |")
    lines.append("|---|---:|---:|---:|---:|")
    for label, (_, forward, _, _, cache) in results:
        states = cache["states"]
        best = faster_f32(forward)
        counts = " / ".join(str(states.count(s)) for s in ("shared", "split", "mixed"))
        unknown = states.count("unknown")
        counts += f" ({unknown} unknown)" if unknown else ""
        cells = []
        for wanted in ("shared", "split"):
            picked = [i for i, s in enumerate(states) if s == wanted]
            cells.append(paired_ratio([forward["darknet-swift"][i] for i in picked], [forward[best][i] for i in picked])
                         if picked else "—")
        reads = cache["reads"]
        cells.append(f"{statistics.median(o for o, _ in reads):.0f} / {statistics.median(c for _, c in reads):.0f}"
                     if reads else "—")
        lines.append(f"| {label} | {counts} | " + " | ".join(cells) + " |")
    lines.append("")
    lines.append("**Whole process** (start, load cfg + weights or the ONNX graph, read the photo, one inference, "
                 "exit), median wall time in seconds and peak RSS in MiB:")
    lines.append("")
    lines.append("| Model | " + " | ".join(LABELS[p] for p in columns) + " |")
    lines.append("|---|" + "---:|" * len(columns))
    for label, (used, _, whole, _, _) in results:
        cells = []
        for p in columns:
            if p not in used:
                cells.append("—")
                continue
            wall = statistics.median(w for w, _ in whole[p])
            rss = statistics.median(r for _, r in whole[p]) / 1024
            cells.append(f"{wall:.2f} s, {rss:.0f} MiB")
        lines.append(f"| {label} | " + " | ".join(cells) + " |")
    lines.append("")
    lines.append("Notes: darknet-swift and darknet letterbox the photo; the Python peers resize it "
                 "(`blobFromImage(img, 1/255, (size, size), swapRB=True)`: the same tensor shape, the same "
                 "forward cost). The forward clock covers only the network: darknet-swift's `benchmark` "
                 "end-to-end pass (on its own input), darknet's `network_predict`, OpenCV's "
                 "`net.forward(<all YOLO outputs>)`, ONNX Runtime's `run` and OpenVINO's `infer` (their graphs end "
                 "at the `[yolo]` layers' inputs, so their times leave out those layers' logistic, which "
                 "darknet-swift's include: 0.1–0.4 ms on the tiny models, `benchmark`'s `yolo` rows; yolov7-tiny's "
                 "heads apply theirs in a convolution, in every graph). Whole processes include each "
                 "program's extras (darknet draws the photo; the Python peers start an interpreter). "
                 "With synthetic weights darknet-swift and darknet run at threshold 1 (no box passes). "
                 f"Synthetic weights: {args.synthetic_note}.")
    return "\n".join(lines)


def precision_table(peers, results):
    """Every engine of each model with the precision it ran in; int8's time over each engine's
    (per-round ratios), and darknet-swift f32's over int8's."""
    lines = ["**By precision** (`--int8`): darknet-swift's int8 (`--precision int8`, a calibration from "
             "the sample photos) beside every engine and the precision it ran in (OpenVINO's default is "
             "its own choice on this CPU). Last column: darknet-swift int8's time / that engine's, median "
             "(min–max) of the per-round ratios (below 1: int8 is faster).", "",
             "| Model | Engine | Precision | Forward, median ms | int8 / engine |", "|---|---|---|---:|---:|"]
    order = ["darknet-swift-int8", "darknet-swift", "onnxruntime", "openvino-f32", "openvino-default", "opencv",
             "darknet"]
    for label, (used, forward, _, _, _) in results:
        if "darknet-swift-int8" not in used:
            continue
        for p in order:
            if p not in used:
                continue
            ratio = "—" if p == "darknet-swift-int8" else paired_ratio(forward["darknet-swift-int8"], forward[p])
            lines.append(f"| {label} | {LABELS[p]} | {peers.precisions.get(p, 'unknown')} | {fmt_ms(forward[p])} "
                         f"| {ratio} |")
    lines.append("")
    return lines


README_BEGIN = "<!-- bench-peers --readme: begin (generated; refresh per release) -->"
README_END = "<!-- bench-peers --readme: end -->"


def readme_table(args, peers, results, started):
    """README's "Where it stands": one header line (commit, CPU, BLAS core, date) and one table,
    models across, engines down; each cell the median forward time and, in brackets,
    darknet-swift's time over that engine's."""
    cpu = cpu_model()
    header = (f"Commit `{peers.swift_commit}` · {cpu}, {os.cpu_count()} cores · {peers.blas or 'BLAS core unknown'} · "
              f"{started:%Y-%m-%d} · {args.threads} threads, {args.size}×{args.size}"
              + (f", {args.load} competing busy process{'es' if args.load > 1 else ''}" if args.load else "")
              + " · every run: [docs/bench-log.md](docs/bench-log.md)")
    labels = [label for label, _ in results]
    lines = [README_BEGIN, header, "",
             "| forward pass, median ms (darknet-swift / engine) | " + " | ".join(labels) + " |",
             "|---|" + "---:|" * len(labels)]
    columns = ["darknet-swift", "darknet", "onnxruntime", "openvino-f32", "openvino-default", "opencv"]
    for p in columns:
        if not any(p in used for _, (used, _, _, _, _) in results):
            continue
        cells = []
        for _, (used, forward, _, _, _) in results:
            if p not in used:
                cells.append("—")
                continue
            ms = statistics.median(forward[p])
            if p == "darknet-swift":
                cells.append(f"{ms:.1f}")
            else:
                cells.append(f"{ms:.1f} ({statistics.median(forward['darknet-swift']) / ms:.2f})")
        lines.append(f"| {LABELS[p]} | " + " | ".join(cells) + " |")
    cells = []
    for _, (_, forward, _, _, _) in results:
        best = faster_f32(forward)
        cells.append(paired_ratio(forward["darknet-swift"], forward[best]))
    lines.append("| darknet-swift / faster f32 peer, per-round median (min–max) | " + " | ".join(cells) + " |")
    lines.append(README_END)
    return "\n".join(lines)


def replace_readme_table(path, table):
    """Replaces the text between README_BEGIN and README_END (markers included) in `path`."""
    with open(path) as f:
        text = f.read()
    begin, end = text.find(README_BEGIN), text.find(README_END)
    if begin < 0 or end < begin:
        raise ValueError(f"{path} has no '{README_BEGIN}' ... '{README_END}' section to replace")
    with open(path, "w") as f:
        f.write(text[:begin] + table + text[end + len(README_END):])


def cpu_busy(seconds=1.0):
    """Fraction of all cores busy during `seconds` while this script runs nothing (from
    /proc/stat; 0 where it is unavailable)."""
    def sample():
        with open("/proc/stat") as f:
            fields = [int(x) for x in f.readline().split()[1:]]
        return fields[3] + fields[4], sum(fields)  # idle + iowait, total
    try:
        idle0, total0 = sample()
        time.sleep(seconds)
        idle1, total1 = sample()
    except (OSError, ValueError, IndexError):
        return 0.0
    return 1 - (idle1 - idle0) / max(total1 - total0, 1)


def append_log(path, text, args):
    """Inserts the report as the newest entry of docs/bench-log.md (entries are newest first)."""
    with open(path) as f:
        log_text = f.read()
    marker = "\n## "
    at = log_text.find(marker)
    title = (f"## {datetime.date.today():%Y-%m-%d} — tools/bench-peers"
             + (f" --load {args.load}" if args.load else "") + "\n\n")
    entry = title + text + "\n"
    with open(path, "w") as f:
        f.write(log_text[:at + 1] + entry + log_text[at:] if at >= 0 else log_text + "\n" + entry)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--swift", required=True)
    parser.add_argument("--swift-version", default="unknown")
    parser.add_argument("--commit", default="unknown")
    parser.add_argument("--darknet", default="")
    parser.add_argument("--darknet-version", default="unknown")
    parser.add_argument("--python", required=True, help="the venv's python (cv2, onnx, onnxruntime, openvino)")
    parser.add_argument("--opencv-script", required=True)
    parser.add_argument("--onnx-script", required=True)
    parser.add_argument("--onnx-converter", required=True)
    parser.add_argument("--image", required=True)
    parser.add_argument("--names", required=True)
    parser.add_argument("--workdir", required=True)
    parser.add_argument("--size", type=int, default=416)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--forwards", type=int, default=3)
    parser.add_argument("--load", type=int, default=0, help="competing busy processes during the rounds")
    parser.add_argument("--log", default="", help="docs/bench-log.md to add the report to")
    parser.add_argument("--readme", default="", help="README.md whose bench-peers table to replace")
    parser.add_argument("--synthetic-note", default="not used")
    parser.add_argument("--model", action="append", default=[],
                        help="LABEL|CFG|WEIGHTS|ROUNDS|THRESH|DARKNET (DARKNET 1: Debian's darknet reads it)")
    parser.add_argument("--int8-images", default="",
                        help="also run darknet-swift --precision int8, calibrated on this folder's photos")
    args = parser.parse_args()

    started = datetime.datetime.now(datetime.timezone.utc)
    peers = Peers(args, args.workdir)
    busy = [subprocess.Popen(["yes"], stdout=subprocess.DEVNULL) for _ in range(args.load)]
    results = []
    try:
        for spec in args.model:
            label, cfg, weights, rounds, thresh, darknet = spec.split("|")
            model = {"label": label, "source": cfg, "weights": weights, "rounds": int(rounds), "thresh": thresh,
                     "darknet": darknet == "1" and bool(args.darknet), "calibration": ""}
            log(f"{label}: {rounds} rounds")
            used, forward, whole, cache = bench_model(peers, model)
            results.append((label, (used, forward, whole, int(rounds), cache)))
    except (RunError, OSError, ValueError, KeyError) as error:
        log(f"error: {error}")
        return 1
    finally:
        for process in busy:
            process.kill()
            process.wait()
    text = report(args, peers, results, started)
    print(text)
    if args.log:
        append_log(args.log, text, args)
        log(f"added the report to {args.log}")
    if args.readme:
        try:
            replace_readme_table(args.readme, readme_table(args, peers, results, started))
        except (OSError, ValueError) as error:
            log(f"error: {error}")
            return 1
        log(f"replaced the table in {args.readme}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
