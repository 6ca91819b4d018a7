// The Agent SDK callbacks with real Claude Code 2.1.330 hook inputs (the
// SDK passes callbacks the same objects), the real plugin.wasm and the
// real ctxhook binary writing a real store.
import test from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync, mkdirSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { ctxhookHooks } from "../index.js";

const here = path.dirname(fileURLToPath(import.meta.url));
const repo = path.resolve(here, "../../..");
const bin = process.env.CTXHOOK_BIN ?? path.join(repo, "bin/ctxhook");
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

test("relay, record and nudge through the callbacks", async () => {
  const home = mkdtempSync(path.join(tmpdir(), "ctxhook-sdk-"));
  mkdirSync(path.join(home, "config"));
  writeFileSync(path.join(home, "config/config.toml"), "[servers.tickets]\nrelay = true\n");
  const env = { ...process.env, CTXHOOK_HOME: home };
  const pre = recorded("PreToolUse");
  // A token captured earlier in this session (as the proxy or a hook would).
  execFileSync(bin, ["io", "apply"], {
    env, input: JSON.stringify([{ op: "set_state", key: `session/${pre.session_id}`, value: JSON.stringify({ tokens: { tickets: TOKEN } }) }]),
  });
  const hooks = ctxhookHooks({ ctxhook: bin, env });
  const out = await hooks.PreToolUse[0].hooks[0](pre, pre.tool_use_id, { signal: new AbortController().signal });
  assert.deepEqual(out, {
    hookSpecificOutput: { hookEventName: "PreToolUse", permissionDecision: "allow", updatedInput: { ...pre.tool_input, session_token: TOKEN } },
  });

  const post = recorded("PostToolUse");
  const out2 = await hooks.PostToolUse[0].hooks[0](post, post.tool_use_id, { signal: new AbortController().signal });
  assert.equal(out2.hookSpecificOutput.hookEventName, "PostToolUse");
  assert.match(out2.hookSpecificOutput.additionalContext, /ctxhook search/);
  const hits = JSON.parse(execFileSync(bin, ["search", "--json", "TCK-42"], { env }).toString());
  assert.ok(hits.some((h) => h.session === pre.session_id && h.tool === "mcp__tickets__get_ticket"), JSON.stringify(hits));
});

test("bad input gives no opinion", async () => {
  const hooks = ctxhookHooks({ ctxhook: bin, log: () => {} });
  assert.deepEqual(await hooks.PreToolUse[0].hooks[0](null), {});
  assert.deepEqual(await hooks.PreToolUse[0].hooks[0]({ hook_event_name: "PreToolUse", tool_input: [1] }), {});
});
