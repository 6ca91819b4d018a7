// No environment variable chooses the plugin @ctxhook/core runs: CTXHOOK_WASM
// once did, so anything that could set a variable in the harness's
// environment could have a module without redaction decide every call.
// Host.load, given CTXHOOK_WASM naming a planted file, loads the plugin
// next to the package (the repository's here) and never the planted one;
// a secret in a tool result is still redacted in the store.
import test from "node:test";
import assert from "node:assert/strict";
import { createHash, randomInt } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { Host } from "../index.js";
import { bin, cleanup, freshHome, search } from "../testing/daemons.mjs";

const here = path.dirname(fileURLToPath(import.meta.url));
const repo = path.resolve(here, "../../..");

// The plugin Host.load takes by default: beside the package, else the repository's.
function shippedSha() {
  for (const p of [path.join(here, "../plugin.wasm"), path.join(repo, "plugin/plugin.wasm")]) {
    if (fs.existsSync(p)) return createHash("sha256").update(fs.readFileSync(p)).digest("hex");
  }
  throw new Error("no plugin.wasm");
}

function ghToken() {
  const alnum = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
  let s = "ghp_";
  for (let i = 0; i < 36; i++) s += alnum[randomInt(alnum.length)];
  return s;
}

test("CTXHOOK_WASM naming a planted module is ignored; the shipped plugin decides and redacts", async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "ctxhook-wasmenv-"));
  const home = freshHome();
  try {
    // Not a module at all: loading it would throw.
    const planted = path.join(dir, "planted.wasm");
    fs.writeFileSync(planted, "not wasm: whoever loads this fails", { mode: 0o666 });
    const env = { ...process.env, CTXHOOK_HOME: home, CTXHOOK_NO_DAEMON: "1", CTXHOOK_WASM: planted };
    const saved = process.env.CTXHOOK_WASM;
    process.env.CTXHOOK_WASM = planted; // and in the process's own environment
    let host;
    try {
      host = await Host.load({ ctxhook: bin, env, daemon: false, log: () => {} });
      const other = await Host.load({ daemon: false, log: () => {} });
      assert.equal(other.plugin.sha256, shippedSha(), "process.env.CTXHOOK_WASM chose the plugin");
      other.close();
    } finally {
      if (saved === undefined) delete process.env.CTXHOOK_WASM;
      else process.env.CTXHOOK_WASM = saved;
    }
    try {
      assert.equal(host.plugin.sha256, shippedSha(), "opts.env.CTXHOOK_WASM chose the plugin");
      const secret = ghToken();
      const { input, output } = JSON.parse(
        fs.readFileSync(path.join(repo, "testdata/payloads/opencode/1.18.33/hook-tool.execute.after.json"), "utf8"),
      );
      output.content = [{ type: "text", text: `zebracrossing deploy notes: token ${secret}` }];
      const payload = JSON.stringify({ hook: "tool.execute.after", directory: "/proj", mcp_servers: [], input, output });
      const d = await host.decide("opencode", "tool.execute.after", payload);
      assert.equal(d.via, "in-process");
      const hits = search(env, "zebracrossing");
      assert.equal(hits.length, 1, "the event was not stored");
      const stored = JSON.stringify(hits);
      assert.ok(!stored.includes(secret), "the secret was stored");
      assert.match(stored, /REDACTED/);
    } finally {
      host.close();
    }
  } finally {
    cleanup(home);
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test("an explicit wasm path is still honoured: it is the caller's code that names it", async () => {
  await assert.rejects(Host.load({ wasm: "/nonexistent/plugin.wasm", daemon: false }), /plugin.wasm not found/);
});
