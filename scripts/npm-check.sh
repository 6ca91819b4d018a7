#!/usr/bin/env bash
# npm-check.sh: ctxhook installed with npm alone, offline. It builds this
# machine's platform package (tools/dist -npm), packs it, the ctxhook
# package and the JS adapters with npm pack, installs the tarballs into a
# fresh prefix with --offline (npm's cache holds @extism/extism from the
# adapters' own install), and in a fresh HOME runs `ctxhook --version`,
# `npx ctxhook install claude-code --dry-run` and a hook through the
# ctxhook-hook command; installs with npx from the tarballs in a fresh
# npm cache, clears npx's cache and runs the hook command install wrote
# (npx_check); and checks that @ctxhook/core finds the binary the
# package installed. The prefix sits below a node_modules planted with a
# platform package and a ctxhook module that leave a marker when they
# run: with the platform package gone (--omit=optional, a failed optional
# install) and then the ctxhook package too, neither may run.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
work="$root/bin/npm-check"
rm -rf "$work"
mkdir -p "$work/prefix" "$work/home" "$work/ctxhook-home"
plat="$(node -p 'process.platform + "-" + process.arch')"
planted="$work/node_modules"
mkdir -p "$planted/@ctxhook/$plat/bin" "$planted/ctxhook"
printf '{"name":"@ctxhook/%s","version":"0.1.0"}\n' "$plat" > "$planted/@ctxhook/$plat/package.json"
for b in ctxhook ctxhook-hook; do
  printf '#!/bin/sh\ntouch "%s/planted-ran"\n' "$work" > "$planted/@ctxhook/$plat/bin/$b"
  chmod 755 "$planted/@ctxhook/$plat/bin/$b"
done
printf '{"name":"ctxhook","version":"0.1.0","main":"index.js"}\n' > "$planted/ctxhook/package.json"
printf 'require("fs").writeFileSync(%s, "");\nmodule.exports = { binaryPath: () => "/planted" };\n' "'$work/planted-ran'" > "$planted/ctxhook/index.js"
scripts/npm-pack.sh "$work/tarballs" "$(go env GOOS)/$(go env GOARCH)"
ls "$work/tarballs"
export HOME="$work/home" CTXHOOK_HOME="$work/ctxhook-home" CTXHOOK_NO_DAEMON=1 npm_config_cache="${npm_config_cache:-$(npm config get cache --global 2>/dev/null || echo ~/.npm)}"
cd "$work/prefix"
npm init -y >/dev/null
npm install --offline --no-audit --no-fund --no-save "$work"/tarballs/*.tgz >/dev/null
bin="$work/prefix/node_modules/.bin"
"$bin/ctxhook" --version | tee "$work/version.txt"
grep -q "ctxhook $(sed -n 's/^const Number = "\(.*\)"/\1/p' "$root/internal/version/version.go") " "$work/version.txt"
npx --offline --no-install ctxhook install claude-code --dry-run > "$work/install.txt" 2>&1
grep -q "settings.json would be written" "$work/install.txt" || { cat "$work/install.txt"; exit 1; }
# The first hook of a fresh home compiles the plugin: on a loaded machine
# that can take most of the default deadline, and a hook past it is
# finished in the background; the budget is a loaded machine's, and the
# search waits for a background finisher.
out=$(CTXHOOK_HOOK_DEADLINE_MS=120000 "$bin/ctxhook-hook" claude-code PostToolUse < "$root/testdata/payloads/claude-code/2.1.330/hook-PostToolUse.json")
[ -z "$out" ] || printf '%s' "$out" | node -e 'JSON.parse(require("fs").readFileSync(0, "utf8"))'
found=""
for _ in $(seq 60); do
  # Read whole, then matched: grep -q leaving early would end ctxhook with
  # SIGPIPE, which pipefail reports as a failed search.
  res=$("$bin/ctxhook" search TCK-42 2>/dev/null || true)
  if grep -q "tickets/get_ticket" <<<"$res"; then found=1; break; fi
  sleep 0.5
done
[ -n "$found" ] || { echo "npm-check: the hook's event is not searchable"; exit 1; }
node --input-type=module -e '
import { Host } from "@ctxhook/core";
const h = await Host.load({ daemon: false });
const want = (await import("ctxhook")).default.binaryPath();
if (h.bin !== want) { console.error(`@ctxhook/core uses ${h.bin}, not the npm binary ${want}`); process.exit(1); }
await h.close?.();
console.log("@ctxhook/core finds " + h.bin);
'
# npx, as the README's first line: `npx ctxhook install claude-code` from
# the tarballs, through a fresh npm cache (offline: the tarballs are all it
# needs), then npx's cache removed. The hook command install wrote into
# settings.json, run as Claude Code runs it, must still answer with valid
# JSON and store its event: install copied ctxhook out of npx's cache.
npx_check() {
  local nh="$work/npx" ver
  ver=$(sed -n 's/^const Number = "\(.*\)"/\1/p' "$root/internal/version/version.go")
  mkdir -p "$nh/home" "$nh/cache" "$nh/run"
  (
    export HOME="$nh/home" CTXHOOK_HOME="$nh/ctxhook-home" npm_config_cache="$nh/cache"
    cd "$nh/run"
    npx --offline --yes --package="$work/tarballs/ctxhook-$ver.tgz" --package="$work/tarballs/ctxhook-$plat-$ver.tgz" \
      -- ctxhook install claude-code > "$nh/install.txt" 2>&1 || { cat "$nh/install.txt"; exit 1; }
    ls -d "$nh/cache/_npx"/*/node_modules/@ctxhook/"$plat" >/dev/null # it ran from npx's cache
    grep -q "^Copied ctxhook to $CTXHOOK_HOME/state/bin/" "$nh/install.txt" || { cat "$nh/install.txt"; exit 1; }
    rm -rf "$nh/cache/_npx"
    cmd=$(node -e '
      const s = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"));
      process.stdout.write(s.hooks.PostToolUse[0].hooks[0].command);' "$HOME/.claude/settings.json")
    case "$cmd" in *_npx*) echo "npm-check: the hook still runs from npx's cache: $cmd"; exit 1 ;; esac
    out=$(CTXHOOK_HOOK_DEADLINE_MS=120000 sh -c "$cmd" < "$root/testdata/payloads/claude-code/2.1.330/hook-PostToolUse.json")
    [ -n "$out" ] || { echo "npm-check: the hook of the npx install gave no answer"; exit 1; }
    printf '%s' "$out" | node -e 'JSON.parse(require("fs").readFileSync(0, "utf8"))'
    stable="${cmd%%-hook *}"
    for _ in $(seq 60); do
      res=$("$stable" search TCK-42 2>/dev/null || true)
      if grep -q "tickets/get_ticket" <<<"$res"; then echo "npm-check: npx install survives npx's cache"; exit 0; fi
      sleep 0.5
    done
    echo "npm-check: the npx install's hook stored nothing"; exit 1
  )
}
npx_check
# Without the platform package the launcher says what to do, runs
# nothing planted above the prefix, and core falls back to PATH.
rm -rf node_modules/@ctxhook/"$plat"
if npx --offline --no-install ctxhook version > "$work/missing.txt" 2>&1; then
  echo "npm-check: ctxhook ran without its platform package"; cat "$work/missing.txt"; exit 1
fi
grep -q -- "--omit=optional" "$work/missing.txt" || { cat "$work/missing.txt"; exit 1; }
"$bin/ctxhook-hook" claude-code PostToolUse < /dev/null 2>/dev/null # fails open
rm -rf node_modules/ctxhook
node --input-type=module -e '
import { Host } from "@ctxhook/core";
const h = await Host.load({ daemon: false });
await h.close?.();
if (h.bin !== "ctxhook") { console.error(`@ctxhook/core uses ${h.bin}`); process.exit(1); }
'
[ ! -e "$work/planted-ran" ] || { echo "npm-check: a binary or module planted above the prefix ran"; exit 1; }
echo "npm-check: ok"
rm -rf "$work"
