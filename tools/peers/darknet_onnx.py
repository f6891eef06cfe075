"""Darknet cfg + weights -> ONNX, for timing ONNX Runtime and OpenVINO on the same networks
(run by tools/bench-peers; the project's own converter, written from darknet's layer rules).

Usage: darknet_onnx.py CFG WEIGHTS OUT.onnx [--check]

Sections: [convolutional] (batch norm folded into the weights and biases with pjreddie's
scale / (sqrt(variance) + 1e-6), groups, activations linear leaky logistic relu mish swish/silu), [maxpool]
(darknet's padding: size - 1 split begin/end, -inf, any stride; size 1 stride 1 is a copy),
[route] (concatenation, and AlexeyAB's groups/group_id channel slices), [upsample] (nearest,
integer stride), [shortcut] (one source, linear). A [yolo] or [region] becomes a graph output:
the tensor it reads, raw (each engine's head activation and decoding are not in the timed
forward pass of the peers). Anything else is an error naming the section and line.

The input is `input`, 1x3xHxW float32 in [0, 1] (H, W from [net]); outputs are `head_<i>` for
the head at darknet layer i, in layer order.

--check runs the model in ONNX Runtime and OpenCV DNN (`readNetFromDarknet`, unfused) on the
same deterministic input and requires every head input to agree within 1e-3 * (1 + |x|):
OpenCV is checked against darknet layer by layer (tools/oracle/opencv_oracle.py, the tests),
so this ties the converted graph to darknet's own answers before anything is timed.
"""
import os
import struct
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "oracle"))


class ConvertError(Exception):
    pass


def read_cfg(path):
    """[(name, {key: value}, line)] in file order; keys as written, values stripped."""
    sections = []
    with open(path) as f:
        for number, raw in enumerate(f, 1):
            line = raw.split("#")[0].split(";")[0].strip()
            if not line:
                continue
            if line.startswith("["):
                sections.append((line.strip("[]").strip().lower(), {}, number))
            elif "=" in line and sections:
                key, value = line.split("=", 1)
                sections[-1][1].setdefault(key.strip(), value.strip())
    if not sections or sections[0][0] not in ("net", "network"):
        raise ConvertError(f"{path}: the first section must be [net]")
    return sections


class Weights:
    def __init__(self, path):
        with open(path, "rb") as f:
            data = f.read()
        major, minor, _ = struct.unpack_from("<iii", data, 0)
        offset = 12 + (8 if major * 10 + minor >= 2 else 4)
        self.values = np.frombuffer(data, dtype="<f4", offset=offset)
        self.position = 0
        self.path = path

    def take(self, count, what):
        end = self.position + count
        if end > self.values.size:
            raise ConvertError(f"{self.path}: ends after {self.values.size} floats; {what} needs {end}")
        out = self.values[self.position:end].astype(np.float64)
        self.position = end
        return out


class Graph:
    def __init__(self):
        self.nodes, self.initializers, self.count = [], [], 0

    def name(self, kind):
        self.count += 1
        return f"{kind}_{self.count}"

    def constant(self, array, dtype=np.float32):
        name = self.name("c")
        self.initializers.append(numpy_helper.from_array(np.asarray(array, dtype=dtype), name))
        return name

    def node(self, op, inputs, **attributes):
        out = self.name(op.lower())
        self.nodes.append(helper.make_node(op, inputs, [out], **attributes))
        return out


def activation(graph, x, name, where):
    if name == "linear":
        return x
    if name == "leaky":
        return graph.node("LeakyRelu", [x], alpha=0.1)
    if name == "logistic":
        return graph.node("Sigmoid", [x])
    if name == "relu":
        return graph.node("Relu", [x])
    if name == "mish":
        return graph.node("Mish", [x])
    if name in ("swish", "silu"):
        return graph.node("Mul", [x, graph.node("Sigmoid", [x])])
    raise ConvertError(f"{where}: activation '{name}' is not converted")


def convert(cfg_path, weights_path):
    sections = read_cfg(cfg_path)
    net = sections[0][1]
    width, height, channels = int(net["width"]), int(net["height"]), int(net.get("channels", 3))
    weights = Weights(weights_path)
    graph = Graph()
    outputs = []  # (tensor, shape) per layer
    heads = []
    x, shape = "input", (channels, height, width)
    for index, (kind, options, line) in enumerate(sections[1:]):
        where = f"{cfg_path}:{line} [{kind}]"
        integer = lambda key, default: int(options.get(key, default))  # noqa: E731
        if kind in ("convolutional", "conv"):
            filters, size = integer("filters", 1), integer("size", 1)
            stride, groups = integer("stride", 1), integer("groups", 1)
            pad = size // 2 if integer("pad", 0) else integer("padding", 0)
            rejected = [k for k in ("xnor", "binary", "deform") if options.get(k, "0") != "0"]
            rejected += [k for k in ("share_index",) if k in options]
            rejected += [k for k in ("dilation",) if options.get(k, "1") != "1"]
            rejected += [k for k in ("stride_x", "stride_y") if k in options and int(options[k]) != stride]
            if rejected:
                raise ConvertError(f"{where}: '{rejected[0]}' is not converted")
            c = shape[0]
            biases = weights.take(filters, where)
            if integer("batch_normalize", 0):
                scales, means, variances = (weights.take(filters, where) for _ in range(3))
                factor = scales / (np.sqrt(variances) + 0.000001)
            else:
                factor, means = np.ones(filters), np.zeros(filters)
            kernel = weights.take(filters * (c // groups) * size * size, where).reshape(filters, c // groups, size, size)
            w = graph.constant(kernel * factor[:, None, None, None])
            b = graph.constant(biases - means * factor)
            y = graph.node("Conv", [x, w, b], kernel_shape=[size, size], strides=[stride, stride],
                           pads=[pad, pad, pad, pad], group=groups)
            out_h, out_w = (shape[1] + 2 * pad - size) // stride + 1, (shape[2] + 2 * pad - size) // stride + 1
            x, shape = activation(graph, y, options.get("activation", "logistic"), where), (filters, out_h, out_w)
        elif kind in ("maxpool", "max"):
            size, stride = integer("size", 1), integer("stride", 1)
            padding = integer("padding", size - 1)
            if size == 1 and stride == 1:
                out = graph.node("Identity", [x])
            else:
                begin, end = padding // 2, padding - padding // 2
                out = graph.node("MaxPool", [x], kernel_shape=[size, size], strides=[stride, stride],
                                 pads=[begin, begin, end, end])
            x = out
            shape = (shape[0], (shape[1] + padding - size) // stride + 1, (shape[2] + padding - size) // stride + 1)
        elif kind == "route":
            sources = [int(v) for v in options["layers"].split(",")]
            sources = [s if s >= 0 else index + s for s in sources]
            groups, group = integer("groups", 1), integer("group_id", 0)
            parts, total = [], 0
            for s in sources:
                tensor, (c, h, w) = outputs[s]
                if groups > 1:
                    part = c // groups
                    tensor = graph.node("Slice", [tensor, graph.constant([part * group], np.int64),
                                                  graph.constant([part * (group + 1)], np.int64),
                                                  graph.constant([1], np.int64)])
                    c = part
                parts.append(tensor)
                total += c
            x = parts[0] if len(parts) == 1 else graph.node("Concat", parts, axis=1)
            shape = (total, h, w)
        elif kind == "upsample":
            stride = integer("stride", 2)
            if stride < 1 or float(options.get("scale", 1)) != 1:
                raise ConvertError(f"{where}: only a positive integer stride is converted")
            x = graph.node("Resize", [x, "", graph.constant([1, 1, stride, stride])], mode="nearest",
                           coordinate_transformation_mode="asymmetric", nearest_mode="floor")
            shape = (shape[0], shape[1] * stride, shape[2] * stride)
        elif kind == "shortcut":
            source = int(options["from"])
            source = source if source >= 0 else index + source
            if "," in options["from"] or options.get("activation", "linear") != "linear":
                raise ConvertError(f"{where}: only one linear source is converted")
            x = graph.node("Add", [x, outputs[source][0]])
        elif kind in ("yolo", "region"):
            head = f"head_{index}"
            graph.nodes.append(helper.make_node("Identity", [x], [head]))
            heads.append((head, shape))
        else:
            raise ConvertError(f"{where}: section [{kind}] is not converted")
        outputs.append((x, shape))
    if weights.position != weights.values.size:
        raise ConvertError(f"{weights_path}: {weights.values.size - weights.position} floats left after the last layer")
    inputs = [helper.make_tensor_value_info("input", TensorProto.FLOAT, [1, channels, height, width])]
    outs = [helper.make_tensor_value_info(name, TensorProto.FLOAT, [1, *s]) for name, s in heads]
    model = helper.make_model(helper.make_graph(graph.nodes, "darknet", inputs, outs, graph.initializers),
                              opset_imports=[helper.make_opsetid("", 18)], producer_name="darknet-swift tools/peers")
    model.ir_version = 8
    onnx.checker.check_model(model)
    return model, [int(name.split("_")[1]) for name, _ in heads]


def check(cfg_path, weights_path, onnx_path, heads):
    """ONNX Runtime against OpenCV DNN (unfused) on the synthetic input, head by head."""
    import cv2
    import onnxruntime
    from opencv_oracle import darknet_layer_names, synthetic_input

    net = cv2.dnn.readNetFromDarknet(cfg_path, weights_path)
    net.enableFusion(False)
    session = onnxruntime.InferenceSession(onnx_path, providers=["CPUExecutionProvider"])
    shape = session.get_inputs()[0].shape
    blob = synthetic_input(shape[1], shape[2], shape[3])
    ours = session.run(None, {"input": blob})
    names = darknet_layer_names(net)
    net.setInput(blob)
    theirs = net.forward([names[i - 1] for i in heads])
    worst = 0.0
    for head, a, b in zip(heads, ours, theirs):
        if a.size != b.size:
            raise ConvertError(f"head {head}: ONNX {a.shape} but OpenCV {b.shape}")
        worst = max(worst, float(np.max(np.abs(a.reshape(-1) - b.reshape(-1)) / (1 + np.abs(b.reshape(-1))))))
    if worst > 1e-3:
        raise ConvertError(f"{onnx_path}: differs from OpenCV DNN by {worst:.2e} relative")
    return worst


def main(argv):
    if len(argv) not in (4, 5) or (len(argv) == 5 and argv[4] != "--check"):
        print(__doc__, file=sys.stderr)
        return 2
    cfg, weights, out = argv[1:4]
    try:
        model, heads = convert(cfg, weights)
        onnx.save(model, out)
        if len(argv) == 5:
            worst = check(cfg, weights, out, heads)
            print(f"darknet_onnx: {out}: {len(heads)} heads agree with OpenCV DNN within {worst:.1e} relative")
    except (ConvertError, KeyError, ValueError) as error:
        print(f"darknet_onnx: {error}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
