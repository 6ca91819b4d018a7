#!/usr/bin/env node
// Runs the ctxhook-hook binary of this machine's platform package with these
// arguments and streams, and exits as it does.
"use strict";
const { spawnSync } = require("node:child_process");
const { binaryPath } = require("../index.js");

let bin;
try {
  bin = binaryPath("ctxhook-hook");
} catch (e) {
  process.stderr.write(e.message + "\n");
  process.exit(0); // a hook fails open
}
const r = spawnSync(bin, process.argv.slice(2), { stdio: "inherit" });
if (r.error) {
  process.stderr.write(`ctxhook: cannot run ${bin}: ${r.error.message}; the agent continues without ctxhook\n`);
  process.exit(0); // a hook fails open
}
process.exit(r.status ?? 1);
