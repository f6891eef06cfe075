#!/usr/bin/env python3
"""Image oracle: runs Debian's libdarknet (built with OpenCV) through ctypes.

darknet.h: `typedef struct { int w, h, c; float *data; } image;` (planar CHW float).
Functions used: load_image_color(char*, int, int), letterbox_image(image, int, int),
resize_image(image, int, int), save_image_options(image, char*, IMTYPE, int), free_image(image).

Commands
  decode FILE OUT.f32                  load_image_color(FILE, 0, 0) -> raw little-endian float32 CHW
  letterbox FILE W H OUT.f32           letterbox_image(load_image_color(FILE), W, H)
  resize FILE W H OUT.f32              resize_image(load_image_color(FILE), W, H)
  photo-stats PHOTO...                 compact JSON statistics of decode + letterbox 416x416 (stdout):
                                       size, sum, CRC-32 of the float32 bytes, 64 sampled values
  fixtures DIR                         write the ImagingTests fixtures (PNG/JPEG inputs made here,
                                       darknet's outputs for them, manifest.json)

Each command that writes a .f32 prints {"w":..,"h":..,"c":..} on stdout.
Only the Python 3 standard library is used (ctypes, zlib, struct, json).
"""
import ctypes
import json
import os
import struct
import sys
import tempfile
import zlib

LIB_PATH = os.environ.get("DARKNET_LIB", "/usr/lib/darknet/libdarknet.so")


class IMAGE(ctypes.Structure):
    _fields_ = [("w", ctypes.c_int), ("h", ctypes.c_int), ("c", ctypes.c_int),
                ("data", ctypes.POINTER(ctypes.c_float))]


_lib = None


def lib():
    global _lib
    if _lib is None:
        l = ctypes.CDLL(LIB_PATH)
        l.load_image_color.argtypes = [ctypes.c_char_p, ctypes.c_int, ctypes.c_int]
        l.load_image_color.restype = IMAGE
        l.letterbox_image.argtypes = [IMAGE, ctypes.c_int, ctypes.c_int]
        l.letterbox_image.restype = IMAGE
        l.resize_image.argtypes = [IMAGE, ctypes.c_int, ctypes.c_int]
        l.resize_image.restype = IMAGE
        l.save_image_options.argtypes = [IMAGE, ctypes.c_char_p, ctypes.c_int, ctypes.c_int]
        l.save_image_options.restype = None
        l.make_image.argtypes = [ctypes.c_int, ctypes.c_int, ctypes.c_int]
        l.make_image.restype = IMAGE
        l.get_color.argtypes = [ctypes.c_int, ctypes.c_int, ctypes.c_int]
        l.get_color.restype = ctypes.c_float
        l.draw_box_width.argtypes = [IMAGE, ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_int,
                                     ctypes.c_float, ctypes.c_float, ctypes.c_float]
        l.draw_box_width.restype = None
        l.fill_image.argtypes = [IMAGE, ctypes.c_float]
        l.fill_image.restype = None
        l.free_image.argtypes = [IMAGE]
        l.free_image.restype = None
        _lib = l
    return _lib


def image_bytes(im):
    """Raw float32 bytes (native = little-endian on the machines we run on)."""
    n = im.w * im.h * im.c
    return ctypes.string_at(im.data, n * 4)


def floats(im):
    n = im.w * im.h * im.c
    return [im.data[i] for i in range(n)]


def load(path):
    if not os.path.isfile(path):
        sys.exit("no such file: %s" % path)
    # load_image_cv never fails loudly: on a bad file it appends to ./bad.list and returns a
    # 10x10 black image. Run it from a scratch directory so nothing lands in the repository.
    cwd = os.getcwd()
    path = os.path.abspath(path)
    with tempfile.TemporaryDirectory() as scratch:
        os.chdir(scratch)
        try:
            im = lib().load_image_color(path.encode(), 0, 0)
        finally:
            os.chdir(cwd)
    return im


def write_f32(im, out):
    with open(out, "wb") as f:
        f.write(image_bytes(im))
    return {"w": im.w, "h": im.h, "c": im.c}


# ---------------------------------------------------------------- PNG writer (stdlib only)

def _chunk(kind, data):
    body = kind + data
    return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body) & 0xFFFFFFFF)


def png_bytes(width, height, bit_depth, color_type, rows, extra=(), interlace=False):
    """rows: list of `bytes` scanlines (unfiltered, packed as the PNG spec says).
    extra: chunks (kind, data) inserted between IHDR and IDAT."""
    ihdr = struct.pack(">IIBBBBB", width, height, bit_depth, color_type, 0, 0, 1 if interlace else 0)
    if interlace:
        raw = _adam7(width, height, bit_depth, color_type, rows)
    else:
        raw = b"".join(b"\x00" + r for r in rows)
    out = b"\x89PNG\r\n\x1a\n" + _chunk(b"IHDR", ihdr)
    for kind, data in extra:
        out += _chunk(kind, data)
    out += _chunk(b"IDAT", zlib.compress(raw, 9)) + _chunk(b"IEND", b"")
    return out


def _adam7(width, height, bit_depth, color_type, rows):
    assert bit_depth >= 8
    channels = {0: 1, 2: 3, 3: 1, 4: 2, 6: 4}[color_type]
    bpp = channels * bit_depth // 8
    passes = [(0, 0, 8, 8), (4, 0, 8, 8), (0, 4, 4, 8), (2, 0, 4, 4), (0, 2, 2, 4), (1, 0, 2, 2), (0, 1, 1, 2)]
    raw = b""
    for x0, y0, dx, dy in passes:
        for y in range(y0, height, dy):
            line = b"".join(rows[y][x * bpp:(x + 1) * bpp] for x in range(x0, width, dx))
            if line:
                raw += b"\x00" + line
    return raw


def pattern(x, y, c):
    """Deterministic 8-bit test pattern with gradients and high-frequency detail."""
    return (x * 7 + y * 13 + c * 85 + (x * y) % 29 + (37 if (x + y + c) % 3 == 0 else 0)) % 256


def pattern16(x, y, c):
    v = pattern(x, y, c)
    return (v << 8) | ((x * 31 + y * 17 + c * 101) % 256)


def pattern_rows(w, h, channels, sixteen=False):
    rows = []
    for y in range(h):
        if sixteen:
            rows.append(b"".join(struct.pack(">H", pattern16(x, y, c)) for x in range(w) for c in range(channels)))
        else:
            rows.append(bytes(pattern(x, y, c) for x in range(w) for c in range(channels)))
    return rows


def alpha_rows(w, h, channels, sixteen=False):
    """Like pattern_rows but the last channel is a varying alpha (OpenCV drops it)."""
    rows = []
    for y in range(h):
        vals = []
        for x in range(w):
            for c in range(channels):
                if c == channels - 1:
                    a = (x * 11 + y * 5) % 256
                    vals.append(((a << 8) | a) if sixteen else a)
                else:
                    vals.append(pattern16(x, y, c) if sixteen else pattern(x, y, c))
        rows.append(b"".join(struct.pack(">H", v) for v in vals) if sixteen else bytes(vals))
    return rows


def exif_orientation_tiff(orientation):
    """A minimal big-endian TIFF header with IFD0 holding one Orientation (0x0112) SHORT."""
    return (b"MM\x00\x2a" + struct.pack(">I", 8) + struct.pack(">H", 1)
            + struct.pack(">HHIHH", 0x0112, 3, 1, orientation, 0) + struct.pack(">I", 0))


def jpeg_with_exif(jpeg, orientation):
    app1 = b"Exif\x00\x00" + exif_orientation_tiff(orientation)
    return jpeg[:2] + b"\xff\xe1" + struct.pack(">H", len(app1) + 2) + app1 + jpeg[2:]


def png_variants():
    """name -> PNG bytes. All made here from the deterministic pattern."""
    W, H = 37, 23
    v = {}
    v["rgb8"] = png_bytes(W, H, 8, 2, pattern_rows(W, H, 3))
    v["gray8"] = png_bytes(W, H, 8, 0, pattern_rows(W, H, 1))
    v["gray_alpha8"] = png_bytes(W, H, 8, 4, alpha_rows(W, H, 2))
    v["rgba8"] = png_bytes(W, H, 8, 6, alpha_rows(W, H, 4))
    v["rgb16"] = png_bytes(W, H, 16, 2, pattern_rows(W, H, 3, sixteen=True))
    v["gray16"] = png_bytes(W, H, 16, 0, pattern_rows(W, H, 1, sixteen=True))
    v["gray_alpha16"] = png_bytes(W, H, 16, 4, alpha_rows(W, H, 2, sixteen=True))
    v["rgba16"] = png_bytes(W, H, 16, 6, alpha_rows(W, H, 4, sixteen=True))
    # Palette: 8-bit indices into a 200-entry palette, with a tRNS chunk (OpenCV ignores it).
    plte = bytes(pattern(i, 3, c) for i in range(200) for c in range(3))
    trns = bytes((i * 3) % 256 for i in range(200))
    idx = [bytes((x * 5 + y * 3) % 200 for x in range(W)) for y in range(H)]
    v["palette8"] = png_bytes(W, H, 8, 3, idx, extra=[(b"PLTE", plte), (b"tRNS", trns)])
    # 4-bit palette and 1-bit gray: sub-byte packing.
    plte4 = bytes(pattern(i, 9, c) for i in range(16) for c in range(3))
    idx4 = []
    for y in range(H):
        nib = [(x + 2 * y) % 16 for x in range(W)] + [0]
        idx4.append(bytes((nib[i] << 4) | nib[i + 1] for i in range(0, W, 2)))
    v["palette4"] = png_bytes(W, H, 4, 3, idx4, extra=[(b"PLTE", plte4)])
    bits = []
    for y in range(H):
        b = [((x * y + x) >> 2) & 1 for x in range(W)] + [0] * 7
        bits.append(bytes(sum(b[i + k] << (7 - k) for k in range(8)) for i in range(0, W, 8)))
    v["gray1"] = png_bytes(W, H, 1, 0, bits)
    # gAMA 1.0 + cHRM: OpenCV applies no gamma; the decode must equal rgb8's.
    chrm = struct.pack(">8I", 31270, 32900, 64000, 33000, 30000, 60000, 15000, 6000)
    v["rgb8_gamma1"] = png_bytes(W, H, 8, 2, pattern_rows(W, H, 3),
                                 extra=[(b"gAMA", struct.pack(">I", 100000)), (b"cHRM", chrm)])
    # 16-bit with gAMA: must still be a plain high-byte reduction.
    v["rgb16_gamma"] = png_bytes(W, H, 16, 2, pattern_rows(W, H, 3, sixteen=True),
                                 extra=[(b"gAMA", struct.pack(">I", 45455))])
    v["rgb8_interlaced"] = png_bytes(W, H, 8, 2, pattern_rows(W, H, 3), interlace=True)
    # eXIf with orientation 6 (rotate 90 cw): what does imread do with it?
    v["rgb8_exif6"] = png_bytes(W, H, 8, 2, pattern_rows(W, H, 3),
                                extra=[(b"eXIf", exif_orientation_tiff(6))])
    # 1 pixel wide / 1 pixel high inputs for resize edge cases.
    v["rgb8_1x17"] = png_bytes(1, 17, 8, 2, pattern_rows(1, 17, 3))
    v["rgb8_19x1"] = png_bytes(19, 1, 8, 2, pattern_rows(19, 1, 3))
    return v


def make_jpeg(png_path, out_base, quality):
    """darknet's save_image_options(JPG) = stb_image_write; produces out_base + '.jpg'."""
    im = load(png_path)
    lib().save_image_options(im, out_base.encode(), 3, quality)
    lib().free_image(im)
    return out_base + ".jpg"


def turbojpeg_encode(rows, w, h, pixel_format, subsampling, quality):
    tj = ctypes.CDLL("libturbojpeg.so.0")
    tj.tjInitCompress.restype = ctypes.c_void_p
    tj.tjCompress2.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_int, ctypes.c_int, ctypes.c_int,
                               ctypes.c_int, ctypes.POINTER(ctypes.c_void_p), ctypes.POINTER(ctypes.c_ulong),
                               ctypes.c_int, ctypes.c_int, ctypes.c_int]
    tj.tjFree.argtypes = [ctypes.c_void_p]
    tj.tjDestroy.argtypes = [ctypes.c_void_p]
    handle = tj.tjInitCompress()
    out = ctypes.c_void_p()
    size = ctypes.c_ulong(0)
    rc = tj.tjCompress2(handle, b"".join(rows), w, 0, h, pixel_format, ctypes.byref(out), ctypes.byref(size),
                        subsampling, quality, 0)
    if rc != 0:
        sys.exit("tjCompress2 failed")
    data = ctypes.string_at(out, size.value)
    tj.tjFree(out)
    tj.tjDestroy(handle)
    return data


def fixtures(d):
    os.makedirs(d, exist_ok=True)
    manifest = {"decode": {}, "resize": [], "letterbox": []}
    for name, data in png_variants().items():
        with open(os.path.join(d, name + ".png"), "wb") as f:
            f.write(data)
    # JPEGs: quality 80 (stb subsamples 4:2:0) and 95 (4:4:4), plus an EXIF-rotated copy.
    make_jpeg(os.path.join(d, "rgb8.png"), os.path.join(d, "pattern_q80"), 80)
    make_jpeg(os.path.join(d, "rgb8.png"), os.path.join(d, "pattern_q95"), 95)
    with open(os.path.join(d, "pattern_q80.jpg"), "rb") as f:
        jpg = f.read()
    for o in range(2, 9):
        with open(os.path.join(d, "pattern_q80_exif%d.jpg" % o), "wb") as f:
            f.write(jpeg_with_exif(jpg, o))
    # Grayscale and CMYK (Adobe YCCK) JPEGs, encoded with libturbojpeg from the same pattern.
    with open(os.path.join(d, "gray_q90.jpg"), "wb") as f:
        f.write(turbojpeg_encode(pattern_rows(37, 23, 1), 37, 23, 6, 3, 90))      # TJPF_GRAY, TJSAMP_GRAY
    with open(os.path.join(d, "cmyk_q90.jpg"), "wb") as f:
        f.write(turbojpeg_encode(pattern_rows(37, 23, 4), 37, 23, 11, 0, 90))     # TJPF_CMYK, TJSAMP_444
    inputs = sorted(n for n in os.listdir(d) if n.endswith(".png") or n.endswith(".jpg"))
    for name in inputs:
        im = load(os.path.join(d, name))
        out = name.rsplit(".", 1)[0] + ".decode.f32"
        manifest["decode"][name] = dict(write_f32(im, os.path.join(d, out)), file=out)
        lib().free_image(im)
    jobs = [("rgb8.png", 61, 47), ("rgb8.png", 13, 9), ("rgb8.png", 1, 5), ("rgb8.png", 37, 23),
            ("rgb8.png", 100, 23), ("rgb8_1x17.png", 5, 9), ("rgb8_19x1.png", 7, 3),
            ("pattern_q80.jpg", 29, 31)]
    for src, w, h in jobs:
        im = load(os.path.join(d, src))
        r = lib().resize_image(im, w, h)
        out = "%s.resize_%dx%d.f32" % (src.rsplit(".", 1)[0], w, h)
        manifest["resize"].append(dict(write_f32(r, os.path.join(d, out)), input=src, file=out))
        lib().free_image(r)
        lib().free_image(im)
    lb_jobs = [("rgb8.png", 64, 48), ("rgb8.png", 48, 64), ("rgb8.png", 41, 41), ("rgb8.png", 20, 30),
               ("rgb8_1x17.png", 16, 16), ("pattern_q80.jpg", 50, 50)]
    for src, w, h in lb_jobs:
        im = load(os.path.join(d, src))
        r = lib().letterbox_image(im, w, h)
        out = "%s.letterbox_%dx%d.f32" % (src.rsplit(".", 1)[0], w, h)
        manifest["letterbox"].append(dict(write_f32(r, os.path.join(d, out)), input=src, file=out))
        lib().free_image(r)
        lib().free_image(im)
    # draw_box_width on a 0.5-filled 23x17 canvas, boxes partly outside the image.
    canvas = lib().make_image(23, 17, 3)
    lib().fill_image(canvas, 0.5)
    boxes = [[2, 3, 10, 12, 2, 1.0, 0.0, 0.25], [-5, -4, 6, 5, 3, 0.0, 1.0, 0.0],
             [15, 10, 40, 30, 1, 0.2, 0.4, 0.6], [18, 1, 16, 8, 2, 0.9, 0.8, 0.7]]
    for b in boxes:
        lib().draw_box_width(canvas, *b)
    manifest["draw_boxes"] = dict(write_f32(canvas, os.path.join(d, "draw_boxes.f32")), file="draw_boxes.f32",
                                  fill=0.5, boxes=boxes)
    lib().free_image(canvas)
    # draw_detections' class colours: offset = class*123457 % classes; r,g,b = get_color(2|1|0, offset, classes).
    colors = {}
    for classes in (1, 20, 80, 9418):
        ids = list(range(classes)) if classes <= 80 else [0, 1, 2, 17, 4095, 9417]
        colors[str(classes)] = {str(i): [lib().get_color(c, i * 123457 % classes, classes) for c in (2, 1, 0)]
                                for i in ids}
    manifest["class_colors"] = colors
    with open(os.path.join(d, "manifest.json"), "w") as f:
        json.dump(manifest, f, indent=1, sort_keys=True)
        f.write("\n")


def sample_indices(n, count=64):
    """Fixed, spread-out sample positions (a multiplicative walk, deterministic)."""
    return sorted({(i * 2654435761) % n for i in range(count)})


def photo_stats(paths):
    out = {}
    for p in paths:
        im = load(p)
        vals = floats(im)
        entry = {"w": im.w, "h": im.h, "c": im.c,
                 "sum": sum(vals), "sample": {str(i): vals[i] for i in sample_indices(len(vals))}}
        # The 8-bit bytes hash makes any single-pixel difference visible.
        q = bytes(int(round(v * 255)) for v in vals)
        entry["crc32_u8"] = zlib.crc32(q) & 0xFFFFFFFF
        entry["crc32_f32"] = zlib.crc32(image_bytes(im)) & 0xFFFFFFFF
        lb = lib().letterbox_image(im, 416, 416)
        lvals = floats(lb)
        entry["letterbox416"] = {"sum": sum(lvals), "crc32_f32": zlib.crc32(image_bytes(lb)) & 0xFFFFFFFF,
                                 "sample": {str(i): lvals[i] for i in sample_indices(len(lvals))}}
        lib().free_image(lb)
        lib().free_image(im)
        out[os.path.basename(p)] = entry
    json.dump(out, sys.stdout, indent=1, sort_keys=True)
    sys.stdout.write("\n")


def main(argv):
    if len(argv) < 2:
        sys.exit(__doc__)
    cmd = argv[1]
    if cmd == "decode" and len(argv) == 4:
        im = load(argv[2]); print(json.dumps(write_f32(im, argv[3])))
    elif cmd in ("letterbox", "resize") and len(argv) == 6:
        im = load(argv[2])
        fn = lib().letterbox_image if cmd == "letterbox" else lib().resize_image
        r = fn(im, int(argv[3]), int(argv[4]))
        print(json.dumps(write_f32(r, argv[5])))
    elif cmd == "photo-stats" and len(argv) >= 3:
        photo_stats(argv[2:])
    elif cmd == "fixtures" and len(argv) == 3:
        fixtures(argv[2])
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main(sys.argv)
