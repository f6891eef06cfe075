// The two oneDNN int8 routes of issue #54, kernel against kernel, on a model's convolution
// shapes: its convolution primitive (u8 source, s8 weights, s32 destination, the layouts it
// picks) and its GEMM API (dnnl_gemm_u8s8s32 on the unfolded input, as the engine calls it).
// Driven by tools/int8-routes, which passes the shapes of the convolutions a calibration runs
// in int8; prints one line per shape and the totals, times in ms, each the median of REPS
// calls after one warm-up.
//
//   onednn_int8_routes THREADS C,H,W,F,K,STRIDE ...
//
// Columns: the primitive's execute alone; the reorders a route on it would add in an NCHW
// engine (the u8 NCHW input into its layout, its s32 output back to NCHW); the GEMM alone (the
// engine adds its im2col on bytes, not timed here) in its two forms, s8×s8 with the weights
// first and u8×s8 transposed, and the better of the two against the primitive. THREADS is given to OpenMP (oneDNN's
// threads), to the primitive and to the GEMM calls alike.
#define PROGRAM "onednn_int8_routes"
#include "onednn_timing.h"

int main(int argc, char **argv) {
    dnnl_engine_t engine;
    dnnl_stream_t stream;
    int threads = start(argc, argv, "C,H,W,F,K,STRIDE", &engine, &stream);
    printf("oneDNN %d.%d.%d, isa %d, %d thread(s)\n", dnnl_version()->major, dnnl_version()->minor,
           dnnl_version()->patch, (int)dnnl_get_effective_cpu_isa(), threads);
    printf("%-30s %7s %9s %11s %11s %11s %9s\n", "shape (C HxW -> F KxK/s)", "GOP", "prim ms", "reorders ms",
           "gemm s8s8", "gemm u8s8ᵀ", "best/prim");
    double total_gop = 0, total_prim = 0, total_reorder = 0, total_s8 = 0, total_u8 = 0, total_gemm = 0;
    for (int i = 2; i < argc; i++) {
        int C, H, W, F, K, S;
        if (sscanf(argv[i], "%d,%d,%d,%d,%d,%d", &C, &H, &W, &F, &K, &S) != 6 || C < 1 || H < 1 || W < 1 ||
            F < 1 || K < 1 || S < 1) {
            fprintf(stderr, "onednn_int8_routes: shape %d '%s' is not C,H,W,F,K,STRIDE of positive integers\n",
                    i - 1, argv[i]);
            return 2;
        }
        int pad = K / 2, OH = (H + 2 * pad - K) / S + 1, OW = (W + 2 * pad - K) / S + 1;
        long M = F, N = (long)OH * OW, KK = (long)C * K * K;
        double gop = 2.0 * M * N * KK / 1e9;

        dnnl_dims_t sd = {1, C, H, W}, wd = {F, C, K, K}, dd = {1, F, OH, OW}, strides = {S, S},
                    padding = {pad, pad};
        dnnl_memory_desc_t smd, wmd, dmd, plain_s, plain_d;
        check(dnnl_memory_desc_init_by_tag(&smd, 4, sd, dnnl_u8, dnnl_format_tag_any), "source descriptor");
        check(dnnl_memory_desc_init_by_tag(&wmd, 4, wd, dnnl_s8, dnnl_format_tag_any), "weights descriptor");
        check(dnnl_memory_desc_init_by_tag(&dmd, 4, dd, dnnl_s32, dnnl_format_tag_any), "destination descriptor");
        check(dnnl_memory_desc_init_by_tag(&plain_s, 4, sd, dnnl_u8, dnnl_nchw), "NCHW source descriptor");
        check(dnnl_memory_desc_init_by_tag(&plain_d, 4, dd, dnnl_s32, dnnl_nchw), "NCHW destination descriptor");
        dnnl_convolution_desc_t cd;
        check(dnnl_convolution_forward_desc_init(&cd, dnnl_forward_inference, dnnl_convolution_direct, &smd, &wmd,
                                                 NULL, &dmd, strides, padding, padding),
              "convolution descriptor");
        dnnl_primitive_desc_t pd;
        check(dnnl_primitive_desc_create(&pd, &cd, NULL, engine, NULL), "convolution primitive descriptor");
        const dnnl_memory_desc_t *qs = dnnl_primitive_desc_query_md(pd, dnnl_query_src_md, 0);
        const dnnl_memory_desc_t *qw = dnnl_primitive_desc_query_md(pd, dnnl_query_weights_md, 0);
        const dnnl_memory_desc_t *qd = dnnl_primitive_desc_query_md(pd, dnnl_query_dst_md, 0);
        dnnl_memory_t ms = memory(qs, engine, 3), mw = memory(qw, engine, 1), md = memory(qd, engine, 0);
        dnnl_primitive_t conv;
        check(dnnl_primitive_create(&conv, pd), "convolution primitive");
        dnnl_exec_arg_t args[3] = {{DNNL_ARG_SRC, ms}, {DNNL_ARG_WEIGHTS, mw}, {DNNL_ARG_DST, md}};
        double prim = execute(conv, stream, 3, args);
        double reorders = reorder(engine, stream, &plain_s, qs) + reorder(engine, stream, qd, &plain_d);

        // The engine's two forms (Int8GEMM): C[M×N] = W[M×K] · X[K×N] in s8×s8, and for small
        // grids C̃[N×M] = Xᵀ · Wᵀ in u8×s8; X stored K×N, W stored M×K, row-major.
        unsigned char *x = malloc(KK * N);
        signed char *w = malloc(M * KK);
        int *c = malloc(sizeof(int) * M * N);
        if (!x || !w || !c) {
            fprintf(stderr, "onednn_int8_routes: out of memory for shape %s\n", argv[i]);
            return 1;
        }
        memset(x, 3, KK * N);
        memset(w, 1, M * KK);
        int co = 0;
        double times[REPS];
        check(dnnl_gemm_s8s8s32('N', 'N', 'F', M, N, KK, 1, w, KK, 0, (const signed char *)x, N, 0, 0, c, N, &co),
              "dnnl_gemm_s8s8s32");
        for (int r = 0; r < REPS; r++) {
            double t0 = now();
            dnnl_gemm_s8s8s32('N', 'N', 'F', M, N, KK, 1, w, KK, 0, (const signed char *)x, N, 0, 0, c, N, &co);
            times[r] = now() - t0;
        }
        double gemm_s8 = median(times);
        check(dnnl_gemm_u8s8s32('T', 'T', 'F', N, M, KK, 1, x, N, 0, w, KK, 0, 0, c, M, &co), "dnnl_gemm_u8s8s32");
        for (int r = 0; r < REPS; r++) {
            double t0 = now();
            dnnl_gemm_u8s8s32('T', 'T', 'F', N, M, KK, 1, x, N, 0, w, KK, 0, 0, c, M, &co);
            times[r] = now() - t0;
        }
        double gemm_u8 = median(times);
        double gemm = gemm_s8 < gemm_u8 ? gemm_s8 : gemm_u8;
        free(x);
        free(w);
        free(c);

        char label[64];
        snprintf(label, sizeof label, "%d %dx%d -> %d %dx%d/%d", C, H, W, F, K, K, S);
        printf("%-30s %7.3f %9.3f %11.3f %11.3f %11.3f %9.2f\n", label, gop, prim, reorders, gemm_s8, gemm_u8,
               gemm / prim);
        total_gop += gop;
        total_prim += prim;
        total_reorder += reorders;
        total_s8 += gemm_s8;
        total_u8 += gemm_u8;
        total_gemm += gemm;
        dnnl_primitive_destroy(conv);
        dnnl_primitive_desc_destroy(pd);
        dnnl_memory_destroy(ms);
        dnnl_memory_destroy(mw);
        dnnl_memory_destroy(md);
    }
    printf("%-30s %7.3f %9.3f %11.3f %11.3f %11.3f %9.2f\n", "total (best gemm per shape)", total_gop, total_prim,
           total_reorder, total_s8, total_u8, total_gemm / total_prim);
    dnnl_stream_destroy(stream);
    dnnl_engine_destroy(engine);
    return 0;
}
