// The OpenCode plugin, driven the way OpenCode 1.18.33 drives it, with
// the hook inputs and outputs recorded from a real OpenCode run, the real
// plugin.wasm and the real ctxhook binary writing a real store: decided
// in-process, and by a real daemon.
import test from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { CtxhookPlugin } from "../index.js";
import { bin, cleanup, freshHome, searchSoon, startDaemon, until } from "../../core/testing/daemons.mjs";

const here = path.dirname(fileURLToPath(import.meta.url));
const repo = path.resolve(here, "../../..");
const payloads = path.join(repo, "testdata/payloads/opencode/1.18.33");

function recorded(hook) {
  return JSON.parse(readFileSync(path.join(payloads, `hook-${hook}.json`), "utf8"));
}

// modes: the same test with the plugin deciding in-process (as with no
// daemon), and with a daemon running, which decides instead.
const modes = {
  "in-process": { opts: { daemon: false }, start: async () => {} },
  daemon: { opts: {}, start: startDaemon },
};

// withHome runs fn with a fresh CTXHOOK_HOME and its environment, the
// mode's daemon started, then ends every daemon of it and removes it.
async function withHome(mode, fn) {
  const home = freshHome();
  const env = { ...process.env, CTXHOOK_HOME: home };
  try {
    await mode.start(env);
    return await fn(env, mode.opts);
  } finally {
    cleanup(home);
  }
}

for (const mode of Object.keys(modes)) test(`${mode}: token captured from _meta is injected into the next call in place; result recorded; nudge appended`, () => withHome(modes[mode], async (env, opts) => {
  const logs = [];
  const hooks = await CtxhookPlugin({ directory: "/proj" }, { ctxhook: bin, env, log: (m) => logs.push(m), ...opts });

  // First call: no token yet, nothing injected.
  const before = recorded("tool.execute.before");
  const args1 = before.output.args;
  await hooks["tool.execute.before"](before.input, before.output);
  assert.equal(before.output.args, args1, "args object replaced");
  assert.deepEqual(args1, { id: "TCK-42" });

  // The server answers with a token in _meta.
  const after = recorded("tool.execute.after");
  const content = after.output.content;
  await hooks["tool.execute.after"](after.input, after.output);
  assert.equal(after.output.content, content);
  assert.equal(content.length, 2, "nudge not appended");
  assert.match(content[1].text, /ctxhook search/);

  // Second call: the captured token goes into the same args object.
  const next = recorded("tool.execute.before");
  const args2 = next.output.args;
  await hooks["tool.execute.before"](next.input, next.output);
  assert.equal(next.output.args, args2);
  assert.deepEqual(args2, { id: "TCK-42", session_token: "srv-tok-TCK-42" });

  // When the call ends its args are what the model wrote again (Kilo CLI
  // sends that same object back to the model), after the after-hook was
  // decided on what the server got.
  const end = recorded("tool.execute.after");
  assert.equal(end.input.callID, next.input.callID);
  await hooks["tool.execute.after"](end.input, end.output);
  assert.deepEqual(args2, { id: "TCK-42" });
  // and the conversation sent to the model shows them so, whatever the
  // harness stored (a copy of the changed ones, as Kilo CLI keeps).
  const part = { type: "tool", callID: next.input.callID, tool: next.input.tool,
    state: { status: "completed", input: { id: "TCK-42", session_token: "srv-tok-TCK-42" }, output: "ok" } };
  const messages = [{ info: { role: "assistant" }, parts: [part] }];
  await hooks["experimental.chat.messages.transform"]({}, { messages });
  assert.deepEqual(messages[0].parts[0].state.input, { id: "TCK-42" });
  assert.deepEqual(part.state.input, { id: "TCK-42", session_token: "srv-tok-TCK-42" }, "the stored part was changed");

  // The response is in the store, found by `ctxhook search` (a daemon
  // stores it just after answering), token redacted.
  const hits = await searchSoon(env, "Printer on floor 3");
  assert.ok(hits.length >= 1, "not found by search");
  const shown = execFileSync(bin, ["show", String(hits[0].id)], { env }).toString();
  assert.match(shown, /Printer on floor 3/);
  assert.doesNotMatch(shown, /srv-tok-TCK-42/);

  // Before a compaction, the working-state block joins the compaction
  // prompt: the relay server, the ticket fetched, no token.
  const compacting = { context: [] };
  await hooks["experimental.session.compacting"]({ sessionID: before.input.sessionID }, compacting);
  assert.equal(compacting.context.length, 1, "no block in the compaction prompt");
  assert.match(compacting.context[0], /working state/);
  assert.match(compacting.context[0], /tickets/);
  assert.match(compacting.context[0], /TCK-42/);
  assert.doesNotMatch(compacting.context[0], /srv-tok-TCK-42/);
  assert.deepEqual(logs, []);
}));

test("a broken ctxhook binary never breaks OpenCode", () => withHome({ opts: {}, start: async () => {} }, async (env) => {
  const logs = [];
  const hooks = await CtxhookPlugin({ directory: "/proj" }, { ctxhook: "/nonexistent/ctxhook", env, log: (m) => logs.push(m) });
  const before = recorded("tool.execute.before");
  await hooks["tool.execute.before"](before.input, before.output);
  assert.deepEqual(before.output.args, { id: "TCK-42" });
  const after = recorded("tool.execute.after");
  await hooks["tool.execute.after"](after.input, after.output);
  assert.ok(logs.some((l) => /effects not applied/.test(l)), logs.join("\n"));
}));

test("a missing plugin.wasm leaves OpenCode with no hooks", async () => {
  const hooks = await CtxhookPlugin({}, { wasm: "/nonexistent/plugin.wasm" });
  assert.deepEqual(hooks, {});
});

for (const mode of Object.keys(modes)) test(`${mode}: a large MCP result is shaped in place: head and pointer, the whole body stored`, () => withHome(modes[mode], async (env, opts) => {
  const hooks = await CtxhookPlugin({ directory: "/proj" }, { ctxhook: bin, env, log: () => {}, ...opts });
  const after = recorded("tool.execute.after");
  const lines = [];
  for (let i = 0; i < 400; i++) lines.push(`Log line ${i}: FACT-${i} handled`);
  after.output.content[0].text = lines.join("\n");
  const content = after.output.content;
  await hooks["tool.execute.after"](after.input, after.output);
  assert.equal(after.output.content, content, "content array replaced instead of changed in place");
  assert.equal(content.length, 2);
  assert.ok(content[0].text.length < 1500, `shaped text is ${content[0].text.length} bytes`);
  const key = /stored as event (e[0-9a-f]{16})/.exec(content[0].text)?.[1];
  assert.ok(key, content[0].text.slice(-300));
  // A daemon stores it just after answering.
  const shown = await until(() => {
    try {
      return execFileSync(bin, ["show", key], { env, stdio: ["ignore", "pipe", "ignore"] }).toString();
    } catch {
      return null;
    }
  }, 10000, 50);
  assert.match(shown ?? "", /FACT-399 handled/);
}));
