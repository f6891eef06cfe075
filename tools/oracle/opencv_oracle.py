#!/usr/bin/env python3
"""Goldens from OpenCV DNN 4.x's Darknet importer (cv2.dnn.readNetFromDarknet), for the
features pjreddie's darknet lacks (AlexeyAB's activations, ...).

Mode `activations`: for each of OpenCV's supported AlexeyAB activations, a one-layer cfg
([convolutional] filters=1 size=1, weight 1, bias 0) on a 1×1×N input, so the output is the
activation of the input grid. Writes JSON to stdout.

Mode `network CFG`: a project-written cfg (Tests/DarknetTests/Fixtures/*.cfg) with
deterministic fixture weights (see fixture_weights) on the synthetic input; writes the
outputs of OpenCV's output layers (the [yolo] heads) as sums and strided samples.

Mode `layers CFG WEIGHTS [SAMPLES]`: a cfg with a darknet weights file (the engine's synthetic
weights: `darknet-swift synth-weights CFG OUT --seed 1`) on the synthetic input; writes each
darknet layer's output as OpenCV computes it (count, statistics, SAMPLES evenly spaced values,
default 64), for every layer but the detection heads (whose OpenCV outputs are laid out for
its own decoder). OpenCV names its layers `<kind>_<n>`: n is the darknet layer index, except
for an activation, which carries the index after its convolution's; a darknet layer's output
is the last OpenCV layer of its index.

Regenerate (venv with opencv-python, see tools/bench-peers):
  .venv-peers/bin/python tools/oracle/opencv_oracle.py network Tests/DarknetTests/Fixtures/zoo2-v4tiny.cfg > Tests/DarknetTests/Fixtures/zoo2-v4tiny-opencv.json
  .venv-peers/bin/python tools/oracle/opencv_oracle.py activations > Tests/DarknetTests/Fixtures/activations-opencv.json
  .venv-peers/bin/python tools/oracle/opencv_oracle.py layers Tests/DarknetTests/Fixtures/alexeyab/csp.cfg csp.weights > Tests/DarknetTests/Fixtures/alexeyab/csp-opencv.json
"""
import json
import os
import struct
import sys
import tempfile

import cv2
import numpy as np

INPUTS = [i / 4 for i in range(-32, 33)] + [-30.5, -20.0, -4.5, -1.1, -0.3, 0.7, 1.3, 3.3, 4.5, 20.0, 30.5, 100.0]


def weights_header():
    # major 0, minor 2, revision 0, seen (uint64): darknet's weights header.
    return struct.pack("<iiiQ", 0, 2, 0, 0)


def run(cfg_text, weights_bytes, blob):
    with tempfile.TemporaryDirectory() as d:
        cfg = os.path.join(d, "net.cfg")
        weights = os.path.join(d, "net.weights")
        open(cfg, "w").write(cfg_text)
        open(weights, "wb").write(weights_bytes)
        net = cv2.dnn.readNetFromDarknet(cfg, weights)
        net.setInput(blob)
        return net.forward()


def activations():
    out = {"reference": "OpenCV DNN %s readNetFromDarknet" % cv2.__version__, "inputs": INPUTS, "outputs": {}}
    n = len(INPUTS)
    blob = np.array(INPUTS, dtype=np.float32).reshape(1, 1, 1, n)
    for name in ["mish", "swish", "logistic", "leaky", "relu", "linear"]:
        cfg = "[net]\nwidth=%d\nheight=1\nchannels=1\n\n[convolutional]\nfilters=1\nsize=1\nstride=1\nactivation=%s\n" % (n, name)
        weights = weights_header() + struct.pack("<ff", 0.0, 1.0)  # bias 0, weight 1
        try:
            result = run(cfg, weights, blob)
        except cv2.error as error:
            out["outputs"][name] = "unsupported: " + str(error).strip().splitlines()[-1]
            continue
        out["outputs"][name] = [float(v) for v in result.reshape(-1)]
    print(json.dumps(out, separators=(",", ":")))


class SplitMix64:
    """The generator of Sources/Darknet/Weights/SyntheticWeights.swift (same uniform floats)."""

    def __init__(self, seed):
        self.state = seed

    def next(self):
        self.state = (self.state + 0x9E3779B97F4A7C15) & 0xFFFFFFFFFFFFFFFF
        z = self.state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & 0xFFFFFFFFFFFFFFFF
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & 0xFFFFFFFFFFFFFFFF
        return z ^ (z >> 31)

    def uniform(self, lo, hi):
        u = np.float32(self.next() >> 40) * np.float32(1.0 / 16777216.0)
        return np.float32(np.float32(lo) + np.float32(np.float32(hi) - np.float32(lo)) * u)


def fixture_weights(convs, seed=1):
    """'zoo' weights (ZooGoldenTests.fixtureWeights in Swift): per [convolutional], in order,
    biases U(-0.1, 0.1); with batch_normalize scales U(0.8, 1.2), means U(-0.1, 0.1),
    variances U(0.5, 1.5); then weights U(-s, s), s = Float(sqrt(3 / fanIn))."""
    g = SplitMix64(seed)
    out = [weights_header()]
    for filters, fan_in, bn in convs:
        values = [g.uniform(-0.1, 0.1) for _ in range(filters)]
        if bn:
            values += [g.uniform(0.8, 1.2) for _ in range(filters)]
            values += [g.uniform(-0.1, 0.1) for _ in range(filters)]
            values += [g.uniform(0.5, 1.5) for _ in range(filters)]
        s = float(np.float32(np.sqrt(3.0 / fan_in)))
        values += [g.uniform(-s, s) for _ in range(filters * fan_in)]
        out.append(np.array(values, dtype=np.float32).tobytes())
    return b"".join(out)


def synthetic_input(c, h, w):
    """SyntheticWeights.input: x[c][y][x] = ((c*7919 + y*613 + x*31) % 1000) / 999."""
    x = np.zeros((1, c, h, w), dtype=np.float32)
    for ci in range(c):
        for y in range(h):
            for xi in range(w):
                x[0, ci, y, xi] = np.float32((ci * 7919 + y * 613 + xi * 31) % 1000) / np.float32(999)
    return x


def network(cfg_path, samples=16):
    """Mode `network CFG`: fixture weights (seed 1) for a project cfg, OpenCV's outputs of
    every [yolo] layer (OpenCV's Darknet importer gives a [yolo] layer's output as the raw
    input of that layer for YOLO region decoding: we record the outputs of all layers by
    name instead, and the test compares layers by index). Conv weight shapes come from
    OpenCV itself (blobs of a first load on zero weights)."""
    text = open(cfg_path).read()
    sections = [line.strip()[1:-1] for line in text.splitlines() if line.strip().startswith("[")]
    bn = []
    for block in text.split("[")[1:]:
        name = block.split("]")[0]
        if name in ("convolutional", "conv"):
            bn.append("batch_normalize=1" in block.replace(" ", ""))
    zeros = weights_header() + bytes(4 * 10_000_000)
    with tempfile.TemporaryDirectory() as d:
        cfg = os.path.join(d, "net.cfg")
        open(cfg, "w").write(text)
        wpath = os.path.join(d, "zero.weights")
        open(wpath, "wb").write(zeros)
        probe = cv2.dnn.readNetFromDarknet(cfg, wpath)
        convs = []
        for name in probe.getLayerNames():
            layer = probe.getLayer(name)
            if layer.type == "Convolution":
                shape = layer.blobs[0].shape  # filters, C/groups, k, k
                convs.append((shape[0], int(np.prod(shape[1:]))))
        assert len(convs) == len(bn), (len(convs), len(bn))
        weights = fixture_weights([(f, k, b) for (f, k), b in zip(convs, bn)])
        wpath = os.path.join(d, "fixture.weights")
        open(wpath, "wb").write(weights)
        net = cv2.dnn.readNetFromDarknet(cfg, wpath)
        size = [int(l.split("=")[1]) for l in text.splitlines() if l.startswith(("width", "height", "channels"))]
        width, height, channels = size
        net.setInput(synthetic_input(channels, height, width))
        names = net.getUnconnectedOutLayersNames()
        outs = net.forward(names)
    result = {"reference": "OpenCV DNN %s readNetFromDarknet" % cv2.__version__,
              "cfg": os.path.basename(cfg_path), "weights": "zoo fixture weights, seed 1 (opencv_oracle.py fixture_weights)",
              "input": "SyntheticWeights.input", "outputs": []}
    for name, out in zip(names, outs):
        flat = out.reshape(-1).astype(np.float64)
        step = max(1, len(flat) // 400)
        result["outputs"].append({"name": name, "shape": list(out.shape), "count": int(flat.size),
                                  "sum": float(flat.sum()), "absSum": float(np.abs(flat).sum()),
                                  "step": step, "samples": [float(v) for v in flat[::step]]})
    print(json.dumps(result, separators=(",", ":")))


ACTIVATIONS = {"leaky", "relu", "mish", "swish", "logistic", "tanh", "elu", "selu", "gelu", "relu6", "hardswish", "identity_act"}
HEADS = {"yolo", "region", "permute"}


def darknet_layer_names(net):
    """{darknet layer index: the OpenCV layer whose output is that layer's}, heads left out:
    OpenCV names its layers `<kind>_<n>` with n the darknet index, but an activation carries
    the index after its convolution's; the last OpenCV layer of an index is its output."""
    last = {}
    for name in net.getLayerNames():
        kind, _, number = name.rpartition("_")
        if not number.isdigit() or kind in HEADS:
            continue
        last[int(number) - 1 if kind in ACTIVATIONS else int(number)] = name
    return last


def layers(cfg_path, weights_path, samples=64):
    """Mode `layers`: see the module docstring."""
    text = open(cfg_path).read()
    net = cv2.dnn.readNetFromDarknet(cfg_path, weights_path)
    # Unfused, so every layer's own output is kept (a fused activation's blob is not written).
    net.enableFusion(False)
    size = {}
    in_net = False
    for line in text.splitlines():
        line = line.split("#")[0].replace(" ", "")
        if line.startswith("["):
            in_net = line in ("[net]", "[network]")
        elif in_net and "=" in line:
            key, value = line.split("=", 1)
            if key in ("width", "height", "channels"):
                size[key] = int(value)
    net.setInput(synthetic_input(size["channels"], size["height"], size["width"]))
    last = darknet_layer_names(net)
    heads = {int(n.rpartition("_")[2]) for n in net.getLayerNames() if n.rpartition("_")[0] in HEADS}
    order = sorted(i for i in last if i not in heads)
    outs = net.forward([last[i] for i in order])
    result = {"reference": "OpenCV DNN %s readNetFromDarknet" % cv2.__version__, "cfg": os.path.basename(cfg_path),
              "input": "SyntheticWeights.input", "layers": []}
    for index, out in zip(order, outs):
        flat = out.reshape(-1).astype(np.float64)
        n = flat.size
        picks = range(n) if n <= samples else [(k * (n - 1)) // (samples - 1) for k in range(samples)]
        result["layers"].append({"index": index, "opencv": last[index], "count": int(n), "mean": float(flat.mean()),
                                 "std": float(flat.std()), "samples": [[i, float(flat[i])] for i in picks]})
    print(json.dumps(result, separators=(",", ":")))


if __name__ == "__main__":
    mode = sys.argv[1] if len(sys.argv) > 1 else "activations"
    if mode == "network":
        network(sys.argv[2])
    elif mode == "layers":
        layers(sys.argv[2], sys.argv[3], int(sys.argv[4]) if len(sys.argv) > 4 else 64)
    else:
        activations()
