// EfficientNet-Lite0's convolution chain as separate oneDNN primitives (NHWC activations, weights
// in the layout each primitive picks, ReLU6 and the residual sum as post-ops, f32), run on one
// thread with synthetic weights. It builds against oneDNN 2.x and 3.x headers alike, so that
// `run.sh` can time the same chain on two versions of the library side by side.
//
//   layers PASSES   prints one line per layer ("layer SHAPE IMPLEMENTATION MEDIAN_US") and a
//                   closing "pass MEDIAN_MS" line.
#include <dnnl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define CHECK(call)                                                            \
  do {                                                                         \
    dnnl_status_t status_ = (call);                                            \
    if (status_ != dnnl_success) {                                             \
      fprintf(stderr, "%s:%d: oneDNN status %d\n", __FILE__, __LINE__, (int)status_); \
      exit(1);                                                                 \
    }                                                                          \
  } while (0)

enum { MAX_LAYERS = 64, MAX_PASSES = 10000 };

typedef struct {
  dnnl_primitive_t primitive;
  dnnl_memory_t src, weights, bias, dst;
  int residual_from;  // the activation whose values the residual sum adds, or -1
  size_t dst_bytes;
  char shape[64];
  const char *implementation;
} layer;

static dnnl_engine_t engine;
static dnnl_stream_t stream;
static layer layers[MAX_LAYERS];
static dnnl_memory_t activations[MAX_LAYERS + 1];
static int layer_count;
static double layer_times[MAX_LAYERS][MAX_PASSES];

static double milliseconds(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

static int by_value(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/// A buffer of `bytes` filled with small deterministic values.
static void *filled(size_t bytes) {
  float *p = aligned_alloc(64, (bytes + 63) / 64 * 64);
  if (!p) exit(1);
  for (size_t i = 0; i < bytes / sizeof(float); i++) p[i] = (float)((i * 2654435761u) % 1000) / 1000.0f - 0.3f;
  return p;
}

/// TensorFlow SAME padding: the output side, and the padding before and after.
static int same(int size, int kernel, int stride, int *before, int *after) {
  int out = (size + stride - 1) / stride, total = (out - 1) * stride + kernel - size;
  if (total < 0) total = 0;
  *before = total / 2;
  *after = total - total / 2;
  return out;
}

#if DNNL_VERSION_MAJOR >= 3
typedef dnnl_memory_desc_t descriptor;
#define DESCRIPTOR(d) (d)
static descriptor described(int ndims, const dnnl_dims_t dims, dnnl_format_tag_t tag) {
  descriptor d;
  CHECK(dnnl_memory_desc_create_with_tag(&d, ndims, dims, dnnl_f32, tag));
  return d;
}
#else
typedef dnnl_memory_desc_t descriptor;
#define DESCRIPTOR(d) (&(d))
static descriptor described(int ndims, const dnnl_dims_t dims, dnnl_format_tag_t tag) {
  descriptor d;
  CHECK(dnnl_memory_desc_init_by_tag(&d, ndims, dims, dnnl_f32, tag));
  return d;
}
#endif

/// Appends a convolution reading activation `input` (side `size`, `in` channels); returns the
/// output side.
static int convolution(int input, int size, int in, int out, int kernel, int stride, int depthwise,
                       int relu6, int residual_from) {
  int before, after, side = same(size, kernel, stride, &before, &after);
  dnnl_dims_t src_dims = {1, in, size, size}, dst_dims = {1, out, side, side}, bias_dims = {out};
  descriptor src = described(4, src_dims, dnnl_nhwc), dst = described(4, dst_dims, dnnl_nhwc);
  descriptor bias = described(1, bias_dims, dnnl_a), weights;
  if (depthwise) {
    dnnl_dims_t dims = {in, 1, 1, kernel, kernel};
    weights = described(5, dims, dnnl_format_tag_any);
  } else {
    dnnl_dims_t dims = {out, in, kernel, kernel};
    weights = described(4, dims, dnnl_format_tag_any);
  }
  dnnl_dims_t strides = {stride, stride}, dilation = {0, 0}, pad_l = {before, before}, pad_r = {after, after};
  dnnl_post_ops_t post_ops;
  CHECK(dnnl_post_ops_create(&post_ops));
#if DNNL_VERSION_MAJOR >= 3
  if (residual_from >= 0) CHECK(dnnl_post_ops_append_sum(post_ops, 1.f, 0, dnnl_data_type_undef));
  if (relu6) CHECK(dnnl_post_ops_append_eltwise(post_ops, dnnl_eltwise_clip_v2, 0.f, 6.f));
#else
  if (residual_from >= 0) CHECK(dnnl_post_ops_append_sum(post_ops, 1.f));
  if (relu6) CHECK(dnnl_post_ops_append_eltwise(post_ops, 1.f, dnnl_eltwise_clip_v2, 0.f, 6.f));
#endif
  dnnl_primitive_attr_t attr;
  CHECK(dnnl_primitive_attr_create(&attr));
  CHECK(dnnl_primitive_attr_set_post_ops(attr, post_ops));
  dnnl_primitive_desc_t pd;
#if DNNL_VERSION_MAJOR >= 3
  CHECK(dnnl_convolution_forward_primitive_desc_create(&pd, engine, dnnl_forward_inference,
      dnnl_convolution_direct, src, weights, bias, dst, strides, dilation, pad_l, pad_r, attr));
  const_dnnl_memory_desc_t chosen = dnnl_primitive_desc_query_md(pd, dnnl_query_weights_md, 0);
#else
  dnnl_convolution_desc_t cd;
  CHECK(dnnl_dilated_convolution_forward_desc_init(&cd, dnnl_forward_inference, dnnl_convolution_direct,
      &src, &weights, &bias, &dst, strides, dilation, pad_l, pad_r));
  CHECK(dnnl_primitive_desc_create(&pd, &cd, attr, engine, NULL));
  const dnnl_memory_desc_t *chosen = dnnl_primitive_desc_query_md(pd, dnnl_query_weights_md, 0);
#endif
  layer *l = &layers[layer_count];
  CHECK(dnnl_primitive_desc_query(pd, dnnl_query_impl_info_str, 0, &l->implementation));
  CHECK(dnnl_primitive_create(&l->primitive, pd));
  CHECK(dnnl_memory_create(&l->weights, chosen, engine, filled(dnnl_memory_desc_get_size(chosen))));
  CHECK(dnnl_memory_create(&l->bias, DESCRIPTOR(bias), engine, filled((size_t)out * sizeof(float))));
  l->dst_bytes = dnnl_memory_desc_get_size(DESCRIPTOR(dst));
  CHECK(dnnl_memory_create(&activations[layer_count + 1], DESCRIPTOR(dst), engine, filled(l->dst_bytes)));
  l->src = activations[input];
  l->dst = activations[layer_count + 1];
  l->residual_from = residual_from;
  snprintf(l->shape, sizeof(l->shape), "%dx%d:%d->%d:k%ds%d%s", size, size, in, out, kernel, stride,
           depthwise ? ":dw" : "");
  layer_count++;
  return side;
}

static void pass(int index) {
  for (int i = 0; i < layer_count; i++) {
    layer *l = &layers[i];
    if (l->residual_from >= 0) {  // the sum post-op adds what the destination holds
      void *dst, *src;
      CHECK(dnnl_memory_get_data_handle(l->dst, &dst));
      CHECK(dnnl_memory_get_data_handle(activations[l->residual_from], &src));
      memcpy(dst, src, l->dst_bytes);
    }
    dnnl_exec_arg_t args[4] = {{DNNL_ARG_SRC, l->src}, {DNNL_ARG_WEIGHTS, l->weights},
                               {DNNL_ARG_BIAS, l->bias}, {DNNL_ARG_DST, l->dst}};
    double start = milliseconds();
    CHECK(dnnl_primitive_execute(l->primitive, stream, 4, args));
    if (index >= 0) layer_times[i][index] = (milliseconds() - start) * 1000;
  }
  CHECK(dnnl_stream_wait(stream));
}

int main(int argc, char **argv) {
  int passes = argc > 1 ? atoi(argv[1]) : 200;
  if (passes < 1 || passes > MAX_PASSES) return 2;
  CHECK(dnnl_engine_create(&engine, dnnl_cpu, 0));
  CHECK(dnnl_stream_create(&stream, engine, dnnl_stream_default_flags));
  dnnl_dims_t image = {1, 3, 224, 224};
  descriptor input = described(4, image, dnnl_nhwc);
  CHECK(dnnl_memory_create(&activations[0], DESCRIPTOR(input), engine, filled(224 * 224 * 3 * sizeof(float))));
  // expand ratio, kernel, stride, input channels, output channels (Lite0's 16 blocks)
  static const int blocks[16][5] = {
      {1, 3, 1, 32, 16},   {6, 3, 2, 16, 24},   {6, 3, 1, 24, 24},   {6, 5, 2, 24, 40},
      {6, 5, 1, 40, 40},   {6, 3, 2, 40, 80},   {6, 3, 1, 80, 80},   {6, 3, 1, 80, 80},
      {6, 5, 1, 80, 112},  {6, 5, 1, 112, 112}, {6, 5, 1, 112, 112}, {6, 5, 2, 112, 192},
      {6, 5, 1, 192, 192}, {6, 5, 1, 192, 192}, {6, 5, 1, 192, 192}, {6, 3, 1, 192, 320}};
  int size = convolution(0, 224, 3, 32, 3, 2, 0, 1, -1);
  for (int b = 0; b < 16; b++) {
    int expand = blocks[b][0], kernel = blocks[b][1], stride = blocks[b][2];
    int in = blocks[b][3], out = blocks[b][4], middle = in * expand, block_input = layer_count;
    if (expand != 1) size = convolution(layer_count, size, in, middle, 1, 1, 0, 1, -1);
    size = convolution(layer_count, size, middle, middle, kernel, stride, 1, 1, -1);
    size = convolution(layer_count, size, middle, out, 1, 1, 0, 0,
                       stride == 1 && in == out ? block_input : -1);
  }
  convolution(layer_count, size, 320, 1280, 1, 1, 0, 1, -1);
  for (int i = 0; i < 20; i++) pass(-1);
  double *totals = malloc(sizeof(double) * passes);
  if (!totals) return 1;
  for (int i = 0; i < passes; i++) {
    double start = milliseconds();
    pass(i);
    totals[i] = milliseconds() - start;
  }
  for (int i = 0; i < layer_count; i++) {
    qsort(layer_times[i], passes, sizeof(double), by_value);
    printf("layer %s %s %.1f\n", layers[i].shape, layers[i].implementation, layer_times[i][passes / 2]);
  }
  qsort(totals, passes, sizeof(double), by_value);
  printf("pass %.3f\n", totals[passes / 2]);
  return 0;
}
