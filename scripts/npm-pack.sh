#!/usr/bin/env bash
# npm-pack.sh OUT [GOOS/GOARCH...]: ctxhook's npm packages as npm pack
# tarballs in OUT: ctxhook, one @ctxhook/<os>-<cpu> per target with its
# binaries (tools/dist -npm; every release target when none is named), and
# the JS adapters. make npm packs them all; npm-check.sh this machine's.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
out="$(mkdir -p "$1" && cd "$1" && pwd)"
shift
mkdir -p "$root/bin" # not in git: a fresh clone has none
stage="$(mktemp -d "$root/bin/npm-stage.XXXXXX")"
trap 'rm -rf "$stage"' EXIT
targets=()
[ $# -eq 0 ] || targets=(-targets "$*")
go run ./tools/dist -out "$stage/dist" -npm "$stage/packages" ${targets[@]+"${targets[@]}"} >/dev/null
cp -r npm/ctxhook "$stage/packages/ctxhook"
cp README.md LICENSE NOTICE "$stage/packages/ctxhook/"
for p in "$stage"/packages/*/; do
  (cd "$p" && npm pack --silent --pack-destination "$out" >/dev/null)
done
# The adapters as published (npm pack runs core's prepack: plugin.wasm).
for a in core opencode agent-sdk; do
  (cd "adapters/$a" && npm pack --silent --pack-destination "$out" >/dev/null)
  rm -f "adapters/$a/plugin.wasm"
done
