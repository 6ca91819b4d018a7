// Times Host.decide on OpenCode's tool calls (tool.execute.before, then
// tool.execute.after, from a recorded OpenCode run) through a warm daemon
// and through the in-process path (plugin.wasm here, `ctxhook io load`
// and `ctxhook io apply`), interleaved so that both see the same machine,
// and prints p50/p99 per hook call and per tool call side by side.
//
//   node adapters/core/bench.mjs [N]     (N tool calls, default 200; CTXHOOK_BIN, else bin/ctxhook)
//
// It uses a temporary CTXHOOK_HOME and a daemon of its own, ended at exit.
import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { Host } from "./index.js";
import { bin, cleanup, freshHome, startDaemon } from "./testing/daemons.mjs";

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const N = Number(process.argv[2] ?? 200);

function opencode(hook) {
  const { input, output } = JSON.parse(readFileSync(path.join(repo, `testdata/payloads/opencode/1.18.33/hook-${hook}.json`), "utf8"));
  return JSON.stringify({ hook, directory: "/proj", mcp_servers: [], input, output });
}
const before = opencode("tool.execute.before");
const after = opencode("tool.execute.after");

// toolCall decides one tool call's two hooks and returns their times (ms).
async function toolCall(host, want) {
  const times = [];
  for (const [event, payload] of [["tool.execute.before", before], ["tool.execute.after", after]]) {
    const t = performance.now();
    const d = await host.decide("opencode", event, payload);
    times.push(performance.now() - t);
    if (d.via !== want || d.error) throw new Error(`${event}: decided ${d.via}, want ${want} (${d.error ?? "no error"})`);
  }
  return times;
}

function quantile(xs, q) {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(q * s.length))];
}

function row(name, d, p) {
  const f = (x) => x.toFixed(2).padStart(9);
  console.log(`${name.padEnd(20)} ${f(quantile(d, 0.5))} ${f(quantile(d, 0.99))}   ${f(quantile(p, 0.5))} ${f(quantile(p, 0.99))}   ${(quantile(p, 0.5) / quantile(d, 0.5)).toFixed(1).padStart(6)}x`);
}

const home = freshHome("cxb-");
const env = { ...process.env, CTXHOOK_HOME: home };
let warm, cold;
try {
  await startDaemon(env);
  warm = await Host.load({ ctxhook: bin, env, log: () => {} });
  cold = await Host.load({ ctxhook: bin, env, log: () => {}, daemon: false });
  for (let i = 0; i < 5; i++) {
    await toolCall(warm, "daemon");
    await toolCall(cold, "in-process");
  }
  const t = { daemon: { hook: [], call: [] }, "in-process": { hook: [], call: [] } };
  for (let i = 0; i < N; i++) {
    for (const [host, via] of i % 2 ? [[warm, "daemon"], [cold, "in-process"]] : [[cold, "in-process"], [warm, "daemon"]]) {
      const [b, a] = await toolCall(host, via);
      t[via].hook.push(b, a);
      t[via].call.push(b + a);
    }
  }
  console.log(`Host.decide, OpenCode tool.execute.before + tool.execute.after, ${N} tool calls each side (${process.versions.bun ? `Bun ${process.versions.bun}` : `Node ${process.versions.node}`})`);
  console.log(`${"ms".padEnd(20)} ${"daemon".padStart(9)} ${"".padStart(9)}   ${"in-process".padStart(9)}`);
  console.log(`${"".padEnd(20)} ${"p50".padStart(9)} ${"p99".padStart(9)}   ${"p50".padStart(9)} ${"p99".padStart(9)}   ${"p50 ratio".padStart(7)}`);
  row("per hook call", t.daemon.hook, t["in-process"].hook);
  row("per tool call", t.daemon.call, t["in-process"].call);
} finally {
  warm?.close();
  cold?.close();
  cleanup(home);
}
