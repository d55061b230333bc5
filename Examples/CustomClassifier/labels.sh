#!/bin/sh
# A stand-in "model" for the custom-classifier example: reads the JPEG from standard input and
# prints ranked labels. Replace it with a real engine; the output format is label<TAB>confidence.
bytes=$(wc -c)
if [ "$bytes" -gt 20000 ]; then
  printf 'houseplant\t0.61\nflowerpot\t0.22\n'
else
  printf 'pebble\t0.55\nstone\t0.30\n'
fi
