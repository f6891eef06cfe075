/*
 * darknet-oracle: produces reference data for darknet-swift's tests by calling
 * the Debian build of darknet (libdarknet.so) through its public header
 * darknet.h. This is our own code; it only uses the library's public API.
 *
 * Build (tools/regen-goldens does this):
 *   gcc -O2 -ffp-contract=off -I/usr/lib/darknet/include darknet-oracle.c \
 *       -L/usr/lib/darknet -ldarknet -Wl,-rpath,/usr/lib/darknet -lm -o darknet-oracle
 *
 * Modes:
 *   synth-weights CFG OUT.weights SEED [W H]
 *       (W H: input size, which fixes [connected] weight counts; default the cfg's)
 *       Writes deterministic synthetic weights (spec v1, see
 *       Tests/DarknetTests/Fixtures/README.md), reloads them through darknet's
 *       own loader to prove the layout, prints a JSON line with the FNV-1a 64
 *       checksum of the file.
 *   layers CFG WEIGHTS W H OUT.json [SAMPLES [META]]
 *       Runs the network at batch 1, input WxH, on the synthetic input
 *       x[c][y][x] = ((c*7919 + y*613 + x*31) % 1000) / 999.0f and writes
 *       per-layer statistics and samples. SAMPLES (default 64) is the size of
 *       each of the two sample sets.
 *   detect CFG WEIGHTS IMAGE THRESH HIER NMS W H OUT.json [NAMES [META]]
 *       darknet's test_detector path; W H = 0 0 keeps the cfg's size.
 *   yolo1 CFG WEIGHTS IMAGE THRESH HIER NMS W H OUT.json [NAMES [META]]
 *       darknet's YOLOv1 path, `darknet yolo test` (examples/yolo.c test_yolo): the image
 *       resized (not letterboxed), get_network_boxes(net, 1, 1, ...) (relative boxes),
 *       do_nms_sort over side*side*num boxes. Same output as detect.
 *   classify CFG WEIGHTS IMAGE TOP W H OUT.json [META]
 *       darknet's predict_classifier path (letterbox, network_predict, with a class tree
 *       hierarchy_predictions of the leaves, top_k).
 *
 *   A [region] with a class tree (tree=) runs as darknet's GPU forward does, not as its CPU
 *   forward (see region_tree_as_gpu).
 *
 *   META, when given, is a list of JSON members ("key":value,...) copied
 *   verbatim to the top of the output object (the regen script records the
 *   command, weights checksum and so on there).
 */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "darknet.h"

#define SPEC_VERSION 1

static void die(const char *fmt, const char *arg)
{
    fprintf(stderr, "darknet-oracle: ");
    fprintf(stderr, fmt, arg);
    fprintf(stderr, "\n");
    exit(1);
}

/* ---------- temporary cfg with batch=1 and an optional input size ---------- */

/* Copies CFG to a temporary file, replacing batch, subdivisions (and width,
 * height when w > 0) inside the [net]/[network] section. darknet strips all
 * whitespace from option lines, so keys are compared without whitespace. */
static char *write_temp_cfg(const char *cfg, int w, int h)
{
    FILE *in = fopen(cfg, "r");
    if (!in) die("cannot open cfg %s", cfg);
    static char path[] = "/tmp/darknet-oracle-cfg-XXXXXX";
    char *out_path = strdup(path);
    int fd = mkstemp(out_path);
    if (fd < 0) die("cannot create temporary cfg for %s", cfg);
    FILE *out = fdopen(fd, "w");
    char line[4096];
    int in_net = 0, saw_net = 0;
    while (fgets(line, sizeof line, in)) {
        char key[4096];
        int k = 0;
        for (char *p = line; *p && *p != '='; ++p)
            if (*p != ' ' && *p != '\t' && *p != '\r' && *p != '\n') key[k++] = *p;
        key[k] = 0;
        if (key[0] == '[') {
            in_net = (strcmp(key, "[net]") == 0 || strcmp(key, "[network]") == 0);
            fputs(line, out);
            if (in_net) {
                saw_net = 1;
                fprintf(out, "batch=1\nsubdivisions=1\n");
                if (w > 0 && h > 0) fprintf(out, "width=%d\nheight=%d\n", w, h);
            }
            continue;
        }
        if (in_net && strchr(line, '=')) {
            if (strcmp(key, "batch") == 0 || strcmp(key, "subdivisions") == 0) continue;
            if (w > 0 && h > 0 && (strcmp(key, "width") == 0 || strcmp(key, "height") == 0)) continue;
        }
        fputs(line, out);
    }
    fclose(in);
    fclose(out);
    if (!saw_net) die("no [net] section in %s", cfg);
    return out_path;
}

static network *load_net(const char *cfg, const char *weights, int w, int h)
{
    char *tmp = write_temp_cfg(cfg, w, h);
    network *net = load_network(tmp, (char *)weights, 0);
    unlink(tmp);
    free(tmp);
    if (!net) die("load_network failed for %s", cfg);
    set_batch_network(net, 1);
    return net;
}

static const char *type_name(LAYER_TYPE t)
{
    switch (t) {
    case CONVOLUTIONAL: return "convolutional";
    case MAXPOOL: return "maxpool";
    case UPSAMPLE: return "upsample";
    case ROUTE: return "route";
    case SHORTCUT: return "shortcut";
    case YOLO: return "yolo";
    case AVGPOOL: return "avgpool";
    case CONNECTED: return "connected";
    case SOFTMAX: return "softmax";
    case DROPOUT: return "dropout";
    case BATCHNORM: return "batchnorm";
    case COST: return "cost";
    case REORG: return "reorg";
    case REGION: return "region";
    case CROP: return "crop";
    case LOCAL: return "local";
    case DETECTION: return "detection";
    default: return NULL;
    }
}

static void require_supported(network *net, const char *cfg)
{
    for (int i = 0; i < net->n; ++i) {
        if (!type_name(net->layers[i].type)) {
            fprintf(stderr, "darknet-oracle: %s layer %d has darknet LAYER_TYPE %d, which this "
                    "oracle does not support (only convolutional, maxpool, upsample, route, "
                    "shortcut, yolo, avgpool, connected, softmax, dropout, batchnorm, cost, reorg, region, crop, local, detection)\n", cfg, i, (int)net->layers[i].type);
            exit(1);
        }
    }
}

/* darknet's loader reads short files silently; refuse weights whose size is
 * not exactly what the cfg needs (header of 16 or 20 bytes as darknet decides
 * from major/minor, then biases [+ scales, means, variances] + weights). */
static void require_matching_weights(network *net, const char *weights)
{
    FILE *f = fopen(weights, "rb");
    if (!f) die("cannot read weights %s", weights);
    int32_t header[3] = {0, 0, 0};
    if (fread(header, sizeof(int32_t), 3, f) != 3) die("weights file %s is too short", weights);
    fseek(f, 0, SEEK_END);
    long size = ftell(f);
    fclose(f);
    int major = header[0], minor = header[1];
    long expected = 12 + (((major * 10 + minor) >= 2 && major < 1000 && minor < 1000) ? 8 : 4);
    for (int i = 0; i < net->n; ++i) {
        layer *l = &net->layers[i];
        if (l->type == CONVOLUTIONAL)
            expected += 4L * (l->n * (l->batch_normalize ? 4 : 1) + (long)l->nweights);
        if (l->type == CONNECTED)
            expected += 4L * (l->outputs * (l->batch_normalize ? 4 : 1) + (long)l->inputs * l->outputs);
        if (l->type == BATCHNORM) expected += 4L * 3 * l->c;
        if (l->type == LOCAL)
            expected += 4L * (l->outputs + (long)l->out_w * l->out_h * l->n * l->size * l->size * l->c);
    }
    if (size != expected) {
        fprintf(stderr, "darknet-oracle: %s has %ld bytes but the cfg needs %ld\n", weights, size, expected);
        exit(1);
    }
}

/* ---------- synthetic weights, spec v1 ---------- */

static uint64_t rng_state;

static uint64_t splitmix_next(void)
{
    rng_state += 0x9E3779B97F4A7C15ULL;
    uint64_t z = rng_state;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

static float uniform(float lo, float hi)
{
    float u = (float)(splitmix_next() >> 40) * (1.0f / 16777216.0f);
    return lo + (hi - lo) * u;
}

static uint64_t fnv1a_file(const char *path, uint64_t *size_out)
{
    FILE *f = fopen(path, "rb");
    if (!f) die("cannot reopen %s", path);
    uint64_t hash = 0xcbf29ce484222325ULL, size = 0;
    unsigned char buf[1 << 16];
    size_t got;
    while ((got = fread(buf, 1, sizeof buf, f)) > 0) {
        for (size_t i = 0; i < got; ++i) {
            hash ^= buf[i];
            hash *= 0x100000001b3ULL;
        }
        size += got;
    }
    fclose(f);
    *size_out = size;
    return hash;
}

/* Fills the four (or two) arrays of one convolutional layer in file order. */
static void synth_conv(const layer *l, int feeds_shortcut, float *biases, float *scales,
                       float *mean, float *var, float *weights)
{
    int n = l->n;
    int fan_in = (l->c / l->groups) * l->size * l->size;
    for (int i = 0; i < n; ++i) biases[i] = uniform(-0.1f, 0.1f);
    if (l->batch_normalize) {
        for (int i = 0; i < n; ++i) scales[i] = uniform(0.8f, 1.2f) * (feeds_shortcut ? 0.25f : 1.0f);
        for (int i = 0; i < n; ++i) mean[i] = uniform(-0.1f, 0.1f);
        for (int i = 0; i < n; ++i) var[i] = uniform(0.8f, 1.2f);
    }
    float a = sqrtf(6.0f / (float)fan_in);
    long nw = (long)n * fan_in;
    for (long i = 0; i < nw; ++i) weights[i] = uniform(-a, a);
}

/* [connected] in file order: biases, weights (outputs x inputs), then if
 * batch_normalize scales, rolling mean, rolling variance. */
static void synth_connected(const layer *l, float *biases, float *weights, float *scales,
                            float *mean, float *var)
{
    int n = l->outputs;
    for (int i = 0; i < n; ++i) biases[i] = uniform(-0.1f, 0.1f);
    float a = sqrtf(6.0f / (float)l->inputs);
    long nw = (long)n * l->inputs;
    for (long i = 0; i < nw; ++i) weights[i] = uniform(-a, a);
    if (l->batch_normalize) {
        for (int i = 0; i < n; ++i) scales[i] = uniform(0.8f, 1.2f);
        for (int i = 0; i < n; ++i) mean[i] = uniform(-0.1f, 0.1f);
        for (int i = 0; i < n; ++i) var[i] = uniform(0.8f, 1.2f);
    }
}

/* [local] in file order (load_weights): biases (one per output), weights
 * (locations x filters x size*size*c), U(-a, a) with a = sqrt(6 / (size*size*c)). */
static long local_weight_count(const layer *l)
{
    return (long)l->out_w * l->out_h * l->n * l->size * l->size * l->c;
}

static void synth_local(const layer *l, float *biases, float *weights)
{
    for (int i = 0; i < l->outputs; ++i) biases[i] = uniform(-0.1f, 0.1f);
    float a = sqrtf(6.0f / (float)(l->size * l->size * l->c));
    long nw = local_weight_count(l);
    for (long i = 0; i < nw; ++i) weights[i] = uniform(-a, a);
}

/* [batchnorm]: scales, rolling mean, rolling variance (c each). */
static void synth_batchnorm(const layer *l, float *scales, float *mean, float *var)
{
    for (int i = 0; i < l->c; ++i) scales[i] = uniform(0.8f, 1.2f);
    for (int i = 0; i < l->c; ++i) mean[i] = uniform(-0.1f, 0.1f);
    for (int i = 0; i < l->c; ++i) var[i] = uniform(0.8f, 1.2f);
}

static int same_floats(const float *a, const float *b, long n)
{
    return memcmp(a, b, (size_t)n * sizeof(float)) == 0;
}

static int mode_synth_weights(int argc, char **argv)
{
    if (argc != 5 && argc != 7) die("%s", "usage: synth-weights CFG OUT.weights SEED [W H]");
    int sw = argc == 7 ? atoi(argv[5]) : 0, sh = argc == 7 ? atoi(argv[6]) : 0;
    const char *cfg = argv[2], *out_path = argv[3];
    char *end;
    errno = 0;
    uint64_t seed = strtoull(argv[4], &end, 10);
    if (errno || *end) die("bad seed %s", argv[4]);

    network *net = load_net(cfg, NULL, sw, sh);
    require_supported(net, cfg);

    FILE *out = fopen(out_path, "wb");
    if (!out) die("cannot write %s", out_path);
    int32_t header[3] = {0, 2, 0};
    uint64_t seen = 0;
    fwrite(header, sizeof header, 1, out);
    fwrite(&seen, sizeof seen, 1, out);

    rng_state = seed;
    long floats = 0;
    int convs = 0;
    for (int i = 0; i < net->n; ++i) {
        layer *l = &net->layers[i];
        if (l->type == CONNECTED || l->type == BATCHNORM) {
            int n = l->type == CONNECTED ? l->outputs : l->c;
            long nw = l->type == CONNECTED ? (long)l->inputs * l->outputs : 0;
            float *b = malloc(sizeof(float) * n), *s = malloc(sizeof(float) * n);
            float *m = malloc(sizeof(float) * n), *v = malloc(sizeof(float) * n);
            float *w = malloc(sizeof(float) * (nw ? nw : 1));
            if (l->type == CONNECTED) {
                synth_connected(l, b, w, s, m, v);
                fwrite(b, sizeof(float), n, out);
                fwrite(w, sizeof(float), nw, out);
                floats += n + nw;
            }
            if (l->type == BATCHNORM || l->batch_normalize) {
                if (l->type == BATCHNORM) synth_batchnorm(l, s, m, v);
                fwrite(s, sizeof(float), n, out);
                fwrite(m, sizeof(float), n, out);
                fwrite(v, sizeof(float), n, out);
                floats += 3L * n;
            }
            free(b); free(s); free(m); free(v); free(w);
            continue;
        }
        if (l->type == LOCAL) {
            long nw = local_weight_count(l);
            float *b = malloc(sizeof(float) * l->outputs), *w = malloc(sizeof(float) * nw);
            synth_local(l, b, w);
            fwrite(b, sizeof(float), l->outputs, out);
            fwrite(w, sizeof(float), nw, out);
            floats += l->outputs + nw;
            free(b); free(w);
            continue;
        }
        if (l->type != CONVOLUTIONAL) continue;
        int feeds = (i + 1 < net->n && net->layers[i + 1].type == SHORTCUT);
        long nw = (long)l->n * (l->c / l->groups) * l->size * l->size;
        if (nw != l->nweights) die("weight count mismatch in %s", cfg);
        float *b = malloc(sizeof(float) * l->n), *s = malloc(sizeof(float) * l->n);
        float *m = malloc(sizeof(float) * l->n), *v = malloc(sizeof(float) * l->n);
        float *w = malloc(sizeof(float) * nw);
        synth_conv(l, feeds, b, s, m, v, w);
        fwrite(b, sizeof(float), l->n, out);
        if (l->batch_normalize) {
            fwrite(s, sizeof(float), l->n, out);
            fwrite(m, sizeof(float), l->n, out);
            fwrite(v, sizeof(float), l->n, out);
        }
        fwrite(w, sizeof(float), nw, out);
        floats += l->n * (l->batch_normalize ? 4 : 1) + nw;
        ++convs;
        free(b); free(s); free(m); free(v); free(w);
    }
    if (fclose(out) != 0) die("write failed for %s", out_path);
    free_network(net);

    /* Self-check: darknet's own loader must read back exactly what we generated. */
    network *check = load_net(cfg, out_path, sw, sh);
    rng_state = seed;
    for (int i = 0; i < check->n; ++i) {
        layer *l = &check->layers[i];
        if (l->type == CONNECTED || l->type == BATCHNORM) {
            int n = l->type == CONNECTED ? l->outputs : l->c;
            long nw = l->type == CONNECTED ? (long)l->inputs * l->outputs : 0;
            float *b = malloc(sizeof(float) * n), *s = malloc(sizeof(float) * n);
            float *m = malloc(sizeof(float) * n), *v = malloc(sizeof(float) * n);
            float *w = malloc(sizeof(float) * (nw ? nw : 1));
            int ok = 1;
            if (l->type == CONNECTED) {
                synth_connected(l, b, w, s, m, v);
                ok = same_floats(b, l->biases, n) && same_floats(w, l->weights, nw);
            } else {
                synth_batchnorm(l, s, m, v);
            }
            if (l->type == BATCHNORM || l->batch_normalize)
                ok = ok && same_floats(s, l->scales, n) && same_floats(m, l->rolling_mean, n)
                     && same_floats(v, l->rolling_variance, n);
            if (!ok) {
                fprintf(stderr, "darknet-oracle: reload check failed at layer %d\n", i);
                exit(1);
            }
            free(b); free(s); free(m); free(v); free(w);
            continue;
        }
        if (l->type == LOCAL) {
            long nw = local_weight_count(l);
            float *b = malloc(sizeof(float) * l->outputs), *w = malloc(sizeof(float) * nw);
            synth_local(l, b, w);
            if (!same_floats(b, l->biases, l->outputs) || !same_floats(w, l->weights, nw)) {
                fprintf(stderr, "darknet-oracle: reload check failed at layer %d\n", i);
                exit(1);
            }
            free(b); free(w);
            continue;
        }
        if (l->type != CONVOLUTIONAL) continue;
        int feeds = (i + 1 < check->n && check->layers[i + 1].type == SHORTCUT);
        long nw = l->nweights;
        float *b = malloc(sizeof(float) * l->n), *s = malloc(sizeof(float) * l->n);
        float *m = malloc(sizeof(float) * l->n), *v = malloc(sizeof(float) * l->n);
        float *w = malloc(sizeof(float) * nw);
        synth_conv(l, feeds, b, s, m, v, w);
        int ok = same_floats(b, l->biases, l->n) && same_floats(w, l->weights, nw);
        if (l->batch_normalize)
            ok = ok && same_floats(s, l->scales, l->n) && same_floats(m, l->rolling_mean, l->n)
                 && same_floats(v, l->rolling_variance, l->n);
        if (!ok) {
            fprintf(stderr, "darknet-oracle: reload check failed at layer %d\n", i);
            exit(1);
        }
        free(b); free(s); free(m); free(v); free(w);
    }
    if (*check->seen != 0) die("%s", "reload check failed: seen != 0");
    free_network(check);

    uint64_t size;
    uint64_t hash = fnv1a_file(out_path, &size);
    if (size != 20 + 4 * (uint64_t)floats) die("unexpected size of %s", out_path);
    printf("{\"specVersion\":%d,\"seed\":%llu,\"convolutionalLayers\":%d,\"floats\":%ld,"
           "\"bytes\":%llu,\"fnv1a64\":\"%016llx\"}\n",
           SPEC_VERSION, (unsigned long long)seed, convs, floats,
           (unsigned long long)size, (unsigned long long)hash);
    return 0;
}

/* ---------- layers ---------- */

static float synthetic_pixel(int c, int y, int x)
{
    return (float)((c * 7919 + y * 613 + x * 31) % 1000) / 999.0f;
}

/* ---------- [region] with a class tree ---------- */
/* pjreddie's CPU forward_region_layer indexes the tree's groups wrongly (pjreddie/darknet
 * issue 143: it starts at element coords+1 of the whole output and steps n*w*h apart), while
 * his GPU forward (forward_region_layer_gpu: softmax_tree across each group of each cell's
 * class scores, temperature 1) and AlexeyAB's CPU forward run the softmax group by group,
 * cell by cell. The engine follows them; so do these goldens: after network_predict, each
 * such layer's output is recomputed from its input as the GPU path computes it, with
 * darknet's own activate_array and softmax. */
/* activation_layer.c / activations.c (exported, not in darknet.h). */
void activate_array(float *x, const int n, const ACTIVATION a);

static void region_tree_as_gpu(network *net)
{
    for (int i = 1; i < net->n; ++i) {
        layer *l = &net->layers[i];
        if (l->type != REGION || !l->softmax_tree) continue;
        const float *in = net->layers[i - 1].output;
        int wh = l->w * l->h, entries = l->coords + l->classes + 1;
        tree *t = l->softmax_tree;
        memcpy(l->output, in, sizeof(float) * l->outputs * l->batch);
        for (int b = 0; b < l->batch; ++b)
            for (int n = 0; n < l->n; ++n) {
                float *block = l->output + b * l->outputs + n * entries * wh;
                const float *raw = in + b * l->outputs + n * entries * wh;
                activate_array(block, 2 * wh, LOGISTIC);
                activate_array(block + l->coords * wh, wh, LOGISTIC);
                for (int g = 0; g < t->groups; ++g) {
                    int first = (l->coords + 1 + t->group_offset[g]) * wh;
                    for (int s = 0; s < wh; ++s)
                        softmax((float *)raw + first + s, t->group_size[g], 1, wh, block + first + s);
                }
            }
    }
}

static int mode_layers(int argc, char **argv)
{
    if (argc < 7 || argc > 9) die("%s", "usage: layers CFG WEIGHTS W H OUT.json [SAMPLES [META]]");
    const char *cfg = argv[2], *weights = argv[3], *out_path = argv[6];
    int w = atoi(argv[4]), h = atoi(argv[5]);
    int samples = argc >= 8 ? atoi(argv[7]) : 64;
    const char *meta = argc == 9 ? argv[8] : NULL;
    if (w <= 0 || h <= 0) die("%s", "W and H must be positive");
    if (samples < 2) die("%s", "SAMPLES must be at least 2");
    if (access(weights, R_OK) != 0) die("cannot read weights %s", weights);

    network *net = load_net(cfg, weights, w, h);
    require_supported(net, cfg);
    require_matching_weights(net, weights);
    if (net->w != w || net->h != h || net->c != 3) die("%s", "network input is not WxHx3");

    float *input = malloc(sizeof(float) * 3 * w * h);
    for (int c = 0; c < 3; ++c)
        for (int y = 0; y < h; ++y)
            for (int x = 0; x < w; ++x)
                input[(c * h + y) * w + x] = synthetic_pixel(c, y, x);
    network_predict(net, input);
    region_tree_as_gpu(net);

    FILE *out = fopen(out_path, "w");
    if (!out) die("cannot write %s", out_path);
    fprintf(out, "{");
    if (meta && meta[0]) fprintf(out, "%s,\n", meta);
    fprintf(out, "\"width\":%d,\"height\":%d,\"samplesPerSet\":%d,\"layers\":[\n", w, h, samples);
    int prev_c = 3, prev_h = h, prev_w = w;
    for (int i = 0; i < net->n; ++i) {
        layer *l = &net->layers[i];
        int oc = l->out_c, oh = l->out_h, ow = l->out_w;
        /* darknet leaves out_c/out_h/out_w at 0 for [softmax], [cost] and [detection]; their
         * outputs keep their input's shape, the previous layer's output. */
        if ((l->type == SOFTMAX || l->type == COST || l->type == DETECTION) && (long)oc * oh * ow != l->outputs) {
            oc = prev_c; oh = prev_h; ow = prev_w;
        }
        prev_c = oc; prev_h = oh; prev_w = ow;
        long count = (long)oc * oh * ow;
        if (count != l->outputs) die("%s", "layer output count mismatch");
        /* A [cost] layer computes nothing at inference (its buffer stays zero);
         * network_predict returns the layer before it (get_network_output), so
         * that is what we record for it. */
        const float *o = (l->type == COST && i > 0) ? net->layers[i - 1].output : l->output;
        double sum = 0;
        float mn = o[0], mx = o[0];
        int finite = 1;
        for (long k = 0; k < count; ++k) {
            sum += o[k];
            if (o[k] < mn) mn = o[k];
            if (o[k] > mx) mx = o[k];
            if (!isfinite(o[k])) finite = 0;
        }
        double mean = sum / (double)count, sq = 0;
        for (long k = 0; k < count; ++k) {
            double d = (double)o[k] - mean;
            sq += d * d;
        }
        double std = sqrt(sq / (double)count);
        if (!finite) {
            fprintf(stderr, "darknet-oracle: layer %d has non-finite outputs\n", i);
            exit(1);
        }
        fprintf(out, "{\"index\":%d,\"type\":\"%s\",\"out_c\":%d,\"out_h\":%d,\"out_w\":%d,"
                "\"count\":%ld,", i, type_name(l->type), oc, oh, ow, count);
        if (l->type == CONVOLUTIONAL)
            fprintf(out, "\"bflops\":%.9g,",
                    (2.0 * l->n * l->size * l->size * (l->c / l->groups) * l->out_h * l->out_w) / 1e9);
        fprintf(out, "\"mean\":%.9g,\"std\":%.9g,\"min\":%.9g,\"max\":%.9g,\"samples\":[",
                mean, std, mn, mx);
        for (int set = 0; set < 2; ++set) {
            for (int64_t k = 0; k < samples; ++k) {
                int64_t idx = set == 0 ? (k * (int64_t)(count - 1)) / (samples - 1)
                                       : (int64_t)(((uint64_t)k * 2654435761ULL) % (uint64_t)count);
                fprintf(out, "%s[%lld,%.9g]", (set || k) ? "," : "", (long long)idx, o[idx]);
            }
        }
        fprintf(out, "]}%s\n", i + 1 < net->n ? "," : "");
    }
    fprintf(out, "]}\n");
    if (fclose(out) != 0) die("write failed for %s", out_path);
    free(input);
    free_network(net);
    return 0;
}

/* ---------- detect ---------- */

static int mode_detect(int argc, char **argv)
{
    if (argc < 11 || argc > 13)
        die("%s", "usage: detect CFG WEIGHTS IMAGE THRESH HIER NMS W H OUT.json [NAMES [META]]");
    const char *cfg = argv[2], *weights = argv[3], *image_path = argv[4], *out_path = argv[10];
    float thresh = atof(argv[5]), hier = atof(argv[6]), nms = atof(argv[7]);
    int w = atoi(argv[8]), h = atoi(argv[9]);
    char **names = NULL;
    if (argc >= 12 && argv[11][0]) names = get_labels(argv[11]);
    const char *meta = argc == 13 ? argv[12] : NULL;
    if (access(weights, R_OK) != 0) die("cannot read weights %s", weights);
    if (access(image_path, R_OK) != 0) die("cannot read image %s", image_path);

    /* Same sequence as darknet's test_detector (examples/detector.c), or for yolo1 its
     * test_yolo (examples/yolo.c). */
    int yolo1 = strcmp(argv[1], "yolo1") == 0;
    network *net = load_net(cfg, weights, w, h);
    require_matching_weights(net, weights);
    srand(2222222);
    image im = load_image_color((char *)image_path, 0, 0);
    image sized = yolo1 ? resize_image(im, net->w, net->h) : letterbox_image(im, net->w, net->h);
    layer l = net->layers[net->n - 1];
    network_predict(net, sized.data);
    region_tree_as_gpu(net);
    int nboxes = 0;
    detection *dets = yolo1 ? get_network_boxes(net, 1, 1, thresh, 0, 0, 0, &nboxes)
                            : get_network_boxes(net, im.w, im.h, thresh, hier, 0, 1, &nboxes);
    if (nms) do_nms_sort(dets, yolo1 ? l.side * l.side * l.n : nboxes, l.classes, nms);

    FILE *out = fopen(out_path, "w");
    if (!out) die("cannot write %s", out_path);
    fprintf(out, "{");
    if (meta && meta[0]) fprintf(out, "%s,\n", meta);
    fprintf(out, "\"thresh\":%g,\"hier\":%g,\"nms\":%g,\"imageWidth\":%d,\"imageHeight\":%d,"
            "\"networkWidth\":%d,\"networkHeight\":%d,\"classes\":%d,\"candidateBoxes\":%d,"
            "\"detections\":[\n",
            thresh, hier, nms, im.w, im.h, net->w, net->h, l.classes, nboxes);
    int first = 1;
    /* Print order and pixel rounding as in darknet's draw_detections. */
    for (int i = 0; i < nboxes; ++i) {
        for (int j = 0; j < l.classes; ++j) {
            if (!(dets[i].prob[j] > thresh)) continue;
            box b = dets[i].bbox;
            int left = (b.x - b.w / 2.) * im.w;
            int right = (b.x + b.w / 2.) * im.w;
            int top = (b.y - b.h / 2.) * im.h;
            int bot = (b.y + b.h / 2.) * im.h;
            if (left < 0) left = 0;
            if (right > im.w - 1) right = im.w - 1;
            if (top < 0) top = 0;
            if (bot > im.h - 1) bot = im.h - 1;
            fprintf(out, "%s{\"detection\":%d,\"classId\":%d,", first ? "" : ",\n", i, j);
            if (names) fprintf(out, "\"name\":\"%s\",", names[j]);
            fprintf(out, "\"prob\":%.9g,\"percent\":\"%.0f%%\",\"objectness\":%.9g,"
                    "\"box\":[%.9g,%.9g,%.9g,%.9g],\"left\":%d,\"top\":%d,\"right\":%d,\"bottom\":%d}",
                    dets[i].prob[j], dets[i].prob[j] * 100, dets[i].objectness,
                    b.x, b.y, b.w, b.h, left, top, right, bot);
            first = 0;
        }
    }
    fprintf(out, "\n]}\n");
    if (fclose(out) != 0) die("write failed for %s", out_path);
    free_detections(dets, nboxes);
    free_image(im);
    free_image(sized);
    free_network(net);
    return 0;
}

/* ---------- classify ---------- */
/* darknet's predict_classifier (examples/classifier.c): letterbox_image to the
 * network size, network_predict, top_k over net->outputs. Writes the top TOP
 * (index, score) pairs; W H = 0 0 keeps the cfg's size. */
static int mode_classify(int argc, char **argv)
{
    if (argc < 9 || argc > 10) die("%s", "usage: classify CFG WEIGHTS IMAGE TOP W H OUT.json [META]");
    const char *cfg = argv[2], *weights = argv[3], *image_path = argv[4], *out_path = argv[8];
    int top = atoi(argv[5]), w = atoi(argv[6]), h = atoi(argv[7]);
    const char *meta = argc == 10 ? argv[9] : NULL;
    if (top < 1) die("%s", "TOP must be at least 1");
    if (access(weights, R_OK) != 0) die("cannot read weights %s", weights);
    if (access(image_path, R_OK) != 0) die("cannot read image %s", image_path);
    network *net = load_net(cfg, weights, w, h);
    require_supported(net, cfg);
    require_matching_weights(net, weights);
    srand(2222222);
    image im = load_image_color((char *)image_path, 0, 0);
    image r = letterbox_image(im, net->w, net->h);
    float *predictions = network_predict(net, r.data);
    if (net->hierarchy) hierarchy_predictions(predictions, net->outputs, net->hierarchy, 1, 1);
    if (top > net->outputs) top = net->outputs;
    int *indexes = calloc(top, sizeof(int));
    top_k(predictions, net->outputs, top, indexes);
    FILE *out = fopen(out_path, "w");
    if (!out) die("cannot write %s", out_path);
    fprintf(out, "{");
    if (meta && meta[0]) fprintf(out, "%s,\n", meta);
    fprintf(out, "\"imageWidth\":%d,\"imageHeight\":%d,\"networkWidth\":%d,\"networkHeight\":%d,"
            "\"classes\":%d,\"top\":[", im.w, im.h, net->w, net->h, net->outputs);
    for (int i = 0; i < top; ++i)
        fprintf(out, "%s[%d,%.9g]", i ? "," : "", indexes[i], predictions[indexes[i]]);
    fprintf(out, "]}\n");
    if (fclose(out) != 0) die("write failed for %s", out_path);
    free(indexes);
    free_image(im);
    free_image(r);
    free_network(net);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc >= 2 && strcmp(argv[1], "synth-weights") == 0) return mode_synth_weights(argc, argv);
    if (argc >= 2 && strcmp(argv[1], "layers") == 0) return mode_layers(argc, argv);
    if (argc >= 2 && (strcmp(argv[1], "detect") == 0 || strcmp(argv[1], "yolo1") == 0)) return mode_detect(argc, argv);
    if (argc >= 2 && strcmp(argv[1], "classify") == 0) return mode_classify(argc, argv);
    fprintf(stderr, "usage: darknet-oracle synth-weights CFG OUT.weights SEED [W H]\n"
                    "       darknet-oracle layers CFG WEIGHTS W H OUT.json [SAMPLES [META]]\n"
                    "       darknet-oracle detect CFG WEIGHTS IMAGE THRESH HIER NMS W H OUT.json [NAMES [META]]\n"
                    "       darknet-oracle yolo1 CFG WEIGHTS IMAGE THRESH HIER NMS W H OUT.json [NAMES [META]]\n"
                    "       darknet-oracle classify CFG WEIGHTS IMAGE TOP W H OUT.json [META]\n");
    return 2;
}
