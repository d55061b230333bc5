#!/usr/bin/env bash
# Installs what DexKit's scripts need and is missing, from the one list Scripts/packages.tsv,
# with the names of the distribution it runs on (Debian 12 and 13, Ubuntu 24.04), `sudo` when
# not root. Sourced by Scripts/demo.sh (DEXKIT_PACKAGE_GROUPS=demo: building and running `dex`
# only) and Scripts/test.sh (the default, demo and test); safe to run again.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/packages.sh"

dexkit_bootstrap() {
  # python3 (any install: Debian's or pyenv's) checks the HMAC golden vectors in the tests and
  # the documentation coverage in Scripts/docs.sh; pip installs the pinned PyPI packages.
  local extra=()
  command -v python3 >/dev/null 2>&1 || extra+=(python3)
  python3 -m pip --version >/dev/null 2>&1 || extra+=(python3-pip)
  if ((${#extra[@]})); then
    dexkit_apt_update
    DEBIAN_FRONTEND=noninteractive dexkit_sudo apt-get install -y -qq --no-install-recommends \
      "${extra[@]}"
  fi
  # shellcheck disable=SC2086
  dexkit_install_group ${DEXKIT_PACKAGE_GROUPS:-demo test}
  if ! command -v swift >/dev/null 2>&1; then
    echo "DexKit: Swift 6.2 or later is required (https://swift.org/install)" >&2
    exit 1
  fi
}

dexkit_bootstrap
