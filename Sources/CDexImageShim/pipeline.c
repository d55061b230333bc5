// Producer/consumer hand-off between the decoder (caller's thread, where libjpeg/libpng and their
// setjmp handlers live) and the resizer (a worker thread). The worker never calls into libjpeg or
// libpng and never longjmps, so error handling stays entirely on the caller's thread: on error the
// caller simply destroys the pipeline, which drains and joins the worker.
#if defined(__linux__) && defined(DEXKIT_TRAIT_SYSTEM_IMAGE_CODECS)

// Compiled only on Linux with the SystemImageCodecs trait (Package.swift defines the macro then):
// elsewhere the file is empty and needs no library headers.
#include <pthread.h>
#include <stdlib.h>

#include "resample.h"

#define SLOTS 4

struct dex_row_pipeline {
  dex_resizer *resizer;
  size_t row_bytes;
  uint8_t *buffers[SLOTS];
  int32_t rows[SLOTS];
  int head, tail, count;
  int threaded, done, finished;
  /// Whether the worker (resp. the producer) is blocked on `changed`: the other side only pays
  /// for a wake-up (a futex call and, on a busy machine, a context switch) when someone waits.
  int worker_waiting, producer_waiting;
  pthread_t thread;
  pthread_mutex_t lock;
  pthread_cond_t changed;
};

static void *worker_main(void *argument) {
  dex_row_pipeline *p = argument;
  for (;;) {
    pthread_mutex_lock(&p->lock);
    while (p->count == 0 && !p->done) {
      p->worker_waiting = 1;
      pthread_cond_wait(&p->changed, &p->lock);
      p->worker_waiting = 0;
    }
    if (p->count == 0 && p->done) {
      pthread_mutex_unlock(&p->lock);
      return NULL;
    }
    const int slot = p->tail;
    const int32_t rows = p->rows[slot];
    pthread_mutex_unlock(&p->lock);
    for (int32_t i = 0; i < rows; i++)
      dex_resizer_push_row(p->resizer, p->buffers[slot] + (size_t)i * p->row_bytes);
    pthread_mutex_lock(&p->lock);
    p->tail = (p->tail + 1) % SLOTS;
    p->count--;
    if (p->producer_waiting) pthread_cond_broadcast(&p->changed);
    pthread_mutex_unlock(&p->lock);
  }
}

dex_row_pipeline *dex_pipeline_create(dex_resizer *resizer, size_t row_bytes, int threaded) {
  if (!resizer || row_bytes == 0) return NULL;
  dex_row_pipeline *p = calloc(1, sizeof(dex_row_pipeline));
  if (!p) return NULL;
  p->resizer = resizer;
  p->row_bytes = row_bytes;
  const int slots = threaded ? SLOTS : 1;
  for (int i = 0; i < slots; i++) {
    p->buffers[i] = malloc(row_bytes * DEX_PIPELINE_ROWS);
    if (!p->buffers[i]) {
      for (int j = 0; j < i; j++) free(p->buffers[j]);
      free(p);
      return NULL;
    }
  }
  if (threaded) {
    if (pthread_mutex_init(&p->lock, NULL) == 0) {
      if (pthread_cond_init(&p->changed, NULL) == 0) {
        if (pthread_create(&p->thread, NULL, worker_main, p) == 0) {
          p->threaded = 1;
        } else {
          pthread_cond_destroy(&p->changed);
          pthread_mutex_destroy(&p->lock);
        }
      } else {
        pthread_mutex_destroy(&p->lock);
      }
    }
  }
  return p;
}

uint8_t *dex_pipeline_acquire(dex_row_pipeline *p) {
  if (!p->threaded) return p->buffers[0];
  pthread_mutex_lock(&p->lock);
  while (p->count == SLOTS) {
    p->producer_waiting = 1;
    pthread_cond_wait(&p->changed, &p->lock);
    p->producer_waiting = 0;
  }
  uint8_t *buffer = p->buffers[p->head];
  pthread_mutex_unlock(&p->lock);
  return buffer;
}

void dex_pipeline_commit(dex_row_pipeline *p, int32_t rows) {
  if (rows <= 0) return;
  if (rows > DEX_PIPELINE_ROWS) rows = DEX_PIPELINE_ROWS;
  if (!p->threaded) {
    for (int32_t i = 0; i < rows; i++)
      dex_resizer_push_row(p->resizer, p->buffers[0] + (size_t)i * p->row_bytes);
    return;
  }
  pthread_mutex_lock(&p->lock);
  p->rows[p->head] = rows;
  p->head = (p->head + 1) % SLOTS;
  p->count++;
  if (p->worker_waiting) pthread_cond_broadcast(&p->changed);
  pthread_mutex_unlock(&p->lock);
}

void dex_pipeline_finish(dex_row_pipeline *p) {
  if (!p || p->finished) return;
  p->finished = 1;
  if (!p->threaded) return;
  pthread_mutex_lock(&p->lock);
  p->done = 1;
  pthread_cond_broadcast(&p->changed);
  pthread_mutex_unlock(&p->lock);
  pthread_join(p->thread, NULL);
  pthread_cond_destroy(&p->changed);
  pthread_mutex_destroy(&p->lock);
}

void dex_pipeline_destroy(dex_row_pipeline *p) {
  if (!p) return;
  dex_pipeline_finish(p);
  for (int i = 0; i < SLOTS; i++) free(p->buffers[i]);
  free(p);
}

void dex_resampling_release(dex_row_pipeline **pipeline, dex_resizer **resizer) {
  dex_pipeline_destroy(*pipeline);  // joins the worker before the resizer goes away
  *pipeline = NULL;
  dex_resizer_destroy(*resizer);
  *resizer = NULL;
}
#endif  // defined(__linux__) && defined(DEXKIT_TRAIT_SYSTEM_IMAGE_CODECS)
