#!/usr/bin/env python3
"""Goldens from OpenCV DNN 4.x's Darknet importer (cv2.dnn.readNetFromDarknet), for the
features pjreddie's darknet lacks (AlexeyAB's activations, ...).

Mode `activations`: for each of OpenCV's supported AlexeyAB activations, a one-layer cfg
([convolutional] filters=1 size=1, weight 1, bias 0) on a 1×1×N input, so the output is the
activation of the input grid. Writes JSON to stdout.

Regenerate (venv with opencv-python, see tools/bench-peers):
  .venv-peers/bin/python tools/oracle/opencv_oracle.py activations > Tests/DarknetTests/Fixtures/activations-opencv.json
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


if __name__ == "__main__":
    {"activations": activations}[sys.argv[1] if len(sys.argv) > 1 else "activations"]()
