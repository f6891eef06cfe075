#!/usr/bin/env python3
"""Goldens from AlexeyAB's darknet for the project's own AlexeyAB-dialect cfgs.

For each cfg in Tests/DarknetTests/Fixtures/alexeyab/*.cfg (written for these tests: they use
the sections and keys of yolov4-tiny, scaled-YOLOv4, Gaussian YOLOv3 and enet-coco at 64x64),
writes NAME.json beside it with (the oracle runs in that folder, where the cfgs' `tree=`
paths point):
- the synthetic weights' checksum (written by `darknet-swift synth-weights CFG OUT --seed 1`,
  the engine's generator, so the test can regenerate the same bytes);
- `detect`: AlexeyAB's test_detector on the fixture photo scene-120x80.png (generated here,
  non-square so letterbox and resize differ) as the cfg decides, and `detect_other`: with the
  other fitting forced (-letter_box, or resize), each detection after NMS in array order;
- `layers`: per layer, 16 evenly spaced samples of its output on the synthetic input.
For the classifier cfgs (CLASSIFIERS), `classify`: his `classifier predict` on the photo
(resize_min + centre crop_image, network_predict, top_k) instead of `detect`.

AlexeyAB's darknet is not packaged and is never part of this repository: build it yourself,
CPU only, with plain IEEE float operations, and pass its folder:
  (cd /somewhere/darknet && make LIBSO=1 OPTS="-O2 -ffp-contract=off")
  swift build -c release --product darknet-swift
  python3 tools/oracle/ab_goldens.py --ab /somewhere/darknet --bin .build/release/darknet-swift
"""
import argparse
import hashlib
import json
import os
import struct
import subprocess
import sys
import tempfile
import zlib

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
FIXTURES = os.path.join(ROOT, "Tests", "DarknetTests", "Fixtures", "alexeyab")
IMAGE = "scene-120x80.png"
SEED = 1
# Per cfg: the threshold that leaves a few dozen detections on random weights (whose
# probabilities crowd around 0.3: the tests let detections within 0.005 of it differ).
THRESHOLDS = {"tiny-v4": 0.34, "csp": 0.3, "gaussian": 0.18, "enet": 0.27, "trident": 0.4, "xnor": 0.6, "crnn": 0.34,
              "tree": 0.55}
SAMPLES = 16
# Classifier cfgs and the top-k to record.
CLASSIFIERS = {"classifier": 5, "tree-classifier": 5}


def write_scene(path, width=120, height=80):
    """A deterministic RGB picture: gradients, a disc and a bar (8-bit PNG, no filter)."""
    rows = []
    for y in range(height):
        row = bytearray([0])
        for x in range(width):
            r = (x * 255) // (width - 1)
            g = (y * 255) // (height - 1)
            b = (x * 7 + y * 13) % 256
            if (x - 40) ** 2 + (y - 40) ** 2 < 15 ** 2:
                r, g, b = 230, 40, 30
            if 80 <= x < 110 and 20 <= y < 70:
                r, g, b = 20, 60 + y, 200
            row += bytes([r, g, b])
        rows.append(bytes(row))

    def chunk(kind, data):
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body) & 0xFFFFFFFF)

    png = b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0))
    png += chunk(b"IDAT", zlib.compress(b"".join(rows), 9)) + chunk(b"IEND", b"")
    with open(path, "wb") as f:
        f.write(png)


def sha256(path):
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


def run(command):
    # In the fixtures folder: darknet opens a cfg's tree= relative to the working directory.
    result = subprocess.run(command, capture_output=True, text=True, cwd=FIXTURES)
    if result.returncode != 0:
        sys.exit("ab_goldens: %s failed:\n%s%s" % (" ".join(command), result.stdout, result.stderr))
    return result.stdout


def detections(report):
    """The detections after NMS that keep a probability, in AlexeyAB's array order."""
    return [{"box": [d["x"], d["y"], d["w"], d["h"]], "objectness": d["objectness"],
             "prob": {k: v for k, v in sorted(d["prob"].items(), key=lambda kv: int(kv[0]))},
             **({"uc": d["uc"]} if "uc" in d else {})} for d in report["detections"] if d["prob"]]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ab", required=True, help="AlexeyAB darknet folder (include/, libdarknet.so)")
    parser.add_argument("--bin", required=True, help="darknet-swift binary (for synth-weights)")
    args = parser.parse_args()
    ab = os.path.abspath(args.ab)
    args.bin = os.path.abspath(args.bin)
    commit = subprocess.run(["git", "-C", ab, "rev-parse", "HEAD"], capture_output=True, text=True).stdout.strip() or "unknown"
    build = os.path.join(ROOT, ".build-oracle")
    os.makedirs(build, exist_ok=True)
    oracle = os.path.join(build, "ab-darknet-oracle")
    run(["gcc", "-O2", "-ffp-contract=off", "-I" + os.path.join(ab, "include"),
         os.path.join(ROOT, "tools", "oracle", "ab-darknet-oracle.c"), "-L" + ab, "-ldarknet",
         "-Wl,-rpath," + ab, "-lm", "-o", oracle])
    image = os.path.join(FIXTURES, IMAGE)
    if not os.path.exists(image):
        write_scene(image)
    reference = "AlexeyAB darknet %s (CPU, -O2 -ffp-contract=off) via tools/oracle/ab-darknet-oracle.c" % commit
    with tempfile.TemporaryDirectory() as tmp:
        for name, top in sorted(CLASSIFIERS.items()):
            cfg = os.path.join(FIXTURES, name + ".cfg")
            weights = os.path.join(tmp, name + ".weights")
            summary = run([args.bin, "synth-weights", cfg, weights, "--seed", str(SEED), "--force"])
            out = {"reference": reference, "cfg": name + ".cfg", "cfg_sha256": sha256(cfg), "seed": SEED,
                   "weights_fnv1a64": summary.strip().rsplit(" ", 1)[-1], "image": IMAGE, "image_sha256": sha256(image),
                   "command": "ab-darknet-oracle classify CFG WEIGHTS IMAGE %d OUT" % top}
            report_path = os.path.join(tmp, name + "-classify.json")
            run([oracle, "classify", cfg, weights, image, str(top), report_path])
            with open(report_path) as f:
                out["classify"] = json.load(f)
            with open(os.path.join(FIXTURES, name + ".json"), "w") as f:
                json.dump(out, f, indent=None, separators=(",", ":"))
                f.write("\n")
            print("%s: top %s" % (name, [t["index"] for t in out["classify"]["top"]]))
        for name, threshold in sorted(THRESHOLDS.items()):
            cfg = os.path.join(FIXTURES, name + ".cfg")
            weights = os.path.join(tmp, name + ".weights")
            summary = run([args.bin, "synth-weights", cfg, weights, "--seed", str(SEED), "--force"])
            checksum = summary.strip().rsplit(" ", 1)[-1]
            out = {"reference": reference, "cfg": name + ".cfg", "cfg_sha256": sha256(cfg), "seed": SEED,
                   "weights_fnv1a64": checksum, "image": IMAGE, "image_sha256": sha256(image),
                   "command": "ab-darknet-oracle detect CFG WEIGHTS IMAGE %g 0.5 0.45 OUT [LETTERBOX]" % threshold}
            for key, letter in [("detect", "-1"), ("detect_other", None)]:
                report_path = os.path.join(tmp, name + "-" + key + ".json")
                if letter is None:
                    letter = "0" if out["detect"]["letter"] else "1"
                run([oracle, "detect", cfg, weights, image, str(threshold), "0.5", "0.45", report_path, letter, "0"])
                with open(report_path) as f:
                    report = json.load(f)
                out[key] = {"letter": report["letter"], "thresh": threshold, "nms": 0.45, "nms_kind": report["nms_kind"],
                            "beta_nms": report["beta_nms"], "candidates": report["nboxes"],
                            "detections": detections(report)}
            layers_path = os.path.join(tmp, name + "-layers.json")
            run([oracle, "layers", cfg, weights, "0", "0", layers_path])
            with open(layers_path) as f:
                layers = json.load(f)["layers"]
            out["layers"] = []
            for layer in layers:
                samples = layer.get("samples", [])
                step = max(1, len(samples) // SAMPLES)
                out["layers"].append({"index": layer["index"], "type": layer["type"], "count": layer["count"],
                                      "samples": samples[::step][:SAMPLES]})
            with open(os.path.join(FIXTURES, name + ".json"), "w") as f:
                json.dump(out, f, indent=None, separators=(",", ":"))
                f.write("\n")
            print("%s: %d detections as the cfg says (letter %d), %d with the other fitting" %
                  (name, len(out["detect"]["detections"]), out["detect"]["letter"], len(out["detect_other"]["detections"])))


if __name__ == "__main__":
    main()
