#!/usr/bin/env node
// Runs the ctxhook binary of this machine's platform package with these
// arguments and streams, and exits as it does.
"use strict";
const { spawnSync } = require("node:child_process");
const { binaryPath } = require("../index.js");

let bin;
try {
  bin = binaryPath("ctxhook");
} catch (e) {
  process.stderr.write(e.message + "\n");
  process.exit(1);
}
const r = spawnSync(bin, process.argv.slice(2), { stdio: "inherit" });
if (r.error) {
  process.stderr.write(`ctxhook: cannot run ${bin}: ${r.error.message}\n`);
  process.exit(1);
}
process.exit(r.status ?? 1);
