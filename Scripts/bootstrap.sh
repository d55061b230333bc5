#!/usr/bin/env bash
# Installs what building DexKit needs on a fresh Debian machine, and nothing when it is
# already there. Sourced by Scripts/demo.sh and Scripts/test.sh; safe to run again.
set -euo pipefail

# libdnnl-dev (oneDNN) is for the classifier's oneDNN backend, the default trait `OneDNN`.
dexkit_system_packages=(libjpeg62-turbo-dev libpng-dev libssl-dev libsqlite3-dev pkg-config
  libdnnl-dev)
# libheif-dev 1.19 or later (HEIF / HEIC / AVIF; its security limits are what make hostile files
# safe, and an older libheif makes DexImaging refuse HEIF and AVIF) with its HEVC (libde265) and
# AV1 (dav1d) decoder plugins, libde265-dev and libdav1d-dev (the shim asks them for a stream's
# picture size), and libwebp-dev 1.5 or later (WebP, with libwebpdemux). Debian 12 has them in
# bookworm-backports (dexkit_heif_packages below); Debian 13 as its standard packages.
dexkit_heif_packages=(libheif-dev libheif-plugin-libde265 libheif-plugin-dav1d libwebp-dev)
dexkit_system_packages+=(libde265-dev libdav1d-dev)
# libtesseract-dev (Tesseract 5 and Leptonica) with English and orientation data for
# DexTextRecognition; tesseract-ocr, the command line, is the peer its benchmark runs against.
dexkit_system_packages+=(libtesseract-dev tesseract-ocr-eng tesseract-ocr-osd tesseract-ocr)
# python3-pil (Pillow, HPND licence) and fonts-dejavu-core (Bitstream Vera licence) render the
# photos of printed text that DexTextRecognition's tests and benchmark read
# (Scripts/text-photo.py, run with Debian's /usr/bin/python3).
dexkit_system_packages+=(python3-pil fonts-dejavu-core)

# Installs the Debian packages among "$@" that are missing (used here and by scripts that need
# more, such as Scripts/pixscan-browser-test.sh).
dexkit_apt_install() {
  local missing=()
  for package in "$@"; do
    dpkg -s "$package" >/dev/null 2>&1 || missing+=("$package")
  done
  if ((${#missing[@]})); then
    echo "DexKit: installing ${missing[*]}" >&2
    local sudo=""
    if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
  fi
}

# On Debian 12 (bookworm), adds bookworm-backports (deb822, the same file every time) and
# installs libheif 1.19 / libwebp 1.5 from it unless they are there already; elsewhere installs
# the standard packages, which Debian 13 has new enough.
dexkit_heif_install() {
  local sudo=""
  if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
  local codename=""
  if [ -r /etc/os-release ]; then codename="$(. /etc/os-release && echo "${VERSION_CODENAME:-}")"; fi
  if [ "$codename" != "bookworm" ]; then
    dexkit_apt_install "${dexkit_heif_packages[@]}"
    return
  fi
  if dpkg --compare-versions "$(dpkg-query -W -f='${Version}' libheif-dev 2>/dev/null || echo 0)" \
    ge 1.19 \
    && dpkg --compare-versions "$(dpkg-query -W -f='${Version}' libwebp-dev 2>/dev/null || echo 0)" \
      ge 1.5 \
    && dpkg -s libheif-plugin-libde265 libheif-plugin-dav1d >/dev/null 2>&1; then
    return
  fi
  local sources=/etc/apt/sources.list.d/bookworm-backports.sources
  if [ ! -f "$sources" ]; then
    echo "DexKit: adding bookworm-backports ($sources) for libheif 1.19 and libwebp 1.5" >&2
    printf '%s\n' "Types: deb" "URIs: http://deb.debian.org/debian" \
      "Suites: bookworm-backports" "Components: main" \
      "Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg" | $sudo tee "$sources" >/dev/null
  fi
  echo "DexKit: installing ${dexkit_heif_packages[*]} from bookworm-backports" >&2
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends \
    -t bookworm-backports "${dexkit_heif_packages[@]}"
}

# Installs PyPI package $1 at exactly version $2 unless that version is there already.
dexkit_pip_install() {
  if ! python3 -c "import importlib.metadata as m; assert m.version('$1') == '$2'" \
    >/dev/null 2>&1; then
    echo "DexKit: installing $1 $2 (pip)" >&2
    python3 -m pip install -q --disable-pip-version-check "$1==$2" \
      || python3 -m pip install -q --disable-pip-version-check --break-system-packages "$1==$2"
  fi
}

dexkit_bootstrap() {
  local packages=("${dexkit_system_packages[@]}")
  # python3 (any install: Debian's or pyenv's) checks the HMAC golden vectors in the tests and
  # the documentation coverage in Scripts/docs.sh.
  command -v python3 >/dev/null 2>&1 || packages+=(python3)
  # pip installs json-repair below (and Selenium for the browser test).
  python3 -m pip --version >/dev/null 2>&1 || packages+=(python3-pip)
  dexkit_apt_install "${packages[@]}"
  dexkit_heif_install
  # json-repair (PyPI, MIT): the peer the tolerant parser is checked against at test time
  # (Tests/DexModelTests/JSONRepairAgreementTests.swift); pinned so that its answers, and the
  # disagreements listed with reasons, stay the same from run to run.
  dexkit_pip_install json-repair 0.64.6
  if ! command -v swift >/dev/null 2>&1; then
    echo "DexKit: Swift 6.2 or later is required (https://swift.org/install)" >&2
    exit 1
  fi
}

dexkit_bootstrap
