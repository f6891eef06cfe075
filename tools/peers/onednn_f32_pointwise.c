// Issue #54's f32 side question, for the 1×1 convolutions: oneDNN's f32 convolution primitive
// (the layouts it picks, and the reorders an NCHW engine would add around it) against
// dnnl_sgemm and OpenBLAS's cblas_sgemm on the same product, C[F×HW] = W[F×C] · X[C×HW].
// Driven by tools/int8-routes --f32-pointwise; prints one line per shape and the totals, ms,
// each the median of REPS calls after one warm-up.
//
//   onednn_f32_pointwise THREADS C,H,W,F ...
//
// THREADS goes to OpenMP (the primitive's and dnnl_sgemm's threads) and to OpenBLAS.
#define PROGRAM "onednn_f32_pointwise"
#include <cblas.h>
#include "onednn_timing.h"

int main(int argc, char **argv) {
    dnnl_engine_t engine;
    dnnl_stream_t stream;
    int threads = start(argc, argv, "C,H,W,F", &engine, &stream);
    openblas_set_num_threads(threads);
    printf("oneDNN %d.%d.%d, isa %d; OpenBLAS core %s; %d thread(s)\n", dnnl_version()->major, dnnl_version()->minor,
           dnnl_version()->patch, (int)dnnl_get_effective_cpu_isa(), openblas_get_corename(), threads);
    printf("%-24s %7s %9s %11s %11s %11s\n", "shape (C HxW -> F 1x1)", "GFLOP", "prim ms", "reorders ms",
           "dnnl_sgemm", "cblas_sgemm");
    double total[5] = {0};
    for (int i = 2; i < argc; i++) {
        int C, H, W, F;
        if (sscanf(argv[i], "%d,%d,%d,%d", &C, &H, &W, &F) != 4 || C < 1 || H < 1 || W < 1 || F < 1) {
            fprintf(stderr, "onednn_f32_pointwise: shape %d '%s' is not C,H,W,F of positive integers\n", i - 1, argv[i]);
            return 2;
        }
        long M = F, N = (long)H * W, K = C;
        double gflop = 2.0 * M * N * K / 1e9;
        dnnl_dims_t sd = {1, C, H, W}, wd = {F, C, 1, 1}, dd = {1, F, H, W}, strides = {1, 1}, padding = {0, 0};
        dnnl_memory_desc_t smd, wmd, dmd, plain_s, plain_d;
        check(dnnl_memory_desc_init_by_tag(&smd, 4, sd, dnnl_f32, dnnl_format_tag_any), "source descriptor");
        check(dnnl_memory_desc_init_by_tag(&wmd, 4, wd, dnnl_f32, dnnl_format_tag_any), "weights descriptor");
        check(dnnl_memory_desc_init_by_tag(&dmd, 4, dd, dnnl_f32, dnnl_format_tag_any), "destination descriptor");
        check(dnnl_memory_desc_init_by_tag(&plain_s, 4, sd, dnnl_f32, dnnl_nchw), "NCHW source descriptor");
        check(dnnl_memory_desc_init_by_tag(&plain_d, 4, dd, dnnl_f32, dnnl_nchw), "NCHW destination descriptor");
        dnnl_convolution_desc_t cd;
        check(dnnl_convolution_forward_desc_init(&cd, dnnl_forward_inference, dnnl_convolution_direct, &smd, &wmd,
                                                 NULL, &dmd, strides, padding, padding),
              "convolution descriptor");
        dnnl_primitive_desc_t pd;
        check(dnnl_primitive_desc_create(&pd, &cd, NULL, engine, NULL), "convolution primitive descriptor");
        const dnnl_memory_desc_t *qs = dnnl_primitive_desc_query_md(pd, dnnl_query_src_md, 0);
        const dnnl_memory_desc_t *qw = dnnl_primitive_desc_query_md(pd, dnnl_query_weights_md, 0);
        const dnnl_memory_desc_t *qd = dnnl_primitive_desc_query_md(pd, dnnl_query_dst_md, 0);
        // Every float 0.0115 (bytes 0x3c): timing does not depend on the values.
        dnnl_memory_t ms = memory(qs, engine, 0x3c), mw = memory(qw, engine, 0x3c), md = memory(qd, engine, 0);
        dnnl_primitive_t conv;
        check(dnnl_primitive_create(&conv, pd), "convolution primitive");
        dnnl_exec_arg_t args[3] = {{DNNL_ARG_SRC, ms}, {DNNL_ARG_WEIGHTS, mw}, {DNNL_ARG_DST, md}};
        double prim = execute(conv, stream, 3, args);
        double reorders = reorder(engine, stream, &plain_s, qs) + reorder(engine, stream, qd, &plain_d);

        float *x = malloc(sizeof(float) * K * N), *w = malloc(sizeof(float) * M * K), *c = malloc(sizeof(float) * M * N);
        if (!x || !w || !c) {
            fprintf(stderr, "onednn_f32_pointwise: out of memory for shape %s\n", argv[i]);
            return 1;
        }
        for (long j = 0; j < K * N; j++) x[j] = (float)(j % 5) * 0.5f - 1;
        for (long j = 0; j < M * K; j++) w[j] = (float)(j % 3) * 0.25f - 0.25f;
        double times[REPS];
        check(dnnl_sgemm('N', 'N', M, N, K, 1, w, K, x, N, 0, c, N), "dnnl_sgemm");
        for (int r = 0; r < REPS; r++) {
            double t0 = now();
            dnnl_sgemm('N', 'N', M, N, K, 1, w, K, x, N, 0, c, N);
            times[r] = now() - t0;
        }
        double dnnl = median(times);
        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, M, N, K, 1, w, K, x, N, 0, c, N);
        for (int r = 0; r < REPS; r++) {
            double t0 = now();
            cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, M, N, K, 1, w, K, x, N, 0, c, N);
            times[r] = now() - t0;
        }
        double blas = median(times);
        free(x);
        free(w);
        free(c);

        char label[48];
        snprintf(label, sizeof label, "%d %dx%d -> %d", C, H, W, F);
        printf("%-24s %7.3f %9.3f %11.3f %11.3f %11.3f\n", label, gflop, prim, reorders, dnnl, blas);
        double row[5] = {gflop, prim, reorders, dnnl, blas};
        for (int k = 0; k < 5; k++) total[k] += row[k];
        dnnl_primitive_destroy(conv);
        dnnl_primitive_desc_destroy(pd);
        dnnl_memory_destroy(ms);
        dnnl_memory_destroy(mw);
        dnnl_memory_destroy(md);
    }
    printf("%-24s %7.3f %9.3f %11.3f %11.3f %11.3f\n", "total", total[0], total[1], total[2], total[3], total[4]);
    dnnl_stream_destroy(stream);
    dnnl_engine_destroy(engine);
    return 0;
}
