#!/usr/bin/env bash
# Whole-process hook timings, measured side by side with baselines in the
# same run and reported as ratios (absolute milliseconds on a shared
# machine mean little). Rounds interleave the commands so that load spikes
# hit all of them alike.
#
#   scripts/bench-hook.sh [rounds]      (default 30; CI uses a few)
set -euo pipefail
rounds=${1:-${BENCH_ROUNDS:-30}}
root=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

go build -trimpath -o "$work/ctxhook" "$root/host/cmd/ctxhook"
cat > "$work/hello.go" <<'GO'
package main

import "os"

func main() { os.Stdout.WriteString("") }
GO
(cd "$work" && go mod init hello >/dev/null 2>&1 && go build -o hello hello.go)

export CTXHOOK_HOME="$work/home"
payload="$root/testdata/payloads/claude-code/2.1.330/hook-PostToolUse.json"
mkdir -p "$CTXHOOK_HOME/config"
printf '[servers.tickets]\nrelay = true\n' > "$CTXHOOK_HOME/config/config.toml"

now() { date +%s%N; }
time_ms() { # command... ; prints elapsed ms
  local t0 t1
  t0=$(now); "$@" >/dev/null 2>&1 || true; t1=$(now)
  echo $(( (t1 - t0) / 1000 ))
}
hook() { "$work/ctxhook" hook claude-code PostToolUse < "$payload"; }

# First-ever hook: no compilation cache.
first=$(time_ms hook)
have_node=0; command -v node >/dev/null && have_node=1

: > "$work/cold"; : > "$work/node"; : > "$work/hello"
for ((i = 0; i < rounds; i++)); do
  time_ms hook >> "$work/cold"
  [ $have_node = 1 ] && time_ms node -e 0 >> "$work/node"
  time_ms "$work/hello" >> "$work/hello"
done

pct() { # file p -> value in ms (input in µs)
  sort -n "$1" | awk -v p="$2" '{a[NR]=$1} END {i=int((NR-1)*p/100)+1; printf "%.1f", a[i]/1000}'
}
printf 'rounds: %d, plugin.wasm %d bytes\n' "$rounds" "$(stat -c %s "$root/plugin/plugin.wasm")"
printf '%-34s %8s %8s %8s\n' "command" "p50 ms" "p90 ms" "p99 ms"
for f in cold node hello; do
  [ -s "$work/$f" ] || continue
  case $f in
    cold) name="ctxhook hook (cold, cache present)";;
    node) name="node -e 0";;
    hello) name="Go hello world";;
  esac
  printf '%-34s %8s %8s %8s\n' "$name" "$(pct "$work/$f" 50)" "$(pct "$work/$f" 90)" "$(pct "$work/$f" 99)"
done
printf 'first-ever hook (no compilation cache): %.1f ms\n' "$(echo "$first" | awk '{print $1/1000}')"
if [ $have_node = 1 ]; then
  awk -v c="$(pct "$work/cold" 50)" -v n="$(pct "$work/node" 50)" -v h="$(pct "$work/hello" 50)" \
    'BEGIN {printf "ratio p50: cold hook / node -e 0 = %.2fx, cold hook / Go hello = %.1fx\n", c/n, c/h}'
fi
