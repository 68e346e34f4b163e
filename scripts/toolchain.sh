# SPDX-License-Identifier: MIT
#
# toolchain.sh - probes shared by scripts/install-deps.sh and
# c/tests/run-c-tests.sh.  Source it; it defines functions only.

# have CMD: CMD is on PATH.
have() { command -v "$1" >/dev/null 2>&1; }

# libfuzzer_works: clang can build and link a libFuzzer target with ASan and
# UBSan (Debian needs libclang-rt-N-dev for that, not only clang).
libfuzzer_works() {
  local dir rc
  have clang || return 1
  dir=$(mktemp -d) || return 1
  printf '%s\n' '#include <stddef.h>' '#include <stdint.h>' \
    'int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n);' \
    'int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n) { (void)d; (void)n; return 0; }' \
    >"$dir/f.c"
  clang -fsanitize=fuzzer,address,undefined "$dir/f.c" -o "$dir/f" >/dev/null 2>&1
  rc=$?
  rm -rf "$dir"
  return $rc
}

# m32_works: gcc can build and link a threaded 32-bit x86 program
# (Debian: gcc-multilib).
m32_works() {
  local dir rc
  [[ $(uname -m) == x86_64 ]] && have gcc || return 1
  dir=$(mktemp -d) || return 1
  printf '%s\n' '#include <pthread.h>' 'int main(void) { return (int)sizeof(pthread_t) == 0; }' >"$dir/m.c"
  gcc -m32 -pthread "$dir/m.c" -o "$dir/m" >/dev/null 2>&1 && "$dir/m"
  rc=$?
  rm -rf "$dir"
  return $rc
}
