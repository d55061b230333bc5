// Race harness for CDexNeuralShim's dexnn_network_add_plan (built with or without the
// process-wide `building` lock, -DDEX_NO_BUILD_LOCK). A small Lite0-like graph (the real stem
// shape), random weights; reference logits from plans built one at a time, then fresh networks
// whose plans are built from two threads at once, every output compared with the reference.
//
// usage: harness MODE ITERATIONS
//   MODE: fi (an f32 and an int8 network), ff (two f32 networks), ii (two int8), same (one f32
//   network, two threads adding different thread counts), fexec (f32 builds while an int8
//   network runs inferences, plans already built)
#define _GNU_SOURCE
#include "CDexNeuralShim.h"
#include <dlfcn.h>
#include <dnnl.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum { LAYERS = 9, SIZE = 224, FEATURES = 24, CLASSES = 16, MAXT = 6 };
static const int thread_counts[] = {1, 3, 4, 5, 6};
enum { NT = sizeof(thread_counts) / sizeof(thread_counts[0]) };

static dexnn_layer layers_f32[LAYERS], layers_int8[LAYERS];
static dexnn_graph graph_f32, graph_int8;
static float *input;
static float ref[2][NT][CLASSES];  // [int8][thread index]

static unsigned long long rng = 88172645463325252ULL;
static float frand(void) {  // uniform in [-1, 1)
  rng ^= rng << 13; rng ^= rng >> 7; rng ^= rng << 17;
  return (float)((rng >> 11) * (1.0 / 9007199254740992.0)) * 2 - 1;
}

static float *random_array(size_t n, float scale) {
  float *a = malloc(n * sizeof(float));
  for (size_t i = 0; i < n; i++) a[i] = frand() * scale;
  return a;
}

static void make_graphs(void) {
  // kernel stride in out depthwise relu6 residual residual_from
  const int spec[LAYERS][8] = {
      {3, 2, 3, 32, 0, 1, 0, 0},    // stem
      {3, 1, 32, 32, 1, 1, 0, 0},   // block 1: depthwise
      {1, 1, 32, 16, 0, 0, 0, 0},   //          projection
      {1, 1, 16, 96, 0, 1, 0, 0},   // block 2: expansion
      {3, 2, 96, 96, 1, 1, 0, 0},   //          depthwise stride 2
      {1, 1, 96, 24, 0, 0, 0, 0},   //          projection
      {1, 1, 24, 144, 0, 1, 0, 0},  // block 3: expansion
      {3, 1, 144, 144, 1, 1, 0, 0},
      {1, 1, 144, 24, 0, 0, 1, 6},  //          projection + residual
  };
  for (int i = 0; i < LAYERS; i++) {
    dexnn_layer *l = &layers_f32[i];
    memset(l, 0, sizeof(*l));
    l->kernel = spec[i][0];
    l->stride = spec[i][1];
    l->input_channels = spec[i][2];
    l->output_channels = spec[i][3];
    l->depthwise = spec[i][4];
    l->relu6 = spec[i][5];
    l->residual = spec[i][6];
    l->residual_from = spec[i][7];
    int fan_in = l->kernel * l->kernel * (l->depthwise ? 1 : l->input_channels);
    size_t n = (size_t)l->kernel * l->kernel * (l->depthwise ? 1 : l->input_channels) * l->output_channels;
    l->weights = random_array(n, sqrtf(6.0f / fan_in));
    l->bias = random_array((size_t)l->output_channels, 0.1f);
    l->output_range = l->relu6 ? 6.0f : 8.0f;
    layers_int8[i] = *l;
    layers_int8[i].int8 = 1;
  }
  dexnn_graph g = {0};
  g.layers = layers_f32;
  g.layer_count = LAYERS;
  g.input_size = SIZE;
  g.features = FEATURES;
  g.classes = CLASSES;
  g.classifier_weights = random_array((size_t)FEATURES * CLASSES, 0.5f);
  g.classifier_bias = random_array(CLASSES, 0.1f);
  g.input_range = 1.0f;
  const char *tile = getenv("TILE_BYTES"), *from = getenv("FROM_BYTES");
  g.fusion_tile_bytes = tile ? strtoull(tile, NULL, 10) : 0;
  g.fusion_from_bytes = from ? strtoull(from, NULL, 10) : 0;
  graph_f32 = g;
  g.layers = layers_int8;
  graph_int8 = g;
  input = random_array((size_t)SIZE * SIZE * 3, 1.0f);
}

/// With FLUSH_CACHE set: empties oneDNN's primitive cache (capacity to 0 and back), so that a
/// build finds none of an earlier build's primitives, as in a fresh process.
static void flush_cache(void) {
  if (!getenv("FLUSH_CACHE")) return;
  void *library = dlopen("libdnnl.so.2", RTLD_NOW | RTLD_NOLOAD);
  int (*get)(int *) = library ? (int (*)(int *))dlsym(library, "dnnl_get_primitive_cache_capacity") : NULL;
  int (*set)(int) = library ? (int (*)(int))dlsym(library, "dnnl_set_primitive_cache_capacity") : NULL;
  int capacity = 0;
  if (!get || !set || get(&capacity) != 0) { fprintf(stderr, "no cache control\n"); exit(2); }
  set(0);
  set(capacity);
}

static dexnn_network *create(void) {
  dexnn_network *n = NULL;
  char message[256] = {0};
  if (dexnn_network_create(&n, NULL, message, sizeof(message)) != DEX_STATUS_OK) {
    fprintf(stderr, "create: %s\n", message);
    exit(2);
  }
  return n;
}

static void add(dexnn_network *n, const dexnn_graph *g, int threads) {
  char message[256] = {0};
  if (dexnn_network_add_plan(n, g, threads, message, sizeof(message)) != DEX_STATUS_OK) {
    fprintf(stderr, "add_plan %d: %s\n", threads, message);
    exit(2);
  }
}

static void run(dexnn_network *n, int threads, float *logits) {
  char message[256] = {0};
  if (dexnn_network_run(n, threads, input, logits, message, sizeof(message)) != DEX_STATUS_OK) {
    fprintf(stderr, "run %d: %s\n", threads, message);
    exit(2);
  }
}

static float max_diff(const float *a, const float *b) {
  float d = 0;
  for (int i = 0; i < CLASSES; i++) d = fmaxf(d, fabsf(a[i] - b[i]));
  return d;
}

typedef struct {
  dexnn_network *network;
  const dexnn_graph *graph;
  const int *threads;
  int count;
  pthread_barrier_t *barrier;
} build_job;

static void *build(void *argument) {
  build_job *j = argument;
  pthread_barrier_wait(j->barrier);
  for (int i = 0; i < j->count; i++) add(j->network, j->graph, j->threads[i]);
  return NULL;
}

static _Atomic int stop_running;
static void *keep_running(void *argument) {  // inferences on every plan until told to stop
  dexnn_network *n = argument;
  float logits[CLASSES];
  long passes = 0;
  while (!stop_running) {
    for (int t = 0; t < NT; t++) {
      run(n, thread_counts[t], logits);
      if (max_diff(logits, ref[1][t]) > 1e-3f) printf("  executing int8 net %d threads wrong\n", thread_counts[t]);
    }
    passes++;
  }
  return NULL;
}

#ifdef STEP_SUMS
int dexnn_debug_step_sums(dexnn_network *network, int threads, const float *input,
    float *logits, double *sums, char (*names)[96], int max);
enum { MAX_STEPS = 4096 };
static double ref_sums[2][NT][MAX_STEPS];
static char ref_names[2][NT][MAX_STEPS][96];
static int ref_steps[2][NT];
static double sums[MAX_STEPS];
static char names[MAX_STEPS][96];
/// The steps of the plan for thread index `t` whose outputs differ from the reference build's.
int dexnn_debug_stem_check(dexnn_network *network, int threads, const float *input, float *logits);
static void bisect(dexnn_network *n, int int8, int t) {
  float logits[CLASSES];
  if (!int8 && getenv("STEM_CHECK")) dexnn_debug_stem_check(n, thread_counts[t], input, logits);
  int count = dexnn_debug_step_sums(n, thread_counts[t], input, logits, sums, names, MAX_STEPS);
  int shown = 0;
  for (int i = 0; i < count && shown < 6; i++) {
    if (fabs(sums[i] - ref_sums[int8][t][i]) > 1e-6 * (1 + fabs(ref_sums[int8][t][i]))) {
      printf("  step %d differs (%s): %.6g vs %.6g%s\n", i, names[i], sums[i],
          ref_sums[int8][t][i], strcmp(names[i], ref_names[int8][t][i]) ? " [other kernel]" : "");
      shown++;
    }
  }
}
#endif

/// Compares every plan of `n` against the reference; returns the number of wrong plans.
/// The stress thread of modes fpd / fprim / fexec8 (linked against libdnnl, the same instance the
/// shim loads): an int8 3x3 convolution, NHWC u8 source, s8 weights in the layout oneDNN picks.
/// fpd: primitive descriptors made and destroyed; fprim: primitives made from one descriptor
/// (cache off: a new kernel each time); fexec8: one primitive executed over and over.
static _Atomic int stress_stop;
static void *stress(void *argument) {
  const char *what = argument;
  dnnl_engine_t engine;
  dnnl_engine_create(&engine, dnnl_cpu, 0);
  dnnl_memory_desc_t src, wei, dst, bias;
  dnnl_dims_t sd = {1, 32, 28, 28}, wd = {64, 32, 3, 3}, dd = {1, 64, 28, 28}, bd = {64};
  dnnl_dims_t strides = {1, 1}, pad = {1, 1};
  dnnl_memory_desc_init_by_tag(&src, 4, sd, dnnl_u8, dnnl_nhwc);
  dnnl_memory_desc_init_by_tag(&wei, 4, wd, dnnl_s8, dnnl_format_tag_any);
  dnnl_memory_desc_init_by_tag(&dst, 4, dd, dnnl_u8, dnnl_nhwc);
  dnnl_memory_desc_init_by_tag(&bias, 1, bd, dnnl_f32, dnnl_x);
  dnnl_convolution_desc_t op;
  dnnl_convolution_forward_desc_init(&op, dnnl_forward_inference, dnnl_convolution_direct, &src,
      &wei, &bias, &dst, strides, pad, pad);
  dnnl_primitive_desc_t pd = NULL;
  dnnl_primitive_t prim = NULL;
  dnnl_primitive_desc_create(&pd, &op, NULL, engine, NULL);
  dnnl_primitive_create(&prim, pd);
  const char *name = NULL;
  dnnl_primitive_desc_query(pd, dnnl_query_impl_info_str, 0, &name);
  printf("stress %s with %s\n", what, name);
  dnnl_stream_t stream;
  dnnl_stream_create(&stream, engine, dnnl_stream_default_flags);
  dnnl_memory_t ms, mw, md, mb, mscratch = NULL;
  dnnl_memory_create(&ms, &src, engine, DNNL_MEMORY_ALLOCATE);
  dnnl_memory_create(&mw, dnnl_primitive_desc_query_md(pd, dnnl_query_weights_md, 0), engine, DNNL_MEMORY_ALLOCATE);
  dnnl_memory_create(&md, &dst, engine, DNNL_MEMORY_ALLOCATE);
  dnnl_memory_create(&mb, &bias, engine, DNNL_MEMORY_ALLOCATE);
  long count = 0;
  while (!stress_stop) {
    if (!strcmp(what, "fpd")) {
      // A shape no primitive was made for: the primitive cache holds no descriptor for it, so
      // every call runs the implementations' init (with the cache on too).
      dnnl_memory_desc_t src2, dst2;
      dnnl_dims_t sd2 = {1, 32, 29, 29}, dd2 = {1, 64, 29, 29};
      dnnl_memory_desc_init_by_tag(&src2, 4, sd2, dnnl_u8, dnnl_nhwc);
      dnnl_memory_desc_init_by_tag(&dst2, 4, dd2, dnnl_u8, dnnl_nhwc);
      dnnl_convolution_desc_t op2;
      dnnl_convolution_forward_desc_init(&op2, dnnl_forward_inference, dnnl_convolution_direct,
          &src2, &wei, &bias, &dst2, strides, pad, pad);
      dnnl_primitive_desc_t other;
      dnnl_primitive_desc_create(&other, &op2, NULL, engine, NULL);
      dnnl_primitive_desc_destroy(other);
    } else if (!strcmp(what, "fprim")) {
      dnnl_primitive_t other;
      dnnl_primitive_create(&other, pd);
      dnnl_primitive_destroy(other);
    } else {
      dnnl_exec_arg_t args[] = {{DNNL_ARG_SRC, ms}, {DNNL_ARG_WEIGHTS, mw}, {DNNL_ARG_BIAS, mb}, {DNNL_ARG_DST, md}};
      dnnl_primitive_execute(prim, stream, 4, args);
      dnnl_stream_wait(stream);
    }
    count++;
  }
  (void)mscratch;
  printf("stress %s: %ld calls\n", what, count);
  return NULL;
}

static int check(dexnn_network *n, int int8, const char *label, int iteration) {
  int wrong = 0;
  float logits[CLASSES];
  for (int t = 0; t < NT; t++) {
    run(n, thread_counts[t], logits);
    float d = max_diff(logits, ref[int8][t]);
    if (d > 1e-3f) {
      wrong++;
      char kernels[8192];
      dexnn_network_implementations(n, thread_counts[t], kernels, sizeof(kernels));
      printf("iteration %d: %s %s, %d threads: largest difference %g\n", iteration, label,
          int8 ? "int8" : "f32", thread_counts[t], d);
      if (getenv("SHOW_KERNELS")) printf("  kernels: %.600s\n", kernels);
#ifdef STEP_SUMS
      bisect(n, int8, t);
#endif
    }
  }
  return wrong;
}

int main(int argc, char **argv) {
  const char *mode = argc > 1 ? argv[1] : "fi";
  int iterations = argc > 2 ? atoi(argv[2]) : 10;
  make_graphs();
  // The reference: every plan built alone, one after another.
  for (int int8 = 0; int8 < 2; int8++) {
    dexnn_network *r = create();
    for (int t = 0; t < NT; t++) {
      add(r, int8 ? &graph_int8 : &graph_f32, thread_counts[t]);
      run(r, thread_counts[t], ref[int8][t]);
#ifdef STEP_SUMS
      float logits[CLASSES];
      ref_steps[int8][t] = dexnn_debug_step_sums(r, thread_counts[t], input, logits,
          ref_sums[int8][t], ref_names[int8][t], MAX_STEPS);
#endif
    }
    for (int t = 1; t < NT; t++) {
      float d = max_diff(ref[int8][t], ref[int8][0]);
      if (d > 1e-3f) printf("reference %s: %d threads differs from 1 thread by %g\n",
          int8 ? "int8" : "f32", thread_counts[t], d);
    }
    dexnn_network_destroy(r);
  }
  printf("isa %s, mode %s, reference f32 logit[0] %g int8 %g\n", dexnn_instruction_set(), mode,
      ref[0][0][0], ref[1][0][0]);
  int bad_iterations = 0;
  for (int it = 0; it < iterations; it++) {
    flush_cache();
    pthread_barrier_t barrier;
    pthread_barrier_init(&barrier, NULL, 2);
    int wrong = 0;
    const int all[] = {1, 3, 4, 5, 6};
    if (!strcmp(mode, "same")) {
      dexnn_network *a = create();
      const int odd[] = {1, 3, 5}, even[] = {4, 6};
      build_job ja = {a, &graph_f32, odd, 3, &barrier}, jb = {a, &graph_f32, even, 2, &barrier};
      pthread_t ta, tb;
      pthread_create(&ta, NULL, build, &ja);
      pthread_create(&tb, NULL, build, &jb);
      pthread_join(ta, NULL);
      pthread_join(tb, NULL);
      wrong += check(a, 0, "same", it);
      dexnn_network_destroy(a);
    } else if (!strcmp(mode, "fpd") || !strcmp(mode, "fprim") || !strcmp(mode, "fexec8")) {
      // An f32 network builds its plans while another thread uses oneDNN directly.
      stress_stop = 0;
      pthread_t stressor;
      pthread_create(&stressor, NULL, stress, (void *)mode);
      usleep(20000);
      dexnn_network *a = create();
      for (int t = 0; t < NT; t++) add(a, &graph_f32, thread_counts[t]);
      stress_stop = 1;
      pthread_join(stressor, NULL);
      wrong += check(a, 0, mode, it);
      dexnn_network_destroy(a);
    } else if (!strcmp(mode, "poison")) {
      // As fpd, then a second f32 network built alone afterwards (nothing else running): with
      // the primitive cache on it is handed the first one's primitives.
      stress_stop = 0;
      pthread_t stressor;
      pthread_create(&stressor, NULL, stress, (void *)"fpd");
      usleep(20000);
      dexnn_network *a = create();
      for (int t = 0; t < NT; t++) add(a, &graph_f32, thread_counts[t]);
      stress_stop = 1;
      pthread_join(stressor, NULL);
      int first = check(a, 0, "built during the stress", it);
      dexnn_network *later = create();
      for (int t = 0; t < NT; t++) add(later, &graph_f32, thread_counts[t]);
      int second = check(later, 0, "built alone afterwards", it);
      printf("iteration %d: %d wrong plans during, %d afterwards\n", it, first, second);
      wrong += first + second;
      dexnn_network_destroy(a);
      dexnn_network_destroy(later);
    } else if (!strcmp(mode, "fexec")) {
      // An int8 network runs inferences (its plans built beforehand) while an f32 one builds.
      dexnn_network *b = create(), *a = create();
      for (int t = 0; t < NT; t++) add(b, &graph_int8, thread_counts[t]);
      stop_running = 0;
      pthread_t runner;
      pthread_create(&runner, NULL, keep_running, b);
      for (int t = 0; t < NT; t++) add(a, &graph_f32, thread_counts[t]);
      stop_running = 1;
      pthread_join(runner, NULL);
      wrong += check(a, 0, "fexec", it);
      dexnn_network_destroy(a);
      dexnn_network_destroy(b);
    } else {
      int first8 = mode[0] == 'i', second8 = mode[1] == 'i';
      dexnn_network *a = create(), *b = create();
      build_job ja = {a, first8 ? &graph_int8 : &graph_f32, all, 5, &barrier};
      build_job jb = {b, second8 ? &graph_int8 : &graph_f32, all, 5, &barrier};
      pthread_t ta, tb;
      pthread_create(&ta, NULL, build, &ja);
      pthread_create(&tb, NULL, build, &jb);
      pthread_join(ta, NULL);
      pthread_join(tb, NULL);
      wrong += check(a, first8, "A", it);
      wrong += check(b, second8, "B", it);
      dexnn_network_destroy(a);
      dexnn_network_destroy(b);
    }
    pthread_barrier_destroy(&barrier);
    if (wrong) bad_iterations++;
  }
  printf("RESULT mode %s: %d of %d iterations had a wrong plan\n", mode, bad_iterations, iterations);
  return 0;
}
