// dex-traineddata-probe: the test load of Tesseract language data (see CDexTextShim's
// traineddata.c), in a process of its own that CDexTextShim starts with posix_spawn + exec.
//
// Usage: dex-traineddata-probe DATAPATH LANGUAGES OEM, with descriptor 3 the report pipe. It
// loads exactly what the engine will, reads a line of built-in text with it, writes one byte
// to descriptor 3 when that worked and exits 0; exit 1 when Tesseract refused the data
// cleanly. Whatever the data does to Tesseract (std::terminate, abort, SIGSEGV, a hang, a
// gigabyte allocation) ends this process only: it runs under an address-space limit, a CPU-time
// limit and an alarm, and the host kills it at its own deadline too.
//
// A fresh process, not a fork of the host: nothing another thread of the host held (a lock,
// libgomp's thread pool) is inherited. That was the stall of issue 38: a forked child whose
// thread had run Tesseract before waited for ever for OpenMP threads that did not exist in it.
//
// Compiled only on Linux with the Tesseract trait (Package.swift defines DEXKIT_TRAIT_TESSERACT
// then); otherwise it needs no Tesseract headers, only says so and exits 69.
#if defined(__linux__) && defined(DEXKIT_TRAIT_TESSERACT)
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <unistd.h>

#include <tesseract/capi.h>

/// The bytes the process maps now; 0 when unknown.
static size_t mapped_bytes(void) {
  FILE *file = fopen("/proc/self/statm", "re");
  unsigned long pages = 0;
  if (file != NULL) {
    if (fscanf(file, "%lu", &pages) != 1) pages = 0;
    fclose(file);
  }
  return (size_t)pages * (size_t)sysconf(_SC_PAGESIZE);
}

/// A line of words and digits in a 5×7 pixel font, drawn three times larger on white, so that
/// a recognition runs the model, the recoder and the dictionaries (damage there crashes
/// Tesseract only when it reads them; a pangram caught no more of the damaged files tried).
static unsigned char *sample_text(int *width, int *height) {
  static const char text[] = "The cat 2024";
  static const struct {
    char character;
    unsigned char rows[7];
  } font[] = {
      {'a', {0x00, 0x00, 0x0E, 0x01, 0x0F, 0x11, 0x0F}},
      {'c', {0x00, 0x00, 0x0E, 0x10, 0x10, 0x11, 0x0E}},
      {'e', {0x00, 0x00, 0x0E, 0x11, 0x1F, 0x10, 0x0E}},
      {'h', {0x10, 0x10, 0x16, 0x19, 0x11, 0x11, 0x11}},
      {'t', {0x08, 0x08, 0x1C, 0x08, 0x08, 0x09, 0x06}},
      {'T', {0x1F, 0x04, 0x04, 0x04, 0x04, 0x04, 0x04}},
      {'0', {0x0E, 0x11, 0x11, 0x11, 0x11, 0x11, 0x0E}},
      {'2', {0x0E, 0x11, 0x01, 0x02, 0x04, 0x08, 0x1F}},
      {'4', {0x02, 0x06, 0x0A, 0x12, 0x1F, 0x02, 0x02}},
  };
  enum { SCALE = 3, MARGIN = 16, LENGTH = sizeof text - 1 };
  *width = 2 * MARGIN + LENGTH * 6 * SCALE;
  *height = 2 * MARGIN + 7 * SCALE;
  unsigned char *pixels = malloc((size_t)*width * (size_t)*height);
  if (pixels == NULL) return NULL;
  memset(pixels, 255, (size_t)*width * (size_t)*height);
  for (int i = 0; i < LENGTH; i++)
    for (size_t f = 0; f < sizeof font / sizeof font[0]; f++) {
      if (font[f].character != text[i]) continue;
      for (int row = 0; row < 7 * SCALE; row++)
        for (int column = 0; column < 5 * SCALE; column++)
          if (font[f].rows[row / SCALE] & (0x10 >> (column / SCALE)))
            pixels[(size_t)(MARGIN + row) * (size_t)*width +
                   (size_t)(MARGIN + i * 6 * SCALE + column)] = 0;
    }
  return pixels;
}

int main(int argc, char **argv) {
  enum { REPORT = 3 };
  if (argc != 4) return 64;
  // Only the report pipe beyond 0-2 (the host's spawn closed the rest already).
  if (close_range(REPORT + 1, ~0U, 0) != 0)
    for (int fd = REPORT + 1; fd < 65536; fd++) close(fd);
  prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
  prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0);
  struct rlimit none = {0, 0}, cpu = {30, 30}, memory;
  setrlimit(RLIMIT_CORE, &none);
  setrlimit(RLIMIT_FSIZE, &none);
  setrlimit(RLIMIT_CPU, &cpu);
  // A component sized in gigabytes fails here (and aborts the probe), not in the host's RAM.
  size_t mapped = mapped_bytes();
  if (mapped > 0 && getrlimit(RLIMIT_AS, &memory) == 0) {
    rlim_t limit = (rlim_t)(mapped + ((size_t)3 << 29));  // 1.5 GiB more than mapped
    if (memory.rlim_max == RLIM_INFINITY || limit < memory.rlim_max) memory.rlim_cur = limit;
    setrlimit(RLIMIT_AS, &memory);
  }
  alarm(30);
  TessBaseAPI *api = TessBaseAPICreate();
  TessBaseAPISetVariable(api, "debug_file", "/dev/null");
  if (TessBaseAPIInit2(api, argv[1], argv[2], (TessOcrEngineMode)atoi(argv[3])) != 0) _exit(1);
  int width = 0, height = 0;
  unsigned char *sample = sample_text(&width, &height);
  if (sample != NULL) {  // a recognition too: some damage is read only then
    TessBaseAPISetImage(api, sample, width, height, 1, width);
    TessBaseAPIRecognize(api, NULL);
  }
  char loaded = 1;
  while (write(REPORT, &loaded, 1) < 0 && errno == EINTR) {
  }
  _exit(0);  // the data was read; nothing to end cleanly
}

#else
#include <stdio.h>

int main(void) {
  fputs("dex-traineddata-probe: built without Tesseract (it needs Linux and the package's "
        "Tesseract trait); it probes nothing\n",
        stderr);
  return 69;  // EX_UNAVAILABLE
}

#endif  // defined(__linux__) && defined(DEXKIT_TRAIT_TESSERACT)
