// The damaged-language-data study's driver (damaged-data.py): loads `<dir>/eng.traineddata` and
// reads an image with it, either as Tesseract does on its own ("plain") or after the shim's
// check (`dex_traineddata_check`, Sources/CDexTextShim/traineddata.c, compiled in).
// The check's test load runs in dex-traineddata-probe (Sources/DexTraineddataProbe/main.c), whose
// path is the fourth argument. Exit codes: 0 read, 10 refused by the check, 11 refused by Tesseract's Init; a signal when
// Tesseract ends the process.
#include <leptonica/allheaders.h>
#include <stdio.h>
#include <string.h>
#include <tesseract/capi.h>

#include "traineddata.h"

int main(int argc, char **argv) {
  if (argc != 5) {
    fprintf(stderr, "usage: damaged-data plain|checked DIR IMAGE PROBE\n");
    return 2;
  }
  if (strcmp(argv[1], "checked") == 0) {
    char message[300];
    if (dex_traineddata_check(argv[4], argv[2], "eng", OEM_DEFAULT, 0, message, sizeof message) !=
        0) {
      printf("%s\n", message);
      return 10;
    }
  }
  TessBaseAPI *api = TessBaseAPICreate();
  TessBaseAPISetVariable(api, "debug_file", "/dev/null");
  if (TessBaseAPIInit3(api, argv[2], "eng") != 0) return 11;
  PIX *image = pixRead(argv[3]);
  if (image == NULL) return 2;
  TessBaseAPISetImage2(api, image);
  char *text = TessBaseAPIGetUTF8Text(api);
  printf("%s", text ? text : "");
  return 0;
}
