// Writes an 8-bit HEIC whose irot / imir properties carry EXIF orientation N (1...8) for the
// pixels of a binary PPM, with libheif's x265 encoder (heif-enc has no orientation option).
//
//   cc heif-orient.c $(pkg-config --cflags --libs libheif) -o heif-orient
//   heif-orient in.ppm N quality out.heic
#include <libheif/heif.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int fail(const char *what, struct heif_error e) {
  fprintf(stderr, "%s: %s\n", what, e.message);
  return 1;
}

int main(int argc, char **argv) {
  if (argc != 5) {
    fprintf(stderr, "usage: heif-orient in.ppm orientation quality out.heic\n");
    return 2;
  }
  FILE *f = fopen(argv[1], "rb");
  int w, h, max;
  if (!f || fscanf(f, "P6 %d %d %d", &w, &h, &max) != 3 || max != 255 || fgetc(f) == EOF) {
    fprintf(stderr, "cannot read %s\n", argv[1]);
    return 1;
  }
  heif_init(NULL);
  struct heif_image *image;
  struct heif_error e = heif_image_create(w, h, heif_colorspace_RGB, heif_chroma_interleaved_RGB, &image);
  if (e.code) return fail("create", e);
  e = heif_image_add_plane(image, heif_channel_interleaved, w, h, 8);
  if (e.code) return fail("plane", e);
  int stride;
  uint8_t *plane = heif_image_get_plane(image, heif_channel_interleaved, &stride);
  for (int y = 0; y < h; y++)
    if (fread(plane + (size_t)y * stride, 1, (size_t)w * 3, f) != (size_t)w * 3) return 1;
  fclose(f);
  struct heif_context *ctx = heif_context_alloc();
  struct heif_encoder *encoder;
  e = heif_context_get_encoder_for_format(ctx, heif_compression_HEVC, &encoder);
  if (e.code) return fail("encoder", e);
  heif_encoder_set_lossy_quality(encoder, atoi(argv[3]));
  struct heif_encoding_options *options = heif_encoding_options_alloc();
  options->image_orientation = (enum heif_orientation)atoi(argv[2]);
  e = heif_context_encode_image(ctx, image, encoder, options, NULL);
  if (e.code) return fail("encode", e);
  e = heif_context_write_to_file(ctx, argv[4]);
  if (e.code) return fail("write", e);
  return 0;
}
