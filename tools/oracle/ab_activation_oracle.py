#!/usr/bin/env python3
"""Activation goldens from AlexeyAB's darknet (built from source, CPU only) via ctypes.

Calls, on the same input grid as activation_oracle.py, what AlexeyAB's convolution forward
calls for each activation: `activate_array_mish`, `activate_array_swish`,
`activate_array_hard_mish`, and `activate_array_cpu_custom` (leaky with its double .1, and
`activate` for gelu, logistic and the rest); writes Tests/DarknetTests/Fixtures/activations-alexeyab.json.

AlexeyAB's darknet is not packaged: build it yourself (CPU only, `make LIBSO=1`, with
OPTS="-O2 -ffp-contract=off" so each float operation is the one its C source writes) and
point AB_DARKNET_LIB at its libdarknet.so.

Regenerate:
  AB_DARKNET_LIB=/path/to/libdarknet.so AB_DARKNET_COMMIT=<hash> \
      python3 tools/oracle/ab_activation_oracle.py > Tests/DarknetTests/Fixtures/activations-alexeyab.json
"""
import ctypes
import json
import os

# darknet.h (AlexeyAB): LOGISTIC, RELU, RELU6, RELIE, LINEAR, RAMP, TANH, PLSE, REVLEAKY, LEAKY,
# ELU, LOGGY, STAIR, HARDTAN, LHTAN, SELU, GELU, SWISH, MISH, HARD_MISH
CODES = {"leaky": 9, "gelu": 16, "linear": 4, "relu": 1, "logistic": 0}

from activation_oracle import INPUTS as GRID  # noqa: E402  (pjreddie's grid)

# The grid plus small values, where mish's `2/(1 + expf(-2y)) - 1` loses digits to cancellation.
INPUTS = GRID + [0.01, -0.01, 0.001, -0.001, 0.00001]


def main():
    lib = ctypes.CDLL(os.environ["AB_DARKNET_LIB"])
    n = len(INPUTS)
    floats = ctypes.c_float * n
    out = {"reference": "AlexeyAB darknet %s (CPU, -O2 -ffp-contract=off), the convolution's activation calls"
                        % os.environ.get("AB_DARKNET_COMMIT", "unknown commit"),
           "inputs": INPUTS, "outputs": {}}
    for name, function in [("mish", lib.activate_array_mish), ("swish", lib.activate_array_swish),
                           ("hard_mish", lib.activate_array_hard_mish)]:
        # activate_array_mish(x, n, activation_input, output); swish's third is output_sigmoid.
        x, saved, y = floats(*INPUTS), floats(), floats()
        function(x, n, saved, y)
        out["outputs"][name] = [float(v) for v in y]
    lib.activate_array_cpu_custom.argtypes = [ctypes.POINTER(ctypes.c_float), ctypes.c_int, ctypes.c_int]
    for name, code in CODES.items():
        x = floats(*INPUTS)
        lib.activate_array_cpu_custom(x, n, code)
        out["outputs"][name] = [float(v) for v in x]
    print(json.dumps(out, indent=None, separators=(",", ":")))


if __name__ == "__main__":
    main()
