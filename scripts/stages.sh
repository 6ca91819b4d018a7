#!/usr/bin/env bash
# stages.sh: make test's body, run by scripts/leftovers.sh in a root of
# its own. Each stage prints "stage NAME: N s (M s of CPU)", so a slow one
# shows, and whether it was waiting or working: the CPU is the whole
# machine's, in seconds of one core (two cores busy for 10 s: 20 s).
#
# The real clients' npm installs (the e2e stage's first part: network
# and disk, minutes on a fresh machine) start at once, beside the stages
# that keep the cores busy; the e2e stage waits for them.
set -euo pipefail
make=${MAKE:-make}
go=${GO:-go}
: "${TEST_FUZZTIME:=8s}"

# busy is the machine's CPU time so far, in clock ticks (0 without /proc).
busy() {
  if [ -r /proc/stat ]; then awk '/^cpu /{print $2+$3+$4+$7+$8; exit}' /proc/stat; else echo 0; fi
}
hz=$(getconf CLK_TCK 2>/dev/null || echo 100)

stage() {
  local name=$1 t0 c0
  shift
  t0=$(date +%s) c0=$(busy)
  "$@"
  echo "stage $name: $(($(date +%s) - t0)) s ($((($(busy) - c0) / hz)) s of CPU)"
}

mkdir -p bin
prepare_log=bin/e2e-prepare.log
CTXHOOK_E2E_PREPARE=1 "$go" test -count=1 ./e2e/ >"$prepare_log" 2>&1 &
prepare=$!
# A stage that fails ends the run: the installs are waited for, not
# left running behind it.
trap 'wait "$prepare" 2>/dev/null || true' EXIT

export CTXHOOK_TEST_CACHE="$PWD/bin/test-cache"
for s in vet cross verify.wasm unit wine; do
  stage "$s" "$make" "$s"
done
stage fuzz "$make" fuzz FUZZTIME="$TEST_FUZZTIME" FUZZ_JOBS=2
stage chaos "$make" chaos

e2e() {
  if ! wait "$prepare"; then
    cat "$prepare_log"
    echo "e2e: installing the pinned clients failed (the log is above)" >&2
    return 1
  fi
  "$make" e2e
}
stage e2e e2e
stage dist-check "$make" dist-check DIST_TARGETS="linux/amd64 windows/amd64"
stage npm-check "$make" npm-check
