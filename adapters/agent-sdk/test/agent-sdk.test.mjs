// The Agent SDK callbacks with real Claude Code 2.1.330 hook inputs (the
// SDK passes callbacks the same objects), the real plugin.wasm and the
// real ctxhook binary writing a real store: decided in-process, and by a
// real daemon.
import test from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { ctxhookHooks } from "../index.js";
import { bin, cleanup, freshHome, searchSoon, startDaemon } from "../../core/testing/daemons.mjs";

const here = path.dirname(fileURLToPath(import.meta.url));
const repo = path.resolve(here, "../../..");
const recorded = (ev) => JSON.parse(readFileSync(path.join(repo, `testdata/payloads/claude-code/2.1.330/hook-${ev}.json`), "utf8"));
const TOKEN = "tok_" + "Q7w8E9r0".repeat(6);

test("hooks shape: MCP-only matcher on PreToolUse, user hooks kept", () => {
  const mine = { hooks: [async () => ({})] };
  const hooks = ctxhookHooks({ merge: { PreToolUse: [mine] } });
  assert.equal(hooks.PreToolUse.length, 2);
  assert.equal(hooks.PreToolUse[0], mine);
  assert.equal(hooks.PreToolUse[1].matcher, "mcp__.*");
  assert.equal(hooks.PostToolUse[0].matcher, undefined);
});

// withHome runs fn with a fresh CTXHOOK_HOME's environment, a daemon
// started for it if daemon, then ends every daemon of it and removes it.
async function withHome(daemon, fn) {
  const home = freshHome();
  const env = { ...process.env, CTXHOOK_HOME: home };
  try {
    if (daemon) await startDaemon(env);
    return await fn(env);
  } finally {
    cleanup(home);
  }
}

for (const daemon of [false, true]) test(`relay, record and nudge through the callbacks (${daemon ? "daemon" : "in-process"})`, () => withHome(daemon, async (env) => {
  const pre = recorded("PreToolUse");
  // A token captured earlier in this session (as the proxy or a hook would).
  execFileSync(bin, ["io", "apply"], {
    env, input: JSON.stringify([{ op: "set_state", key: `session/${pre.session_id}`, value: JSON.stringify({ tokens: { tickets: TOKEN } }) }]),
  });
  const hooks = ctxhookHooks({ ctxhook: bin, env, daemon });
  const out = await hooks.PreToolUse[0].hooks[0](pre, pre.tool_use_id, { signal: new AbortController().signal });
  assert.deepEqual(out, {
    hookSpecificOutput: { hookEventName: "PreToolUse", permissionDecision: "allow", updatedInput: { ...pre.tool_input, session_token: TOKEN } },
  });

  const post = recorded("PostToolUse");
  const out2 = await hooks.PostToolUse[0].hooks[0](post, post.tool_use_id, { signal: new AbortController().signal });
  assert.equal(out2.hookSpecificOutput.hookEventName, "PostToolUse");
  assert.match(out2.hookSpecificOutput.additionalContext, /ctxhook search/);
  const hits = await searchSoon(env, "TCK-42");
  assert.ok(hits.some((h) => h.session === pre.session_id && h.tool === "mcp__tickets__get_ticket"), JSON.stringify(hits));
}));

test("bad input gives no opinion", () => withHome(false, async (env) => {
  const hooks = ctxhookHooks({ ctxhook: bin, env, log: () => {} });
  assert.deepEqual(await hooks.PreToolUse[0].hooks[0](null), {});
  assert.deepEqual(await hooks.PreToolUse[0].hooks[0]({ hook_event_name: "PreToolUse", tool_input: [1] }), {});
}));
