#!/usr/bin/env bash
# run.sh prog.exe [args...]: runs a Windows binary under Wine (Debian's
# wine64 8.0) in a prefix of its own under bin/, made on first use, with
# the bcryptprimitives.dll Go's runtime needs and Wine 8.0 lacks (built
# here with mingw-w64). Quiet: Wine's own messages are off.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
export WINEPREFIX="${WINEPREFIX:-$root/bin/wine-prefix}"
export WINEDEBUG="${WINEDEBUG:--all}"
# wineserver's socket directory goes under TMPDIR: kept under bin/, not
# left in the system's temp directory.
export TMPDIR="$root/bin/wine-tmp"
mkdir -p "$TMPDIR"
dll="$root/bin/wine/bcryptprimitives.dll"
if [ ! -f "$dll" ]; then
  mkdir -p "$(dirname "$dll")"
  x86_64-w64-mingw32-gcc -shared -O2 -o "$dll" "$here/bcryptprimitives.c" "$here/bcryptprimitives.def" -ladvapi32
fi
sys32="$WINEPREFIX/drive_c/windows/system32"
if [ ! -f "$sys32/bcryptprimitives.dll" ]; then
  wineboot --init >/dev/null 2>&1 || true
  cp "$dll" "$sys32/bcryptprimitives.dll"
fi
exec wine "$@"
