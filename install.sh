#!/bin/sh
# Installs the majordomus binary for this machine from a GitHub release.
#
#   curl -fsSL https://github.com/majordomus/majordomus/releases/latest/download/install.sh | sh
#   sh install.sh [--version v0.1.0] [--into DIR]
#
# --into DIR   where to put the binary (default: $HOME/.local/bin). Use `<repo>/.majordomus/bin`
#              to give one repository its own copy: the capture shims look there first.
# Environment: MAJORDOMUS_REPO (owner/name of the GitHub repository to download from),
#              MAJORDOMUS_DOWNLOAD_BASE (a mirror holding the release assets; overrides the URL).
set -eu

repo=${MAJORDOMUS_REPO:-majordomus/majordomus}
version=latest
into=${HOME}/.local/bin

while [ $# -gt 0 ]; do
  case $1 in
    --version) version=$2; shift 2 ;;
    --into) into=$2; shift 2 ;;
    -h|--help) sed -n '2,10p' "$0"; exit 0 ;;
    *) echo "install.sh: unknown option $1 (try --help)" >&2; exit 2 ;;
  esac
done

case $(uname -s) in
  Linux) os=linux ;;
  Darwin) os=darwin ;;
  MINGW*|MSYS*|CYGWIN*) os=windows ;;
  *) echo "install.sh: no majordomus build for $(uname -s)" >&2; exit 1 ;;
esac
case $(uname -m) in
  x86_64|amd64) arch=x64 ;;
  aarch64|arm64) arch=arm64 ;;
  *) echo "install.sh: no majordomus build for $(uname -m)" >&2; exit 1 ;;
esac
if [ "$os" = linux ] && ldd --version 2>&1 | grep -qi musl; then
  echo "install.sh: the Linux builds need glibc; this system uses musl" >&2
  exit 1
fi
[ "$os" = windows ] && [ "$arch" != x64 ] && { echo "install.sh: Windows builds are x64 only" >&2; exit 1; }

asset=majordomus-$os-$arch
[ "$os" = windows ] && asset=$asset.exe
if [ -n "${MAJORDOMUS_DOWNLOAD_BASE:-}" ]; then base=$MAJORDOMUS_DOWNLOAD_BASE
elif [ "$version" = latest ]; then base=https://github.com/$repo/releases/latest/download
else base=https://github.com/$repo/releases/download/$version; fi

fetch() {
  if command -v curl >/dev/null 2>&1; then curl -fsSL -o "$2" "$1"
  elif command -v wget >/dev/null 2>&1; then wget -q -O "$2" "$1"
  else echo "install.sh: needs curl or wget" >&2; exit 1; fi
}

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
echo "downloading $base/$asset" >&2
fetch "$base/$asset" "$tmp/$asset"
fetch "$base/SHA256SUMS" "$tmp/SHA256SUMS"
expected=$(grep " $asset\$" "$tmp/SHA256SUMS" | cut -d' ' -f1)
if command -v sha256sum >/dev/null 2>&1; then actual=$(sha256sum "$tmp/$asset" | cut -d' ' -f1)
else actual=$(shasum -a 256 "$tmp/$asset" | cut -d' ' -f1); fi
if [ -z "$expected" ] || [ "$expected" != "$actual" ]; then
  echo "install.sh: checksum mismatch for $asset (expected ${expected:-none}, got $actual)" >&2
  exit 1
fi

name=majordomus
[ "$os" = windows ] && name=majordomus.exe
mkdir -p "$into"
chmod 755 "$tmp/$asset"
mv "$tmp/$asset" "$into/$name"
"$into/$name" --version >/dev/null
echo "installed $into/$name ($("$into/$name" --version))" >&2
case ":$PATH:" in *":$into:"*) ;; *) echo "note: $into is not on your PATH" >&2 ;; esac
