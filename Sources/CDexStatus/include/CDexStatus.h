// CDexStatus: the one list of result codes that every C shim of DexKit returns (CDexImageShim,
// CDexTextShim, CDexNeuralShim). The shims include this header and define no codes of their own;
// DexImaging's `ShimStatus` maps the list to Swift once, and Scripts/lint.sh checks both (no
// other list under Sources/C*, every code here mapped in ShimStatus.swift).
//
// Plain integers and no library type, so it needs no trait: it compiles on every platform.
#ifndef CDEXSTATUS_H
#define CDEXSTATUS_H

/// Result codes of every fallible shim function. A shim that has a message buffer writes the
/// library's own text into it for a failure.
enum {
  DEX_STATUS_OK = 0,
  /// The library reported a failure (libjpeg / libpng / libheif / libwebp's fatal error,
  /// Tesseract failing on an image, oneDNN refusing a step); the message says which and why.
  DEX_STATUS_LIBRARY_ERROR = 1,
  /// The data ended before the image did (only returned when partial images are not allowed).
  DEX_STATUS_TRUNCATED = 2,
  /// An allocation failed.
  DEX_STATUS_OUT_OF_MEMORY = 3,
  /// A caller error (null pointer, bad size, wrong call order).
  DEX_STATUS_INVALID_ARGUMENT = 4,
  /// The image exceeds the limits that were passed in.
  DEX_STATUS_TOO_LARGE = 5,
  /// The library installed cannot decode this safely (libheif older than 1.19, which has no
  /// security limits); the message says which version and what to install.
  DEX_STATUS_UNSUPPORTED = 6,
  /// The library or its data could not be loaded (libdnnl missing, Tesseract's Init failing or
  /// its language data refused); the message says which and why.
  DEX_STATUS_UNAVAILABLE = 7,
  /// The job was cancelled before or during the work.
  DEX_STATUS_CANCELLED = 8,
  /// The job's deadline passed before the work finished.
  DEX_STATUS_TIMED_OUT = 9,
  /// No plan is built for that thread count yet (oneDNN network): add one, then run again.
  DEX_STATUS_NO_PLAN = 10,
};

#endif
