"""Interleaved forward-time and whole-process comparison of darknet-swift, darknet and
OpenCV DNN. Driven by tools/bench-peers (which sets up the venv, builds darknet-swift and
writes the synthetic weights); prints a Markdown report on stdout, progress on stderr.

Each round runs darknet first, then darknet-swift and OpenCV back to back, the pair's order
alternating from round to round (darknet swift opencv, darknet opencv swift, ...): the two
fast peers are measured seconds apart, not with darknet's long run between them, and neither
always goes first. For every peer:
  forward process   one process that loads the model, runs 1 unmeasured forward pass and
                    then --forwards measured ones; the round's value is their median.
                    darknet-swift: `benchmark CFG WEIGHTS --format json` (endToEndMedianMs)
                    darknet:       `darknet detector test DATA CFG WEIGHTS -out PRED` fed
                                   the photo path on stdin (1 + forwards) times; its
                                   "Predicted in X seconds" times network_predict only
                    OpenCV:        tools/peers/opencv_forward.py (net.forward only)
  whole process     one complete run: load + one inference on the photo; its wall time and
                    its peak RSS (ru_maxrss from wait4 of that very process).
                    darknet-swift `detect`, darknet `detect ... -out PRED`, and a Python
                    process that imports cv2, loads the net and runs one forward.
Reported: median over rounds (and min-max of the per-round values); for darknet-swift /
OpenCV also the median of the per-round ratios (each round's pair measured back to back,
so a machine that speeds up or slows down between rounds moves both).
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

PEERS = ["darknet-swift", "darknet", "opencv"]
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
    takes batch and the input size from the cfg; OpenCV takes the size from the cfg too)."""
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
        self.swift_has_benchmark = self.probe_benchmark()
        self.opencv_version = None
        self.blas = None
        self.swift_commit = args.commit
        self.busy = []  # CPU use by others before each round

    def probe_benchmark(self):
        try:
            stdout, _, _, _ = run([self.args.swift, "benchmark", "--help"], self.workdir)
        except (RunError, OSError):
            return False
        return "--format" in stdout

    # ---- forward processes: list of measured forward times (ms) ----

    def forward(self, peer, cfg, weights, thresh):
        a, size, threads, n = self.args, str(self.args.size), str(self.args.threads), self.args.forwards
        if peer == "darknet-swift":
            if self.swift_has_benchmark:
                cmd = [a.swift, "benchmark", cfg, weights, "--size", size, "--threads", threads,
                       "--format", "json", "--warmup", "1", "--runs", str(n)]
                stdout, _, _, _ = run(cmd, self.workdir)
                report = json.loads(stdout)
                machine = report.get("machine", {})
                self.blas = machine.get("blas", self.blas)
                self.swift_commit = machine.get("commit", self.swift_commit)
                return [float(report["endToEndMedianMs"])]
            # Fallback while `benchmark` is missing: detect's per-image time (letterbox +
            # forward + decode + NMS), first image unmeasured.
            cmd = [a.swift, "detect", cfg, weights] + [a.image] * (n + 1) + \
                  ["--size", size, "--threads", threads, "--names", a.names, "--thresh", thresh]
            times = parse_predicted(run(cmd, self.workdir)[0])
        elif peer == "darknet":
            cmd = [a.darknet, "detector", "test", self.data_file, cfg, weights, "-thresh", thresh, "-out",
                   os.path.join(self.workdir, "darknet-prediction")]
            times = parse_predicted(run(cmd, self.workdir, (a.image + "\n") * (n + 1))[0])
        else:
            cmd = [a.opencv_python, a.opencv_script, cfg, weights, a.image, size, threads, "1", str(n)]
            report = json.loads(run(cmd, self.workdir)[0])
            self.opencv_version = report["opencv"]
            return report["forwardMs"]
        if len(times) != n + 1:
            raise RunError(f"{peer}: expected {n + 1} 'Predicted in' lines, got {len(times)}")
        return times[1:]

    # ---- whole processes: (wall seconds, peak RSS KiB) ----

    def whole(self, peer, cfg, weights, thresh):
        a, size, threads = self.args, str(self.args.size), str(self.args.threads)
        if peer == "darknet-swift":
            cmd = [a.swift, "detect", cfg, weights, a.image, "--size", size, "--threads", threads,
                   "--names", a.names, "--thresh", thresh, "--format", "json"]
        elif peer == "darknet":
            cmd = [a.darknet, "detect", cfg, weights, a.image, "-thresh", thresh, "-out",
                   os.path.join(self.workdir, "darknet-prediction")]
        else:
            cmd = [a.opencv_python, a.opencv_script, cfg, weights, a.image, size, threads, "0", "1"]
        _, _, wall, rss = run(cmd, self.workdir)
        return wall, rss


def bench_model(peers, label, cfg_source, weights, rounds, thresh):
    cfg = os.path.join(peers.workdir, os.path.basename(cfg_source).replace(".cfg", f"-{peers.args.size}.cfg"))
    write_cfg(cfg_source, cfg, peers.args.size)
    forward = {p: [] for p in PEERS}
    whole = {p: [] for p in PEERS}
    for r in range(1, rounds + 1):
        busy = cpu_busy()
        peers.busy.append(busy)
        if busy > BUSY_LIMIT:
            log(f"warning: other processes use {busy:.0%} of the CPU")
        for peer in round_order(r):
            times = peers.forward(peer, cfg, weights, thresh)
            forward[peer].append(statistics.median(times))
        for peer in round_order(r):
            whole[peer].append(peers.whole(peer, cfg, weights, thresh))
        log(f"{label} round {r}/{rounds}: forward ms " +
            ", ".join(f"{p} {forward[p][-1]:.1f}" for p in PEERS) + "; process s " +
            ", ".join(f"{p} {whole[p][-1][0]:.2f}" for p in PEERS))
    return forward, whole


def round_order(number):
    """Round `number` (from 1): darknet, then the two fast peers back to back, alternating."""
    pair = ["darknet-swift", "opencv"] if number % 2 == 1 else ["opencv", "darknet-swift"]
    return ["darknet"] + pair


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
    lines.append(f"Measured {started:%Y-%m-%d} on {cpu_model()} ({os.cpu_count()} cores, "
                 f"{platform.system()} {platform.machine()}), input {args.size}×{args.size}, "
                 f"photo `{os.path.basename(args.image)}`, "
                 f"{args.forwards} measured forward pass{'es' if args.forwards > 1 else ''} per process after 1 warm-up.")
    lines.append("")
    lines.append(f"- darknet-swift {args.swift_version} at commit `{peers.swift_commit}`"
                 + (f", {peers.blas}" if peers.blas else "") + f", {threads} threads")
    lines.append(f"- darknet: Debian package {args.darknet_version} (pjreddie's C code, single-threaded: "
                 "this build has no OpenMP and no BLAS)")
    lines.append(f"- OpenCV DNN {peers.opencv_version or 'unknown'} (opencv-python-headless, CPU backend, "
                 f"Winograd on, `cv2.setNumThreads({threads})`), Python {platform.python_version()}")
    busy = " (**other processes competed for the cores: rerun on an idle machine**)" \
        if max(peers.busy) > BUSY_LIMIT else ""
    lines.append(f"- CPU use by other processes, sampled for 1 s before each round: median "
                 f"{statistics.median(peers.busy):.0%}, max {max(peers.busy):.0%}{busy}")
    lines.append("")
    swift_forward = "benchmark `endToEndMedianMs`" if peers.swift_has_benchmark else \
        "**`detect` fallback (letterbox + forward + decode + NMS), `benchmark` missing**"
    lines.append(f"**Network forward**, median ms over rounds (min–max of the per-round medians); "
                 f"darknet-swift: {swift_forward}. Ratio = darknet-swift time / peer time "
                 "(below 1: darknet-swift is faster); paired = median (min–max) of each round's "
                 "darknet-swift / OpenCV, the two measured back to back.")
    lines.append("")
    lines.append(f"| Model | Rounds | darknet-swift ({threads} threads) | darknet (1 thread) | "
                 f"OpenCV DNN ({threads} threads) | darknet-swift / darknet | darknet-swift / OpenCV | "
                 "darknet-swift / OpenCV, paired |")
    lines.append("|---|---:|---:|---:|---:|---:|---:|---:|")
    for label, rounds, forward, _ in results:
        med = {p: statistics.median(forward[p]) for p in PEERS}
        lines.append(f"| {label} | {rounds} | {fmt_ms(forward['darknet-swift'])} | {fmt_ms(forward['darknet'])} | "
                     f"{fmt_ms(forward['opencv'])} | {med['darknet-swift'] / med['darknet']:.2f} | "
                     f"{med['darknet-swift'] / med['opencv']:.2f} | "
                     f"{paired_ratio(forward['darknet-swift'], forward['opencv'])} |")
    lines.append("")
    lines.append("**Whole process** (one complete run: start, load cfg + weights, read the photo, "
                 "one inference, exit), median wall time in seconds and median peak RSS in MiB:")
    lines.append("")
    lines.append("| Model | darknet-swift `detect` | darknet `detect` | OpenCV DNN (Python) | "
                 "darknet-swift / darknet | darknet-swift / OpenCV |")
    lines.append("|---|---:|---:|---:|---:|---:|")
    for label, _, _, whole in results:
        wall = {p: statistics.median(w for w, _ in whole[p]) for p in PEERS}
        rss = {p: statistics.median(r for _, r in whole[p]) / 1024 for p in PEERS}
        cells = [f"{wall[p]:.2f} s, {rss[p]:.0f} MiB" for p in PEERS]
        lines.append(f"| {label} | {' | '.join(cells)} | {wall['darknet-swift'] / wall['darknet']:.2f} | "
                     f"{wall['darknet-swift'] / wall['opencv']:.2f} |")
    lines.append("")
    lines.append("Notes: darknet-swift and darknet letterbox the photo; OpenCV has no letterbox, "
                 "so its blob is `blobFromImage(img, 1/255, (size, size), swapRB=True)` (a plain "
                 "resize: same tensor shape, same forward cost). The forward clock covers only the "
                 "network: " + ("darknet-swift's `benchmark` plain end-to-end pass (on its own input, not the "
                                "photo), " if peers.swift_has_benchmark else
                                "darknet-swift's `detect` time per image (NOT forward only: it adds letterbox, "
                                "decode and NMS, because this build has no `benchmark`), ") +
                 "darknet's `network_predict`, OpenCV's `net.forward(<all YOLO outputs>)`. "
                 "The whole-process runs include each program's own extras: darknet draws and "
                 "saves the annotated photo; the OpenCV process starts a Python interpreter and "
                 "imports cv2; darknet-swift decodes the boxes and prints JSON. With synthetic weights "
                 "darknet-swift and darknet run at threshold 1 (no box passes): the random network "
                 "output would otherwise send darknet's NMS and drawing through thousands of boxes "
                 "(minutes per image), which says nothing about inference. "
                 f"Synthetic yolov3 weights: {synthetic_note(args.synthetic_info)}.")
    return "\n".join(lines)


def synthetic_note(info):
    if not info:
        return "not used"
    try:
        w = json.loads(info)
        return (f"spec v{w['specVersion']}, seed {w['seed']}, {w['bytes'] / 1e6:.0f} MB, FNV-1a 64 "
                f"`{w['fnv1a64']}`, written by `tools/oracle/darknet-oracle.c synth-weights` "
                "(the same bytes as darknet-swift's own synthetic weights)")
    except (ValueError, KeyError):
        return info


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


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--swift", required=True)
    parser.add_argument("--swift-version", default="unknown")
    parser.add_argument("--commit", default="unknown")
    parser.add_argument("--darknet", required=True)
    parser.add_argument("--darknet-version", default="unknown")
    parser.add_argument("--opencv-python", required=True)
    parser.add_argument("--opencv-script", required=True)
    parser.add_argument("--image", required=True)
    parser.add_argument("--names", required=True)
    parser.add_argument("--workdir", required=True)
    parser.add_argument("--size", type=int, default=416)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--forwards", type=int, default=3)
    parser.add_argument("--synthetic-info", default="",
                        help="the JSON line of darknet-oracle synth-weights")
    parser.add_argument("--model", action="append", default=[],
                        help="LABEL|CFG|WEIGHTS|ROUNDS|THRESH (repeat)")
    args = parser.parse_args()

    started = datetime.datetime.now(datetime.timezone.utc)
    peers = Peers(args, args.workdir)
    if not peers.swift_has_benchmark:
        log("darknet-swift has no `benchmark` subcommand: falling back to detect's per-image time")
    results = []
    try:
        for spec in args.model:
            label, cfg, weights, rounds, thresh = spec.split("|")
            log(f"{label}: {rounds} rounds of darknet-swift, darknet, OpenCV")
            forward, whole = bench_model(peers, label, cfg, weights, int(rounds), thresh)
            results.append((label, int(rounds), forward, whole))
    except (RunError, OSError, ValueError, KeyError) as error:
        log(f"error: {error}")
        return 1
    print(report(args, peers, results, started))
    return 0


if __name__ == "__main__":
    sys.exit(main())
