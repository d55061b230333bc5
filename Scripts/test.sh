#!/usr/bin/env bash
# The whole test suite: installs what is missing, lints, checks what a host app resolves, then
# builds and runs the tests of every package in this repository:
#   .                 the SDK (DexModel, DexImaging, DexCloud, DexCloudServer, DexStorage, DexKit)
#   Examples          the dex command-line app, dex-demo, custom-classifier, and the dex-proxy
#                     backend (against a real PostgreSQL started here), and DexCloud's client
#                     against real loopback servers, and PixScan (its Swift tests, then its page
#                     in headless Chromium: Scripts/pixscan-browser-test.sh)
# Every package runs even when an earlier one fails; the last line sums them up.
# Both build into one scratch folder ($DEX_TEST_SCRATCH, default .build): the SDK, swift-crypto,
# GRDB and the other shared dependencies are compiled once, not once per package (the compile
# commands are the same, so the build system finds them up to date; every build goes through
# Scripts/swift-build.sh, which keeps SwiftPM's trait flags in one order). The benchmarks are not
# built here: they run no test (.ci/run builds them before this script).
# Each step prints its wall time, and the last lines the time of the whole run.
# Extra arguments go to every `swift test` (for example `--filter DexScanner`).
set -euo pipefail
cd "$(dirname "$0")/.."
run_started=$SECONDS
# The proxy's slot test holds about 2 000 descriptors in one test process (a thousand
# connections, both ends): the soft limit goes up to what the machine allows.
ulimit -n "$(ulimit -Hn)" 2>/dev/null || true
source Scripts/bootstrap.sh
bash Scripts/lint.sh
bash Scripts/check-host-dependencies.sh
echo "== set-up, lint and host dependencies: $((SECONDS - run_started)) s"

logs="$(mktemp -d)"
trap 'rm -rf "$logs"' EXIT
# A throwaway PostgreSQL for the proxy's shared-store tests (Scripts/postgres.sh installs Debian's
# postgresql when missing and stops the server on exit). DEX_POSTGRES_DIR stays exported: the
# outage test pauses and resumes the server itself. The assignment is apart from `export` so
# that a failing start stops this script.
DEX_POSTGRES_DIR="$(mktemp -d)"
export DEX_POSTGRES_DIR
DEX_TEST_POSTGRES_URL="$(bash Scripts/postgres.sh start)"
export DEX_TEST_POSTGRES_URL
trap 'bash Scripts/postgres.sh stop >/dev/null 2>&1 || true; rm -rf "$logs" "$DEX_POSTGRES_DIR"' EXIT
failed_packages=()
scratch="$(realpath -m "${DEX_TEST_SCRATCH:-.build}")"
run_package() {  # $1: package path
  local name="${1//\//-}" started=$SECONDS
  if [ "$name" = . ]; then name=root; fi
  echo "== $1: build"
  if ! bash Scripts/swift-build.sh --package-path "$1" --scratch-path "$scratch" --build-tests; then
    failed_packages+=("$1 (build)")
    return
  fi
  echo "== $1: test (built in $((SECONDS - started)) s)"
  started=$SECONDS
  swift test --package-path "$1" --scratch-path "$scratch" --skip-build "${@:2}" 2>&1 \
    | tee "$logs/$name.log" || failed_packages+=("$1")
  echo "== $1: tested in $((SECONDS - started)) s"
}
run_package . "$@"
run_package Examples "$@"
# PixScan's page in headless Chromium (Selenium) against the pixscan binary just built. Its
# checks are not Swift Testing tests: its own `pixscan-browser: N passed, M failed` line (the
# desktop and the phone profile together; its per-profile line is shown beside it) is added to
# the closing summary below.
echo "== PixScan in the browser"
started=$SECONDS
bash Scripts/pixscan-browser-test.sh 2>&1 | tee "$logs/browser.txt" || failed_packages+=("PixScan browser test")
echo "== PixScan in the browser: $((SECONDS - started)) s"
# A host package outside the repository, tested with DexKitTesting alone (no network, no disk),
# with DexKit's default traits off. It builds in the trait-less scratch folder of .ci/run's
# `swift test --disable-default-traits` when that exists (CI: nothing left to build there);
# otherwise in the shared one, where swift-crypto, GRDB and swift-log are already built and only
# DexKit's own modules compile again, without the traits. It runs after every package that
# needs them with the traits (the Examples and the browser test's pixscan), so nothing here
# builds DexKit twice; the next default build recompiles those modules once.
echo "== host package with DexKitTesting"
started=$SECONDS
host_scratch="$scratch"
if [ -d "${scratch}-portable" ]; then host_scratch="${scratch}-portable"; fi
DEX_HOST_TESTING_SCRATCH="$host_scratch" bash Scripts/check-host-testing.sh | tee "$logs/host.log" \
  || failed_packages+=("host package")
echo "== host package: built and tested in $((SECONDS - started)) s"

# One closing line over all packages, from Swift Testing's own summaries.
total=$(cat "$logs"/*.log 2>/dev/null | sed -n 's/.*Test run with \([0-9]*\) tests\{0,1\} in .*/\1/p' \
  | awk '{ sum += $1 } END { print sum + 0 }')
failures=$(cat "$logs"/*.log 2>/dev/null | grep '✘ Test .* failed after' | grep -vc '✘ Test run with' || true)
browser_passed=$(sed -n 's/^pixscan-browser: \([0-9]*\) passed, [0-9]* failed$/\1/p' "$logs/browser.txt" 2>/dev/null | tail -1)
browser_failed=$(sed -n 's/^pixscan-browser: [0-9]* passed, \([0-9]*\) failed$/\1/p' "$logs/browser.txt" 2>/dev/null | tail -1)
browser_profiles=$(sed -n 's/^pixscan-browser profiles: \(.*\)$/ (\1)/p' "$logs/browser.txt" 2>/dev/null | tail -1)
browser_not_run=$(sed -n 's/^pixscan-browser: \(not run: .*\)$/\1/p' "$logs/browser.txt" 2>/dev/null | tail -1)
if [ -n "$browser_not_run" ]; then
  echo "Swift Testing: $total tests, $failures failed; PixScan browser checks: $browser_not_run"
else
  echo "Swift Testing: $total tests, $failures failed; PixScan browser checks: ${browser_passed:-0} passed, ${browser_failed:-0} failed${browser_profiles}"
fi
total=$((total + ${browser_passed:-0} + ${browser_failed:-0}))
failures=$((failures + ${browser_failed:-0}))
# Checks that did not run are named on the last line too, never left out of it unsaid.
not_run="${browser_not_run:+ (PixScan browser checks not run)}"
echo "== whole run: $((SECONDS - run_started)) s"
if ((${#failed_packages[@]})); then
  # What failed, near the end of the output, where a CI log's tail shows it: each failed test
  # and issue, and for a package whose test process ended without Swift Testing's summary (it
  # crashed), the last lines it printed (the trap or signal is among them).
  for log in "$logs"/*.log; do
    [ -e "$log" ] || continue
    found=$(grep -a -E '✘|Fatal error|Precondition failed|Assertion failed|error: ' "$log" \
      | grep -a -v ' passed after ' | tail -n 40 || true)
    if ! grep -a -q 'Test run with [0-9]* tests\{0,1\} in ' "$log"; then
      found+="${found:+$'\n'}-- no Swift Testing summary (the process ended early); its last lines:"
      found+=$'\n'"$(tail -n 30 "$log")"
    fi
    if [ -n "$found" ]; then printf '== failures in %s\n%s\n' "$(basename "$log" .log)" "$found"; fi
  done
  echo "Failed: ${failed_packages[*]}" >&2
  echo "DexKit: $((total - failures)) passed, $((failures > 0 ? failures : 1)) failed$not_run"
  exit 1
fi
echo "DexKit: $total passed, 0 failed$not_run"
