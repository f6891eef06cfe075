#!/usr/bin/env python3
"""Activation goldens from Debian's libdarknet.so (pjreddie's darknet) via ctypes.

Calls the exported `void activate_array(float *x, const int n, const ACTIVATION a)` on a
fixed grid of inputs for each of pjreddie's 14 activations (enum order from darknet.h) and
writes Tests/DarknetTests/Fixtures/activations-darknet.json.

Regenerate:  python3 tools/oracle/activation_oracle.py > Tests/DarknetTests/Fixtures/activations-darknet.json
(needs Debian's `darknet` package: /usr/lib/darknet/libdarknet.so)
"""
import ctypes
import json

# darknet.h: typedef enum{ LOGISTIC, RELU, RELIE, LINEAR, RAMP, TANH, PLSE, LEAKY, ELU, LOGGY, STAIR, HARDTAN, LHTAN, SELU } ACTIVATION;
NAMES = ["logistic", "relu", "relie", "linear", "ramp", "tanh", "plse", "leaky", "elu", "loggy",
         "stair", "hardtan", "lhtan", "selu"]

# Inputs: every 0.25 from -8 to 8 plus a few large and odd values (exactly representable floats),
# and values beyond int's range, where stair's `int n = floor(x)` is undefined in C.
INPUTS = [i / 4 for i in range(-32, 33)] + [-30.5, -20.0, -4.5, -1.1, -0.3, 0.7, 1.3, 3.3, 4.5, 20.0, 30.5, 100.0] \
    + [-1e30, -3e9, -2500000000.0, -2147483904.0, 2147483648.0, 3e9, 1e30]


def main():
    lib = ctypes.CDLL("/usr/lib/darknet/libdarknet.so")
    lib.activate_array.argtypes = [ctypes.POINTER(ctypes.c_float), ctypes.c_int, ctypes.c_int]
    lib.activate_array.restype = None
    out = {"reference": "libdarknet.so activate_array (Debian darknet, pjreddie)", "inputs": INPUTS, "outputs": {}}
    for code, name in enumerate(NAMES):
        buf = (ctypes.c_float * len(INPUTS))(*INPUTS)
        lib.activate_array(buf, len(INPUTS), code)
        out["outputs"][name] = [float(v) if v == v else None for v in buf]
    print(json.dumps(out, indent=None, separators=(",", ":")))


if __name__ == "__main__":
    main()
