/// The page `GET /` serves: pick a model, drop (or choose) a photo, and see the boxes the
/// server found drawn on it (a classifier's classes listed). It posts the photo to
/// `/v1/models/{name}/detect` (or `classify`) as `multipart/form-data` and draws each
/// detection's `box` (pixels) on a canvas over the photo; the boxes also stand in the
/// `#boxes` list (`data-box="left,top,right,bottom"`), which the page test reads.
enum Page {
    static let html = #"""
<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>darknet-swift serve</title>
<style>
body { font-family: sans-serif; margin: 2em; color: #222; }
#drop { border: 3px dashed #888; border-radius: 8px; padding: 2em; text-align: center; margin: 1em 0; }
#drop.over { border-color: #2a7; background: #efe; }
canvas { max-width: 100%; border: 1px solid #ccc; }
#status.error { color: #b00; }
label { margin-right: 1em; }
</style>
</head>
<body>
<h1>darknet-swift serve</h1>
<div>
<label>Model <select id="model"></select></label>
<label>Threshold <input id="thresh" type="number" min="0" max="1" step="0.05" placeholder="cfg default"></label>
<label>Token <input id="token" type="password" placeholder="if the server needs one"></label>
</div>
<div id="drop">Drop a JPEG or PNG here, or <input id="file" type="file" accept="image/jpeg,image/png"></div>
<p id="status">Loading the models…</p>
<canvas id="canvas" width="0" height="0"></canvas>
<ol id="boxes"></ol>
<script>
"use strict";
const $ = (id) => document.getElementById(id);
const kinds = {};

function headers() {
  const token = $("token").value;
  return token ? { "Authorization": "Bearer " + token } : {};
}

function say(text, error) {
  $("status").textContent = text;
  $("status").className = error ? "error" : "";
}

async function loadModels() {
  const answer = await fetch("/v2/models", { headers: headers() });
  if (!answer.ok) { say("Could not list the models: HTTP " + answer.status, true); return; }
  const list = (await answer.json()).models;
  for (const name of list) {
    const meta = await fetch("/v2/models/" + encodeURIComponent(name), { headers: headers() });
    kinds[name] = meta.ok ? (await meta.json()).parameters.kind : "detector";
    const option = document.createElement("option");
    option.value = name;
    option.textContent = name + " (" + kinds[name] + ")";
    $("model").appendChild(option);
  }
  say(list.length ? "Ready: drop a photo." : "The server has no models.", !list.length);
}

function colour(index) {
  const hue = (index * 67) % 360;
  return "hsl(" + hue + ", 90%, 45%)";
}

async function send(file) {
  const name = $("model").value;
  const kind = kinds[name] || "detector";
  const form = new FormData();
  form.append("image", file, file.name);
  let url = "/v1/models/" + encodeURIComponent(name) + "/" + (kind === "classifier" ? "classify" : "detect");
  const thresh = $("thresh").value;
  if (thresh !== "" && kind !== "classifier") url += "?thresh=" + encodeURIComponent(thresh);
  say("Sending " + file.name + "…");
  const answer = await fetch(url, { method: "POST", body: form, headers: headers() });
  const result = await answer.json();
  if (!answer.ok) { say(result.code + ": " + result.error, true); return; }
  const photo = await createImageBitmap(file);
  const canvas = $("canvas");
  canvas.width = photo.width;
  canvas.height = photo.height;
  const context = canvas.getContext("2d");
  context.drawImage(photo, 0, 0);
  const list = $("boxes");
  list.innerHTML = "";
  if (kind === "classifier") {
    for (const entry of result.classes) {
      const item = document.createElement("li");
      item.textContent = entry.label + " " + (entry.confidence * 100).toFixed(1) + "%";
      list.appendChild(item);
    }
    say(file.name + ": " + result.classes.length + " classes");
    return;
  }
  const width = Math.max(2, Math.round(photo.height * 0.006));
  context.lineWidth = width;
  context.font = Math.max(12, width * 6) + "px sans-serif";
  for (const d of result.detections) {
    const b = d.box;
    context.strokeStyle = colour(d.classId);
    context.fillStyle = colour(d.classId);
    context.strokeRect(b.left, b.top, b.right - b.left, b.bottom - b.top);
    context.fillText(d.name + " " + Math.round(d.confidence * 100) + "%", b.left + width, b.top + width * 7);
    const item = document.createElement("li");
    item.dataset.box = [b.left, b.top, b.right, b.bottom].join(",");
    item.textContent = d.name + " " + Math.round(d.confidence * 100) + "% at " + item.dataset.box;
    list.appendChild(item);
  }
  say(file.name + ": " + result.detections.length + " detections");
  document.body.dataset.done = "1";
}

const drop = $("drop");
drop.addEventListener("dragover", (event) => { event.preventDefault(); drop.classList.add("over"); });
drop.addEventListener("dragleave", () => drop.classList.remove("over"));
drop.addEventListener("drop", (event) => {
  event.preventDefault();
  drop.classList.remove("over");
  if (event.dataTransfer.files.length) send(event.dataTransfer.files[0]).catch((e) => say(String(e), true));
});
$("file").addEventListener("change", () => {
  if ($("file").files.length) send($("file").files[0]).catch((e) => say(String(e), true));
});
loadModels().catch((e) => say(String(e), true));
</script>
</body>
</html>
"""#
}
