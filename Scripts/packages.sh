#!/usr/bin/env bash
# Installs groups of Scripts/packages.tsv, the one list of what DexKit's scripts install, with
# the names of the distribution this runs on (from /etc/os-release): `dexkit_install_group demo`.
# Sourced by Scripts/bootstrap.sh and by scripts that need a group of their own (the browser
# test, postgres.sh); defines functions only. `sudo` is used wherever this is not root.

dexkit_sudo() {
  if [ "$(id -u)" -ne 0 ]; then sudo "$@"; else "$@"; fi
}

# The packages.tsv column of this distribution: debian-12, debian-13 or ubuntu-24.04.
dexkit_distribution() {
  local id="" version=""
  if [ -r /etc/os-release ]; then
    id="$(. /etc/os-release && echo "${ID:-}")"
    version="$(. /etc/os-release && echo "${VERSION_ID:-}")"
  fi
  case "$id-$version" in
    debian-12 | debian-13 | ubuntu-24.04) echo "$id-$version" ;;
    *)
      echo "DexKit: $id $version is not a distribution Scripts/packages.tsv lists; using" \
        "Debian 12's names (Debian 12, Debian 13 and Ubuntu 24.04 are known)" >&2
      echo debian-12
      ;;
  esac
}

dexkit_apt_updated=""
dexkit_apt_update() {
  if [ -z "$dexkit_apt_updated" ]; then
    dexkit_sudo apt-get update -qq
    dexkit_apt_updated=1
  fi
}

# Adds bookworm-backports (deb822, the same file every time) when a package comes from it.
dexkit_add_backports() {
  local sources=/etc/apt/sources.list.d/bookworm-backports.sources
  [ -f "$sources" ] && return
  echo "DexKit: adding bookworm-backports ($sources)" >&2
  printf '%s\n' "Types: deb" "URIs: http://deb.debian.org/debian" \
    "Suites: bookworm-backports" "Components: main" \
    "Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg" | dexkit_sudo tee "$sources" >/dev/null
  dexkit_apt_updated=""
}

# Whether the Debian package $1 is installed, at version $2 or later when $2 is given.
dexkit_apt_has() {
  dpkg -s "$1" >/dev/null 2>&1 || return 1
  [ -z "$2" ] && return 0
  dpkg --compare-versions "$(dpkg-query -W -f='${Version}' "$1")" ge "$2"
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

# Installs what groups "$@" of Scripts/packages.tsv need on this distribution and is missing.
dexkit_install_group() {
  local table column distribution
  table="$(dirname "${BASH_SOURCE[0]}")/packages.tsv"
  distribution="$(dexkit_distribution)"
  column="$(head -n 100 "$table" | grep -v '^#' | head -n 1 | tr '\t' '\n' | grep -nx "$distribution" | cut -d: -f1)"
  local plain=() suites=() pips=() minimums=() group kind spec name minimum suite
  for group in "$@"; do
    while IFS=$'\t' read -r kind spec; do
      [ "$spec" = "-" ] && continue
      if [ "$kind" = pip ]; then pips+=("$spec"); continue; fi
      name="${spec%%@*}"; suite=""
      [ "$name" != "$spec" ] && suite="${spec#*@}"
      minimum=""
      if [[ "$name" == *">="* ]]; then minimum="${name#*>=}"; name="${name%%>=*}"; fi
      dexkit_apt_has "$name" "$minimum" && continue
      if [ -n "$minimum" ]; then
        minimums+=("$name>=$minimum")
        # Older, and no suite to take a newer one from: installing again changes nothing.
        [ -z "$suite" ] && dexkit_apt_has "$name" "" && continue
      fi
      if [ -n "$suite" ]; then suites+=("$suite:$name"); else plain+=("$name"); fi
    done < <(grep -v '^#' "$table" | tail -n +2 | awk -F'\t' -v g="$group" -v c="$column" \
      '$1 == g { print $2 "\t" $c }')
  done
  if ((${#plain[@]})); then
    echo "DexKit: installing ${plain[*]}" >&2
    dexkit_apt_update
    DEBIAN_FRONTEND=noninteractive dexkit_sudo apt-get install -y -qq --no-install-recommends \
      "${plain[@]}"
  fi
  local entry names
  for suite in $(printf '%s\n' "${suites[@]}" | cut -d: -f1 | sort -u); do
    names=()
    for entry in "${suites[@]}"; do [ "${entry%%:*}" = "$suite" ] && names+=("${entry#*:}"); done
    [ "$suite" = bookworm-backports ] && dexkit_add_backports
    echo "DexKit: installing ${names[*]} from $suite" >&2
    dexkit_apt_update
    DEBIAN_FRONTEND=noninteractive dexkit_sudo apt-get install -y -qq --no-install-recommends \
      -t "$suite" "${names[@]}"
  done
  for spec in "${pips[@]}"; do dexkit_pip_install "${spec%%==*}" "${spec#*==}"; done
  # A minimum this distribution cannot meet (Ubuntu 24.04's libheif 1.17) is said, with why the
  # table wants it: what needs it then refuses with a typed error instead of running.
  for spec in "${minimums[@]}"; do
    name="${spec%%>=*}"; minimum="${spec#*>=}"
    dexkit_apt_has "$name" "$minimum" && continue
    echo "DexKit: $name $(dpkg-query -W -f='${Version}' "$name" 2>/dev/null || echo missing) is" \
      "older than $minimum (none newer on $distribution): $(grep -v '^#' "$table" \
      | awk -F'\t' -v n="$name" -v c="$column" '$c ~ "^" n ">=" { print $6; exit }')" >&2
  done
}
