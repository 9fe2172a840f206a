#!/usr/bin/env bash
# Installs the Debian 12 packages gpuplan needs to build, test and package (cpack's DEB generator
# reads the binary's libraries with dpkg-shlibdeps, from dpkg-dev, and file; --version asks git;
# the zsh completion is tested in zsh; the pages' colours are checked in headless Chromium).
# Idempotent: it only calls apt-get when a package is missing. `--fuzz` adds clang and its
# libFuzzer runtime for scripts/fuzz.sh (not needed to build or test).
set -euo pipefail

packages=(
  cmake ninja-build g++ pkg-config
  libcli11-dev libfmt-dev nlohmann-json3-dev libyaml-cpp-dev
  libgtest-dev libgmock-dev
  zlib1g-dev libcurl4-openssl-dev libarchive-dev libssl-dev
  libsqlite3-dev libcpp-httplib-dev libcrypt-dev
  prometheus chromium
  dpkg-dev file git zsh
)
if [ "${1:-}" = "--fuzz" ]; then
  packages+=(clang libclang-rt-14-dev)
fi

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi
echo "install-deps: installing ${missing[*]}" >&2
sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
