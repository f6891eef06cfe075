/*
 * ab-darknet-oracle: reference data for darknet-swift's tests from AlexeyAB's darknet
 * (libdarknet.so built from source, CPU only). This is our own code; it calls the library's
 * exported functions (include/darknet.h plus the few declared below).
 *
 * AlexeyAB's darknet is not packaged: clone and build it yourself, CPU only, with plain
 * IEEE float operations (make LIBSO=1 OPTS="-O2 -ffp-contract=off"), outside this repository.
 * Build this tool against it (tools/oracle/regen-ab-goldens does):
 *   gcc -O2 -ffp-contract=off -I$AB/include ab-darknet-oracle.c -L$AB -ldarknet \
 *       -Wl,-rpath,$AB -lm -o ab-darknet-oracle
 *
 * Modes:
 *   detect CFG WEIGHTS IMAGE THRESH HIER NMS OUT.json [LETTERBOX] [DUMPN]
 *       AlexeyAB's test_detector (src/detector.c) step by step:
 *         parse_network_cfg_custom(cfg, 1, 1); load_weights; if (net.letter_box) letter = 1;
 *         fuse_conv_batchnorm; calculate_binary_weights;
 *         load_image(path, 0, 0, net.c); letterbox_image or resize_image to net.w x net.h;
 *         l = the last YOLO / GAUSSIAN_YOLO / REGION layer;
 *         network_predict; get_network_boxes(&net, im.w, im.h, thresh, hier, 0, 1, &n, letter);
 *         DEFAULT_NMS: do_nms_sort, else diounms_sort(.., l.nms_kind, l.beta_nms).
 *       LETTERBOX: -1 (default) as the cfg says (no -letter_box flag), 0 resize, 1 letterbox.
 *       DUMPN: leading raw floats of every detection layer's output to write (default 16).
 *       Writes every detection after NMS (relative box, objectness, Gaussian uncertainty,
 *       class probabilities > 0) and the lines `-ext_output` prints.
 *   classify CFG WEIGHTS IMAGE TOP OUT.json
 *       AlexeyAB's predict_classifier (src/classifier.c): parse_network_cfg_custom(cfg, 1, 0),
 *       load_weights, fuse_conv_batchnorm, load_image_color, resize_min(im, net.w),
 *       crop_image at the centre to net.w x net.h, network_predict, with a class tree
 *       hierarchy_predictions of every class, top_k; writes the top indices and scores and
 *       every output.
 *   layers CFG WEIGHTS W H OUT.json [nofuse]
 *       Runs the synthetic input x[c][y][x] = ((c*7919 + y*613 + x*31) % 1000) / 999.0f at
 *       batch 1 (resize_network when W x H differs from the cfg) and writes each layer's
 *       output statistics, FNV-1a 64 of its bits and 64 evenly spaced samples ([region]'s
 *       flattened output in darknet's entry-plane layout).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdint.h>
#include <math.h>
#include <float.h>
#include "darknet.h"

/* tree.c (exported, not in darknet.h). */
void hierarchy_predictions(float *predictions, int n, tree *hier, int only_leaves);

/* exported by libdarknet.so but not declared in include/darknet.h */
network parse_network_cfg_custom(char *filename, int batch, int time_steps);
void load_weights(network *net, char *filename);
image load_image(char *filename, int w, int h, int c);
image load_image_color(char *filename, int w, int h);
image resize_min(image im, int min);
image crop_image(image im, int dx, int dy, int w, int h);
void top_k(float *a, int n, int k, int *index);
int resize_network(network *net, int w, int h);

static const char *layer_type_name(LAYER_TYPE t)
{
    static const char *names[] = {
        "CONVOLUTIONAL", "DECONVOLUTIONAL", "CONNECTED", "MAXPOOL", "LOCAL_AVGPOOL",
        "SOFTMAX", "DETECTION", "DROPOUT", "CROP", "ROUTE", "COST", "NORMALIZATION",
        "AVGPOOL", "LOCAL", "SHORTCUT", "SCALE_CHANNELS", "SAM", "ACTIVE", "RNN", "GRU",
        "LSTM", "CONV_LSTM", "HISTORY", "CRNN", "BATCHNORM", "NETWORK", "XNOR", "REGION",
        "YOLO", "GAUSSIAN_YOLO", "ISEG", "REORG", "REORG_OLD", "UPSAMPLE", "LOGXENT",
        "L2NORM", "EMPTY", "BLANK", "CONTRASTIVE", "IMPLICIT"
    };
    if ((int)t >= 0 && (int)t < (int)(sizeof(names) / sizeof(names[0]))) return names[t];
    return "UNKNOWN";
}

static const char *nms_kind_name(NMS_KIND k)
{
    switch (k) {
    case DEFAULT_NMS: return "DEFAULT_NMS";
    case GREEDY_NMS: return "GREEDY_NMS";
    case DIOU_NMS: return "DIOU_NMS";
    case CORNERS_NMS: return "CORNERS_NMS";
    }
    return "UNKNOWN";
}

/* FNV-1a 64 over the raw IEEE-754 bit patterns: exact-equality fingerprint */
static uint64_t fnv_floats(const float *x, size_t n)
{
    uint64_t h = 1469598103934665603ULL;
    size_t i;
    for (i = 0; i < n; ++i) {
        uint32_t u;
        memcpy(&u, &x[i], 4);
        int b;
        for (b = 0; b < 4; ++b) {
            h ^= (u >> (8 * b)) & 0xff;
            h *= 1099511628211ULL;
        }
    }
    return h;
}

typedef struct { size_t count; double sum, sumsq; float mn, mx; uint64_t hash; size_t nonfinite; } stats_t;

static stats_t compute_stats(const float *x, size_t n)
{
    stats_t s;
    size_t i;
    s.count = n; s.sum = 0; s.sumsq = 0; s.mn = FLT_MAX; s.mx = -FLT_MAX; s.nonfinite = 0;
    for (i = 0; i < n; ++i) {
        float v = x[i];
        if (!isfinite(v)) { s.nonfinite++; continue; }
        s.sum += v; s.sumsq += (double)v * v;
        if (v < s.mn) s.mn = v;
        if (v > s.mx) s.mx = v;
    }
    if (n == 0) { s.mn = 0; s.mx = 0; }
    s.hash = fnv_floats(x, n);
    return s;
}

static void print_float(FILE *f, float v)
{
    if (isnan(v)) fprintf(f, "\"nan\"");
    else if (isinf(v)) fprintf(f, v > 0 ? "\"inf\"" : "\"-inf\"");
    else fprintf(f, "%.9g", v);
}

static void print_stats(FILE *f, stats_t s)
{
    fprintf(f, "\"count\": %zu, \"sum\": %.17g, \"sumsq\": %.17g, \"min\": ", s.count, s.sum, s.sumsq);
    print_float(f, s.mn);
    fprintf(f, ", \"max\": ");
    print_float(f, s.mx);
    fprintf(f, ", \"nonfinite\": %zu, \"fnv1a64\": \"%016llx\"", s.nonfinite, (unsigned long long)s.hash);
}

/* ---- same comparator as src/image.c:compare_by_lefts (used for the -ext_output listing) */
typedef struct { detection det; int best_class; } dwc_t;
static int cmp_lefts(const void *pa, const void *pb)
{
    const dwc_t *a = (const dwc_t *)pa, *b = (const dwc_t *)pb;
    const float delta = (a->det.bbox.x - a->det.bbox.w / 2) - (b->det.bbox.x - b->det.bbox.w / 2);
    return delta < 0 ? -1 : delta > 0 ? 1 : 0;
}

static int mode_detect(int argc, char **argv)
{
    if (argc < 9) {
        fprintf(stderr, "usage: %s detect CFG WEIGHTS IMAGE THRESH HIER NMS OUT.json [LETTERBOX] [DUMPN]\n", argv[0]);
        return 2;
    }
    char *cfg = argv[2], *weights = argv[3], *imgpath = argv[4];
    float thresh = atof(argv[5]);
    float hier = atof(argv[6]);
    float nms = atof(argv[7]);
    char *outpath = argv[8];
    int letter_arg = argc > 9 ? atoi(argv[9]) : -1;
    int dumpn = argc > 10 ? atoi(argv[10]) : 16;

    /* --- test_detector: detector.c */
    network net = parse_network_cfg_custom(cfg, 1, 1);
    if (weights && strcmp(weights, "-") != 0) load_weights(&net, weights);
    int letter_box = 0;                      /* -letter_box CLI flag absent */
    if (net.letter_box) letter_box = 1;      /* if (net.letter_box) letter_box = 1; */
    if (letter_arg == 0) letter_box = 0;
    else if (letter_arg == 1) letter_box = 1;
    fuse_conv_batchnorm(net);
    calculate_binary_weights(net);
    srand(2222222);

    image im = load_image(imgpath, 0, 0, net.c);
    image sized;
    if (letter_box) sized = letterbox_image(im, net.w, net.h);
    else sized = resize_image(im, net.w, net.h);

    layer l = net.layers[net.n - 1];
    int k, det_layer_index = net.n - 1;
    for (k = 0; k < net.n; ++k) {
        layer lk = net.layers[k];
        if (lk.type == YOLO || lk.type == GAUSSIAN_YOLO || lk.type == REGION) {
            l = lk;
            det_layer_index = k;
        }
    }

    stats_t in_st = compute_stats(sized.data, (size_t)sized.w * sized.h * sized.c);
    network_predict(net, sized.data);

    int nboxes = 0;
    detection *dets = get_network_boxes(&net, im.w, im.h, thresh, hier, 0, 1, &nboxes, letter_box);
    int nboxes_before_nms = nboxes;
    if (nms) {
        if (l.nms_kind == DEFAULT_NMS) do_nms_sort(dets, nboxes, l.classes, nms);
        else diounms_sort(dets, nboxes, l.classes, nms, l.nms_kind, l.beta_nms);
    }

    FILE *f = fopen(outpath, "w");
    if (!f) { perror(outpath); return 1; }
    fprintf(f, "{\n  \"mode\": \"detect\",\n  \"cfg\": \"%s\",\n  \"image\": \"%s\",\n", cfg, imgpath);
    fprintf(f, "  \"image_w\": %d, \"image_h\": %d, \"image_c\": %d,\n", im.w, im.h, im.c);
    fprintf(f, "  \"net_w\": %d, \"net_h\": %d, \"net_c\": %d, \"net_letter_box\": %d,\n", net.w, net.h, net.c, net.letter_box);
    fprintf(f, "  \"letter\": %d,\n", letter_box);
    fprintf(f, "  \"thresh\": %.9g, \"hier\": %.9g, \"nms\": %.9g,\n", thresh, hier, nms);
    fprintf(f, "  \"nms_layer_index\": %d, \"nms_layer_type\": \"%s\", \"nms_kind\": \"%s\", \"nms_kind_id\": %d, \"beta_nms\": %.9g, \"classes\": %d,\n",
            det_layer_index, layer_type_name(l.type), nms_kind_name(l.nms_kind), (int)l.nms_kind, l.beta_nms, l.classes);
    fprintf(f, "  \"input\": {");
    print_stats(f, in_st);
    fprintf(f, ", \"first\": [");
    for (k = 0; k < 8 && k < sized.w * sized.h * sized.c; ++k) { if (k) fprintf(f, ", "); print_float(f, sized.data[k]); }
    fprintf(f, "]},\n");

    /* raw outputs of every detection layer */
    fprintf(f, "  \"det_layers\": [");
    int first = 1;
    for (k = 0; k < net.n; ++k) {
        layer lk = net.layers[k];
        if (!(lk.type == YOLO || lk.type == GAUSSIAN_YOLO || lk.type == REGION || lk.type == DETECTION)) continue;
        fprintf(f, "%s\n    {\"index\": %d, \"type\": \"%s\", \"w\": %d, \"h\": %d, \"n\": %d, \"total\": %d, \"classes\": %d, \"outputs\": %d,",
                first ? "" : ",", k, layer_type_name(lk.type), lk.w, lk.h, lk.n, lk.total, lk.classes, lk.outputs);
        first = 0;
        fprintf(f, " \"new_coords\": %d, \"scale_x_y\": %.9g, \"nms_kind\": \"%s\", \"beta_nms\": %.9g,", lk.new_coords, lk.scale_x_y,
                nms_kind_name(lk.nms_kind), lk.beta_nms);
        if (lk.type == GAUSSIAN_YOLO) fprintf(f, " \"yolo_point\": %d,", (int)lk.yolo_point);
        fprintf(f, " \"mask\": [");
        int m;
        if (lk.mask) for (m = 0; m < lk.n; ++m) fprintf(f, "%s%d", m ? ", " : "", lk.mask[m]);
        fprintf(f, "], \"biases\": [");
        if (lk.biases && (lk.type == YOLO || lk.type == GAUSSIAN_YOLO || lk.type == REGION)) {
            int nb = (lk.type == REGION) ? lk.n * 2 : lk.total * 2;
            for (m = 0; m < nb; ++m) { if (m) fprintf(f, ", "); print_float(f, lk.biases[m]); }
        }
        fprintf(f, "],\n     \"raw\": {");
        stats_t st = compute_stats(lk.output, (size_t)lk.outputs * lk.batch);
        print_stats(f, st);
        fprintf(f, ", \"first\": [");
        for (m = 0; m < dumpn && m < lk.outputs; ++m) { if (m) fprintf(f, ", "); print_float(f, lk.output[m]); }
        fprintf(f, "]}}");
    }
    fprintf(f, "\n  ],\n");

    fprintf(f, "  \"nboxes\": %d,\n", nboxes_before_nms);
    fprintf(f, "  \"detections\": [");
    int i, j;
    for (i = 0; i < nboxes; ++i) {
        detection d = dets[i];
        fprintf(f, "%s\n    {\"i\": %d, \"x\": ", i ? "," : "", i);
        print_float(f, d.bbox.x); fprintf(f, ", \"y\": "); print_float(f, d.bbox.y);
        fprintf(f, ", \"w\": "); print_float(f, d.bbox.w); fprintf(f, ", \"h\": "); print_float(f, d.bbox.h);
        fprintf(f, ", \"objectness\": "); print_float(f, d.objectness);
        if (d.uc) {
            fprintf(f, ", \"uc\": [");
            for (j = 0; j < 4; ++j) { if (j) fprintf(f, ", "); print_float(f, d.uc[j]); }
            fprintf(f, "]");
        }
        fprintf(f, ", \"prob\": {");
        int fp = 1;
        for (j = 0; j < d.classes; ++j) {
            if (d.prob[j] > 0) {
                fprintf(f, "%s\"%d\": ", fp ? "" : ", ", j);
                print_float(f, d.prob[j]);
                fp = 0;
            }
        }
        fprintf(f, "}}");
    }
    fprintf(f, "\n  ],\n");

    /* the listing draw_detections_v3 prints (names assumed != "dont_show") */
    dwc_t *sel = (dwc_t *)calloc(nboxes > 0 ? nboxes : 1, sizeof(dwc_t));
    int nsel = 0;
    for (i = 0; i < nboxes; ++i) {
        int best = -1;
        float bestp = thresh;
        for (j = 0; j < dets[i].classes; ++j) {
            if (dets[i].prob[j] > bestp) { best = j; bestp = dets[i].prob[j]; }
        }
        if (best >= 0) { sel[nsel].det = dets[i]; sel[nsel].best_class = best; nsel++; }
    }
    qsort(sel, nsel, sizeof(dwc_t), cmp_lefts);
    fprintf(f, "  \"printed\": [");
    int firstp = 1;
    for (i = 0; i < nsel; ++i) {
        box b = sel[i].det.bbox;
        for (j = -1; j < l.classes; ++j) {
            int cls;
            if (j == -1) cls = sel[i].best_class;
            else { if (!(sel[i].det.prob[j] > thresh && j != sel[i].best_class)) continue; cls = j; }
            fprintf(f, "%s\n    {\"class\": %d, \"pct\": \"%.0f\", \"left_x\": %.0f, \"top_y\": %.0f, \"width\": %.0f, \"height\": %.0f}",
                    firstp ? "" : ",", cls, sel[i].det.prob[cls] * 100,
                    round((b.x - b.w / 2) * im.w), round((b.y - b.h / 2) * im.h), round(b.w * im.w), round(b.h * im.h));
            firstp = 0;
        }
    }
    fprintf(f, "\n  ]\n}\n");
    fclose(f);
    free(sel);

    /* No free_network: [empty] and [silence] alias the previous layer's output, which
     * AlexeyAB's free_network then frees twice. The process ends here anyway. */
    free_detections(dets, nboxes);
    free_image(im);
    free_image(sized);
    return 0;
}

static int mode_layers(int argc, char **argv)
{
    if (argc < 7) {
        fprintf(stderr, "usage: %s layers CFG WEIGHTS W H OUT.json [nofuse]\n", argv[0]);
        return 2;
    }
    char *cfg = argv[2], *weights = argv[3];
    int W = atoi(argv[4]), H = atoi(argv[5]);
    char *outpath = argv[6];
    int nofuse = argc > 7 && strcmp(argv[7], "nofuse") == 0;

    network net = parse_network_cfg_custom(cfg, 1, 1);
    if (weights && strcmp(weights, "-") != 0) load_weights(&net, weights);
    if (!nofuse) fuse_conv_batchnorm(net);
    calculate_binary_weights(net);
    int resized = 0;
    if (W > 0 && H > 0 && (W != net.w || H != net.h)) {
        resize_network(&net, W, H);
        resized = 1;
    }
    int C = net.c, w = net.w, h = net.h;
    size_t insize = (size_t)C * w * h;
    float *x = (float *)calloc(insize, sizeof(float));
    int c, yy, xx;
    for (c = 0; c < C; ++c)
        for (yy = 0; yy < h; ++yy)
            for (xx = 0; xx < w; ++xx)
                x[(size_t)c * w * h + (size_t)yy * w + xx] = ((c * 7919 + yy * 613 + xx * 31) % 1000) / 999.0f;

    network_predict(net, x);

    FILE *f = fopen(outpath, "w");
    if (!f) { perror(outpath); return 1; }
    fprintf(f, "{\n  \"mode\": \"layers\",\n  \"cfg\": \"%s\",\n  \"net_w\": %d, \"net_h\": %d, \"net_c\": %d, \"resized\": %d, \"fused\": %d,\n",
            cfg, w, h, C, resized, !nofuse);
    stats_t ist = compute_stats(x, insize);
    fprintf(f, "  \"input\": {");
    print_stats(f, ist);
    fprintf(f, "},\n  \"layers\": [");
    int i;
    for (i = 0; i < net.n; ++i) {
        layer l = net.layers[i];
        size_t n = (size_t)l.outputs * l.batch;
        fprintf(f, "%s\n    {\"index\": %d, \"type\": \"%s\", \"out_w\": %d, \"out_h\": %d, \"out_c\": %d, \"outputs\": %d, ",
                i ? "," : "", i, layer_type_name(l.type), l.out_w, l.out_h, l.out_c, l.outputs);
        if (!l.output || n == 0) {
            fprintf(f, "\"count\": 0, \"samples\": []}");
            continue;
        }
        float *o = l.output;
        if (l.type == REGION) {
            /* His CPU forward_region_layer leaves its output flattened (cell by cell, each
             * cell's anchors' entries together; flatten in blas.c). Sampled in darknet's
             * layout (entry planes per anchor, entry_index) so both engines' indices agree. */
            int wh = l.w * l.h, layers = l.n * (l.coords + l.classes + 1), b, c2, s2;
            o = (float *)calloc(n, sizeof(float));
            for (b = 0; b < l.batch; ++b)
                for (c2 = 0; c2 < layers; ++c2)
                    for (s2 = 0; s2 < wh; ++s2)
                        o[(size_t)b * layers * wh + (size_t)c2 * wh + s2] = l.output[(size_t)b * layers * wh + (size_t)s2 * layers + c2];
        }
        stats_t st = compute_stats(o, n);
        print_stats(f, st);
        fprintf(f, ", \"samples\": [");
        int k;
        int ns = n < 64 ? (int)n : 64;
        for (k = 0; k < ns; ++k) {
            size_t idx = (n <= 64) ? (size_t)k : (size_t)((double)k * (double)(n - 1) / 63.0);
            if (k) fprintf(f, ", ");
            fprintf(f, "[%zu, ", idx);
            print_float(f, o[idx]);
            fprintf(f, "]");
        }
        if (o != l.output) free(o);
        fprintf(f, "]}");
    }
    fprintf(f, "\n  ]\n}\n");
    fclose(f);
    free(x);
    return 0;  /* no free_network: see mode_detect */
}

static int mode_classify(int argc, char **argv)
{
    if (argc < 7) {
        fprintf(stderr, "usage: %s classify CFG WEIGHTS IMAGE TOP OUT.json\n", argv[0]);
        return 2;
    }
    char *cfg = argv[2], *weights = argv[3], *imgpath = argv[4], *outpath = argv[6];
    int top = atoi(argv[5]);
    network net = parse_network_cfg_custom(cfg, 1, 0);
    load_weights(&net, weights);
    set_batch_network(&net, 1);
    fuse_conv_batchnorm(net);
    calculate_binary_weights(net);
    image im = load_image_color(imgpath, 0, 0);
    image resized = resize_min(im, net.w);
    image cropped = crop_image(resized, (resized.w - net.w) / 2, (resized.h - net.h) / 2, net.w, net.h);
    float *predictions = network_predict(net, cropped.data);
    /* As his predict_classifier: path probabilities of every class (only_leaves 0). */
    if (net.hierarchy) hierarchy_predictions(predictions, net.outputs, net.hierarchy, 0);
    layer l = net.layers[net.n - 1];
    int *indexes = (int *)calloc(top, sizeof(int));
    top_k(predictions, l.outputs, top, indexes);
    FILE *f = fopen(outpath, "w");
    if (!f) { perror(outpath); return 1; }
    fprintf(f, "{\"mode\": \"classify\", \"image_w\": %d, \"image_h\": %d, \"resized_w\": %d, \"resized_h\": %d, \"outputs\": %d,\n",
            im.w, im.h, resized.w, resized.h, l.outputs);
    fprintf(f, " \"top\": [");
    int i;
    for (i = 0; i < top; ++i) {
        fprintf(f, "%s{\"index\": %d, \"score\": ", i ? ", " : "", indexes[i]);
        print_float(f, predictions[indexes[i]]);
        fprintf(f, "}");
    }
    fprintf(f, "],\n \"scores\": [");
    for (i = 0; i < l.outputs; ++i) { if (i) fprintf(f, ", "); print_float(f, predictions[i]); }
    fprintf(f, "]}\n");
    fclose(f);
    return 0;  /* no free_network: see mode_detect */
}

int main(int argc, char **argv)
{
    /* As darknet's own main on a CPU build: gpu_index is 0 until then, and a CPU-only path
     * reads it (binary_align_weights inverts the XNOR weight bits for channels that divide
     * by 32 when it is >= 0). */
    gpu_index = -1;
    if (argc < 2) {
        fprintf(stderr, "usage: %s detect|layers|classify ...\n", argv[0]);
        return 2;
    }
    if (strcmp(argv[1], "detect") == 0) return mode_detect(argc, argv);
    if (strcmp(argv[1], "layers") == 0) return mode_layers(argc, argv);
    if (strcmp(argv[1], "classify") == 0) return mode_classify(argc, argv);
    fprintf(stderr, "unknown mode %s\n", argv[1]);
    return 2;
}
