#!/usr/bin/env bash
# smoke.sh DIR: the Windows binaries in DIR (ctxhook.exe, ctxhook-hook.exe)
# under Wine, as a Windows user's agent would run them: a real Claude Code
# payload (as recorded, with a UTF-8 BOM, and with CRLF line ends) through
# the hook client answers exit 0 with nothing or valid JSON; install
# --dry-run writes Windows paths and .exe commands; and every event is
# stored, and found by search (under Wine 8.0, whose VirtualAlloc2 refuses
# placeholders, SQLite runs on plain memory with a rollback journal).
set -euo pipefail
dir="$1"
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
run="$here/run.sh"
export WINEPREFIX="${WINEPREFIX:-$root/bin/wine-prefix}"
ver=$("$run" "$dir/ctxhook.exe" version)
grep -q "windows/amd64" <<<"$ver" || { echo "wine smoke: version: $ver"; exit 1; }
home_unix="$WINEPREFIX/drive_c/ctxhook-smoke"
rm -rf "$home_unix"
export CTXHOOK_HOME='C:\ctxhook-smoke' USERPROFILE='C:\ctxhook-smoke\profile'
# The in-process path (the daemon's named pipe is host/tests/winhook's).
export CTXHOOK_NO_DAEMON=1
payload="$root/testdata/payloads/claude-code/2.1.330/hook-PostToolUse.json"
tmp="$root/bin/win/smoke"
mkdir -p "$tmp"
cp "$payload" "$tmp/plain.json"
{ printf '\xef\xbb\xbf'; cat "$payload"; } > "$tmp/bom.json"
sed 's/$/\r/' "$payload" > "$tmp/crlf.json"
for p in plain bom crlf; do
  out=$("$run" "$dir/ctxhook-hook.exe" claude-code PostToolUse < "$tmp/$p.json" 2>"$tmp/$p.err") || { echo "wine smoke: $p payload: exit $?"; cat "$tmp/$p.err"; exit 1; }
  if [ -n "$out" ] && ! printf '%s' "$out" | python3 -c 'import json,sys; json.load(sys.stdin)' 2>/dev/null; then
    echo "wine smoke: $p payload: stdout is not JSON: $out"; exit 1
  fi
  if grep -q "goroutine \|panic\|bad hook payload" "$tmp/$p.err"; then echo "wine smoke: $p payload not taken:"; cat "$tmp/$p.err"; exit 1; fi
done
# Every event stored: search finds the three of them.
"$run" "$dir/ctxhook.exe" search TCK-42 > "$tmp/search.out" 2> "$tmp/search.err" || { echo "wine smoke: search failed:"; cat "$tmp/search.err"; exit 1; }
n=$(grep -c "tickets/get_ticket" "$tmp/search.out" || true)
[ "$n" -eq 3 ] || { echo "wine smoke: search found $n of the 3 events:"; cat "$tmp/search.out" "$tmp/search.err"; exit 1; }
# install --dry-run: the user's Windows paths, the .exe hook client.
"$run" "$dir/ctxhook.exe" install claude-code --dry-run > "$tmp/install.out" 2>&1
grep -q '.claude.settings.json would be written' "$tmp/install.out" || { echo "wine smoke: install --dry-run:"; cat "$tmp/install.out"; exit 1; }
grep -q 'ctxhook-hook.exe' "$tmp/install.out" || { echo "wine smoke: install --dry-run names no ctxhook-hook.exe:"; cat "$tmp/install.out"; exit 1; }
# doctor says the hooks run in-process, CTXHOOK_NO_DAEMON being set.
"$run" "$dir/ctxhook.exe" doctor claude-code > "$tmp/doctor.out" 2>&1 || true
grep -q "CTXHOOK_NO_DAEMON is set" "$tmp/doctor.out" || { echo "wine smoke: doctor does not say hooks run in-process:"; cat "$tmp/doctor.out"; exit 1; }
echo "wine smoke: ok (search found the 3 events)"
rm -rf "$home_unix" "$tmp"
