"""The Open Inference Protocol through tritonclient[http], against a running darknet-swift-serve.

Usage: triton_check.py HOST:PORT DETECTOR CLASSIFIER EXPECTED.json
EXPECTED.json (written by ServeInferenceProtocolTests): the detector's input shape, one
input (flat FP32) and its head tensors as the engine computes them in-process.
Prints one line per check and exits non-zero on the first mismatch.
"""
import json
import sys

import numpy as np
import tritonclient.http as http


def main():
    url, detector, classifier, expected_path = sys.argv[1:5]
    with open(expected_path) as f:
        expected = json.load(f)
    client = http.InferenceServerClient(url=url)
    assert client.is_server_live(), "server not live"
    assert client.is_server_ready(), "server not ready"
    assert client.is_model_ready(detector), "detector not ready"
    meta = client.get_model_metadata(detector)
    assert meta["inputs"][0]["name"] == "images", meta
    assert meta["inputs"][0]["shape"] == [-1] + expected["shape"], meta
    names = [o["name"] for o in meta["outputs"]]
    assert names == expected["outputs"] + ["detections"], names
    print("metadata ok:", names)

    image = np.array(expected["input"], dtype=np.float32).reshape([1] + expected["shape"])
    batch = np.concatenate([image, image[:, :, ::-1, :].copy()], axis=0)
    for binary in (True, False):
        inputs = [http.InferInput("images", list(batch.shape), "FP32")]
        inputs[0].set_data_from_numpy(batch, binary_data=binary)
        outputs = [http.InferRequestedOutput(n, binary_data=binary) for n in names]
        result = client.infer(detector, inputs, outputs=outputs)
        for index, name in enumerate(expected["outputs"]):
            got = result.as_numpy(name)
            want = np.array(expected["heads"][index], dtype=np.float32).reshape(got.shape[1:])
            assert got.shape[0] == 2, got.shape
            assert np.array_equal(got[0], want), f"{name}: the first image's tensor differs from the engine's"
        rows = result.as_numpy("detections")
        assert rows.ndim == 4 and rows.shape[-1] == 7, rows.shape
        assert set(rows[0, 0, :, 0].tolist()) <= {0.0, 1.0}, rows[0, 0, :, 0]
        print(f"infer ok (binary={binary}): heads equal, {rows.shape[2]} detections")

    scores = client.infer(classifier, [_input(np.zeros([1, 3, 8, 8], np.float32))]).as_numpy(
        client.get_model_metadata(classifier)["outputs"][0]["name"])
    assert np.allclose(scores.reshape(-1), [0.66524096, 0.24472847, 0.09003057], atol=1e-6), scores
    print("classifier ok:", scores.reshape(-1).tolist())

    try:
        client.infer(detector, [_input(np.zeros([1, 3, 5, 5], np.float32))])
        raise AssertionError("a wrong shape was accepted")
    except http.InferenceServerException as error:
        assert "shape" in str(error), error
        print("wrong shape refused:", error)


def _input(array):
    tensor = http.InferInput("images", list(array.shape), "FP32")
    tensor.set_data_from_numpy(array)
    return tensor


if __name__ == "__main__":
    main()
