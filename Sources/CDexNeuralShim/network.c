// The classifier network on oneDNN (2.x C API). See include/CDexNeuralShim.h.
//
// A plan holds the primitives built for one thread count: every layer a primitive whose source,
// weights and destination layouts oneDNN chose itself (`dnnl_format_tag_any`; on the machines
// measured it keeps NHWC from the stem to the pooling), a reorder only where a primitive asks for
// another layout than its producer wrote. Bias, ReLU6 (clip 0...6) and the residual sum are
// post-ops. The 1x1 layers whose weights outweigh their pixels (7x7 and 14x14, and the
// classifier) are matrix products split by output channel, in every plan.
//
// Blocks whose expanded activation outgrows the L2 cache run fused, band by band through a tile
// (`add_fused`); their steps are the same single-threaded primitives on shorter images.
//
// Every primitive is single-threaded (OpenMP's thread count is one while they are made and run).
// A plan for more threads splits each layer into bands: rows of the output (with the input rows
// they need), pixels of a 1x1 layer, or output channels; the calling thread and the context's
// helper threads take the bands of a layer in turn (`run_group`). A context is one in-flight
// inference's activations, scratchpads, streams and helpers; idle ones are kept for the next call.
#if defined(__linux__) && defined(DEXKIT_TRAIT_ONEDNN)
#define _GNU_SOURCE  // posix_memalign, dlopen, sched_getcpu, CPU_SET

#include "CDexNeuralShim.h"

// Compiled only on Linux with the OneDNN trait (Package.swift defines the macro then; the helpers
// use futexes and Linux affinity calls): elsewhere the file is empty and needs no dnnl.h. With the
// trait but without oneDNN 2's headers (none installed, or oneDNN 3, whose C API differs: Debian
// 13 ships only 3.7) the functions below report DEX_STATUS_UNAVAILABLE and the classifier runs its
// portable Swift path; dexnn_is_built_in() says which.
#if __has_include(<dnnl_version.h>)
#include <dnnl_version.h>
#endif
#if defined(DNNL_VERSION_MAJOR) && DNNL_VERSION_MAJOR == 2

#include <dnnl.h>
#include <dnnl_debug.h>
#include <dlfcn.h>
#include <limits.h>
#include <linux/futex.h>
#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

// oneDNN is loaded at run time (dlopen), not linked: a host without libdnnl still starts and
// the classifier falls back to its portable path.
#define DEX_DNNL_FUNCTIONS(X) \
  X(dnnl_convolution_forward_desc_init) \
  X(dnnl_engine_create) \
  X(dnnl_engine_destroy) \
  X(dnnl_get_effective_cpu_isa) \
  X(dnnl_matmul_desc_init) \
  X(dnnl_memory_create) \
  X(dnnl_memory_desc_equal) \
  X(dnnl_memory_desc_get_size) \
  X(dnnl_memory_desc_init_by_strides) \
  X(dnnl_memory_desc_init_by_tag) \
  X(dnnl_memory_destroy) \
  X(dnnl_memory_set_data_handle) \
  X(dnnl_pooling_v2_forward_desc_init) \
  X(dnnl_post_ops_append_eltwise) \
  X(dnnl_post_ops_append_sum) \
  X(dnnl_post_ops_create) \
  X(dnnl_post_ops_destroy) \
  X(dnnl_primitive_attr_create) \
  X(dnnl_primitive_attr_destroy) \
  X(dnnl_primitive_attr_set_output_scales) \
  X(dnnl_primitive_attr_set_post_ops) \
  X(dnnl_primitive_attr_set_scratchpad_mode) \
  X(dnnl_primitive_create) \
  X(dnnl_primitive_desc_create) \
  X(dnnl_primitive_desc_destroy) \
  X(dnnl_primitive_desc_query) \
  X(dnnl_primitive_desc_query_md) \
  X(dnnl_primitive_destroy) \
  X(dnnl_primitive_execute) \
  X(dnnl_reorder_primitive_desc_create) \
  X(dnnl_status2str) \
  X(dnnl_stream_create) \
  X(dnnl_stream_destroy) \
  X(dnnl_stream_wait)

static struct {
#define DEX_DECLARE(name) __typeof__(&name) name;
  DEX_DNNL_FUNCTIONS(DEX_DECLARE)
  // libgomp's: the thread count of the calling thread's next parallel regions.
  int (*omp_get_max_threads)(void);
  void (*omp_set_num_threads)(int);
} api;
static char load_error[200];
/// Held while a plan is built (see `dexnn_network_add_plan`).
static pthread_mutex_t building = PTHREAD_MUTEX_INITIALIZER;
static pthread_once_t load_once = PTHREAD_ONCE_INIT;

/// dlopen's handle of `name`, or NULL with the reason in `error`.
static void *open_library(const char *name, char *error, size_t size) {
  void *library = dlopen(name, RTLD_NOW | RTLD_LOCAL);
  if (!library) {
    const char *reason = dlerror();
    snprintf(error, size, "%s", reason ? reason : "cannot be loaded");
  }
  return library;
}

static void *symbol(void *library, const char *name) {
  void *address = dlsym(library, name);
  if (!address && !load_error[0]) snprintf(load_error, sizeof(load_error), "no %s in libdnnl", name);
  return address;
}

/// Loads libdnnl once. Every primitive is made and run with OpenMP's thread count at one (more
/// threads are the shim's own, see `run_group`), so libgomp never starts a team of its own and
/// its wait policy does not matter.
static void load(void) {
  void *library = open_library(DEXNN_LIBRARY, load_error, sizeof(load_error));
  if (!library) return;
#define DEX_LOAD(name) *(void **)(&api.name) = symbol(library, #name);
  DEX_DNNL_FUNCTIONS(DEX_LOAD)
  *(void **)(&api.omp_get_max_threads) = symbol(library, "omp_get_max_threads");
  *(void **)(&api.omp_set_num_threads) = symbol(library, "omp_set_num_threads");
}

enum { BUFFER_INPUT = -1, BUFFER_OUTPUT = -2, NO_BUFFER = -4, BUFFER_COUNT = 4, IDLE_CONTEXTS = 2 };
// The tiles of the fused blocks (see `add_fused`): two per chain, after the activation buffers.
enum { TILE_BUFFERS = 2 * DEXNN_MAX_THREADS, ALL_BUFFERS = BUFFER_COUNT + TILE_BUFFERS };
enum { ARG_SRC, ARG_DST, ARG_WEIGHTS, ARG_BIAS, ARG_SCRATCHPAD, ARG_COUNT };

typedef struct {
  dnnl_primitive_t primitive;  // NULL for a copy step (`copy_bytes` from source to destination)
  size_t copy_bytes;
  dnnl_memory_desc_t mds[ARG_COUNT];
  int has_weights;
  int src, dst;      // buffer indices (or BUFFER_INPUT / BUFFER_OUTPUT)
  int layer;         // the graph layer (layer_count = the classifier), -1 for a reorder
  void *weights;     // reordered weights and bias, maybe another plan's
  void *bias;
  int owns_weights;
  size_t weight_offset;  // the first output channel of a band's slice of the layer's weights
  size_t src_offset;  // bytes into the source and destination buffers (a band's first row)
  size_t dst_offset;
  int group;          // consecutive steps of one group (>= 0) are bands run side by side
  int chain;          // the band of its group: the steps of one band run in order, on one thread
  char implementation[48];
} step;

/// One in-flight inference. With a banded plan it has `workers - 1` helper threads that run
/// bands beside the calling thread (see `run_group`).
typedef struct context {
  struct context *next;
  void *buffers[ALL_BUFFERS];
  const void *input;  // the running inference's input (a copy step may read it)
  dnnl_memory_t *memories;  // step_count × ARG_COUNT (the scratchpad one is worker 0's)
  int workers;
  dnnl_stream_t *streams;            // one per worker
  void **scratchpads;                // one per worker
  dnnl_memory_t *scratch_memories;   // workers × step_count (worker 0's are in `memories`)
  pthread_t *helpers;                // workers - 1
  int helper_count;                  // started
  const struct plan *plan;
  // The group being run: generation << 32 | band count << 16 | next band to claim.
  _Atomic uint64_t claim;
  _Atomic uint32_t generation;       // a futex word: bumped for each group and to quit
  _Atomic int first;                 // the group's first step
  _Atomic int steps;                 // and its step count
  _Atomic int done;                  // bands of the group finished
  _Atomic int sleepers;              // helpers asleep on `generation`
  _Atomic int quit;
  _Atomic int status;                // a helper's failure, dnnl_success otherwise
  _Atomic int caller_cpu;            // the processor the caller last published a group from
} context;

typedef struct plan {
  struct plan *next;
  int threads;
  step *steps;
  int step_count;
  size_t buffer_size;
  size_t tile_size;
  int fused_blocks;  // blocks run band by band (see `add_fused`)
  size_t scratchpad_size;
  context *idle;
  int idle_count;
} plan;

struct dexnn_network {
  dnnl_engine_t engine;
  pthread_mutex_t lock;
  plan *plans;
};

static int fail(char *message, size_t size, const char *what, dnnl_status_t status) {
  if (message && size) snprintf(message, size, "%s: %s", what, api.dnnl_status2str(status));
  return DEX_STATUS_LIBRARY_ERROR;
}

static void *aligned(size_t size) {
  void *pointer = NULL;
  if (posix_memalign(&pointer, 64, size ? size : 64) != 0) return NULL;
  return pointer;
}

static const dnnl_memory_desc_t *query(const_dnnl_primitive_desc_t pd, dnnl_query_t what) {
  return api.dnnl_primitive_desc_query_md(pd, what, 0);
}

/// Copies `from` (laid out as `from_md`) into `to` (as `to_md`) with a one-off reorder.
static dnnl_status_t reorder_now(
    dnnl_engine_t engine, const dnnl_memory_desc_t *from_md, const void *from,
    const dnnl_memory_desc_t *to_md, void *to, const_dnnl_primitive_attr_t attr) {
  if (!attr && api.dnnl_memory_desc_equal(from_md, to_md)) {
    memcpy(to, from, api.dnnl_memory_desc_get_size(to_md));
    return dnnl_success;
  }
  dnnl_memory_t source = NULL, target = NULL;
  dnnl_primitive_desc_t pd = NULL;
  dnnl_primitive_t primitive = NULL;
  dnnl_stream_t stream = NULL;
  dnnl_status_t status = api.dnnl_memory_create(&source, from_md, engine, (void *)from);
  if (status == dnnl_success) status = api.dnnl_memory_create(&target, to_md, engine, to);
  if (status == dnnl_success)
    status = api.dnnl_reorder_primitive_desc_create(&pd, from_md, engine, to_md, engine, attr);
  if (status == dnnl_success) status = api.dnnl_primitive_create(&primitive, pd);
  if (status == dnnl_success) status = api.dnnl_stream_create(&stream, engine, dnnl_stream_default_flags);
  if (status == dnnl_success) {
    dnnl_exec_arg_t args[] = {{DNNL_ARG_FROM, source}, {DNNL_ARG_TO, target}};
    status = api.dnnl_primitive_execute(primitive, stream, 2, args);
  }
  if (status == dnnl_success) status = api.dnnl_stream_wait(stream);
  if (stream) api.dnnl_stream_destroy(stream);
  if (primitive) api.dnnl_primitive_destroy(primitive);
  if (pd) api.dnnl_primitive_desc_destroy(pd);
  if (target) api.dnnl_memory_destroy(target);
  if (source) api.dnnl_memory_destroy(source);
  return status;
}

/// The state while a plan's steps are laid out.
typedef struct {
  dexnn_network *network;
  plan *plan;
  int capacity;
  dnnl_memory_desc_t current_md;
  float current_scale;  // a stored value times this is the real one (1 for f32)
  float current_range;  // the calibrated largest magnitude of the current activation
  int current_signed;   // whether it can be negative (not after ReLU6)
  int current;       // the buffer holding the current activation
  int kept;          // a buffer that must not be overwritten (a residual's input), or -3
  int bands;         // row bands per convolution (1: whole layers)
  int channel_bands; // output-channel bands of the 1×1 layers that run as matrix products
  int groups;        // band groups so far
  size_t tile_bytes;       // a fused block's tile (see `add_fused`)
  size_t fuse_from_bytes;  // the smallest expanded activation run fused
  char *message;
  size_t message_size;
} builder;

static int free_buffer(const builder *b) {
  for (int i = 0; i < BUFFER_COUNT; i++)
    if (i != b->current && i != b->kept) return i;
  return 0;
}

/// Removes the steps of `p` from `first` on (their primitives and the weights they own).
static void drop_steps(plan *p, int first) {
  for (int i = first; i < p->step_count; i++) {
    step *s = &p->steps[i];
    if (s->primitive) api.dnnl_primitive_destroy(s->primitive);
    if (s->owns_weights) {
      free(s->weights);
      free(s->bias);
    }
  }
  p->step_count = first;
}

/// Room for one more step (zeroed, not yet counted), or NULL.
static step *next_step(builder *b) {
  if (b->plan->step_count == b->capacity) {
    int capacity = b->capacity * 2 + 16;
    step *steps = realloc(b->plan->steps, sizeof(step) * capacity);
    if (!steps) return NULL;
    b->plan->steps = steps;
    b->capacity = capacity;
  }
  step *s = &b->plan->steps[b->plan->step_count];
  memset(s, 0, sizeof(*s));
  return s;
}

/// Appends a step for `pd` (taking ownership), reading the current buffer and writing `dst`.
static int append(builder *b, dnnl_primitive_desc_t pd, int dst, int layer, int has_weights) {
  step *s = next_step(b);
  if (!s) {
    api.dnnl_primitive_desc_destroy(pd);
    return DEX_STATUS_OUT_OF_MEMORY;
  }
  dnnl_status_t status = api.dnnl_primitive_create(&s->primitive, pd);
  if (status != dnnl_success) {
    api.dnnl_primitive_desc_destroy(pd);
    return fail(b->message, b->message_size, "dnnl_primitive_create", status);
  }
  b->plan->step_count++;
  const dnnl_query_t queries[ARG_COUNT] = {dnnl_query_src_md, dnnl_query_dst_md,
      dnnl_query_weights_md, dnnl_query_weights_md, dnnl_query_scratchpad_md};
  for (int i = 0; i < ARG_COUNT; i++) {
    const dnnl_memory_desc_t *md =
        i == ARG_BIAS ? api.dnnl_primitive_desc_query_md(pd, dnnl_query_weights_md, 1)
                      : query(pd, queries[i]);
    if (md) s->mds[i] = *md;
  }
  size_t scratch = api.dnnl_memory_desc_get_size(&s->mds[ARG_SCRATCHPAD]);
  if (scratch > b->plan->scratchpad_size) b->plan->scratchpad_size = scratch;
  size_t size = api.dnnl_memory_desc_get_size(&s->mds[ARG_DST]);
  if (dst >= 0 && dst < BUFFER_COUNT && size > b->plan->buffer_size) b->plan->buffer_size = size;
  const char *name = NULL;
  api.dnnl_primitive_desc_query(pd, dnnl_query_impl_info_str, 0, &name);
  snprintf(s->implementation, sizeof(s->implementation), "%s", name ? name : "?");
  s->src = b->current;
  s->dst = dst;
  s->group = -1;
  s->layer = layer;
  s->has_weights = has_weights;
  b->current = dst;
  b->current_md = s->mds[ARG_DST];
  api.dnnl_primitive_desc_destroy(pd);
  return DEX_STATUS_OK;
}

/// A primitive's attributes: the scales of its output (int8), a residual sum, a ReLU6 clip.
typedef struct {
  dnnl_dim_t scale_count;  // 0: no output scales
  int scale_mask;
  const float *scales;
  int sum;
  float sum_scale;
  float clip;  // ReLU6's upper bound in the output's units, 0 for none
} attr_spec;

static dnnl_primitive_attr_t attributes(const attr_spec *spec);

/// Makes the current activation `md` with stored values `scale` times the real ones' reciprocal
/// (1 for f32), with a reorder step where it is laid out, typed or scaled otherwise.
static int make_current(builder *b, const dnnl_memory_desc_t *md, float scale) {
  if (api.dnnl_memory_desc_equal(&b->current_md, md) && b->current_scale == scale) return DEX_STATUS_OK;
  dnnl_primitive_desc_t pd = NULL;
  dnnl_engine_t engine = b->network->engine;
  float factor = b->current_scale / scale;
  attr_spec spec = {factor == 1.0f ? 0 : 1, 0, &factor, 0, 0, 0};
  dnnl_primitive_attr_t attr = attributes(&spec);
  if (!attr) return DEX_STATUS_OUT_OF_MEMORY;
  dnnl_status_t status =
      api.dnnl_reorder_primitive_desc_create(&pd, &b->current_md, engine, md, engine, attr);
  api.dnnl_primitive_attr_destroy(attr);
  if (status != dnnl_success) return fail(b->message, b->message_size, "reorder", status);
  int result = append(b, pd, free_buffer(b), -1, 0);
  if (result == DEX_STATUS_OK) b->current_scale = scale;
  return result;
}

/// Reorders a layer's plain weights and bias into the layouts its primitive chose, or shares
/// them with another step of the layer that chose the same layouts.
/// For an int8 layer, `scales` holds each output channel's weight scale (the weights are
/// divided by it into s8) and the bias is divided by it and `src_scale` (oneDNN 2.x adds the
/// bias to the int32 sums, before the output scales).
/// A step of `p` (before `s`, if `s` is one of its own) that owns the weights `s` needs.
static const step *weights_for(const plan *p, const step *s) {
  for (int i = 0; i < p->step_count && &p->steps[i] != s; i++) {
    const step *o = &p->steps[i];
    if (o->layer == s->layer && o->owns_weights && o->weight_offset == s->weight_offset &&
        api.dnnl_memory_desc_equal(&o->mds[ARG_WEIGHTS], &s->mds[ARG_WEIGHTS]) &&
        api.dnnl_memory_desc_equal(&o->mds[ARG_BIAS], &s->mds[ARG_BIAS]))
      return o;
  }
  return NULL;
}

static int place_weights(
    builder *b, step *s, const dnnl_memory_desc_t *plain, const float *weights,
    const float *bias, const float *scales, float src_scale) {
  // The row bands of a layer, and the plans for other thread counts, share one copy wherever
  // the layouts agree.
  const step *o = weights_for(b->plan, s);
  for (plan *other = b->network->plans; other && !o; other = other->next) o = weights_for(other, s);
  if (o) {
    s->weights = o->weights;
    s->bias = o->bias;
    return DEX_STATUS_OK;
  }
  s->weights = aligned(api.dnnl_memory_desc_get_size(&s->mds[ARG_WEIGHTS]));
  s->bias = aligned(api.dnnl_memory_desc_get_size(&s->mds[ARG_BIAS]));
  if (!s->weights || !s->bias) {
    free(s->weights);
    free(s->bias);
    s->weights = s->bias = NULL;
    return DEX_STATUS_OUT_OF_MEMORY;
  }
  s->owns_weights = 1;
  dnnl_memory_desc_t bias_md = s->mds[ARG_BIAS];  // a matmul's is {1, channels}
  dnnl_dim_t channels = bias_md.dims[bias_md.ndims - 1];
  dnnl_status_t status = api.dnnl_memory_desc_init_by_tag(
      &bias_md, bias_md.ndims, bias_md.dims, dnnl_f32, bias_md.ndims == 2 ? dnnl_ab : dnnl_x);
  dnnl_primitive_attr_t attr = NULL;
  float *quantized = NULL;
  if (scales) {
    quantized = malloc(sizeof(float) * (size_t)channels * 2);
    if (!quantized) return DEX_STATUS_OUT_OF_MEMORY;
    for (dnnl_dim_t c = 0; c < channels; c++) {
      quantized[c] = 1.0f / scales[c];
      quantized[channels + c] = bias[c] / (src_scale * scales[c]);
    }
    bias = quantized + channels;
    attr_spec spec = {channels, 1 << 0, quantized, 0, 0, 0};  // per output channel (or group)
    if (!(attr = attributes(&spec))) status = dnnl_out_of_memory;
    // A one-off reorder: oneDNN keeps its own scratchpad (for the s8 weights' compensation).
    else status = api.dnnl_primitive_attr_set_scratchpad_mode(attr, dnnl_scratchpad_mode_library);
  }
  if (status == dnnl_success)
    status = reorder_now(b->network->engine, plain, weights, &s->mds[ARG_WEIGHTS], s->weights, attr);
  if (status == dnnl_success)
    status = reorder_now(b->network->engine, &bias_md, bias, &s->mds[ARG_BIAS], s->bias, NULL);
  if (attr) api.dnnl_primitive_attr_destroy(attr);
  free(quantized);
  if (status != dnnl_success) return fail(b->message, b->message_size, "weights reorder", status);
  return DEX_STATUS_OK;
}

/// A primitive descriptor for an op descriptor made by `init`, with the source layout oneDNN
/// picks itself (`dnnl_format_tag_any`), behind a reorder where the current activation is laid
/// out otherwise. Handing a primitive its producer's layout instead keeps the input's plain NHWC
/// all the way (slower kernels), or falls to the reference kernels (a depthwise layer on a plain
/// source took 258 ms). Pooling takes no `any` source: it gets the current layout.
typedef dnnl_status_t (*op_init)(void *op, const dnnl_memory_desc_t *src, const void *context);
static dnnl_status_t init_pool(void *op, const dnnl_memory_desc_t *src, const void *context);

static int describe(
    builder *b, op_init init, void *op, const void *context, const_dnnl_primitive_attr_t attr,
    dnnl_primitive_desc_t *pd, dnnl_data_type_t src_type, float src_scale) {
  dnnl_memory_desc_t any = b->current_md;
  dnnl_status_t status = init == init_pool ? dnnl_success
      : api.dnnl_memory_desc_init_by_tag(&any, b->current_md.ndims, b->current_md.dims,
            src_type, dnnl_format_tag_any);
  if (status == dnnl_success) status = init(op, &any, context);
  if (status == dnnl_success)
    status = api.dnnl_primitive_desc_create(pd, op, attr, b->network->engine, NULL);
  if (status != dnnl_success) return fail(b->message, b->message_size, "primitive", status);
  int result = make_current(b, query(*pd, dnnl_query_src_md), src_scale);
  if (result != DEX_STATUS_OK) {
    api.dnnl_primitive_desc_destroy(*pd);
    *pd = NULL;
  }
  return result;
}

typedef struct {
  dnnl_memory_desc_t weights, bias, dst;
  dnnl_dims_t strides, padding_l, padding_r;
} conv_shape;

static dnnl_status_t init_conv(void *op, const dnnl_memory_desc_t *src, const void *context) {
  const conv_shape *c = context;
  return api.dnnl_convolution_forward_desc_init(op, dnnl_forward_inference,
      dnnl_convolution_direct, src, &c->weights, &c->bias, &c->dst, c->strides, c->padding_l,
      c->padding_r);
}

static size_t element_size(dnnl_data_type_t type) { return type == dnnl_f32 ? 4 : 1; }

/// Whether `md` is a dense NHWC tensor (the layout every band reads and writes).
static int is_nhwc(const dnnl_memory_desc_t *md) {
  dnnl_memory_desc_t nhwc;
  return md->ndims == 4 &&
      api.dnnl_memory_desc_init_by_tag(&nhwc, 4, md->dims, md->data_type, dnnl_nhwc) ==
          dnnl_success &&
      api.dnnl_memory_desc_equal(&nhwc, md);
}

/// A layer's plain weights (`[input, output]`, output fastest) and bias, from which a band takes
/// its output channels.
typedef struct {
  const float *weights, *bias;
  dnnl_dim_t outputs;
} weights_slice;

static int place_weights(builder *b, step *s, const dnnl_memory_desc_t *plain,
    const float *weights, const float *bias, const float *scales, float src_scale);

/// A 1×1 convolution (or the classifier) as matrix products over bands of its output channels,
/// for the layers whose weights outweigh their pixels (7×7 and 14×14, the classifier): each band
/// reads all `pixels × inputs` of the source and its own slice of the weights, and writes its
/// columns of the NHWC destination (rows `outputs` apart). Splitting pixels instead, each band
/// would stream every weight: a 7×7 band of 28 pixels took as long as one of 21. f32 only (an
/// int8 layer stays a convolution).
static int add_matmul_bands(builder *b, int index, dnnl_dim_t pixels, dnnl_dim_t inputs,
    const attr_spec *spec, int dst, const weights_slice *w) {
  const dnnl_dim_t outputs = w->outputs, most = outputs / 16 > 1 ? outputs / 16 : 1;
  const int bands = b->channel_bands < most ? b->channel_bands : (int)most;
  const int group = b->groups++, source = b->current;
  const dnnl_data_type_t dst_type = dnnl_f32;
  if (b->current_md.data_type != dnnl_f32 || spec->scale_count)
    return fail(b->message, b->message_size, "matmul band", dnnl_unimplemented);
  dnnl_memory_desc_t src;
  dnnl_dims_t src_dims = {pixels, inputs};
  dnnl_status_t status =
      api.dnnl_memory_desc_init_by_tag(&src, 2, src_dims, b->current_md.data_type, dnnl_ab);
  if (status != dnnl_success) return fail(b->message, b->message_size, "matmul band", status);
  for (int j = 0; j < bands; j++) {
    // Channel slices in whole 16s (one AVX-512 register of f32) where the count allows.
    dnnl_dim_t first = outputs * j / bands, last = outputs * (j + 1) / bands;
    if (outputs % (16 * bands) == 0 || outputs >= 64 * bands) {
      first = first / 16 * 16;
      last = j == bands - 1 ? outputs : last / 16 * 16;
    }
    dnnl_dim_t count = last - first;
    dnnl_dims_t weight_dims = {inputs, count}, bias_dims = {1, count}, dst_dims = {pixels, count};
    dnnl_dims_t dst_strides = {outputs, 1}, plain_strides = {outputs, 1};
    dnnl_memory_desc_t weights, bias, band_dst, plain;
    status = api.dnnl_memory_desc_init_by_tag(&weights, 2, weight_dims, dnnl_f32, dnnl_format_tag_any);
    if (status == dnnl_success)
      status = api.dnnl_memory_desc_init_by_tag(&bias, 2, bias_dims, dnnl_f32, dnnl_ab);
    if (status == dnnl_success)
      status = pixels == 1  // one row: dense, which oneDNN's brgemm kernels take
          ? api.dnnl_memory_desc_init_by_tag(&band_dst, 2, dst_dims, dst_type, dnnl_ab)
          : api.dnnl_memory_desc_init_by_strides(&band_dst, 2, dst_dims, dst_type, dst_strides);
    if (status == dnnl_success)
      status = api.dnnl_memory_desc_init_by_strides(&plain, 2, weight_dims, dnnl_f32, plain_strides);
    dnnl_primitive_attr_t attr = status == dnnl_success ? attributes(spec) : NULL;
    if (status == dnnl_success && !attr) return DEX_STATUS_OUT_OF_MEMORY;
    dnnl_matmul_desc_t op;
    dnnl_primitive_desc_t pd = NULL;
    if (status == dnnl_success) status = api.dnnl_matmul_desc_init(&op, &src, &weights, &bias, &band_dst);
    if (status == dnnl_success)
      status = api.dnnl_primitive_desc_create(&pd, &op, attr, b->network->engine, NULL);
    if (attr) api.dnnl_primitive_attr_destroy(attr);
    if (status != dnnl_success) return fail(b->message, b->message_size, "matmul band", status);
    b->current = source;
    int result = append(b, pd, dst, index, 1);
    if (result != DEX_STATUS_OK) return result;
    step *s = &b->plan->steps[b->plan->step_count - 1];
    s->group = group;
    s->chain = j;
    s->weight_offset = (size_t)first;
    s->dst_offset = (size_t)first * element_size(dst_type);
    result = place_weights(b, s, &plain, w->weights + first, w->bias + first, NULL, 1.0f);
    if (result != DEX_STATUS_OK) return result;
  }
  return DEX_STATUS_OK;
}

/// One band of a convolution: which output rows it computes, from where, into where.
typedef struct {
  dnnl_dim_t side, out;  // the layer's input and output width
  dnnl_dim_t first, last;  // the band's output rows, or with `pixels` its output pixels
  int pixels;  // a stride-1 1×1 layer split by pixels, each band a one-row image
  dnnl_data_type_t src_type, dst_type;
  int src;  // the buffer the input rows are read from...
  dnnl_dim_t src_row;  // ...whose start is this input row (pixel)
  int dst;  // the buffer the band is written to...
  size_t dst_offset;  // ...at this offset
  int group, chain;
} band_spec;

/// Appends one band of a convolution (NHWC on both sides: a band's rows are one contiguous run
/// of its buffers, so a band is the same layer on a shorter image at an offset), with the
/// layer's padding at the image's top and bottom edges only. The caller places its weights.
static int add_band(builder *b, int index, const conv_shape *c, const band_spec *r,
    const_dnnl_primitive_attr_t attr) {
  const int grouped = c->weights.ndims == 5;
  const dnnl_dim_t cout = c->weights.dims[0], cin = grouped ? cout : c->weights.dims[1];
  const dnnl_dim_t k = c->weights.dims[grouped ? 3 : 2], stride = c->strides[0];
  const dnnl_dim_t limit = r->pixels ? r->out * r->out : r->side;  // input rows (pixels)
  dnnl_dim_t from = r->first * stride - c->padding_l[0];
  dnnl_dim_t to = (r->last - 1) * stride - c->padding_l[0] + k;
  conv_shape band = *c;
  band.padding_l[0] = from < 0 ? -from : 0;
  band.padding_r[0] = to > limit ? to - limit : 0;
  if (from < 0) from = 0;
  if (to > limit) to = limit;
  dnnl_dims_t src_dims = {1, cin, to - from, r->side}, dst_dims = {1, cout, r->last - r->first, r->out};
  if (r->pixels) {
    src_dims[2] = dst_dims[2] = 1;
    src_dims[3] = to - from;
    dst_dims[3] = r->last - r->first;
  }
  dnnl_memory_desc_t src;
  dnnl_status_t status = api.dnnl_memory_desc_init_by_tag(&src, 4, src_dims, r->src_type, dnnl_nhwc);
  if (status == dnnl_success)
    status = api.dnnl_memory_desc_init_by_tag(&band.dst, 4, dst_dims, r->dst_type, dnnl_nhwc);
  dnnl_convolution_desc_t op;
  dnnl_primitive_desc_t pd = NULL;
  if (status == dnnl_success) status = init_conv(&op, &src, &band);
  if (status == dnnl_success)
    status = api.dnnl_primitive_desc_create(&pd, &op, attr, b->network->engine, NULL);
  if (status != dnnl_success) return fail(b->message, b->message_size, "band", status);
  b->current = r->src;
  int result = append(b, pd, r->dst, index, 1);
  if (result != DEX_STATUS_OK) return result;
  step *s = &b->plan->steps[b->plan->step_count - 1];
  s->group = r->group;
  s->chain = r->chain;
  const size_t row = r->pixels ? 1 : (size_t)r->side;
  s->src_offset = (size_t)(from - r->src_row) * row * (size_t)cin * element_size(r->src_type);
  s->dst_offset = r->dst_offset;
  return DEX_STATUS_OK;
}

/// A convolution as `b->bands` independent bands (`add_band`), one per thread, or a 1×1 layer
/// with more output channels than pixels as matrix products split by output channel.
static int add_bands(builder *b, int index, const conv_shape *c, int side, int out,
    dnnl_data_type_t src_type, float src_scale, const_dnnl_primitive_attr_t attr, int dst,
    const attr_spec *spec, const dexnn_layer *l, int matmul) {
  dnnl_memory_desc_t full_src, full_dst = c->dst;
  const dnnl_dim_t cin = b->current_md.dims[1], cout = c->dst.dims[1];
  dnnl_dims_t src_dims = {1, cin, side, side}, dst_dims = {1, cout, out, out};
  dnnl_status_t status = api.dnnl_memory_desc_init_by_tag(&full_src, 4, src_dims, src_type, dnnl_nhwc);
  if (status == dnnl_success && c->dst.format_kind == dnnl_format_kind_any)
    status = api.dnnl_memory_desc_init_by_tag(&full_dst, 4, dst_dims, c->dst.data_type, dnnl_nhwc);
  if (status != dnnl_success) return fail(b->message, b->message_size, "band", status);
  if (!is_nhwc(&full_dst))  // a residual sum into a blocked buffer: bands write NHWC rows
    return fail(b->message, b->message_size, "band residual layout", dnnl_unimplemented);
  int result = make_current(b, &full_src, src_scale);
  if (result != DEX_STATUS_OK) return result;
  if (dst == NO_BUFFER) dst = free_buffer(b);  // after make_current, which may take one
  const dnnl_dim_t k = c->weights.ndims == 5 ? c->weights.dims[3] : c->weights.dims[2];
  const dnnl_dim_t stride = c->strides[0], before = c->padding_l[0];
  if (matmul) {
    weights_slice w = {l->weights, l->bias, cout};
    result = add_matmul_bands(b, index, (dnnl_dim_t)out * out, cin, spec, dst, &w);
    if (result != DEX_STATUS_OK) return result;
    size_t size = api.dnnl_memory_desc_get_size(&full_dst);
    if (size > b->plan->buffer_size) b->plan->buffer_size = size;
    b->current = dst;
    b->current_md = full_dst;
    return DEX_STATUS_OK;
  }
  const int source = b->current, bands = b->bands < out ? b->bands : out, group = b->groups++;
  // A 1×1 convolution (stride 1) sees pixels, not rows: its bands split the pixels evenly, each
  // as a one-row image (a 7×7 layer splits 25 + 24, not 4 + 3 rows).
  const int pixels = k == 1 && stride == 1 && before == 0;
  const dnnl_dim_t length = pixels ? (dnnl_dim_t)out * out : out;
  const size_t out_row = (pixels ? 1 : (size_t)out) * (size_t)cout * element_size(full_dst.data_type);
  for (int j = 0; result == DEX_STATUS_OK && j < bands; j++) {
    band_spec r = {side, out, length * j / bands, length * (j + 1) / bands, pixels, src_type,
        full_dst.data_type, source, 0, dst, 0, group, j};
    r.dst_offset = (size_t)r.first * out_row;
    result = add_band(b, index, c, &r, attr);
  }
  size_t size = api.dnnl_memory_desc_get_size(&full_dst);
  if (size > b->plan->buffer_size) b->plan->buffer_size = size;
  size = api.dnnl_memory_desc_get_size(&full_src);
  if (source >= 0 && size > b->plan->buffer_size) b->plan->buffer_size = size;
  b->current = dst;
  b->current_md = full_dst;
  return result;
}

typedef struct {
  dnnl_memory_desc_t dst;
  dnnl_dims_t kernel;
} pool_shape;

static dnnl_status_t init_pool(void *op, const dnnl_memory_desc_t *src, const void *context) {
  const pool_shape *p = context;
  dnnl_dims_t ones = {1, 1}, zeros = {0, 0};
  return api.dnnl_pooling_v2_forward_desc_init(op, dnnl_forward_inference,
      dnnl_pooling_avg_exclude_padding, src, &p->dst, ones, p->kernel, zeros, zeros, zeros);
}

/// TensorFlow's "SAME" rule: output size, padding before and after (the odd pixel after).
static void same(int input, int kernel, int stride, dnnl_dim_t *output, dnnl_dim_t *before,
    dnnl_dim_t *after) {
  int out = (input + stride - 1) / stride;
  int total = (out - 1) * stride + kernel - input;
  if (total < 0) total = 0;
  *output = out;
  *before = total / 2;
  *after = total - total / 2;
}

static dnnl_primitive_attr_t attributes(const attr_spec *spec) {
  dnnl_primitive_attr_t attr = NULL;
  dnnl_post_ops_t ops = NULL;
  if (api.dnnl_primitive_attr_create(&attr) != dnnl_success) return NULL;
  api.dnnl_primitive_attr_set_scratchpad_mode(attr, dnnl_scratchpad_mode_user);
  if (spec->scale_count &&
      api.dnnl_primitive_attr_set_output_scales(
          attr, spec->scale_count, spec->scale_mask, spec->scales) != dnnl_success) {
    api.dnnl_primitive_attr_destroy(attr);
    return NULL;
  }
  if (api.dnnl_post_ops_create(&ops) != dnnl_success) {
    api.dnnl_primitive_attr_destroy(attr);
    return NULL;
  }
  if (spec->sum) api.dnnl_post_ops_append_sum(ops, spec->sum_scale);
  if (spec->clip > 0) api.dnnl_post_ops_append_eltwise(ops, 1.0f, dnnl_eltwise_clip, 0.0f, spec->clip);
  dnnl_status_t status = api.dnnl_primitive_attr_set_post_ops(attr, ops);
  api.dnnl_post_ops_destroy(ops);
  if (status != dnnl_success) {
    api.dnnl_primitive_attr_destroy(attr);
    return NULL;
  }
  return attr;
}

/// The scale of an 8-bit tensor whose magnitudes reach `range`: u8 (0...255) when it cannot be
/// negative, s8 (-127...127) otherwise.
static float scale_for(float range, int is_signed) {
  if (!(range > 0) || !isfinite(range)) range = 1;
  return range / (is_signed ? 127.0f : 255.0f);
}

/// A layer's strides, SAME padding, weights (`weight_type`, in the layout the primitive picks)
/// and bias, its plain weights (`plain`) and its output side (`out`); the caller sets `c->dst`.
static dnnl_status_t layer_shape(const dexnn_layer *l, int side, dnnl_data_type_t weight_type,
    conv_shape *c, dnnl_memory_desc_t *plain, dnnl_dim_t *out) {
  const int k = l->kernel, cin = l->input_channels, cout = l->output_channels;
  same(side, k, l->stride, out, &c->padding_l[0], &c->padding_r[0]);
  c->padding_l[1] = c->padding_l[0];
  c->padding_r[1] = c->padding_r[0];
  c->strides[0] = c->strides[1] = l->stride;
  dnnl_dims_t weight_dims = {cout, cin, k, k}, group_dims = {cout, 1, 1, k, k}, bias_dims = {cout};
  dnnl_status_t status = l->depthwise
      ? api.dnnl_memory_desc_init_by_tag(plain, 5, group_dims, dnnl_f32, dnnl_hwigo)
      : api.dnnl_memory_desc_init_by_tag(plain, 4, weight_dims, dnnl_f32, dnnl_hwio);
  if (status == dnnl_success)
    status = l->depthwise
        ? api.dnnl_memory_desc_init_by_tag(&c->weights, 5, group_dims, weight_type, dnnl_format_tag_any)
        : api.dnnl_memory_desc_init_by_tag(&c->weights, 4, weight_dims, weight_type, dnnl_format_tag_any);
  if (status == dnnl_success)
    status = api.dnnl_memory_desc_init_by_tag(&c->bias, 1, bias_dims, dnnl_f32, dnnl_x);
  return status;
}

static int add_convolution(builder *b, const dexnn_graph *g, int index, int *side,
    const dnnl_memory_desc_t *inputs, const int *input_buffers, const float *input_scales) {
  const dexnn_layer *l = &g->layers[index];
  int k = l->kernel, cin = l->input_channels, cout = l->output_channels;
  if (k < 1 || l->stride < 1 || cin < 1 || cout < 1 || (l->depthwise && cin != cout) ||
      cin != b->current_md.dims[1] ||
      (l->residual && (l->residual_from < 0 || l->residual_from >= index)) ||
      (l->int8 && !(l->output_range > 0)))
    return fail(b->message, b->message_size, "layer parameters", dnnl_invalid_arguments);
  conv_shape c;
  dnnl_dim_t out = 0;
  // int8: the input keeps its 8-bit type, or an f32 input is quantized to u8/s8 by its range.
  dnnl_data_type_t src_type = dnnl_f32, weight_type = dnnl_f32, dst_type = dnnl_f32;
  float src_scale = 1, dst_scale = 1;
  if (l->int8) {
    int integer = b->current_md.data_type == dnnl_u8 || b->current_md.data_type == dnnl_s8;
    src_type = integer ? b->current_md.data_type : b->current_signed ? dnnl_s8 : dnnl_u8;
    src_scale = integer ? b->current_scale : scale_for(b->current_range, b->current_signed);
    weight_type = dnnl_s8;
    dst_type = l->relu6 ? dnnl_u8 : dnnl_s8;
    dst_scale = scale_for(l->output_range, !l->relu6);
  }
  dnnl_memory_desc_t plain;
  dnnl_status_t status = layer_shape(l, *side, weight_type, &c, &plain, &out);
  dnnl_dims_t dst_dims = {1, cout, out, out};
  // The residual sum adds into the destination: it is the block input's buffer, layout and
  // type; an 8-bit one is rescaled from the input's scale to the output's by the sum.
  float sum_scale = 1;
  if (status == dnnl_success && l->residual) {
    c.dst = inputs[l->residual_from];
    if (c.dst.data_type == dnnl_f32) dst_scale = 1;
    else if (!l->int8) status = dnnl_unimplemented;  // an f32 layer cannot add into 8 bits
    sum_scale = input_scales[l->residual_from] / dst_scale;
  } else if (status == dnnl_success)
    status = api.dnnl_memory_desc_init_by_tag(&c.dst, 4, dst_dims, dst_type, dnnl_format_tag_any);
  if (status != dnnl_success) return fail(b->message, b->message_size, "memory desc", status);

  // Each output channel's weight scale, and the output scales src × weights / dst.
  float *scales = NULL;
  if (l->int8) {
    if (!(scales = calloc((size_t)cout * 2, sizeof(float)))) return DEX_STATUS_OUT_OF_MEMORY;
    size_t count = (size_t)k * k * (l->depthwise ? 1 : cin) * cout;
    for (size_t i = 0; i < count; i++)
      scales[i % cout] = fmaxf(scales[i % cout], fabsf(l->weights[i]));
    for (int o = 0; o < cout; o++) {
      scales[o] = scales[o] > 0 ? scales[o] / 127.0f : 1.0f;
      scales[cout + o] = src_scale * scales[o] / dst_scale;
    }
  }
  // Bias correction: what the rounded weights add to each output on the calibration photos'
  // mean input comes off the bias (weights rounded as the s8 reorder rounds them).
  float *bias = NULL;
  if (scales && l->input_means) {
    if (!(bias = malloc((size_t)cout * sizeof(float)))) {
      free(scales);
      return DEX_STATUS_OUT_OF_MEMORY;
    }
    memcpy(bias, l->bias, (size_t)cout * sizeof(float));
    size_t count = (size_t)k * k * (l->depthwise ? 1 : cin) * cout;
    for (size_t i = 0; i < count; i++) {
      int o = (int)(i % (size_t)cout);
      int in = l->depthwise ? o : (int)((i / (size_t)cout) % (size_t)cin);
      float rounded = fminf(fmaxf(nearbyintf(l->weights[i] / scales[o]), -127.0f), 127.0f);
      bias[o] -= (rounded * scales[o] - l->weights[i]) * l->input_means[in];
    }
  }
  const float *layer_bias = bias ? bias : l->bias;
  attr_spec spec = {l->int8 ? cout : 0, 1 << 1, scales ? scales + cout : NULL, l->residual,
      sum_scale, l->relu6 ? 6.0f / dst_scale : 0};
  dnnl_primitive_attr_t attr = attributes(&spec);
  int result = attr ? DEX_STATUS_OK : DEX_STATUS_OUT_OF_MEMORY;
  // A 1×1 layer with more output channels than pixels is a matrix product (f32, writing NHWC).
  const int matmul = k == 1 && l->stride == 1 && !l->depthwise && (dnnl_dim_t)out * out < cout &&
      !l->int8 && (!l->residual || is_nhwc(&inputs[l->residual_from]));
  if (result == DEX_STATUS_OK && (matmul || (b->bands > 1 && out > 1))) {
    result = add_bands(b, index, &c, *side, (int)out, src_type, src_scale, attr,
        l->residual ? input_buffers[l->residual_from] : NO_BUFFER, &spec, l, matmul);
    for (int i = b->plan->step_count - 1; result == DEX_STATUS_OK && i >= 0; i--) {
      step *s = &b->plan->steps[i];
      if (s->group != b->groups - 1 || s->weights) break;  // matmul bands placed their own
      result = place_weights(b, s, &plain, l->weights, layer_bias, scales, src_scale);
    }
  } else if (result == DEX_STATUS_OK) {
    dnnl_convolution_desc_t op;
    dnnl_primitive_desc_t pd = NULL;
    result = describe(b, init_conv, &op, &c, attr, &pd, src_type, src_scale);
    // After `describe`: a reorder it added took a free buffer.
    int dst = l->residual ? input_buffers[l->residual_from] : free_buffer(b);
    if (result == DEX_STATUS_OK) result = append(b, pd, dst, index, 1);
    if (result == DEX_STATUS_OK)
      result = place_weights(b, &b->plan->steps[b->plan->step_count - 1], &plain, l->weights,
          layer_bias, scales, src_scale);
  }
  if (attr) api.dnnl_primitive_attr_destroy(attr);
  free(scales);
  free(bias);
  *side = (int)out;
  b->current_scale = dst_scale;
  b->current_range = l->output_range;
  b->current_signed = !l->relu6;
  return result;
}

// Fused blocks. An inverted-residual block whose expanded activation outgrows the processor's
// cache (Lite0's 112×112 and 56×56 blocks: 1.6 to 4.8 MB against a 1 MB L2) runs band by band:
// the producer (the expansion, or the stem before the first block) computes a few rows into a
// tile, the depthwise layer reads the tile, the projection writes its band of the block's
// output. The tile stays in cache, where whole layers stream the expanded activation through
// memory twice. Rows the next band's depthwise layer needs again are moved to the tile's top
// (a copy step), not computed twice. Each step is an ordinary single-threaded oneDNN primitive
// on a shorter image; more threads split the block's output rows into chains, one tile each.
//
// Measured on an AMD EPYC with a 1 MiB L2 (`Benchmarks/HISTORY.md`): a tile of 3/8 of the L2,
// fused from an expanded activation of one L2 on (the 112×112 and 56×56 blocks; at 28×28 and
// below fusing was no faster), took single passes to 0.94× the layer-by-layer build's time on
// one thread and 0.92× on two. The cache size is the processor's, as the C library reports it.

/// The L2 cache's size in bytes, 1 MiB where the system does not tell.
static size_t level2_cache_bytes(void) {
#ifdef _SC_LEVEL2_CACHE_SIZE
  long bytes = sysconf(_SC_LEVEL2_CACHE_SIZE);
  if (bytes >= 64 << 10 && bytes <= 64 << 20) return (size_t)bytes;
#endif
  return 1 << 20;
}

/// Appends a step copying `bytes` from `src` to `dst` (memmove: the ranges may overlap).
static int add_copy(builder *b, int src, size_t src_offset, int dst, size_t dst_offset,
    size_t bytes, int group, int chain) {
  if (dst < 0 || src == BUFFER_OUTPUT)  // copies stay between the shim's own buffers
    return fail(b->message, b->message_size, "copy step", dnnl_invalid_arguments);
  step *s = next_step(b);
  if (!s) return DEX_STATUS_OUT_OF_MEMORY;
  s->copy_bytes = bytes;
  s->src = src;
  s->dst = dst;
  s->src_offset = src_offset;
  s->dst_offset = dst_offset;
  s->group = group;
  s->chain = chain;
  s->layer = -1;
  snprintf(s->implementation, sizeof(s->implementation), "copy");
  b->plan->step_count++;
  return DEX_STATUS_OK;
}

/// Appends a band of layer `index` of a fused block (f32) and places its weights.
static int add_rows(builder *b, int index, const dexnn_layer *l, const conv_shape *c,
    const dnnl_memory_desc_t *plain, const band_spec *r, const_dnnl_primitive_attr_t attr) {
  int result = add_band(b, index, c, r, attr);
  if (result != DEX_STATUS_OK) return result;
  return place_weights(b, &b->plan->steps[b->plan->step_count - 1], plain, l->weights, l->bias, NULL, 1.0f);
}

/// Whether layer `l` on an image `side` wide runs one of oneDNN's own kernels (not its
/// reference) with NHWC activations: with `tag` NHWC, when handed them; with
/// `dnnl_format_tag_any`, when oneDNN itself picks NHWC for its output (its AVX-512 kernels do;
/// its AVX2 1×1 kernels want blocked layouts, and a residual sum into NHWC there falls to the
/// reference kernel, 30 times slower).
static int kept_in_nhwc(builder *b, const dexnn_layer *l, dnnl_dim_t side, dnnl_format_tag_t tag) {
  conv_shape c;
  dnnl_memory_desc_t plain, src;
  dnnl_dim_t out;
  dnnl_status_t status = layer_shape(l, (int)side, dnnl_f32, &c, &plain, &out);
  dnnl_dims_t src_dims = {1, l->input_channels, side, side}, dst_dims = {1, l->output_channels, out, out};
  if (status == dnnl_success) status = api.dnnl_memory_desc_init_by_tag(&src, 4, src_dims, dnnl_f32, tag);
  if (status == dnnl_success) status = api.dnnl_memory_desc_init_by_tag(&c.dst, 4, dst_dims, dnnl_f32, tag);
  dnnl_convolution_desc_t op;
  dnnl_primitive_desc_t pd = NULL;
  if (status == dnnl_success) status = init_conv(&op, &src, &c);
  if (status == dnnl_success) status = api.dnnl_primitive_desc_create(&pd, &op, NULL, b->network->engine, NULL);
  if (status != dnnl_success) return 0;
  const char *name = NULL;
  api.dnnl_primitive_desc_query(pd, dnnl_query_impl_info_str, 0, &name);
  int kept = name && strncmp(name, "ref", 3) != 0 && is_nhwc(query(pd, dnnl_query_dst_md));
  api.dnnl_primitive_desc_destroy(pd);
  return kept;
}

/// Whether layers `index` (a producer with ReLU6), `index + 1` (a depthwise layer with ReLU6)
/// and `index + 2` (a 1×1 projection, maybe summing the producer's input back) run fused: f32
/// on an NHWC input, no later layer reading their inner activations, the producer's output
/// over `b->fuse_from_bytes`, and all three kept in NHWC by oneDNN's own kernels.
static int fusable(builder *b, const dexnn_graph *g, int index, int side) {
  if (index + 2 >= g->layer_count || b->current_md.data_type != dnnl_f32 ||
      !is_nhwc(&b->current_md))
    return 0;
  const dexnn_layer *p = &g->layers[index], *d = p + 1, *j = p + 2;
  if (p->int8 || d->int8 || j->int8 || p->depthwise || p->residual || !p->relu6 ||
      !d->depthwise || d->residual || !d->relu6 || j->depthwise || j->relu6 || j->kernel != 1 ||
      j->stride != 1 || p->kernel < 1 || p->stride < 1 || d->kernel < 1 || d->stride < 1 ||
      d->input_channels != p->output_channels || d->output_channels != d->input_channels ||
      j->input_channels != d->output_channels || p->input_channels != b->current_md.dims[1])
    return 0;
  if (j->residual && (j->residual_from != index || d->stride != 1 || p->stride != 1 ||
                         j->output_channels != p->input_channels))
    return 0;
  for (int later = index + 3; later < g->layer_count; later++)
    if (g->layers[later].residual && g->layers[later].residual_from <= index + 2) return 0;
  dnnl_dim_t out, before, after;
  same(side, p->kernel, p->stride, &out, &before, &after);
  if ((double)out * (double)out * p->output_channels * sizeof(float) <= (double)b->fuse_from_bytes)
    return 0;
  dnnl_dim_t depth_out = (out + d->stride - 1) / d->stride;
  return kept_in_nhwc(b, p, side, dnnl_format_tag_any) && kept_in_nhwc(b, d, out, dnnl_nhwc) &&
      kept_in_nhwc(b, j, depth_out, dnnl_format_tag_any);
}

/// What `add_fused` returns when a band's primitive fell to oneDNN's reference kernel: the steps
/// it added are gone again, and the block is to be built layer by layer.
enum { NOT_FUSED = -1 };

/// Appends layers `index...index + 2` run fused (see `fusable`), one chain of bands per thread;
/// NOT_FUSED (and nothing appended) where a band's primitive is oneDNN's reference kernel, which
/// `fusable`'s whole-layer probe cannot rule out for every band shape.
static int add_fused(builder *b, const dexnn_graph *g, int index, int *side) {
  const dexnn_layer *layers = &g->layers[index];
  const int first_step = b->plan->step_count, first_group = b->groups;
  const dnnl_memory_desc_t input_md = b->current_md;  // `append` moves it along
  conv_shape shapes[3];
  dnnl_memory_desc_t plains[3];
  dnnl_dim_t sides[4] = {*side};
  dnnl_primitive_attr_t attrs[3] = {NULL};
  int result = DEX_STATUS_OK;
  for (int i = 0; result == DEX_STATUS_OK && i < 3; i++) {
    dnnl_status_t status = layer_shape(&layers[i], (int)sides[i], dnnl_f32, &shapes[i], &plains[i], &sides[i + 1]);
    if (status != dnnl_success) result = fail(b->message, b->message_size, "memory desc", status);
    attr_spec spec = {0, 0, NULL, i == 2 && layers[2].residual, 1.0f, layers[i].relu6 ? 6.0f : 0};
    if (result == DEX_STATUS_OK && !(attrs[i] = attributes(&spec))) result = DEX_STATUS_OUT_OF_MEMORY;
  }
  const dnnl_dim_t wide = sides[1], k = layers[1].kernel, stride = layers[1].stride;
  const dnnl_dim_t top = shapes[1].padding_l[0], out = sides[2], cout = layers[2].output_channels;
  const size_t row = (size_t)wide * (size_t)layers[1].input_channels * sizeof(float);
  const size_t out_row = (size_t)out * (size_t)cout * sizeof(float);
  const dnnl_dim_t fit = (dnnl_dim_t)(b->tile_bytes / row), tile_rows = fit > k ? fit : k;
  const dnnl_dim_t fits = (tile_rows - k) / stride + 1, band = fits < out ? fits : out;  // rows
  const int chains = b->bands < out ? b->bands : (int)out, source = b->current;
  const int group = chains > 1 ? b->groups++ : -1, dst = free_buffer(b);
  size_t tile = (size_t)((band - 1) * stride + k) * row;
  size_t depth = (size_t)band * (size_t)out * (size_t)layers[1].output_channels * sizeof(float);
  if (tile > b->plan->tile_size) b->plan->tile_size = tile;
  if (depth > b->plan->tile_size) b->plan->tile_size = depth;
  for (int chain = 0; result == DEX_STATUS_OK && chain < chains; chain++) {
    const int tile_buffer = BUFFER_COUNT + 2 * chain, depth_buffer = tile_buffer + 1;
    const dnnl_dim_t last = out * (chain + 1) / chains;
    dnnl_dim_t held_first = 0, held_last = 0;  // the producer's rows the tile holds
    for (dnnl_dim_t y = out * chain / chains; result == DEX_STATUS_OK && y < last; y += band) {
      const dnnl_dim_t n = band < last - y ? band : last - y;
      dnnl_dim_t first_row = y * stride - top, last_row = (y + n - 1) * stride - top + k;
      if (first_row < 0) first_row = 0;
      if (last_row > wide) last_row = wide;
      dnnl_dim_t computed = first_row;
      if (held_last > first_row) {  // rows the previous band's producer step made
        if (first_row > held_first)
          result = add_copy(b, tile_buffer, (size_t)(first_row - held_first) * row, tile_buffer,
              0, (size_t)(held_last - first_row) * row, group, chain);
        computed = held_last;
      }
      if (result == DEX_STATUS_OK && last_row > computed) {
        band_spec r = {sides[0], wide, computed, last_row, 0, dnnl_f32, dnnl_f32, source, 0,
            tile_buffer, (size_t)(computed - first_row) * row, group, chain};
        result = add_rows(b, index, &layers[0], &shapes[0], &plains[0], &r, attrs[0]);
      }
      band_spec depthwise = {wide, out, y, y + n, 0, dnnl_f32, dnnl_f32, tile_buffer, first_row,
          depth_buffer, 0, group, chain};
      if (result == DEX_STATUS_OK)
        result = add_rows(b, index + 1, &layers[1], &shapes[1], &plains[1], &depthwise, attrs[1]);
      if (result == DEX_STATUS_OK && layers[2].residual)  // the sum post-op adds what it overwrites
        result = add_copy(b, source, (size_t)y * out_row, dst, (size_t)y * out_row,
            (size_t)n * out_row, group, chain);
      band_spec projection = {out, out, y, y + n, 0, dnnl_f32, dnnl_f32, depth_buffer, y, dst,
          (size_t)y * out_row, group, chain};
      if (result == DEX_STATUS_OK)
        result = add_rows(b, index + 2, &layers[2], &shapes[2], &plains[2], &projection, attrs[2]);
      held_first = first_row;
      held_last = last_row;
    }
  }
  for (int i = 0; i < 3; i++)
    if (attrs[i]) api.dnnl_primitive_attr_destroy(attrs[i]);
  for (int i = first_step; result == DEX_STATUS_OK && i < b->plan->step_count; i++) {
    if (g->fusion_rejects_bands || strncmp(b->plan->steps[i].implementation, "ref", 3) == 0) {
      drop_steps(b->plan, first_step);
      b->groups = first_group;
      b->current = source;
      b->current_md = input_md;
      return NOT_FUSED;
    }
  }
  if (result != DEX_STATUS_OK) return result;
  dnnl_dims_t dims = {1, cout, out, out};
  if (api.dnnl_memory_desc_init_by_tag(&b->current_md, 4, dims, dnnl_f32, dnnl_nhwc) != dnnl_success)
    return fail(b->message, b->message_size, "fused output", dnnl_invalid_arguments);
  size_t size = (size_t)out * out_row;
  if (size > b->plan->buffer_size) b->plan->buffer_size = size;
  b->plan->fused_blocks++;
  b->current = dst;
  b->current_scale = 1;
  b->current_range = layers[2].output_range;
  b->current_signed = 1;
  *side = (int)out;
  return DEX_STATUS_OK;
}

static int add_classifier(builder *b, const dexnn_graph *g, int side) {
  pool_shape p;
  p.kernel[0] = p.kernel[1] = side;
  dnnl_dims_t pooled = {1, g->features, 1, 1};
  dnnl_status_t status =
      api.dnnl_memory_desc_init_by_tag(&p.dst, 4, pooled, dnnl_f32, dnnl_nhwc);
  if (status != dnnl_success) return fail(b->message, b->message_size, "pooling", status);
  // Pooling and the classifier run in f32: an 8-bit activation is dequantized first (in place
  // of its layout).
  dnnl_memory_desc_t real = b->current_md;
  real.data_type = dnnl_f32;
  int result = make_current(b, &real, 1.0f);
  if (result != DEX_STATUS_OK) return result;
  attr_spec spec = {0};
  dnnl_primitive_attr_t attr = attributes(&spec);
  if (!attr) return DEX_STATUS_OUT_OF_MEMORY;
  dnnl_pooling_v2_desc_t pool;
  dnnl_primitive_desc_t pd = NULL;
  result = describe(b, init_pool, &pool, &p, attr, &pd, dnnl_f32, 1.0f);
  if (result == DEX_STATUS_OK) result = append(b, pd, free_buffer(b), -1, 0);
  api.dnnl_primitive_attr_destroy(attr);
  if (result != DEX_STATUS_OK) return result;
  weights_slice w = {g->classifier_weights, g->classifier_bias, g->classes};
  return add_matmul_bands(b, g->layer_count, 1, g->features, &spec, BUFFER_OUTPUT, &w);
}

static void wake(context *c) {
  syscall(SYS_futex, (uint32_t *)&c->generation, FUTEX_WAKE_PRIVATE, INT_MAX, NULL, NULL, 0);
}

static void destroy_context(plan *p, context *c) {
  if (!c) return;
  if (c->helper_count) {
    atomic_store(&c->quit, 1);
    atomic_fetch_add(&c->generation, 1);
    wake(c);
    for (int i = 0; i < c->helper_count; i++) pthread_join(c->helpers[i], NULL);
  }
  free(c->helpers);
  for (int i = 0; i < p->step_count * ARG_COUNT; i++)
    if (c->memories && c->memories[i]) api.dnnl_memory_destroy(c->memories[i]);
  for (int i = 0; c->scratch_memories && i < c->workers * p->step_count; i++)
    if (c->scratch_memories[i] && i >= p->step_count) api.dnnl_memory_destroy(c->scratch_memories[i]);
  free(c->memories);
  free(c->scratch_memories);
  for (int i = 0; i < ALL_BUFFERS; i++) free(c->buffers[i]);
  for (int i = 0; c->scratchpads && i < c->workers; i++) free(c->scratchpads[i]);
  free(c->scratchpads);
  for (int i = 0; c->streams && i < c->workers; i++)
    if (c->streams[i]) api.dnnl_stream_destroy(c->streams[i]);
  free(c->streams);
  free(c);
}

static void destroy_plan(plan *p) {
  if (!p) return;
  while (p->idle) {
    context *next = p->idle->next;
    destroy_context(p, p->idle);
    p->idle = next;
  }
  drop_steps(p, 0);
  free(p->steps);
  free(p);
}

int dexnn_network_create(
    dexnn_network **network, const char *library, char *message, size_t message_size) {
  if (library && strcmp(library, DEXNN_LIBRARY) != 0) {
    char error[200] = {0};
    void *other = open_library(library, error, sizeof(error));
    if (!other) {
      if (message && message_size) snprintf(message, message_size, "%s", error);
      return DEX_STATUS_UNAVAILABLE;
    }
    dlclose(other);  // only tried: the kernels come from DEXNN_LIBRARY
  }
  pthread_once(&load_once, load);
  if (load_error[0]) {
    if (message && message_size) snprintf(message, message_size, "%s", load_error);
    return DEX_STATUS_UNAVAILABLE;
  }
  dexnn_network *n = calloc(1, sizeof(*n));
  if (!n) return DEX_STATUS_OUT_OF_MEMORY;
  dnnl_status_t status = api.dnnl_engine_create(&n->engine, dnnl_cpu, 0);
  if (status != dnnl_success) {
    free(n);
    return fail(message, message_size, "dnnl_engine_create", status);
  }
  pthread_mutex_init(&n->lock, NULL);
  *network = n;
  return DEX_STATUS_OK;
}

/// Whether every step reads and writes within its buffers (a plan that would not is refused
/// rather than run): the activation buffers, the tiles, the input and the logits.
static int steps_stay_in_buffers(const plan *p, const dexnn_graph *g, char *message, size_t size) {
  const size_t input = (size_t)g->input_size * (size_t)g->input_size * 3 * sizeof(float);
  const size_t output = (size_t)g->classes * sizeof(float);
  for (int i = 0; i < p->step_count; i++) {
    const step *s = &p->steps[i];
    const int buffers[2] = {s->src, s->dst};
    const size_t offsets[2] = {s->src_offset, s->dst_offset};
    for (int which = 0; which < 2; which++) {
      size_t bytes = s->primitive
          ? api.dnnl_memory_desc_get_size(&s->mds[which == 0 ? ARG_SRC : ARG_DST]) : s->copy_bytes;
      int buffer = buffers[which];
      size_t limit = buffer == BUFFER_INPUT ? input : buffer == BUFFER_OUTPUT ? output
          : buffer >= BUFFER_COUNT ? p->tile_size : p->buffer_size;
      if (buffer == NO_BUFFER || offsets[which] > limit || bytes > limit - offsets[which]) {
        if (message && size)
          snprintf(message, size, "step %d (%s) %s %zu bytes at %zu of buffer %d (%zu bytes)", i,
              s->implementation, which == 0 ? "reads" : "writes", bytes, offsets[which], buffer,
              limit);
        return 0;
      }
    }
  }
  return 1;
}

int dexnn_network_add_plan(dexnn_network *network, const dexnn_graph *graph, int threads,
    char *message, size_t message_size) {
  if (threads < 1 || threads > DEXNN_MAX_THREADS || graph->layer_count < 1 ||
      graph->input_size < 1)
    return fail(message, message_size, "graph", dnnl_invalid_arguments);
  plan *p = calloc(1, sizeof(*p));
  if (!p) return DEX_STATUS_OUT_OF_MEMORY;
  p->threads = threads;
  // Whole layers on one thread, row bands on more; the 1×1 layers that run as matrix products
  // are split by output channels in every plan, two ways up to two threads, so that the plans
  // for one and two threads share those weights (most of the network's).
  const size_t cache = level2_cache_bytes();
  builder b = {network, p, 0, {0}, 1.0f, graph->input_range, 1, BUFFER_INPUT, -3, threads,
      threads > 2 ? threads : 2, 0,
      graph->fusion_tile_bytes ? graph->fusion_tile_bytes : cache / 8 * 3,
      graph->fusion_from_bytes ? graph->fusion_from_bytes : cache, message, message_size};
  int side = graph->input_size;
  dnnl_dims_t input_dims = {1, 3, side, side};
  dnnl_memory_desc_t *inputs = calloc((size_t)graph->layer_count, sizeof(*inputs));
  int *input_buffers = calloc((size_t)graph->layer_count, sizeof(int));
  float *input_scales = calloc((size_t)graph->layer_count, sizeof(float));
  int previous = api.omp_get_max_threads();
  api.omp_set_num_threads(1);
  // One plan is built at a time in the whole process, not only per network: oneDNN 2.6 keeps
  // the input-channel rounding of its brgemm convolutions in a plain static
  // (`brg_blocking_t::last_ic_block_size`, jit_brgemm_conv_utils.cpp), which describing an int8
  // convolution sets to 4 and an f32 one to 1. An int8 plan described while an f32 plan was
  // gave the f32 stem (3 input channels, the only layer not a multiple of 4) a weight spacing
  // of 4: wrong in every later pass, and cached by oneDNN for networks built after. Seen in 17
  // of 60 rounds of a C harness with the primitive cache off, 0 of 60 with this lock. Fixed
  // upstream in oneDNN 2.7.3 and 3.0 (the static made thread-local); other code of the process
  // that describes oneDNN int8 or bf16 convolutions meanwhile is not covered.
#ifndef DEX_NO_BUILD_LOCK  // only Benchmarks/DexImaging-classifier/race builds without it
  pthread_mutex_lock(&building);
#endif
  pthread_mutex_lock(&network->lock);  // place_weights reads the other plans
  int result = inputs && input_buffers && input_scales ? DEX_STATUS_OK : DEX_STATUS_OUT_OF_MEMORY;
  if (result == DEX_STATUS_OK &&
      api.dnnl_memory_desc_init_by_tag(&b.current_md, 4, input_dims, dnnl_f32, dnnl_nhwc) !=
          dnnl_success)
    result = fail(message, message_size, "input", dnnl_invalid_arguments);
  for (int i = 0; result == DEX_STATUS_OK && i < graph->layer_count; i++) {
    // A later residual sum reads this layer's input: keep its buffer.
    for (int j = i; j < graph->layer_count; j++)
      if (graph->layers[j].residual && graph->layers[j].residual_from == i) b.kept = b.current;
    if (b.kept == b.current && b.current == BUFFER_INPUT)
      result = fail(message, message_size, "residual from the input", dnnl_invalid_arguments);
    inputs[i] = b.current_md;
    input_buffers[i] = b.current;
    input_scales[i] = b.current_scale;
    int fused = result == DEX_STATUS_OK && fusable(&b, graph, i, side);
    if (fused) {
      result = add_fused(&b, graph, i, &side);
      if (result == NOT_FUSED) {
        fused = 0;
        result = DEX_STATUS_OK;
      }
    }
    if (fused) {
      i += 2;  // the depthwise layer and the projection too
    } else if (result == DEX_STATUS_OK) {
      result = add_convolution(&b, graph, i, &side, inputs, input_buffers, input_scales);
    }
    if (graph->layers[i].residual) b.kept = -3;
  }
  if (result == DEX_STATUS_OK) result = add_classifier(&b, graph, side);
  if (result == DEX_STATUS_OK && !steps_stay_in_buffers(p, graph, message, message_size))
    result = DEX_STATUS_LIBRARY_ERROR;
  if (result == DEX_STATUS_OK) {
    p->next = network->plans;
    network->plans = p;
  } else {
    destroy_plan(p);
  }
  pthread_mutex_unlock(&network->lock);
#ifndef DEX_NO_BUILD_LOCK
  pthread_mutex_unlock(&building);
#endif
  api.omp_set_num_threads(previous);
  free(inputs);
  free(input_buffers);
  free(input_scales);
  return result;
}

static plan *find_plan(dexnn_network *network, int threads) {
  for (plan *p = network->plans; p; p = p->next)
    if (p->threads == threads) return p;
  return NULL;
}

// Running a plan. A group of bands is handed to the context's helpers through `claim`: each
// thread (the caller too) takes the next band with a compare-and-swap until none is left, so a
// helper that is asleep or descheduled leaves its bands to the caller instead of holding the
// layer up (OpenMP's static split waits for every thread: with one other busy process on two
// cores a two-thread pass took 406 ms spinning, 5.7 ms passive). Only a band a helper has
// already claimed can keep the caller waiting, for as long as that helper is off its processor.
// Helpers spin briefly between groups and sleep on a futex between inferences.

/// How long a helper spins for the next group before it sleeps: longer than the gap between two
/// groups of one inference (microseconds), far shorter than a scheduler's time slice.
enum { SPIN_NANOSECONDS = 200000 };

static inline void relax(void) {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__)
  __asm__ __volatile__("yield");
#endif
}

static int64_t now_nanoseconds(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (int64_t)t.tv_sec * 1000000000 + t.tv_nsec;
}

static const int exec_args[ARG_COUNT] = {DNNL_ARG_SRC, DNNL_ARG_DST, DNNL_ARG_WEIGHTS,
    DNNL_ARG_BIAS, DNNL_ARG_SCRATCHPAD};

/// Executes step `i` on `worker`'s stream and scratchpad.
static dnnl_status_t execute(context *c, int i, int worker) {
  const plan *p = c->plan;
  const step *s = &p->steps[i];
  if (!s->primitive) {
    const char *from = s->src == BUFFER_INPUT ? c->input : c->buffers[s->src];
    memmove((char *)c->buffers[s->dst] + s->dst_offset, from + s->src_offset, s->copy_bytes);
    return dnnl_success;
  }
  dnnl_memory_t *memories = &c->memories[i * ARG_COUNT];
  dnnl_exec_arg_t exec[ARG_COUNT];
  int count = 0;
  for (int a = 0; a < ARG_COUNT; a++) {
    dnnl_memory_t memory = a == ARG_SCRATCHPAD && worker > 0
        ? c->scratch_memories[worker * p->step_count + i] : memories[a];
    if (!memory) continue;
    // A reorder names its arguments FROM and TO (the same values as SRC and DST).
    exec[count].arg = exec_args[a];
    exec[count].memory = memory;
    count++;
  }
  return api.dnnl_primitive_execute(s->primitive, c->streams[worker], count, exec);
}

/// Runs bands of generation `generation` until none is left to claim.
static void run_bands(context *c, uint32_t generation, int worker) {
  uint64_t word = atomic_load_explicit(&c->claim, memory_order_acquire);
  for (;;) {
    if ((uint32_t)(word >> 32) != generation) return;
    uint32_t next = (uint32_t)word & 0xFFFF, count = ((uint32_t)word >> 16) & 0xFFFF;
    if (next >= count) return;
    if (!atomic_compare_exchange_weak_explicit(
            &c->claim, &word, word + 1, memory_order_acq_rel, memory_order_acquire))
      continue;
    // The band's steps: one, or a chain of a fused block.
    int first = atomic_load_explicit(&c->first, memory_order_relaxed);
    int steps = atomic_load_explicit(&c->steps, memory_order_relaxed);
    dnnl_status_t status = dnnl_success;
    for (int i = first; status == dnnl_success && i < first + steps; i++) {
      if (c->plan->steps[i].chain != (int)next) continue;
      status = execute(c, i, worker);
      if (status == dnnl_success) status = api.dnnl_stream_wait(c->streams[worker]);
    }
    if (status != dnnl_success) atomic_store(&c->status, status);
    atomic_fetch_add_explicit(&c->done, 1, memory_order_release);
    word = atomic_load_explicit(&c->claim, memory_order_acquire);
  }
}

typedef struct {
  context *context;
  int worker;
  uint32_t generation;  // when the helper was made: a context destroyed before the helper first
                        // runs has moved past it, so the helper sees the quit at once
} helper_start;

static _Atomic int helper_start_delay;  // microseconds, for the tests

void dexnn_delay_helper_start_for_testing(int microseconds) {
  atomic_store(&helper_start_delay, microseconds > 0 ? microseconds : 0);
}

static void *helper_main(void *argument) {
  helper_start start = *(helper_start *)argument;
  free(argument);
  int delay = atomic_load(&helper_start_delay);
  if (delay > 0) usleep((useconds_t)delay);
  context *c = start.context;
  api.omp_set_num_threads(1);  // the band primitives were made for one thread each
  uint32_t seen = start.generation;
  cpu_set_t allowed, elsewhere;
  int pinned = 0, can_move = sched_getaffinity(0, sizeof(allowed), &allowed) == 0 &&
      CPU_COUNT(&allowed) > 1;
  for (;;) {
    uint32_t generation;
    int64_t deadline = now_nanoseconds() + SPIN_NANOSECONDS;
    unsigned spins = 0;
    while ((generation = atomic_load_explicit(&c->generation, memory_order_acquire)) == seen) {
      relax();
      if ((++spins & 255) != 0) continue;
      // Let a thread waiting for this processor (the caller, woken onto it) run first.
      sched_yield();
      if (now_nanoseconds() < deadline) continue;
      if (pinned) pinned = sched_setaffinity(0, sizeof(allowed), &allowed) != 0;
      atomic_fetch_add(&c->sleepers, 1);
      syscall(SYS_futex, (uint32_t *)&c->generation, FUTEX_WAIT_PRIVATE, seen, NULL, NULL, 0);
      atomic_fetch_sub(&c->sleepers, 1);
      deadline = now_nanoseconds() + SPIN_NANOSECONDS;
    }
    if (atomic_load(&c->quit)) return NULL;
    seen = generation;
    // Woken onto the caller's processor, a helper only takes turns with it (the scheduler may
    // leave it there for milliseconds while the other processor idles): move away until the
    // next sleep.
    int cpu = atomic_load_explicit(&c->caller_cpu, memory_order_relaxed);
    if (can_move && !pinned && cpu >= 0 && sched_getcpu() == cpu &&
        sched_getaffinity(0, sizeof(allowed), &allowed) == 0) {  // the host's, now
      elsewhere = allowed;
      CPU_CLR(cpu, &elsewhere);
      pinned = CPU_COUNT(&elsewhere) > 0 && sched_setaffinity(0, sizeof(elsewhere), &elsewhere) == 0;
    }
    run_bands(c, generation, start.worker);
  }
}

/// Runs the `count` bands of the `steps` steps from step `first` on the caller and the helpers.
static dnnl_status_t run_group(context *c, int first, int steps, int count) {
  uint32_t generation = atomic_load_explicit(&c->generation, memory_order_relaxed) + 1;
  atomic_store_explicit(&c->done, 0, memory_order_relaxed);
  atomic_store_explicit(&c->first, first, memory_order_relaxed);
  atomic_store_explicit(&c->steps, steps, memory_order_relaxed);
  atomic_store_explicit(&c->caller_cpu, sched_getcpu(), memory_order_relaxed);
  atomic_store_explicit(
      &c->claim, (uint64_t)generation << 32 | (uint64_t)count << 16, memory_order_release);
  atomic_store(&c->generation, generation);
  if (atomic_load(&c->sleepers) > 0) wake(c);
  run_bands(c, generation, 0);
  for (unsigned spins = 0; atomic_load_explicit(&c->done, memory_order_acquire) < count;)
    if ((++spins & 255) != 0) relax();
    else sched_yield();  // a helper holding a band may be waiting for this processor
  return (dnnl_status_t)atomic_load(&c->status);
}

static context *make_context(dexnn_network *network, plan *p) {
  context *c = calloc(1, sizeof(*c));
  if (!c) return NULL;
  c->plan = p;
  c->workers = p->threads;
  atomic_init(&c->status, dnnl_success);
  c->memories = calloc((size_t)p->step_count * ARG_COUNT, sizeof(dnnl_memory_t));
  c->scratch_memories = calloc((size_t)p->step_count * (size_t)c->workers, sizeof(dnnl_memory_t));
  c->streams = calloc((size_t)c->workers, sizeof(dnnl_stream_t));
  c->scratchpads = calloc((size_t)c->workers, sizeof(void *));
  c->helpers = calloc((size_t)c->workers, sizeof(pthread_t));
  int ok = c->memories && c->scratch_memories && c->streams && c->scratchpads && c->helpers;
  for (int w = 0; ok && w < c->workers; w++) {
    ok = (c->scratchpads[w] = aligned(p->scratchpad_size)) != NULL &&
        api.dnnl_stream_create(&c->streams[w], network->engine, dnnl_stream_default_flags) ==
            dnnl_success;
  }
  for (int i = 0; ok && i < p->step_count; i++) {
    step *s = &p->steps[i];
    for (int which = ARG_SRC; ok && which <= ARG_DST; which++) {
      int buffer = which == ARG_SRC ? s->src : s->dst;
      if (buffer >= 0 && !c->buffers[buffer])
        ok = (c->buffers[buffer] = aligned(buffer < BUFFER_COUNT ? p->buffer_size : p->tile_size)) != NULL;
    }
    if (!ok) break;
    void *handles[ARG_COUNT] = {s->src >= 0 ? (char *)c->buffers[s->src] + s->src_offset : NULL,
        s->dst >= 0 ? (char *)c->buffers[s->dst] + s->dst_offset : NULL, s->weights, s->bias,
        c->scratchpads[0]};
    for (int a = 0; ok && a < ARG_COUNT; a++) {
      if ((a >= ARG_WEIGHTS && a <= ARG_BIAS && !s->has_weights) || s->mds[a].ndims == 0) continue;
      ok = api.dnnl_memory_create(&c->memories[i * ARG_COUNT + a], &s->mds[a], network->engine,
               handles[a] ? handles[a] : DNNL_MEMORY_NONE) == dnnl_success;
    }
    c->scratch_memories[i] = c->memories[i * ARG_COUNT + ARG_SCRATCHPAD];
    for (int w = 1; ok && s->group >= 0 && w < c->workers; w++)  // helpers run bands only
      if (s->mds[ARG_SCRATCHPAD].ndims)
        ok = api.dnnl_memory_create(&c->scratch_memories[w * p->step_count + i],
                 &s->mds[ARG_SCRATCHPAD], network->engine, c->scratchpads[w]) == dnnl_success;
  }
  // Fewer helpers than asked for (a thread that cannot be made) only slow the inference: the
  // caller claims whatever bands no helper takes.
  for (int w = 1; ok && w < c->workers; w++) {
    helper_start *start = malloc(sizeof(*start));
    if (!start) break;
    *start = (helper_start){c, w, atomic_load(&c->generation)};
    if (pthread_create(&c->helpers[c->helper_count], NULL, helper_main, start) != 0) {
      free(start);
      break;
    }
    c->helper_count++;
  }
  if (!ok) {
    destroy_context(p, c);
    return NULL;
  }
  return c;
}

int dexnn_network_run(dexnn_network *network, int threads, const float *input, float *logits,
    char *message, size_t message_size) {
  pthread_mutex_lock(&network->lock);
  plan *p = find_plan(network, threads);
  context *c = p ? p->idle : NULL;
  if (c) {
    p->idle = c->next;
    p->idle_count--;
  }
  pthread_mutex_unlock(&network->lock);
  if (!p) return DEX_STATUS_NO_PLAN;
  if (!c && !(c = make_context(network, p))) return DEX_STATUS_OUT_OF_MEMORY;
  int previous = api.omp_get_max_threads();
  api.omp_set_num_threads(1);
  atomic_store(&c->status, dnnl_success);
  c->input = input;
  dnnl_status_t status = dnnl_success;
  for (int i = 0; status == dnnl_success && i < p->step_count; i++) {
    step *s = &p->steps[i];
    dnnl_memory_t *memories = &c->memories[i * ARG_COUNT];
    if (!s->primitive) continue;  // a copy step reads `c->input` itself
    if (s->src == BUFFER_INPUT)
      status = api.dnnl_memory_set_data_handle(memories[ARG_SRC], (char *)input + s->src_offset);
    if (s->dst == BUFFER_OUTPUT && status == dnnl_success)
      status = api.dnnl_memory_set_data_handle(memories[ARG_DST], (char *)logits + s->dst_offset);
  }
  for (int i = 0; status == dnnl_success && i < p->step_count;) {
    int count = 1, bands = p->steps[i].chain + 1;
    while (p->steps[i].group >= 0 && i + count < p->step_count &&
           p->steps[i + count].group == p->steps[i].group) {
      if (p->steps[i + count].chain >= bands) bands = p->steps[i + count].chain + 1;
      count++;
    }
    if (bands > 1 && c->helper_count > 0) {
      status = run_group(c, i, count, bands);
    } else {
      for (int j = i; status == dnnl_success && j < i + count; j++) status = execute(c, j, 0);
    }
    i += count;
  }
  if (status == dnnl_success) status = api.dnnl_stream_wait(c->streams[0]);
  api.omp_set_num_threads(previous);
  pthread_mutex_lock(&network->lock);
  if (p->idle_count < IDLE_CONTEXTS) {
    c->next = p->idle;
    p->idle = c;
    p->idle_count++;
    c = NULL;
  }
  pthread_mutex_unlock(&network->lock);
  destroy_context(p, c);
  if (status != dnnl_success) return fail(message, message_size, "dnnl_primitive_execute", status);
  return DEX_STATUS_OK;
}

int dexnn_network_implementations(dexnn_network *network, int threads, char *text, size_t size) {
  pthread_mutex_lock(&network->lock);
  plan *p = find_plan(network, threads);
  size_t used = 0;
  if (size) text[0] = 0;
  for (int i = 0; p && i < p->step_count && used < size; i++) {
    int written = snprintf(text + used, size - used, "%s%s", i ? "," : "", p->steps[i].implementation);
    if (written < 0) break;
    used += (size_t)written;
  }
  pthread_mutex_unlock(&network->lock);
  return p ? DEX_STATUS_OK : DEX_STATUS_NO_PLAN;
}

int dexnn_network_fused_blocks(dexnn_network *network, int threads) {
  pthread_mutex_lock(&network->lock);
  plan *p = find_plan(network, threads);
  int count = p ? p->fused_blocks : -1;
  pthread_mutex_unlock(&network->lock);
  return count;
}

void dexnn_network_destroy(dexnn_network *network) {
  if (!network) return;
  // Plans sharing weights own none of them, so any order frees each buffer once.
  while (network->plans) {
    plan *next = network->plans->next;
    destroy_plan(network->plans);
    network->plans = next;
  }
  api.dnnl_engine_destroy(network->engine);
  pthread_mutex_destroy(&network->lock);
  free(network);
}

int dexnn_has_vnni(void) {
  pthread_once(&load_once, load);
  if (load_error[0]) return 0;
  dnnl_cpu_isa_t isa = api.dnnl_get_effective_cpu_isa();
  return isa == dnnl_cpu_isa_avx2_vnni || isa == dnnl_cpu_isa_avx512_core_vnni ||
      isa == dnnl_cpu_isa_avx512_core_bf16 || isa == dnnl_cpu_isa_avx512_core_amx;
}

const char *dexnn_instruction_set(void) {
  pthread_once(&load_once, load);
  if (load_error[0]) return "none";
  switch (api.dnnl_get_effective_cpu_isa()) {
  case dnnl_cpu_isa_sse41: return "sse41";
  case dnnl_cpu_isa_avx: return "avx";
  case dnnl_cpu_isa_avx2: return "avx2";
  case dnnl_cpu_isa_avx2_vnni: return "avx2_vnni";
  case dnnl_cpu_isa_avx512_core: return "avx512_core";
  case dnnl_cpu_isa_avx512_core_vnni: return "avx512_core_vnni";
  case dnnl_cpu_isa_avx512_core_bf16: return "avx512_core_bf16";
  case dnnl_cpu_isa_avx512_core_amx: return "avx512_core_amx";
  default: return "other";
  }
}

int dexnn_is_built_in(void) { return 1; }

#else  // no oneDNN 2 headers: every entry point says so

#include <stdio.h>

static int unavailable(char *message, size_t message_size) {
  if (message && message_size > 0)
    snprintf(message, message_size,
             "built without oneDNN 2's headers (libdnnl-dev 2.x), so the oneDNN backend is absent");
  return DEX_STATUS_UNAVAILABLE;
}

int dexnn_is_built_in(void) { return 0; }

int dexnn_network_create(
    dexnn_network **network, const char *library, char *message, size_t message_size) {
  (void)library;
  if (network) *network = NULL;
  return unavailable(message, message_size);
}

int dexnn_network_add_plan(
    dexnn_network *network, const dexnn_graph *graph, int threads, char *message,
    size_t message_size) {
  (void)network, (void)graph, (void)threads;
  return unavailable(message, message_size);
}

int dexnn_network_run(
    dexnn_network *network, int threads, const float *input, float *logits, char *message,
    size_t message_size) {
  (void)network, (void)threads, (void)input, (void)logits;
  return unavailable(message, message_size);
}

int dexnn_network_implementations(
    dexnn_network *network, int threads, char *text, size_t text_size) {
  (void)network, (void)threads;
  return unavailable(text, text_size);
}

int dexnn_network_fused_blocks(dexnn_network *network, int threads) {
  (void)network, (void)threads;
  return -1;
}

void dexnn_network_destroy(dexnn_network *network) { (void)network; }

void dexnn_delay_helper_start_for_testing(int microseconds) { (void)microseconds; }

const char *dexnn_instruction_set(void) { return "none"; }

int dexnn_has_vnni(void) { return 0; }

#endif  // DNNL_VERSION_MAJOR == 2
#endif  // defined(__linux__) && defined(DEXKIT_TRAIT_ONEDNN)
