// What tools/peers/onednn_int8_routes.c and onednn_f32_pointwise.c share: a clock, oneDNN's
// status checked, the median of REPS timed calls after one warm-up, and the time of a reorder
// between two layouts, and the start of main. PROGRAM names the program in its error lines.
#ifndef ONEDNN_TIMING_H
#define ONEDNN_TIMING_H
#include <dnnl.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define REPS 15

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec * 1e-9;
}

static void check(dnnl_status_t status, const char *what) {
    if (status != dnnl_success) {
        fprintf(stderr, "%s: %s failed with oneDNN status %d\n", PROGRAM, what, (int)status);
        exit(1);
    }
}

static int compare(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/// The median of REPS times in seconds, in ms.
static double median(double *times) {
    qsort(times, REPS, sizeof(double), compare);
    return times[REPS / 2] * 1000;
}

/// Memory for `desc`, every byte `fill`.
static dnnl_memory_t memory(const dnnl_memory_desc_t *desc, dnnl_engine_t engine, int fill) {
    dnnl_memory_t m;
    check(dnnl_memory_create(&m, desc, engine, DNNL_MEMORY_ALLOCATE), "dnnl_memory_create");
    void *data;
    dnnl_memory_get_data_handle(m, &data);
    memset(data, fill, dnnl_memory_desc_get_size(desc));
    return m;
}

/// The median ms of `primitive` on `args`, after one warm-up.
static double execute(dnnl_primitive_t primitive, dnnl_stream_t stream, int count, dnnl_exec_arg_t *args) {
    double times[REPS];
    check(dnnl_primitive_execute(primitive, stream, count, args), "execute");
    dnnl_stream_wait(stream);
    for (int r = 0; r < REPS; r++) {
        double t0 = now();
        dnnl_primitive_execute(primitive, stream, count, args);
        dnnl_stream_wait(stream);
        times[r] = now() - t0;
    }
    return median(times);
}

/// The median ms of a reorder from `from` to `to` (0 when they are the same layout).
static double reorder(dnnl_engine_t engine, dnnl_stream_t stream, const dnnl_memory_desc_t *from,
                      const dnnl_memory_desc_t *to) {
    if (dnnl_memory_desc_equal(from, to)) return 0;
    dnnl_primitive_desc_t pd;
    check(dnnl_reorder_primitive_desc_create(&pd, from, engine, to, engine, NULL), "reorder descriptor");
    dnnl_primitive_t primitive;
    check(dnnl_primitive_create(&primitive, pd), "reorder");
    dnnl_memory_t a = memory(from, engine, 2), b = memory(to, engine, 0);
    dnnl_exec_arg_t args[2] = {{DNNL_ARG_FROM, a}, {DNNL_ARG_TO, b}};
    double ms = execute(primitive, stream, 2, args);
    dnnl_primitive_destroy(primitive);
    dnnl_primitive_desc_destroy(pd);
    dnnl_memory_destroy(a);
    dnnl_memory_destroy(b);
    return ms;
}
/// The program's start: THREADS from argv[1] (exits 2 with a usage line on a bad one or no
/// shapes), given to OpenMP; oneDNN's CPU engine and a stream.
static int start(int argc, char **argv, const char *shapes, dnnl_engine_t *engine, dnnl_stream_t *stream) {
    if (argc < 3) {
        fprintf(stderr, "usage: %s THREADS %s ...\n", PROGRAM, shapes);
        exit(2);
    }
    int threads = atoi(argv[1]);
    if (threads < 1) {
        fprintf(stderr, "%s: THREADS must be 1 or more, got '%s'\n", PROGRAM, argv[1]);
        exit(2);
    }
    omp_set_num_threads(threads);
    check(dnnl_engine_create(engine, dnnl_cpu, 0), "dnnl_engine_create");
    check(dnnl_stream_create(stream, *engine, dnnl_stream_default_flags), "dnnl_stream_create");
    return threads;
}
#endif
