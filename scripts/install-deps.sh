#!/usr/bin/env bash
# Installs the Debian packages Loom needs. One list, used by `make`, CI and deploy/Dockerfile.
#   scripts/install-deps.sh build    # headers + fonts: what `make run` / `make test` need
#   scripts/install-deps.sh runtime  # shared libraries + fonts only (the container's runtime stage)
#   scripts/install-deps.sh test     # build + what the test suite drives (wrk, chromium, nodejs; g++ and
#                                    # python3-dev build real Yoga for the Yoga differential test)
#   scripts/install-deps.sh --print runtime   # print the list, install nothing
set -euo pipefail

FONTS="fonts-roboto fonts-liberation2 fonts-inter fonts-dejavu-core fonts-dejavu-extra fonts-noto-core fonts-noto-cjk fonts-noto-color-emoji fontconfig"
RUNTIME="libmicrohttpd12 libmimalloc2.0 libssl3 libpango-1.0-0 libpangoft2-1.0-0 libicu72 libglib2.0-0 libharfbuzz0b libfreetype6 libfontconfig1 zlib1g ca-certificates $FONTS"
BUILD="libmicrohttpd-dev libmimalloc-dev libssl-dev libpango1.0-dev libicu-dev libharfbuzz-dev libfreetype-dev libfontconfig-dev zlib1g-dev pkg-config $FONTS"
TEST="$BUILD wrk chromium curl python3 python3-venv python3-dev g++ nodejs debootstrap"

print=0
if [ "${1:-}" = "--print" ]; then print=1; shift; fi
case "${1:-build}" in
  runtime) pkgs=$RUNTIME ;;
  build) pkgs=$BUILD ;;
  test) pkgs=$TEST ;;
  *) echo "usage: $0 [--print] runtime|build|test" >&2; exit 2 ;;
esac
if [ $print = 1 ]; then echo $pkgs; exit 0; fi

missing=()
for p in $pkgs; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep "install ok installed" >/dev/null || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0
SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
