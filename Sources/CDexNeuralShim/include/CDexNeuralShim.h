// The classifier network on oneDNN, behind plain C functions that return error codes: the only
// code that calls oneDNN's C API. DexImaging's classifier engine describes the layers and their
// plain weights; this shim builds the primitives, reorders the weights and runs inferences.
#ifndef CDEX_NEURAL_SHIM_H
#define CDEX_NEURAL_SHIM_H

// Empty unless on Linux with the OneDNN trait: Package.swift defines DEXKIT_TRAIT_ONEDNN
// for this target's C only then. Swift's importer does not see that define; it is recognised by
// __swift__, and Swift imports this module only under `os(Linux) && OneDNN`.
#if defined(__linux__) && (defined(DEXKIT_TRAIT_ONEDNN) || defined(__swift__))

#include <stddef.h>

#include "CDexStatus.h"  // DEX_STATUS_*: the result codes of every fallible function here

#ifdef __cplusplus
extern "C" {
#endif

/// One convolution of the network, NHWC, TensorFlow "SAME" padding.
typedef struct {
  int kernel;
  int stride;
  int input_channels;
  int output_channels;
  /// Nonzero for a depthwise convolution (input_channels == output_channels groups).
  int depthwise;
  /// Nonzero when ReLU6 follows (a clip to 0...6, fused as a post-op).
  int relu6;
  /// Nonzero when the layer's output adds the input of the layer `residual_from` back (the
  /// residual sum of an inverted-residual block, fused as a post-op).
  int residual;
  /// The index of the layer whose input the residual sum adds.
  int residual_from;
  /// Plain weights: `[kernel, kernel, input, output]` (HWIO); `[kernel, kernel, channels]` for a
  /// depthwise layer. Read during `dexnn_network_add_plan` only.
  const float *weights;
  const float *bias;
  /// Nonzero to compute the layer in int8: weights s8 with a scale per output channel, the
  /// input u8 (after ReLU6) or s8 with one scale per tensor, the output u8 after ReLU6, s8
  /// otherwise (a residual sum's output keeps its block input's type). Needs `output_range`.
  int int8;
  /// The largest magnitude this layer's output (after its residual sum) reaches on the
  /// calibration photos: the scale of its 8-bit output. Read only for int8 layers and the
  /// layers whose output an int8 layer reads.
  float output_range;
  /// The mean of each input channel (before quantization) over the calibration photos, or NULL.
  /// An int8 layer subtracts from its bias the mean its rounded weights add to each output
  /// (`(s8 weights × scale − weights) · input_means`: bias correction, which on EfficientNet-Lite0
  /// halves the logits' distance from f32 at no cost per pass). Read during plan building only.
  const float *input_means;
} dexnn_layer;

/// The whole network: convolutions, then global average pooling and a fully connected layer.
typedef struct {
  const dexnn_layer *layers;
  int layer_count;
  /// The input's side in pixels (square, 3 channels).
  int input_size;
  int features;
  int classes;
  /// `[features, classes]`.
  const float *classifier_weights;
  const float *classifier_bias;
  /// The largest magnitude of the input on the calibration photos (for an int8 first layer).
  float input_range;
  /// Blocks whose expanded activation has more bytes than `fusion_from_bytes` run fused, band
  /// by band through a tile of `fusion_tile_bytes` (f32 only). 0: from the processor's L2
  /// cache (the whole L2; 3/8 of it). The tests set both to run other band geometries.
  size_t fusion_tile_bytes;
  size_t fusion_from_bytes;
  /// For the tests: nonzero makes every fused block act as if one of its bands had fallen to
  /// oneDNN's reference kernel, so that it is built again layer by layer.
  int fusion_rejects_bands;
} dexnn_graph;

typedef struct dexnn_network dexnn_network;

/// The file name the shim loads oneDNN from.
#define DEXNN_LIBRARY "libdnnl.so.2"

/// Loads `library` (NULL: DEXNN_LIBRARY; loaded once per process) and makes the oneDNN CPU
/// engine; `message` says why on failure (DEX_STATUS_UNAVAILABLE when the library cannot be
/// loaded). A name other than DEXNN_LIBRARY is only tried (the tests name a missing one).
int dexnn_network_create(
    dexnn_network **network, const char *library, char *message, size_t message_size);

/// The most threads a plan is built for.
#define DEXNN_MAX_THREADS 64

/// Builds the primitives of `graph` for inferences on `threads` threads (1...DEXNN_MAX_THREADS)
/// and reorders its weights (reusing another plan's reordered weights wherever the layouts
/// agree). Thread-safe.
int dexnn_network_add_plan(
    dexnn_network *network, const dexnn_graph *graph, int threads, char *message,
    size_t message_size);

/// Runs one inference on `threads` threads (the caller and `threads - 1` helper threads of the
/// shim's own): `input` is `input_size² × 3` floats (NHWC), `logits` receives `classes` floats.
/// Each concurrent call works in buffers of its own. Thread-safe.
int dexnn_network_run(
    dexnn_network *network, int threads, const float *input, float *logits, char *message,
    size_t message_size);

/// The kernel implementations the plan for `threads` uses, comma-separated (for tests and logs);
/// a fused block's steps are its bands' primitives and "copy" steps.
int dexnn_network_implementations(
    dexnn_network *network, int threads, char *text, size_t text_size);

/// How many blocks the plan for `threads` runs fused (band by band through a tile), or -1 when
/// there is no such plan yet.
int dexnn_network_fused_blocks(dexnn_network *network, int threads);

void dexnn_network_destroy(dexnn_network *network);

/// For the tests: helper threads made from now on wait `microseconds` before they first run, as
/// a thread the scheduler starts late would (0 ends it).
void dexnn_delay_helper_start_for_testing(int microseconds);

/// The instruction set oneDNN's kernels use in this process (after ONEDNN_MAX_CPU_ISA), such as
/// "avx512_core_vnni".
const char *dexnn_instruction_set(void);

/// Nonzero when the processor, as oneDNN sees it (after ONEDNN_MAX_CPU_ISA), has the VNNI
/// instructions (`avx512_core_vnni` and later, `avx2_vnni`) that make its int8 kernels pay.
int dexnn_has_vnni(void);

/// Nonzero when this build has the oneDNN backend: 0 when the OneDNN trait was on but oneDNN 2's
/// headers were not there to compile against (then every function above reports
/// DEX_STATUS_UNAVAILABLE).
int dexnn_is_built_in(void);

#ifdef __cplusplus
}
#endif

#endif  // defined(__linux__) && (defined(DEXKIT_TRAIT_ONEDNN) || defined(__swift__))
#endif
