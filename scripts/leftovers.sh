#!/usr/bin/env bash
# leftovers.sh begin|end: make test must clean up after itself. "begin"
# notes the time; "end" fails when a ctxhook process started since still
# runs, or when ctxhook wrote into the real user's state or config
# directories or left ctxhook-named entries in the temp directory. Other
# new temp entries (the real clients' own) are listed, not failed.
set -euo pipefail
mark="${CTXHOOK_LEFTOVERS_MARK:-bin/.test-begin}"
case "${1:-}" in
begin)
  mkdir -p "$(dirname "$mark")"
  date +%s > "$mark"
  exit 0 ;;
end) ;;
*) echo "usage: $0 begin|end" >&2; exit 2 ;;
esac
[ -f "$mark" ] || { echo "leftovers: no begin mark ($mark)" >&2; exit 2; }
begin=$(cat "$mark")
now=$(date +%s)
bad=0
# ctxhook processes (daemons, hooks, proxies) started during the run.
while read -r pid etimes args; do
  if [ $((now - etimes)) -ge "$begin" ]; then
    echo "leftovers: process $pid still runs: $args" >&2
    bad=1
  fi
done < <(ps -eo pid=,etimes=,args= | grep -E '[c]txhook( |-hook |$)|bin/[c]txhook|[c]txhook daemon' | grep -v leftovers.sh || true)
# The real user's ctxhook directories.
state="${XDG_STATE_HOME:-$HOME/.local/state}/ctxhook"
config="${XDG_CONFIG_HOME:-$HOME/.config}/ctxhook"
for d in "$state" "$config" "${XDG_CACHE_HOME:-$HOME/.cache}"/ctxhook*; do
  if [ -e "$d" ] && [ -n "$(find "$d" -newer "$mark" -print -quit 2>/dev/null)" ]; then
    echo "leftovers: the tests wrote into the real $d" >&2
    bad=1
  fi
done
# The temp directory.
tmp="${TMPDIR:-/tmp}"
while IFS= read -r e; do
  case "$(basename "$e")" in
  ctxhook*|Test*) echo "leftovers: $e was left in $tmp" >&2; bad=1 ;;
  *) echo "leftovers: note: $e appeared in $tmp during the run (not ctxhook's)" ;;
  esac
done < <(find "$tmp" -mindepth 1 -maxdepth 1 -user "$(id -u)" -newer "$mark" 2>/dev/null)
rm -f "$mark"
exit $bad
