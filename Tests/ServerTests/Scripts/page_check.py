"""The page of darknet-swift-serve in headless Chromium (Debian's `chromium`), driven over the
DevTools protocol on a pipe (standard library only): open the page, wait for its model
list, drop PHOTO on it (a real `drop` event carrying the file), wait for the answer, and
print one JSON object: the status line, the boxes the page listed, whether each box's
edge on the canvas differs from the photo there (drawn), and the screenshot's path.

Usage: page_check.py URL PHOTO SCREENSHOT.png
"""
import base64
import json
import os
import subprocess
import sys
import tempfile
import time


class Browser:
    def __init__(self):
        self.to_browser_r, self.to_browser_w = os.pipe()
        self.from_browser_r, self.from_browser_w = os.pipe()
        self.profile = tempfile.mkdtemp(prefix="page-check-")

        def fds():
            # Chromium reads fd 3 and writes fd 4; moved up first, so neither end overwrites the other.
            reading, writing = os.dup(self.to_browser_r), os.dup(self.from_browser_w)
            high_r, high_w = os.dup2(reading, 20), os.dup2(writing, 21)
            os.dup2(high_r, 3, inheritable=True)
            os.dup2(high_w, 4, inheritable=True)

        self.process = subprocess.Popen(
            ["chromium", "--headless", "--no-sandbox", "--disable-gpu", "--remote-debugging-pipe",
             "--user-data-dir=" + self.profile, "--window-size=1000,900", "about:blank"],
            close_fds=False, preexec_fn=fds,
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        os.close(self.to_browser_r)
        os.close(self.from_browser_w)
        self.next_id = 0
        self.buffer = b""

    def call(self, method, params=None, session=None):
        self.next_id += 1
        message = {"id": self.next_id, "method": method, "params": params or {}}
        if session:
            message["sessionId"] = session
        os.write(self.to_browser_w, json.dumps(message).encode() + b"\0")
        while True:
            while b"\0" not in self.buffer:
                chunk = os.read(self.from_browser_r, 1 << 20)
                if not chunk:
                    raise RuntimeError("chromium closed its pipe")
                self.buffer += chunk
            line, self.buffer = self.buffer.split(b"\0", 1)
            answer = json.loads(line)
            if answer.get("id") == self.next_id:
                if "error" in answer:
                    raise RuntimeError(f"{method}: {answer['error']}")
                return answer["result"]

    def evaluate(self, session, expression):
        result = self.call("Runtime.evaluate", {"expression": expression, "awaitPromise": True,
                                                "returnByValue": True}, session)
        if "exceptionDetails" in result:
            raise RuntimeError(json.dumps(result["exceptionDetails"])[:500])
        return result["result"].get("value")

    def close(self):
        self.process.kill()
        self.process.wait()


def wait_for(browser, session, expression, seconds=60):
    start = time.time()
    while time.time() - start < seconds:
        if browser.evaluate(session, expression):
            return
        time.sleep(0.1)
    status = browser.evaluate(session, "(document.getElementById('status') || {}).textContent")
    raise RuntimeError(f"timed out waiting for {expression}; status: {status}")


def main():
    url, photo, screenshot = sys.argv[1:4]
    with open(photo, "rb") as f:
        data = base64.b64encode(f.read()).decode()
    kind = "image/png" if photo.endswith(".png") else "image/jpeg"
    browser = Browser()
    try:
        target = browser.call("Target.createTarget", {"url": url})["targetId"]
        session = browser.call("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
        wait_for(browser, session, "((document.getElementById('status') || {}).textContent || '').startsWith('Ready')")
        browser.evaluate(session, f"""(async () => {{
            const bytes = Uint8Array.from(atob("{data}"), (c) => c.charCodeAt(0));
            const file = new File([bytes], "{os.path.basename(photo)}", {{ type: "{kind}" }});
            const transfer = new DataTransfer();
            transfer.items.add(file);
            const drop = document.getElementById("drop");
            drop.dispatchEvent(new DragEvent("drop", {{ dataTransfer: transfer, bubbles: true, cancelable: true }}));
            return true;
        }})()""")
        wait_for(browser, session, "document.body.dataset.done === '1'")
        result = browser.evaluate(session, f"""(async () => {{
            const canvas = document.getElementById("canvas");
            const drawn = canvas.getContext("2d");
            const bytes = Uint8Array.from(atob("{data}"), (c) => c.charCodeAt(0));
            const photo = await createImageBitmap(new Blob([bytes], {{ type: "{kind}" }}));
            const plain = new OffscreenCanvas(photo.width, photo.height).getContext("2d");
            plain.drawImage(photo, 0, 0);
            const boxes = [...document.querySelectorAll("#boxes li")].map((li) => li.dataset.box.split(",").map(Number));
            const differs = boxes.map(([left, top, right, bottom]) => {{
                const x = left, y = Math.round((top + bottom) / 2);
                const a = drawn.getImageData(x, y, 1, 1).data, b = plain.getImageData(x, y, 1, 1).data;
                return Math.abs(a[0] - b[0]) + Math.abs(a[1] - b[1]) + Math.abs(a[2] - b[2]) > 30;
            }});
            return {{ status: document.getElementById("status").textContent, width: canvas.width,
                      height: canvas.height, boxes, drawn: differs }};
        }})()""")
        shot = browser.call("Page.captureScreenshot", {"format": "png"}, session)
        with open(screenshot, "wb") as f:
            f.write(base64.b64decode(shot["data"]))
        result["screenshot"] = screenshot
        print(json.dumps(result))
    finally:
        browser.close()


if __name__ == "__main__":
    main()
