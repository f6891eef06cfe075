"""Times ONNX Runtime's or OpenVINO's forward pass on a converted Darknet model (run by
tools/bench-peers; the model comes from tools/peers/darknet_onnx.py).

Usage: onnx_forward.py RUNTIME MODEL.onnx IMAGE SIZE THREADS WARMUP RUNS

RUNTIME:
  onnxruntime       CPU execution provider, all graph optimisations, THREADS intra-op
                    threads, one inter-op thread, sequential execution
  openvino-f32      OpenVINO on the CPU, INFERENCE_PRECISION_HINT=f32, latency hint,
                    THREADS inference threads
  openvino-default  the same with OpenVINO's own precision choice (bf16 on CPUs with AMX or
                    AVX-512 BF16, f32 elsewhere): reported apart, it is not an f32 peer

The input blob is made as tools/peers/opencv_forward.py makes it (a plain resize to SIZE,
1/255, RGB). Only the inference call is inside the clock. Prints one JSON object:
{"forwardMs": [...], "runtime": "...", "version": "...", "threads": n, "precision": "..."}.
"""
import json
import sys
import time


def main(argv):
    if len(argv) != 8:
        print(__doc__, file=sys.stderr)
        return 2
    runtime, model, image = argv[1], argv[2], argv[3]
    size, threads, warmup, runs = (int(a) for a in argv[4:8])
    import cv2

    picture = cv2.imread(image)
    if picture is None:
        print(f"onnx_forward: cannot read image {image}", file=sys.stderr)
        return 1
    blob = cv2.dnn.blobFromImage(picture, 1 / 255.0, (size, size), swapRB=True, crop=False)
    if runtime == "onnxruntime":
        import onnxruntime

        options = onnxruntime.SessionOptions()
        options.intra_op_num_threads = threads
        options.inter_op_num_threads = 1
        options.execution_mode = onnxruntime.ExecutionMode.ORT_SEQUENTIAL
        options.graph_optimization_level = onnxruntime.GraphOptimizationLevel.ORT_ENABLE_ALL
        session = onnxruntime.InferenceSession(model, options, providers=["CPUExecutionProvider"])
        infer = lambda: session.run(None, {"input": blob})  # noqa: E731
        version, precision = onnxruntime.__version__, "f32"
    elif runtime in ("openvino-f32", "openvino-default"):
        import openvino

        core = openvino.Core()
        config = {"PERFORMANCE_HINT": "LATENCY", "INFERENCE_NUM_THREADS": threads}
        if runtime == "openvino-f32":
            config["INFERENCE_PRECISION_HINT"] = "f32"
        compiled = core.compile_model(model, "CPU", config)
        request = compiled.create_infer_request()
        infer = lambda: request.infer({"input": blob})  # noqa: E731
        version = openvino.__version__.split("-")[0]
        precision = compiled.get_property("INFERENCE_PRECISION_HINT").to_string()
    else:
        print(f"onnx_forward: unknown runtime {runtime}", file=sys.stderr)
        return 2

    times = []
    for i in range(warmup + runs):
        start = time.perf_counter()
        infer()
        elapsed = time.perf_counter() - start
        if i >= warmup:
            times.append(elapsed * 1000)
    print(json.dumps({"forwardMs": times, "runtime": runtime, "version": version, "threads": threads,
                      "precision": precision}))
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main(sys.argv))
    except ImportError as error:
        print(f"onnx_forward: {error} (run tools/bench-peers, which sets up its venv)", file=sys.stderr)
        sys.exit(1)
