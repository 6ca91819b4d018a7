#!/usr/bin/env bash
# fuzz.sh TIME JOBS PKG:FUNC...: runs each fuzz target for TIME, JOBS of
# them at once. With JOBS > 1 each target gets one fuzzing worker
# (-parallel 1), so the cores are shared between targets rather than
# between one target's workers: a target's compile and baseline run no
# longer leaves a core idle (make test runs them two at a time).
#
# A finding always writes its failing input under testdata/fuzz and fails
# at once. A run that fails without writing one (a fuzz worker that died
# on a loaded machine) is run once more, and its output is printed either
# way.
set -uo pipefail
[ $# -ge 3 ] || { echo "usage: $0 time jobs pkg:FuzzFunc..." >&2; exit 2; }
time=$1 jobs=$2
shift 2
go=${GO:-go}
par=()
[ "$jobs" -gt 1 ] && par=(-parallel 1)

inputs() { ls "$1/testdata/fuzz/$2" 2>/dev/null | wc -l || true; }

# one runs one target; its lines are printed together when it ends.
one() {
  local pkg=${1%%:*} fn=${1##*:} before out
  before=$(inputs "$pkg" "$fn")
  if out=$("$go" test -run '^$' -fuzz "^$fn\$" -fuzztime "$time" "${par[@]}" "$pkg" 2>&1); then
    printf 'fuzz %s %s (%s): %s\n' "$pkg" "$fn" "$time" "$(tail -1 <<<"$out")"
    return 0
  fi
  printf 'fuzz %s %s (%s):\n%s\n' "$pkg" "$fn" "$time" "$(grep -v '^fuzz: elapsed' <<<"$out")"
  [ "$(inputs "$pkg" "$fn")" = "$before" ] || return 1
  echo "no failing input was written for $fn (a fuzz worker died, not a finding): running it once more"
  if ! out=$("$go" test -run '^$' -fuzz "^$fn\$" -fuzztime "$time" "${par[@]}" "$pkg" 2>&1); then
    grep -v '^fuzz: elapsed' <<<"$out"
    return 1
  fi
  tail -1 <<<"$out"
}

status=0
running=0
for t in "$@"; do
  if [ "$running" -ge "$jobs" ]; then
    wait -n || status=1
    running=$((running - 1))
  fi
  [ "$status" = 0 ] || break
  one "$t" &
  running=$((running + 1))
done
while [ "$running" -gt 0 ]; do
  wait -n || status=1
  running=$((running - 1))
done
exit "$status"
