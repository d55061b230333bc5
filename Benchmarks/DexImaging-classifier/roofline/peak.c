// One core's float32 multiply-add peak: independent FMA chains (sixteen of the 32 AVX-512
// registers, twelve of AVX2's 16, so that none spills), long enough that the loop's overhead and
// the chains' latency do not count. Picks AVX-512 or AVX2 + FMA at run time
// and prints "peak <isa> <GFLOP/s>" for each the processor has (the median of ROUNDS rounds).
#include <immintrin.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double seconds(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + t.tv_nsec * 1e-9;
}

#define CHAINS12(step) step(0) step(1) step(2) step(3) step(4) step(5) step(6) step(7) \
  step(8) step(9) step(10) step(11)
#define CHAINS(step) CHAINS12(step) step(12) step(13) step(14) step(15)

__attribute__((target("avx512f"))) static double avx512(long n) {
  __m512 a[16], m = _mm512_set1_ps(0.999999f), c = _mm512_set1_ps(1e-7f);
  for (int i = 0; i < 16; i++) a[i] = _mm512_set1_ps((float)i);
  double start = seconds();
  for (long k = 0; k < n; k++) {
#define STEP512(i) a[i] = _mm512_fmadd_ps(a[i], m, c);
    CHAINS(STEP512)
  }
  double elapsed = seconds() - start;
  float sum = 0;
  for (int i = 0; i < 16; i++) sum += _mm512_reduce_add_ps(a[i]);
  if (sum == 1.5f) puts("");  // keeps the chains live
  return n * 16.0 * 16 * 2 / elapsed / 1e9;
}

__attribute__((target("avx2,fma"))) static double avx2(long n) {
  __m256 a[12], m = _mm256_set1_ps(0.999999f), c = _mm256_set1_ps(1e-7f);
  for (int i = 0; i < 12; i++) a[i] = _mm256_set1_ps((float)i);
  double start = seconds();
  for (long k = 0; k < n; k++) {
#define STEP256(i) a[i] = _mm256_fmadd_ps(a[i], m, c);
    CHAINS12(STEP256)
  }
  double elapsed = seconds() - start;
  float lanes[8], sum = 0;
  for (int i = 0; i < 12; i++) {
    _mm256_storeu_ps(lanes, a[i]);
    for (int j = 0; j < 8; j++) sum += lanes[j];
  }
  if (sum == 1.5f) puts("");
  return n * 12.0 * 8 * 2 / elapsed / 1e9;
}

static int by_value(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

static void report(const char *isa, double (*kernel)(long), int rounds) {
  double results[64];
  for (int r = 0; r < rounds; r++) results[r] = kernel(20000000);
  qsort(results, rounds, sizeof(double), by_value);
  printf("peak %s %.1f\n", isa, results[rounds / 2]);
}

int main(int argc, char **argv) {
  int rounds = argc > 1 ? atoi(argv[1]) : 7;
  if (rounds < 1 || rounds > 64) return 2;
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx512f")) report("avx512", avx512, rounds);
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) report("avx2", avx2, rounds);
  return 0;
}
