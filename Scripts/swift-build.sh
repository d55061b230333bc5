#!/usr/bin/env bash
# `swift build` with its arguments, the way every script here builds (Scripts/test.sh,
# Scripts/check-host-testing.sh, Scripts/pixscan-browser-test.sh, Scripts/demo.sh, .ci/run), so
# that one build folder serves them all without recompiling: the flags below are part of every
# compile command, and llbuild keys each command on its whole argument list, so a build without
# them (a plain `swift build` in the same folder) recompiles everything once.
#
# Why the fixed hash seed: SwiftPM 6.3 passes a package's enabled traits to the compiler
# (`-DSystemImageCodecs -DOneDNN -DTesseract`) in the iteration order of a Set, which is redrawn
# with the per-process hash seed. So each new `swift build` (the root package's, then the
# Examples package's in the same scratch folder) recompiled every DexKit module whenever the
# order came out differently (5 times in 6), and with them every module that imports one. A fixed
# hash seed for SwiftPM's own process makes the order the same in every invocation (fixed in
# SwiftPM 6.4: swiftlang/swift-package-manager#10344). Only the build tool gets it: the tests run
# with Swift's ordinary random seeding.
#
# Why the other flags (both only change how fast the build is, not what it compiles):
# - `-debug-info-format none`: no DWARF (Swift `-gnone`, C `-g0`, links without `-g`). The test
#   builds are run, never debugged here, and the debug information made a fresh build's compile
#   and link steps slower (a fresh-clone Scripts/test.sh: 702 s with it, 667 s without it and
#   with lld). To debug, build with a plain `swift build` in a scratch folder of its own
#   (`--scratch-path .build-debug`).
# - `-Xswiftc -use-ld=lld`: the toolchain's lld links instead of GNU gold (the default on Linux):
#   linking the Examples' test binary without debug information, 1.1 s instead of 1.9 s.
set -euo pipefail
SWIFT_DETERMINISTIC_HASHING=1 exec swift build -debug-info-format none -Xswiftc -use-ld=lld "$@"
