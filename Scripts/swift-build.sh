#!/usr/bin/env bash
# `swift build` with its arguments, the way every script here builds (Scripts/test.sh,
# Scripts/pixscan-browser-test.sh, Scripts/demo.sh, .ci/run), so that one build folder serves
# them all without recompiling.
#
# Why: SwiftPM 6.3 passes a package's enabled traits to the compiler (`-DSystemImageCodecs
# -DOneDNN -DTesseract`) in the iteration order of a Set, which is redrawn with the per-process
# hash seed, and llbuild keys each compile command on its whole argument list. So each new
# `swift build` (the root package's, then the Examples package's in the same scratch folder)
# recompiled every DexKit module whenever the order came out differently (5 times in 6), and with
# them every module that imports one. A fixed hash seed for SwiftPM's own process makes the order
# the same in every invocation (fixed in SwiftPM 6.4: swiftlang/swift-package-manager#10344).
# Only the build tool gets it: the tests run with Swift's ordinary random seeding.
set -euo pipefail
SWIFT_DETERMINISTIC_HASHING=1 exec swift build "$@"
