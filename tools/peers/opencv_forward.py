"""Times OpenCV DNN's forward pass on a Darknet model (run by tools/bench-peers).

Usage: opencv_forward.py CFG WEIGHTS IMAGE SIZE THREADS WARMUP RUNS

Loads CFG/WEIGHTS with cv2.dnn.readNetFromDarknet (CPU, OpenCV's own backend,
Winograd left at its default: on), makes the input blob with
cv2.dnn.blobFromImage(image, 1/255, (SIZE, SIZE), swapRB=True, crop=False) --
a plain resize: OpenCV has no letterbox, darknet letterboxes; the forward cost
is the same since the blob has the same shape -- then runs WARMUP unmeasured
and RUNS measured forward passes. Only net.forward(<all output layers>) is
inside the clock: asking for every unconnected output layer makes OpenCV
compute all three YOLO heads, as darknet does (net.forward() with no names
would skip the branches that only feed the other heads).

Prints one JSON object: {"forwardMs": [...], "opencv": "4.x.y", "threads": n}.
"""
import json
import sys
import time


def main(argv):
    if len(argv) != 8:
        print(__doc__, file=sys.stderr)
        return 2
    cfg, weights, image = argv[1], argv[2], argv[3]
    size, threads, warmup, runs = (int(a) for a in argv[4:8])

    import cv2  # imported here so that a missing module gives the message below

    cv2.setNumThreads(threads)
    net = cv2.dnn.readNetFromDarknet(cfg, weights)
    net.setPreferableBackend(cv2.dnn.DNN_BACKEND_OPENCV)
    net.setPreferableTarget(cv2.dnn.DNN_TARGET_CPU)
    picture = cv2.imread(image)
    if picture is None:
        print(f"opencv_forward: cannot read image {image}", file=sys.stderr)
        return 1
    blob = cv2.dnn.blobFromImage(picture, 1 / 255.0, (size, size), swapRB=True, crop=False)
    outputs = net.getUnconnectedOutLayersNames()

    times = []
    for i in range(warmup + runs):
        net.setInput(blob)
        start = time.perf_counter()
        net.forward(outputs)
        elapsed = time.perf_counter() - start
        if i >= warmup:
            times.append(elapsed * 1000)
    print(json.dumps({"forwardMs": times, "opencv": cv2.__version__, "threads": cv2.getNumThreads()}))
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main(sys.argv))
    except ImportError as error:
        print(f"opencv_forward: {error} (run tools/bench-peers, which sets up its venv)", file=sys.stderr)
        sys.exit(1)
