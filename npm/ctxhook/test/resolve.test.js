// The launcher runs the binary of the platform package npm installed with
// it, and nothing planted in a node_modules above its installation: each
// case lays out real directories as npm does (hoisted, nested as in a
// global install, an npx cache) with a copy of this package, plants a
// platform package in an ancestor's node_modules, and runs bin/ctxhook.js
// with Node.
"use strict";
const test = require("node:test");
const assert = require("node:assert/strict");
const fs = require("node:fs");
const os = require("node:os");
const path = require("node:path");
const { spawnSync } = require("node:child_process");

const pkgDir = path.resolve(__dirname, "..");
const plat = `${process.platform}-${process.arch}`;

// launcher copies this package (as npm pack would ship it) to dir.
function launcher(dir) {
  fs.mkdirSync(path.join(dir, "bin"), { recursive: true });
  for (const f of ["index.js", "package.json", "bin/ctxhook.js", "bin/ctxhook-hook.js"]) {
    fs.copyFileSync(path.join(pkgDir, f), path.join(dir, f));
  }
}

// platformPackage writes @ctxhook/<plat> in dir whose binaries print who
// they are, and, when they are the planted ones, leave a marker file.
function platformPackage(dir, who, marker) {
  fs.mkdirSync(path.join(dir, "bin"), { recursive: true });
  fs.writeFileSync(path.join(dir, "package.json"), JSON.stringify({ name: `@ctxhook/${plat}`, version: "0.1.0" }));
  for (const name of ["ctxhook", "ctxhook-hook"]) {
    const touch = marker ? `touch '${marker}'\n` : "";
    fs.writeFileSync(path.join(dir, "bin", name), `#!/bin/sh\n${touch}echo ${who} ${name} "$@"\n`, { mode: 0o755 });
  }
}

function run(script, ...args) {
  return spawnSync(process.execPath, [script, ...args], { encoding: "utf8" });
}

const cases = [
  // The launcher's own package dir, relative to the test's root; where
  // npm put the platform package (null: nowhere, as --omit=optional).
  { name: "missing platform package", launcher: "proj/node_modules/ctxhook", real: null },
  { name: "hoisted beside it", launcher: "proj/node_modules/ctxhook", real: "proj/node_modules/@ctxhook/" + plat },
  { name: "nested (global install)", launcher: "prefix/lib/node_modules/ctxhook", real: "prefix/lib/node_modules/ctxhook/node_modules/@ctxhook/" + plat },
  { name: "npx cache", launcher: "npm/_npx/0a1b/node_modules/ctxhook", real: "npm/_npx/0a1b/node_modules/@ctxhook/" + plat },
];

for (const c of cases) {
  test(`launcher: ${c.name}; a binary planted above the installation never runs`, { skip: process.platform === "win32" }, () => {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), "ctxhook-npm-"));
    try {
      const marker = path.join(root, "planted-ran");
      // Planted in every node_modules above the installation's top one.
      for (let d = path.dirname(path.join(root, c.launcher.split("/node_modules/")[0])); d.startsWith(root); d = path.dirname(d)) {
        platformPackage(path.join(d, "node_modules", "@ctxhook", plat), "planted", marker);
      }
      const own = path.join(root, c.launcher);
      launcher(own);
      if (c.real) platformPackage(path.join(root, c.real), "real");
      for (const [script, code] of [["ctxhook.js", 1], ["ctxhook-hook.js", 0]]) {
        const r = run(path.join(own, "bin", script), "version");
        assert.equal(fs.existsSync(marker), false, `the planted binary ran: ${r.stdout}`);
        if (c.real) {
          assert.equal(r.status, 0, r.stderr);
          assert.equal(r.stdout.trim(), `real ${script.replace(".js", "")} version`);
        } else {
          assert.equal(r.status, code, r.stderr); // the hook client fails open
          assert.match(r.stderr, new RegExp(`@ctxhook/${plat} is not installed beside ctxhook`));
          assert.match(r.stderr, /--omit=optional/);
        }
      }
    } finally {
      fs.rmSync(root, { recursive: true, force: true });
    }
  });
}

test("launcher: a platform package that links out of the installation is refused", { skip: process.platform === "win32" }, () => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), "ctxhook-npm-"));
  try {
    const marker = path.join(root, "planted-ran");
    platformPackage(path.join(root, "elsewhere"), "planted", marker);
    const own = path.join(root, "proj/node_modules/ctxhook");
    launcher(own);
    fs.mkdirSync(path.join(root, "proj/node_modules/@ctxhook"));
    fs.symlinkSync(path.join(root, "elsewhere"), path.join(root, "proj/node_modules/@ctxhook", plat));
    const r = run(path.join(own, "bin/ctxhook.js"), "version");
    assert.equal(r.status, 1);
    assert.equal(fs.existsSync(marker), false);
    assert.match(r.stderr, /is not installed beside ctxhook/);
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }
});

test("launcher: run through npm's .bin link, it finds its own platform package", { skip: process.platform === "win32" }, () => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), "ctxhook-npm-"));
  try {
    const own = path.join(root, "prefix/lib/node_modules/ctxhook");
    launcher(own);
    platformPackage(path.join(own, "node_modules/@ctxhook", plat), "real");
    fs.mkdirSync(path.join(root, "prefix/bin"));
    fs.symlinkSync("../lib/node_modules/ctxhook/bin/ctxhook.js", path.join(root, "prefix/bin/ctxhook"));
    const r = run(path.join(root, "prefix/bin/ctxhook"), "--version");
    assert.equal(r.status, 0, r.stderr);
    assert.equal(r.stdout.trim(), "real ctxhook --version");
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }
});
