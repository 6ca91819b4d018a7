// @ctxhook/core loads the ctxhook package only from its own installation:
// a ctxhook module planted in a node_modules above it (any local user can
// make /tmp/node_modules) never runs in Host.load, and the one npm
// installed beside it is used. The layout is real directories as npm
// makes them, with copies of core and the ctxhook package.
import test from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const here = path.dirname(fileURLToPath(import.meta.url));
const adapters = path.resolve(here, "../..");
const repo = path.resolve(adapters, "..");
const plat = `${process.platform}-${process.arch}`;

function copy(files, from, to) {
  for (const f of files) {
    fs.mkdirSync(path.dirname(path.join(to, f)), { recursive: true });
    fs.copyFileSync(path.join(from, f), path.join(to, f));
  }
}

test("core: a ctxhook module planted above the installation never loads; the installed one does", { skip: process.platform === "win32" }, async () => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), "ctxhook-core-"));
  try {
    const marker = path.join(root, "planted-ran");
    const planted = path.join(root, "node_modules/ctxhook");
    fs.mkdirSync(planted, { recursive: true });
    fs.writeFileSync(path.join(planted, "package.json"), JSON.stringify({ name: "ctxhook", main: "index.js" }));
    fs.writeFileSync(
      path.join(planted, "index.js"),
      `require("node:fs").writeFileSync(${JSON.stringify(marker)}, "ran"); module.exports = { binaryPath: () => "/planted" };`,
    );
    const nm = path.join(root, "proj/node_modules");
    copy(["index.js", "package.json"], path.join(adapters, "core"), path.join(nm, "@ctxhook/core"));
    // core's own dependency, as installed for the adapters.
    for (const dep of fs.readdirSync(path.join(adapters, "node_modules"))) {
      if (!dep.startsWith(".") && dep !== "@ctxhook") fs.symlinkSync(path.join(adapters, "node_modules", dep), path.join(nm, dep));
    }
    const { Host } = await import(pathToFileURL(path.join(nm, "@ctxhook/core/index.js")));
    const env = { PATH: process.env.PATH, CTXHOOK_NO_DAEMON: "1" };
    const load = async () => {
      const h = await Host.load({ wasm: path.join(repo, "plugin/plugin.wasm"), env, daemon: false });
      await h.close?.();
      return h.bin;
    };
    assert.equal(await load(), "ctxhook", "without the ctxhook package core falls back to PATH");
    assert.equal(fs.existsSync(marker), false, "the planted ctxhook module ran");

    // npm hoists the optional peer ctxhook and its platform package beside core.
    copy(["index.js", "package.json", "bin/ctxhook.js"], path.join(repo, "npm/ctxhook"), path.join(nm, "ctxhook"));
    const bin = path.join(nm, `@ctxhook/${plat}/bin/ctxhook`);
    fs.mkdirSync(path.dirname(bin), { recursive: true });
    fs.writeFileSync(path.join(nm, `@ctxhook/${plat}/package.json`), JSON.stringify({ name: `@ctxhook/${plat}` }));
    fs.writeFileSync(bin, "#!/bin/sh\n", { mode: 0o755 });
    assert.equal(await load(), fs.realpathSync(bin));
    assert.equal(fs.existsSync(marker), false, "the planted ctxhook module ran");
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }
});
