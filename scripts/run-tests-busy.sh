#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# run-tests-busy.sh - run the test command (./run-tests, or any command
# given after --) beside N busy processes, as on a shared CI machine or a
# laptop compiling something else.  No test may depend on how fast the
# scheduler runs us; this is how to check that they do not.
#
# Usage: scripts/run-tests-busy.sh N [ARGS for ./run-tests...]
#        scripts/run-tests-busy.sh N -- COMMAND [ARGS...]
#
# The busy processes are plain CPU loops at the same priority as the
# tests; they are killed when this script ends, however it ends.  It
# prints the load average before and after, and the time the command took.
set -euo pipefail
case ${1:-} in -h | --help) sed -n '4,14p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;; esac
cd "$(dirname "$0")/.."

if [[ $# -lt 1 || ! $1 =~ ^[0-9]+$ ]]; then
  sed -n '4,14p' "$0" | sed 's/^# \{0,1\}//'
  exit 2
fi
n=$1
shift
if [[ ${1:-} == -- ]]; then
  shift
  cmd=("$@")
else
  cmd=(./run-tests "$@")
fi

busy=()
stop_busy() {
  local pid
  for pid in "${busy[@]}"; do
    kill "$pid" 2>/dev/null || true
  done
  for pid in "${busy[@]}"; do
    wait "$pid" 2>/dev/null || true
  done
}
trap stop_busy EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

for ((i = 0; i < n; i++)); do
  # a shell loop: no external binary to find, and it never sleeps
  (while :; do :; done) &
  busy+=($!)
done
echo "run-tests-busy: $n busy processes (${busy[*]}) beside: ${cmd[*]}"
echo "run-tests-busy: load before: $(cut -d' ' -f1-3 /proc/loadavg)"
t0=$(date +%s)
rc=0
# SIGINT and SIGQUIT at their defaults for the command: a shell started in
# the background (cmd &) ignores them and passes that on, and the tests
# that interrupt a wait with SIGINT would then wait for ever
# (env --default-signal: GNU coreutils 8.31 or later)
defaults=()
if env --default-signal=INT true 2>/dev/null; then
  defaults=(env --default-signal=INT,QUIT)
fi
"${defaults[@]}" "${cmd[@]}" || rc=$?
echo "run-tests-busy: exit $rc after $(( $(date +%s) - t0 )) s; load: $(cut -d' ' -f1-3 /proc/loadavg)"
exit "$rc"
