#!/bin/sh
# Installs the majordomus binary for this machine from a release: a folder `npm run build:release` made (or a mirror
# of one), or the published releases of the project's home once it has one.
#
#   sh install.sh --from dist/release            the release a checkout of the source built (offline)
#   sh install.sh [--version 0.1.0|v0.1.0] [--into DIR]
#
# --from DIR|URL  where the release's files are (a folder, file:// or https://); default: the home's releases
# --version V     the release to install (0.1.0 and v0.1.0 both work; default: the latest, or the folder's)
# --into DIR      where to put the binary (default: $HOME/.local/bin); never inside a git repository
# Environment: MAJORDOMUS_DOWNLOAD_BASE (as --from), MAJORDOMUS_REPO (owner/name of a GitHub repository whose
#              releases to download: a fork), MAJORDOMUS_BASELINE=1 (the build for x64 CPUs without AVX2, chosen
#              by itself when needed).
set -eu

usage() {
  cat <<'EOF'
install.sh: install the majordomus binary for this machine from a release

  sh install.sh --from dist/release      the release `npm run build:release` made in a checkout of the source
  sh install.sh [--version 0.1.0|v0.1.0] [--into DIR]

  --from DIR|URL  where the release's files are: a folder, file:// or https:// (default: the project's published
                  releases; there are none yet)
  --version V     the release to install (default: the latest)
  --into DIR      where to put the binary (default: $HOME/.local/bin); never inside a git repository, where the
                  hooks would not run it
  -h, --help      this text

  MAJORDOMUS_DOWNLOAD_BASE=DIR|URL  as --from
  MAJORDOMUS_REPO=owner/name        download from that GitHub repository's releases (a fork)
  MAJORDOMUS_BASELINE=1             the x64 build for CPUs without AVX2 (chosen by itself when needed)
EOF
}

die() {
  echo "install.sh: $1" >&2
  exit "${2:-1}"
}

# The project's home (owner/name on GitHub): stamped from package.json's `home.github` by `build.ts` into the
# release's copy; empty while the project publishes no release.
home=
repo=${MAJORDOMUS_REPO:-$home}
base=${MAJORDOMUS_DOWNLOAD_BASE:-}
version=latest
into=${HOME}/.local/bin

while [ $# -gt 0 ]; do
  case $1 in
    --version)
      [ $# -ge 2 ] && [ -n "$2" ] && [ "${2#-}" = "$2" ] || die "--version needs a value, e.g. --version 0.1.0" 2
      version=$2; shift 2 ;;
    --version=*) version=${1#--version=}; [ -n "$version" ] || die "--version needs a value, e.g. --version 0.1.0" 2; shift ;;
    --into)
      [ $# -ge 2 ] && [ -n "$2" ] || die "--into needs a folder" 2
      into=$2; shift 2 ;;
    --into=*) into=${1#--into=}; shift ;;
    --from)
      [ $# -ge 2 ] && [ -n "$2" ] || die "--from needs a folder or URL, e.g. --from dist/release" 2
      base=$2; shift 2 ;;
    --from=*) base=${1#--from=}; [ -n "$base" ] || die "--from needs a folder or URL" 2; shift ;;
    -h|--help) usage; exit 0 ;;
    *) die "unknown option $1 (try --help)" 2 ;;
  esac
done
# Tags are v-prefixed; a version is accepted with or without the v.
case $version in
  latest) ;;
  v[0-9]*) ;;
  [0-9]*) version=v$version ;;
  *) die "--version $version is not a version like 0.1.0" 2 ;;
esac

case $(uname -s) in
  Linux) os=linux ;;
  Darwin) os=darwin ;;
  MINGW*|MSYS*|CYGWIN*) os=windows ;;
  *) die "no majordomus build for $(uname -s)" ;;
esac
case $(uname -m) in
  x86_64|amd64) arch=x64 ;;
  aarch64|arm64) arch=arm64 ;;
  *) die "no majordomus build for $(uname -m)" ;;
esac
if [ "$os" = linux ] && ldd --version 2>&1 | grep -qi musl; then
  die "the Linux builds need glibc; this system uses musl"
fi
[ "$os" = windows ] && [ "$arch" != x64 ] && die "Windows builds are x64 only"

# The x64 builds use AVX2; a CPU without it gets the baseline build.
variant=
if [ "$arch" = x64 ]; then
  if [ "${MAJORDOMUS_BASELINE:-}" = 1 ]; then variant=-baseline
  elif [ "$os" = linux ] && [ -r /proc/cpuinfo ] && ! grep -qw avx2 /proc/cpuinfo; then variant=-baseline
  elif [ "$os" = darwin ] && ! sysctl -n machdep.cpu.leaf7_features 2>/dev/null | grep -qi avx2; then variant=-baseline
  fi
fi

name=majordomus
archive=majordomus-$os-$arch$variant.tar.xz
if [ "$os" = windows ]; then
  name=majordomus.exe
  archive=majordomus-$os-$arch$variant.zip
fi
if [ -n "$base" ]; then base=${base%/}
elif [ -z "$repo" ]; then
  die "majordomus publishes no release yet, so there is nothing to download. In a checkout of its source:
  npm ci && npm run build:release && sh install.sh --from dist/release" 1
elif [ "$version" = latest ]; then base=https://github.com/$repo/releases/latest/download
else base=https://github.com/$repo/releases/download/$version; fi
# The hooks never run a binary inside a repository (a checkout can replace any file there): refuse to put it there.
inside=$into
while [ ! -d "$inside" ] && [ "$inside" != / ] && [ "$inside" != . ]; do inside=$(dirname "$inside"); done
if command -v git >/dev/null 2>&1 && top=$(git -C "$inside" rev-parse --show-toplevel 2>/dev/null); then
  die "--into $into is inside the git repository $top, where majordomus's hooks never run a binary; give a folder outside every repository (the default is \$HOME/.local/bin)" 2
fi

# A progress bar on a terminal, silence in a pipe or a log. A base that is a plain folder is copied from.
fetch() {
  case $1 in
    *://*) ;;
    *) cp "$1" "$2" 2>/dev/null || return 1; return 0 ;;
  esac
  if command -v curl >/dev/null 2>&1; then
    if [ -t 2 ]; then curl -fL --progress-bar -o "$2" "$1"; else curl -fsSL -o "$2" "$1"; fi
  elif command -v wget >/dev/null 2>&1; then
    if [ -t 2 ]; then wget -q --show-progress -O "$2" "$1"; else wget -q -O "$2" "$1"; fi
  else die "needs curl or wget"; fi
}

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
echo "downloading $base/$archive" >&2
fetch "$base/$archive" "$tmp/$archive" || die "could not download $base/$archive"
fetch "$base/SHA256SUMS" "$tmp/SHA256SUMS" || die "could not download $base/SHA256SUMS"
expected=$(grep " $archive\$" "$tmp/SHA256SUMS" | cut -d' ' -f1)
if command -v sha256sum >/dev/null 2>&1; then actual=$(sha256sum "$tmp/$archive" | cut -d' ' -f1)
else actual=$(shasum -a 256 "$tmp/$archive" | cut -d' ' -f1); fi
if [ -z "$expected" ] || [ "$expected" != "$actual" ]; then
  die "checksum mismatch for $archive (expected ${expected:-none in SHA256SUMS}, got $actual)"
fi

mkdir -p "$tmp/out"
case $archive in
  *.zip) command -v unzip >/dev/null 2>&1 || die "needs unzip"; unzip -q "$tmp/$archive" -d "$tmp/out" ;;
  *) tar -xJf "$tmp/$archive" -C "$tmp/out" || die "could not unpack $archive (tar needs xz support)" ;;
esac
[ -f "$tmp/out/$name" ] || die "$archive holds no $name"
chmod 755 "$tmp/out/$name"
# The version asked for is the version installed: a mirror or folder holding another is refused, naming both.
if [ "$version" != latest ]; then
  got=$("$tmp/out/$name" --version 2>/dev/null) || die "the $name in $archive does not run on this machine"
  [ "v$got" = "$version" ] || die "$base holds version $got, not ${version#v}; nothing was installed" 1
fi
mkdir -p "$into"
mv "$tmp/out/$name" "$into/$name"
"$into/$name" --version >/dev/null || die "the installed $into/$name does not run on this machine"
echo "installed $into/$name ($("$into/$name" --version))" >&2
case ":$PATH:" in *":$into:"*) ;; *) echo "note: $into is not on your PATH" >&2 ;; esac
