// Times one 1×1 convolution (a GEMM of pixels × input channels by input × output channels)
// through the system XNNPACK's operator API, in f32 and in qc8 (int8 activations, per-channel
// int8 weights), single-threaded, and prints the best of `runs` passes of each as one line:
//   <pixels> <in> <out> <f32 ms> <qc8 ms>
//
//   cc -O2 pointwise.c -o pointwise -lXNNPACK -lpthreadpool -lcpuinfo
//   ./pointwise <pixels> <in> <out> [runs]
//
// kernels.py runs it for every 1×1 layer of EfficientNet-Lite0 beside numpy's matmul.
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <xnnpack.h>

static double milliseconds(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

static double best_of(xnn_operator_t op, int runs) {
  double best = 1e30;
  xnn_run_operator(op, NULL);
  for (int r = 0; r < runs; r++) {
    const double start = milliseconds();
    xnn_run_operator(op, NULL);
    const double elapsed = milliseconds() - start;
    if (elapsed < best) best = elapsed;
  }
  return best;
}

int main(int argc, char** argv) {
  if (argc < 4) {
    fprintf(stderr, "usage: pointwise <pixels> <in> <out> [runs]\n");
    return 2;
  }
  const size_t pixels = strtoul(argv[1], NULL, 10);
  const size_t in = strtoul(argv[2], NULL, 10);
  const size_t out = strtoul(argv[3], NULL, 10);
  const int runs = argc > 4 ? atoi(argv[4]) : 30;
  if (pixels == 0 || in == 0 || out == 0 || runs <= 0 || xnn_initialize(NULL) != xnn_status_success) {
    fprintf(stderr, "pointwise: bad arguments or xnn_initialize failed\n");
    return 1;
  }
  // XNNPACK may read XNN_EXTRA_BYTES past the end of an input.
  float* weights = malloc(sizeof(float) * in * out);
  float* bias = calloc(out, sizeof(float));
  float* input = malloc(sizeof(float) * pixels * in + XNN_EXTRA_BYTES);
  float* output = malloc(sizeof(float) * pixels * out);
  int8_t* qweights = malloc(in * out);
  int32_t* qbias = calloc(out, sizeof(int32_t));
  float* qscales = malloc(sizeof(float) * out);
  int8_t* qinput = malloc(pixels * in + XNN_EXTRA_BYTES);
  int8_t* qoutput = malloc(pixels * out);
  srand(1);
  for (size_t i = 0; i < in * out; i++) {
    qweights[i] = (int8_t)(rand() % 255 - 127);
    weights[i] = qweights[i] / 1000.0f;
  }
  for (size_t i = 0; i < out; i++) qscales[i] = 1.0f / 1000.0f;
  for (size_t i = 0; i < pixels * in; i++) {
    qinput[i] = (int8_t)(rand() % 256 - 128);
    input[i] = (qinput[i] + 128) * (6.0f / 255.0f);
  }
  xnn_operator_t f32 = NULL, qc8 = NULL;
  if (xnn_create_convolution2d_nhwc_f32(
        0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, in, out, in, out, weights, bias, -INFINITY, INFINITY,
        0, &f32) != xnn_status_success ||
      xnn_setup_convolution2d_nhwc_f32(f32, 1, pixels, 1, input, output, NULL) !=
        xnn_status_success ||
      xnn_create_convolution2d_nhwc_qc8(
        0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, in, out, in, out, -128, 6.0f / 255.0f, qscales,
        qweights, qbias, 0, 0.05f, -128, 127, 0, &qc8) != xnn_status_success ||
      xnn_setup_convolution2d_nhwc_qc8(qc8, 1, pixels, 1, qinput, qoutput, NULL) !=
        xnn_status_success) {
    fprintf(stderr, "pointwise: XNNPACK refused the operator\n");
    return 1;
  }
  const double f32_ms = best_of(f32, runs);
  const double qc8_ms = best_of(qc8, runs);
  printf("%zu %zu %zu %.4f %.4f\n", pixels, in, out, f32_ms, qc8_ms);
  xnn_delete_operator(f32);
  xnn_delete_operator(qc8);
  return 0;
}
