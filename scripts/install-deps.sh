#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# Install the Debian packages the tests can use but a bare machine may lack:
# cmake, clang with libFuzzer and the sanitizer runtimes, a C++ compiler,
# pkg-config, gcc's 32-bit libraries (gcc-multilib, for the -m32 stage),
# valgrind (callgrind counts the per-call instruction budgets), the three
# third-party rings kfifo.testing is tested on (libjack-jackd2-dev,
# libboost-dev, libck-dev: tests/test_third_party_rings.py) and,
# with --python, what a virtual environment of the system Python needs to
# build the extension (python3-venv, python3-dev).  It says what it is about
# to install before it runs apt-get, and runs it only as root on a
# Debian-like system; otherwise it says what is missing and exits 0, so
# callers can go on and skip the stages that need it.
#
# ./run-tests and scripts/venv.sh call it; KFIFO_NO_INSTALL_DEPS=1 makes
# them not to (and makes this script only report).
#
#   scripts/install-deps.sh           install what the C tests miss
#   scripts/install-deps.sh --python  install what python3 -m venv and
#                                     building the extension miss
#   scripts/install-deps.sh --check   only report
set -uo pipefail

check_only=0
mode=c
case ${1:-} in
  --check) check_only=1 ;;
  --python) mode=python ;;
  '') ;;
  -h | --help) sed -n '3,/^set -uo/p' "$0" | sed -e '$d' -e 's/^# \{0,1\}//'; exit 0 ;;
  *) sed -n '3,/^set -uo/p' "$0" | sed -e '$d' -e 's/^# \{0,1\}//' >&2; exit 2 ;;
esac
[[ -n ${KFIFO_NO_INSTALL_DEPS:-} ]] && check_only=1

# shellcheck source=scripts/toolchain.sh
source "$(dirname "$0")/toolchain.sh"

missing=()
if [[ $mode == python ]]; then
  py=${PYTHON:-python3}
  # Debian splits ensurepip (python3-venv) and Python.h (python3-dev) out
  "$py" -c 'import ensurepip' >/dev/null 2>&1 || missing+=(python3-venv)
  inc=$("$py" -c 'import sysconfig; print(sysconfig.get_paths()["include"])' 2>/dev/null)
  [[ -f $inc/Python.h ]] || missing+=(python3-dev)
  have gcc || have cc || missing+=(gcc)
  what="python3-venv, python3-dev, a C compiler"
else
  have cmake || missing+=(cmake)
  have clang || missing+=(clang)
  have c++ || have g++ || missing+=(g++)
  have pkg-config || missing+=(pkg-config)
  have valgrind || missing+=(valgrind)
  if have clang && ! libfuzzer_works; then
    missing+=(libfuzzer)
  fi
  if [[ $(uname -m) == x86_64 ]] && ! m32_works; then
    missing+=(gcc-multilib)
  fi
  [[ -f /usr/include/jack/ringbuffer.h ]] || missing+=(libjack-jackd2-dev)
  [[ -f /usr/include/boost/lockfree/spsc_queue.hpp ]] || missing+=(libboost-dev)
  [[ -f /usr/include/ck_ring.h ]] || missing+=(libck-dev)
  what="cmake, clang with libFuzzer, C++, pkg-config, valgrind, gcc-multilib, JACK/Boost/ck headers"
fi

if ((${#missing[@]} == 0)); then
  echo "install-deps: nothing missing ($what)"
  exit 0
fi
echo "install-deps: missing: ${missing[*]}"
if ((check_only)); then
  [[ -n ${KFIFO_NO_INSTALL_DEPS:-} ]] && echo "install-deps: KFIFO_NO_INSTALL_DEPS is set: installing nothing"
  exit 0
fi
if [[ $(id -u) -ne 0 ]] || ! have apt-get; then
  echo "install-deps: not root or no apt-get: skipping (stages that need them will be skipped)"
  echo "install-deps: as root: apt-get install -y ${missing[*]/libfuzzer/libclang-rt-dev}"
  exit 0
fi

export DEBIAN_FRONTEND=noninteractive
apt_install() {
  echo "install-deps: running apt-get install $* as root (to decline: KFIFO_NO_INSTALL_DEPS=1)"
  apt-get install -y --no-install-recommends "$@"
}

pkgs=()
for m in "${missing[@]}"; do
  case $m in
    clang) pkgs+=(clang) ;;
    g++) pkgs+=(g++) ;;
    pkg-config | cmake | valgrind) pkgs+=("$m") ;;
    libjack-jackd2-dev | libboost-dev | libck-dev) pkgs+=("$m") ;;
    gcc-multilib) pkgs+=(gcc-multilib g++-multilib) ;;
    python3-venv | python3-dev | gcc) pkgs+=("$m") ;;
  esac
done
# Package lists may be empty on a fresh container.
if ((${#pkgs[@]})) && ! apt-cache show "${pkgs[0]}" >/dev/null 2>&1; then
  echo "install-deps: running apt-get update as root (to decline: KFIFO_NO_INSTALL_DEPS=1)"
  apt-get update -qq || { echo "install-deps: apt-get update failed, skipping"; exit 0; }
fi
if ((${#pkgs[@]})); then
  apt_install "${pkgs[@]}" || echo "install-deps: apt-get install ${pkgs[*]} failed"
fi

[[ $mode == python ]] && exit 0

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
