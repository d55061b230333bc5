// heic-encode: writes raw interleaved RGB8 (WIDTH x HEIGHT, from Pillow) as an 8-bit HEIC
// with libheif's HEVC encoder (x265) at quality 80, for isolation.sh; `heif-enc -q 80` does
// the same where libheif-examples is installed.
//
//   cc heic-encode.c $(pkg-config --cflags --libs libheif) -o heic-encode
//   heic-encode WIDTH HEIGHT in.rgb out.heic
#include <libheif/heif.h>
#include <stdio.h>
#include <stdlib.h>

static int fail(const char *what, struct heif_error error) {
  fprintf(stderr, "heic-encode: %s: %s\n", what, error.message);
  return 1;
}

int main(int argc, char **argv) {
  if (argc != 5) {
    fprintf(stderr, "usage: heic-encode WIDTH HEIGHT in.rgb out.heic\n");
    return 64;
  }
  int width = atoi(argv[1]), height = atoi(argv[2]);
  if (width <= 0 || height <= 0 || width > 16384 || height > 16384) return 64;
  FILE *input = fopen(argv[3], "rb");
  if (input == NULL) return 66;
  struct heif_context *context = heif_context_alloc();
  struct heif_encoder *encoder;
  struct heif_error error =
      heif_context_get_encoder_for_format(context, heif_compression_HEVC, &encoder);
  if (error.code) return fail("no HEVC encoder", error);
  heif_encoder_set_lossy_quality(encoder, 80);
  struct heif_image *image;
  error = heif_image_create(width, height, heif_colorspace_RGB, heif_chroma_interleaved_RGB,
                            &image);
  if (error.code) return fail("image", error);
  error = heif_image_add_plane(image, heif_channel_interleaved, width, height, 8);
  if (error.code) return fail("plane", error);
  int stride = 0;
  uint8_t *plane = heif_image_get_plane(image, heif_channel_interleaved, &stride);
  for (int row = 0; row < height; row++)
    if (fread(plane + (size_t)row * (size_t)stride, 3, (size_t)width, input) != (size_t)width)
      return 65;
  fclose(input);
  error = heif_context_encode_image(context, image, encoder, NULL, NULL);
  if (error.code) return fail("encode", error);
  error = heif_context_write_to_file(context, argv[4]);
  if (error.code) return fail("write", error);
  heif_encoder_release(encoder);
  heif_image_release(image);
  heif_context_free(context);
  return 0;
}
