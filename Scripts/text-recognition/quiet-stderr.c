// Recognizes thin strips of noise through CDexTextShim; see quiet-stderr.sh.
#include "CDexTextShim.h"
#include <stdio.h>
#include <stdlib.h>
int main(int argc, char **argv) {
  dex_ocr_engine *e = NULL; char msg[256];
  const char *probe = argc > 1 ? argv[1] : NULL;  // dex-traineddata-probe
  if (dex_ocr_engine_create("/usr/share/tesseract-ocr/5/tessdata", "eng", probe, &e, msg, sizeof msg) != 0) { printf("init failed %s\n", msg); return 1; }
  int sizes[][2] = {{3,1024},{8,1024},{2048,16}};
  srand(7);
  for (int s = 0; s < 3; s++) {
    int w = sizes[s][0], h = sizes[s][1];
    unsigned char *rgb = malloc((size_t)w*h*3); for (int i = 0; i < w*h*3; i++) rgb[i] = rand() & 255;
    dex_ocr_job *j = dex_ocr_job_create(10000); dex_ocr_result r = {0};
    int st = dex_ocr_recognize(e, j, rgb, w, h, 3, &r, msg, sizeof msg);
    printf("%dx%d status %d\n", w, h, st);
    if (st == 0) dex_ocr_result_free(&r);
    free(rgb);
  }
  return 0;
}
