#!/usr/bin/env python3
"""Goldens from AlexeyAB's darknet `detector map` for the project's labelled set.

Writes Tests/DarknetTests/Fixtures/map/MODEL.json for each model of MapDataset
(Tests/DarknetTests/Evaluation/MapDataset.swift): pjreddie's yolov3-tiny (fetched cfg and
weights) with `letter_box=1` added to [net], and the project's yolov4-tiny- and
yolov7-tiny-shaped cfgs (Fixtures/map/v4-tiny.cfg, v7-tiny.cfg) on synthetic weights (seed 1).

1. The set: `swift test --filter MapGoldenTests/testWritesTheSetForTheOracle` with
   DARKNET_SWIFT_MAP_DATASET set writes the 22 PNG images (the seven fetched photos decoded
   by the engine's Imaging, whole and in two crops, and a copy of one), each model's cfg,
   weights, names, .data, valid and difficult lists and (DARKNET_SWIFT_MAP_LABELS) label
   files, and manifest.json. Both sides read the same bytes.
2. The labels (--labels regenerate; the default, reuse, reads the committed ones): his
   `detector test DATA CFG WEIGHTS -dont_show -out OUT.json` on every image (-thresh 0.25),
   changed by the seeded recipe of derive_labels() into Fixtures/map/MODEL-labels.json.
3. The figures: `detector map DATA CFG WEIGHTS -points P -iou_thresh T` for P in 0, 11, 101
   and T in 0.5, 0.75 (his -thresh default 0.25), parsed from what he prints.

AlexeyAB's darknet is not packaged and is never part of this repository, nor fetched by this
script: build it yourself, CPU only, with plain IEEE float operations, and pass its folder:
  (cd /somewhere/darknet && make OPTS="-O2 -ffp-contract=off")
  DARKNET_SWIFT_DATA=/path/to/weights python3 tools/oracle/ab_map_goldens.py --ab /somewhere/darknet
"""
import argparse
import datetime
import hashlib
import json
import os
import re
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
FIXTURES = os.path.join(ROOT, "Tests", "DarknetTests", "Fixtures", "map")
POINTS = [0, 11, 101]
IOU_THRESHOLDS = ["0.5", "0.75"]
# Label recipe (derive_labels): a seed per model, the most confident detections kept per image,
# and the share of each change.
SEEDS = {"yolov3-tiny-letterbox": 1, "v4-tiny": 2, "v7-tiny": 3}
KEPT = 6
DROPPED, SHIFTED, DIFFICULT, SWAPPED = 0.15, 0.20, 0.10, 0.10
MISS = 0.6
SHIFT_IOU = (0.56, 0.69)


class SplitMix64:
    """The project's seeded generator (TestSupport.SplitMix64): labels do not depend on Python's."""

    def __init__(self, seed):
        self.state = seed

    def next(self):
        self.state = (self.state + 0x9E3779B97F4A7C15) & 0xFFFFFFFFFFFFFFFF
        z = self.state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & 0xFFFFFFFFFFFFFFFF
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & 0xFFFFFFFFFFFFFFFF
        return z ^ (z >> 31)

    def uniform(self, lo=0.0, hi=1.0):
        return lo + (hi - lo) * ((self.next() >> 11) / float(1 << 53))


def iou(a, b):
    """darknet's box_iou on (x, y, w, h) centre boxes."""
    def overlap(x1, w1, x2, w2):
        return min(x1 + w1 / 2, x2 + w2 / 2) - max(x1 - w1 / 2, x2 - w2 / 2)
    w, h = overlap(a[0], a[2], b[0], b[2]), overlap(a[1], a[3], b[1], b[3])
    inter = w * h if w > 0 and h > 0 else 0
    union = a[2] * a[3] + b[2] * b[3] - inter
    return inter / union if inter > 0 and union > 0 else 0


def line(class_id, box):
    return "%d %.6f %.6f %.6f %.6f" % (class_id, box[0], box[1], box[2], box[3])


def derive_labels(detections, classes, rng):
    """One image's (truth, difficult) label lines from his detections at 0.25, each
    [class, (x, y, w, h), confidence] in his order: the KEPT most confident (stable), each
    dropped (its detection becomes a false positive), shifted along x or y so its IoU with the
    detection is in SHIFT_IOU (a true positive at -iou_thresh 0.5, not at 0.75), made
    difficult (its detection leaves the ranking), given another class (a false positive and a
    miss) or kept as detected, by one draw each; then with probability MISS an object no
    detection found: a box of 8-35 % of the image per side, of a random class, placed where its
    IoU with every detection at 0.25 is below 0.1 (50 tries), else (the synthetic models detect
    everywhere) below 0.1 with every kept object."""
    ranked = sorted(detections, key=lambda d: -d[2])[:KEPT]
    truth, difficult = [], []
    for class_id, box, _ in ranked:
        u = rng.uniform()
        if u < DROPPED:
            continue
        if u < DROPPED + SHIFTED:
            target = rng.uniform(*SHIFT_IOU)
            s = (1 - target) / (1 + target)
            x, y, w, h = box
            if rng.uniform() < 0.5:
                x += -s * w if x > 0.5 else s * w
            else:
                y += -s * h if y > 0.5 else s * h
            truth.append(line(class_id, (x, y, w, h)))
        elif u < DROPPED + SHIFTED + DIFFICULT:
            difficult.append(line(class_id, box))
        elif u < DROPPED + SHIFTED + DIFFICULT + SWAPPED and classes > 1:
            truth.append(line((class_id + 1 + int(rng.uniform() * (classes - 1))) % classes, box))
        else:
            truth.append(line(class_id, box))
    if rng.uniform() < MISS:
        for others in ([d[1] for d in detections], [d[1] for d in ranked]):
            placed = None
            for _ in range(50):
                w, h = rng.uniform(0.08, 0.35), rng.uniform(0.08, 0.35)
                box = (rng.uniform(w / 2, 1 - w / 2), rng.uniform(h / 2, 1 - h / 2), w, h)
                if all(iou(box, other) < 0.1 for other in others):
                    placed = box
                    break
            if placed:
                truth.append(line(int(rng.uniform() * classes), placed))
                break
    return truth, difficult


def sha256(path):
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


def run(command, cwd=None, env=None, stdin=None):
    result = subprocess.run(command, capture_output=True, text=True, cwd=cwd, env=env, stdin=stdin)
    if result.returncode != 0:
        sys.exit("ab_map_goldens: %s failed:\n%s%s" % (" ".join(command), result.stdout[-4000:], result.stderr[-4000:]))
    return result.stdout


def write_set(dataset, labels_folder):
    env = dict(os.environ, DARKNET_SWIFT_MAP_DATASET=dataset, DARKNET_SWIFT_MAP_LABELS=labels_folder or "")
    run(["swift", "test", "--skip-build", "--filter", "MapGoldenTests/testWritesTheSetForTheOracle"], cwd=ROOT, env=env)
    with open(os.path.join(dataset, "manifest.json")) as f:
        return json.load(f)


def write_json(path, head, lists):
    """JSON with one line per key, and one line per element of the keys in `lists`."""
    parts = []
    for key, value in head.items():
        if key in lists:
            body = ",\n".join("  " + json.dumps(v, separators=(",", ":")) for v in value)
            parts.append(" %s: [\n%s\n ]" % (json.dumps(key), body))
        else:
            parts.append(" %s: %s" % (json.dumps(key), json.dumps(value)))
    with open(path, "w") as f:
        f.write("{\n" + ",\n".join(parts) + "\n}\n")


def regenerate_labels(darknet, model, folder, commit):
    name = model["name"]
    out = os.path.join(folder, "test.json")
    with open(os.path.join(folder, "valid.txt")) as stdin:
        run([darknet, "detector", "test", name + ".data", name + ".cfg", name + ".weights", "-dont_show", "-out", out],
            cwd=folder, stdin=stdin)
    with open(out) as f:
        frames = json.load(f)
    rng = SplitMix64(SEEDS[name])
    images = []
    for frame in frames:
        image = os.path.splitext(os.path.basename(frame["filename"]))[0]
        detections = [[o["class_id"], tuple(o["relative_coordinates"][k] for k in ("center_x", "center_y", "width", "height")),
                       o["confidence"]] for o in frame["objects"]]
        truth, difficult = derive_labels(detections, model["classes"], rng)
        images.append({"name": image, "detected": len(detections), "truth": truth, "difficult": difficult})
    head = {"model": name,
            "source": "AlexeyAB darknet %s: detector test %s.data %s.cfg %s.weights -dont_show -out OUT.json < valid.txt (-thresh 0.25)"
                      % (commit, name, name, name),
            "recipe": "tools/oracle/ab_map_goldens.py derive_labels: SplitMix64 seed %d, the %d most confident kept, "
                      "dropped %.2f, shifted to IoU %g-%g %.2f, difficult %.2f, other class %.2f, one miss per image %.2f"
                      % (SEEDS[name], KEPT, DROPPED, SHIFT_IOU[0], SHIFT_IOU[1], SHIFTED, DIFFICULT, SWAPPED, MISS),
            "date": datetime.date.today().isoformat(),
            "images": images}
    write_json(os.path.join(FIXTURES, name + "-labels.json"), head, ["images"])
    print("%s: labels from %d detections: %d objects, %d difficult" % (
        name, sum(i["detected"] for i in images), sum(len(i["truth"]) for i in images), sum(len(i["difficult"]) for i in images)))


CLASS_LINE = re.compile(r"^class_id = (\d+), name = (.*), ap = ([\d.]+)%\s+\(TP = (\d+), FP = (\d+)\)")
PRECISION_LINE = re.compile(r"for conf_thresh = ([\d.]+), precision = (\S+), recall = (\S+), F1-score = (\S+)")
COUNTS_LINE = re.compile(r"for conf_thresh = [\d.]+, TP = (\d+), FP = (\d+), FN = (\d+), average IoU = (\S+) %")
TOTALS_LINE = re.compile(r"detections_count = (\d+), unique_truth_count = (\d+)")
MAP_LINE = re.compile(r"mean average precision \(mAP@([\d.]+)\) = ([\d.]+)")


def parse_map(text, points, iou_thresh):
    """What `validate_detector_map` prints, as the goldens hold it (his rounding kept as text)."""
    run_ = {"points": points, "iou_thresh": float(iou_thresh), "classes": []}
    for raw in re.split(r"[\r\n]", text):
        text_line = raw.strip()
        if m := CLASS_LINE.match(text_line):
            run_["classes"].append({"id": int(m[1]), "name": m[2], "ap": m[3], "tp": int(m[4]), "fp": int(m[5])})
        elif m := PRECISION_LINE.search(text_line):
            run_.update(thresh=float(m[1]), precision=m[2], recall=m[3], f1=m[4])
        elif m := COUNTS_LINE.search(text_line):
            run_.update(tp=int(m[1]), fp=int(m[2]), fn=int(m[3]), average_iou=m[4])
        elif m := TOTALS_LINE.search(text_line):
            run_.update(detections_count=int(m[1]), unique_truth_count=int(m[2]))
        elif m := MAP_LINE.search(text_line):
            run_["map"] = m[2]
    for key in ["thresh", "tp", "detections_count", "map"]:
        if key not in run_:
            sys.exit("ab_map_goldens: no '%s' in his output:\n%s" % (key, text[-3000:]))
    return run_


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ab", required=True, help="AlexeyAB darknet folder (its darknet binary)")
    parser.add_argument("--labels", choices=["reuse", "regenerate"], default="reuse",
                        help="reuse Fixtures/map/MODEL-labels.json, or derive them again from his detections")
    parser.add_argument("--skip-build", action="store_true", help="the test target is built already")
    args = parser.parse_args()
    ab = os.path.abspath(args.ab)
    darknet = os.path.join(ab, "darknet")
    commit = subprocess.run(["git", "-C", ab, "rev-parse", "HEAD"], capture_output=True, text=True).stdout.strip() or "unknown"
    if not args.skip_build:
        run(["swift", "build", "--build-tests"], cwd=ROOT)
    # A short path: his detector test reads image paths of up to 255 characters.
    with tempfile.TemporaryDirectory(prefix="map-", dir="/tmp") as dataset:
        if args.labels == "regenerate":
            manifest = write_set(dataset, None)
            for model in manifest["models"]:
                regenerate_labels(darknet, model, os.path.dirname(model["data"]), commit)
        manifest = write_set(dataset, FIXTURES)
        for model in manifest["models"]:
            name = model["name"]
            folder = os.path.dirname(model["data"])
            files = [name + ".data", name + ".cfg", name + ".weights"]
            out = {"reference": "AlexeyAB darknet %s (CPU, -O2 -ffp-contract=off): detector map" % commit,
                   "date": datetime.date.today().isoformat(),
                   "model": name,
                   "cfg_sha256": sha256(os.path.join(folder, name + ".cfg")),
                   "letter_box": model["letter_box"],
                   "weights_bytes": model["weights_bytes"],
                   "weights_sha256": sha256(model["weights"]),
                   "labels": name + "-labels.json",
                   "labels_sha256": sha256(os.path.join(FIXTURES, name + "-labels.json")),
                   "images": manifest["images"],
                   "runs": []}
            if "weights_fnv1a64" in model:
                out["weights_fnv1a64"] = model["weights_fnv1a64"]
                out["weights"] = "synthetic spec v1, seed 1 (SyntheticWeights; darknet-swift synth-weights CFG OUT --seed 1)"
            else:
                out["weights"] = "yolov3-tiny.weights (fetched)"
            for points in POINTS:
                for iou_thresh in IOU_THRESHOLDS:
                    command = ["detector", "map"] + files + ["-points", str(points), "-iou_thresh", iou_thresh]
                    result = parse_map(run([darknet] + command, cwd=folder), points, iou_thresh)
                    result["command"] = "darknet " + " ".join(command)
                    out["runs"].append(result)
                    print("%s -points %d -iou_thresh %s: mAP %s, %d detections, %d objects" % (
                        name, points, iou_thresh, result["map"], result["detections_count"], result["unique_truth_count"]))
            write_json(os.path.join(FIXTURES, name + ".json"), out, ["images", "runs"])


if __name__ == "__main__":
    main()
