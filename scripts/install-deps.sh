#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# Install what the C test suite can use but a bare machine may lack:
# clang with libFuzzer and the sanitizer runtimes, a C++ compiler,
# pkg-config.  Uses apt-get, only when running as root on a Debian-like
# system; otherwise it says what is missing and exits 0, so callers can
# go on and skip the stages that need it.
#
#   scripts/install-deps.sh          install what is missing
#   scripts/install-deps.sh --check  only report
set -uo pipefail

check_only=0
[[ ${1:-} == --check ]] && check_only=1

# shellcheck source=scripts/toolchain.sh
source "$(dirname "$0")/toolchain.sh"

missing=()
have clang || missing+=(clang)
have c++ || have g++ || missing+=(g++)
have pkg-config || missing+=(pkg-config)
if have clang && ! libfuzzer_works; then
  missing+=(libfuzzer)
fi

if ((${#missing[@]} == 0)); then
  echo "install-deps: nothing missing (clang with libFuzzer, C++, pkg-config)"
  exit 0
fi
echo "install-deps: missing: ${missing[*]}"
if ((check_only)); then
  exit 0
fi
if [[ $(id -u) -ne 0 ]] || ! have apt-get; then
  echo "install-deps: not root or no apt-get: skipping (stages that need them will be skipped)"
  echo "install-deps: as root: apt-get install -y clang libclang-rt-dev g++ pkg-config"
  exit 0
fi

export DEBIAN_FRONTEND=noninteractive
apt_install() { apt-get install -y --no-install-recommends "$@"; }

# Package lists may be empty on a fresh container.
if ! apt-cache show clang >/dev/null 2>&1; then
  apt-get update -qq || { echo "install-deps: apt-get update failed, skipping"; exit 0; }
fi
pkgs=()
for m in "${missing[@]}"; do
  case $m in
    clang) pkgs+=(clang) ;;
    g++) pkgs+=(g++) ;;
    pkg-config) pkgs+=(pkg-config) ;;
  esac
done
if ((${#pkgs[@]})); then
  apt_install "${pkgs[@]}" || echo "install-deps: apt-get install ${pkgs[*]} failed"
fi

# libFuzzer lives in libclang-rt-<major>-dev (Debian 12: 14) or, on older
# releases, in libclang-common-<major>-dev, which clang already pulls in.
if have clang && ! libfuzzer_works; then
  major=$(clang -dumpversion 2>/dev/null | cut -d. -f1)
  for p in "libclang-rt-${major}-dev" libclang-rt-dev "libclang-common-${major}-dev"; do
    if apt-cache show "$p" >/dev/null 2>&1; then
      apt_install "$p" && libfuzzer_works && break
    fi
  done
fi

if libfuzzer_works; then
  echo "install-deps: clang with libFuzzer works"
else
  echo "install-deps: libFuzzer still unavailable; the fuzz stage will be skipped"
fi
exit 0
