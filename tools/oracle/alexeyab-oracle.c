/* Oracle for AlexeyAB-only layer options that OpenCV DNN ignores (weighted / multi-layer
 * [shortcut]): loads a project cfg into AlexeyAB's darknet (libdarknet.so built from its
 * sources, CPU only: `make LIBSO=1`), with the deterministic "ramp" weights below, runs the
 * synthetic input and writes every layer's full output as JSON.
 *
 * Weights file (written by this tool, same formula as Tests/DarknetTests ShortcutGoldenTests):
 * header major 0, minor 2, revision 0, seen 0 (uint64), then `count` floats
 * v[i] = ((i * 37) % 101) / 101 - 0.3 (count = what the cfg needs; the tool writes plenty and
 * darknet reads what it needs; the Swift test checks its own count).
 * Input: x[c][y][x] = ((c*7919 + y*613 + x*31) % 1000) / 999 (SyntheticWeights.input).
 *
 * Build and run (see tools/regen-goldens-alexeyab):
 *   gcc -O2 -I$ADK/include tools/oracle/alexeyab-oracle.c -L$ADK -ldarknet -Wl,-rpath,$ADK -lm -o alexeyab-oracle
 *   alexeyab-oracle CFG COUNT OUT.json
 */
#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>
#include "darknet.h"

int main(int argc, char **argv) {
    if (argc != 4) { fprintf(stderr, "usage: alexeyab-oracle CFG COUNT OUT.json\n"); return 2; }
    char *cfg = argv[1];
    int count = atoi(argv[2]);
    char weights[] = "/tmp/alexeyab-oracle-XXXXXX";
    int fd = mkstemp(weights);
    if (fd < 0) { perror("mkstemp"); return 1; }
    FILE *wf = fdopen(fd, "wb");
    int32_t header[3] = {0, 2, 0};
    uint64_t seen = 0;
    fwrite(header, sizeof(int32_t), 3, wf);
    fwrite(&seen, sizeof(uint64_t), 1, wf);
    for (int i = 0; i < count; ++i) {
        float v = (float)((i * 37) % 101) / 101.0f - 0.3f;
        fwrite(&v, sizeof(float), 1, wf);
    }
    fclose(wf);
    network *net = load_network_custom(cfg, weights, 0, 1);
    remove(weights);
    int c = net->c, h = net->h, w = net->w;
    float *input = calloc((size_t)c * h * w, sizeof(float));
    for (int k = 0; k < c; ++k)
        for (int y = 0; y < h; ++y)
            for (int x = 0; x < w; ++x)
                input[(k * h + y) * w + x] = (float)((k * 7919 + y * 613 + x * 31) % 1000) / 999.0f;
    network_predict_ptr(net, input);
    FILE *out = fopen(argv[3], "w");
    if (!out) { perror(argv[3]); return 1; }
    fprintf(out, "{\"reference\":\"AlexeyAB darknet libdarknet.so (CPU) via tools/oracle/alexeyab-oracle.c\",");
    fprintf(out, "\"weights\":\"ramp v[i] = ((i*37)%%101)/101 - 0.3\",\"layers\":[");
    for (int i = 0; i < net->n; ++i) {
        layer l = net->layers[i];
        fprintf(out, "%s\n{\"index\":%d,\"shape\":[%d,%d,%d],\"values\":[", i ? "," : "", i, l.out_c, l.out_h, l.out_w);
        for (int j = 0; j < l.outputs; ++j) fprintf(out, "%s%.9g", j ? "," : "", l.output[j]);
        fprintf(out, "]}");
    }
    fprintf(out, "]}\n");
    fclose(out);
    return 0;
}
