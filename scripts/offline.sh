#!/usr/bin/env bash
# Runs a command with no network but loopback, to prove that real-client
# tests are offline: the clients can reach only the project's fake model on
# 127.0.0.1. Needs root (or user namespaces), unshare and ip; elsewhere it
# runs the command as is and says so.
set -euo pipefail
if [ "${CTXHOOK_NETNS:-1}" != 0 ] && command -v unshare >/dev/null && command -v ip >/dev/null &&
  unshare -n true 2>/dev/null; then
  exec unshare -n bash -c 'ip link set lo up && exec "$@"' offline "$@"
fi
echo "offline.sh: no network namespace available; running with the network as is" >&2
exec "$@"
