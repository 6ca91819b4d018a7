#!/usr/bin/env bash
# leftovers.sh COMMAND [ARGS...]: runs make test's body (COMMAND) in a
# root of its own, then fails when the run left something behind. It
# watches only what the run itself made, never what other processes of
# the same user do meanwhile (a `ctxhook demo --keep` in another shell,
# a daemon of the user's own):
#   - the run's processes: those whose environment carries this run's
#     CTXHOOK_SUITE mark, still alive after COMMAND ends;
#   - its temp directory ($root/tmp, the run's TMPDIR): ctxhook's or a
#     test's entries left there;
#   - the real user's ctxhook directories, which no test may write:
#     HOME, TMPDIR and the XDG directories point into the root, so a test
#     that forgot its own CTXHOOK_HOME lands there, not in the user's
#     (checked in CI; elsewhere another ctxhook of the user's may write
#     there meanwhile, so it is a note).
# Go's and npm's caches stay where they are (GOCACHE, GOMODCACHE,
# npm_config_cache), so nothing is built or downloaded twice.
set -euo pipefail
[ $# -gt 0 ] || { echo "usage: $0 command [args...]" >&2; exit 2; }
real_home="$HOME"
# Not named for ctxhook: a directory whose path names ctxhook is taken for
# one of its own by the tests (and by paths.EnsureDir). Open like the
# places it stands for: the root and HOME 0755 (another user's tests run
# binaries from below them), TMPDIR 1777 as /tmp is.
root="$(mktemp -d "${TMPDIR:-/tmp}/make-test.XXXXXX")"
chmod 0755 "$root"
mark="$root/begin"
touch "$mark"
export GOCACHE="$(go env GOCACHE)" GOMODCACHE="$(go env GOMODCACHE)" GOPATH="$(go env GOPATH)"
export npm_config_cache="${npm_config_cache:-$real_home/.npm}"
export CTXHOOK_SUITE="$root"
export HOME="$root/home" TMPDIR="$root/tmp"
export XDG_CACHE_HOME="$root/home/.cache" XDG_CONFIG_HOME="$root/home/.config" XDG_STATE_HOME="$root/home/.local/state" XDG_DATA_HOME="$root/home/.local/share"
unset CTXHOOK_HOME
mkdir -p "$HOME" "$TMPDIR"
chmod 0755 "$HOME"
chmod 1777 "$TMPDIR"
status=0
"$@" || status=$?

bad=0
# The run's processes still alive (given a moment to exit after the last
# test ended them).
ours() {
  grep -lzxF "CTXHOOK_SUITE=$root" /proc/[0-9]*/environ 2>/dev/null | sed 's|^/proc/||; s|/environ$||' | grep -vx "$$" || true
}
for _ in 1 2 3 4 5; do
  [ -z "$(ours)" ] && break
  sleep 1
done
for pid in $(ours); do
  args="$({ tr '\0' ' ' < "/proc/$pid/cmdline"; } 2>/dev/null || true)"
  [ -n "$args" ] || continue # this script's own pipeline, or gone
  case "$args" in
  *ctxhook*) echo "leftovers: process $pid still runs: $args" >&2; bad=1 ;;
  *) echo "leftovers: note: process $pid of the run still runs (not ctxhook's): $args" ;;
  esac
done
# The run's temp directory.
while IFS= read -r e; do
  case "$(basename "$e")" in
  ctxhook-[0-9]*-[0-9]*)
    # The daemon's socket directory when its usual path is too long for a
    # socket (paths.Socket): a stable name per data directory, reused, and
    # left by tests that kill their daemons. Not a leak of the run's.
    echo "leftovers: note: $e is a daemon's socket directory" ;;
  ctxhook*|Test*) echo "leftovers: $e was left in the run's temp directory" >&2; bad=1 ;;
  *) echo "leftovers: note: $e was left in the run's temp directory (not ctxhook's)" ;;
  esac
done < <(find "$TMPDIR" -mindepth 1 -maxdepth 1 2>/dev/null)
# The real user's ctxhook directories. A change there cannot be told
# from one by another ctxhook process of the user's (a daemon, a test run
# in another shell), so it fails the run only in CI, where nothing else
# runs; elsewhere it is a note.
for d in "$real_home/.local/state/ctxhook" "$real_home/.config/ctxhook" "$real_home/.cache"/ctxhook*; do
  if [ -e "$d" ] && [ -n "$(find "$d" -newer "$mark" -print -quit 2>/dev/null)" ]; then
    if [ -n "${CI:-}" ]; then
      echo "leftovers: the tests wrote into the real $d" >&2
      bad=1
    else
      echo "leftovers: note: the real $d changed during the run (by a test, or by another ctxhook process of yours; CI tells them apart)"
    fi
  fi
done
rm -rf "$root" 2>/dev/null || true
if [ $status -ne 0 ]; then exit $status; fi
exit $bad
