// The OpenClaw plugin never fails a tool call: OpenClaw blocks a call
// whose before_tool_call handler throws or outlives 15 s. These run the
// plugin's real handlers, registered on a stand-in for OpenClaw's api,
// against hook clients that hang or answer garbage, and with payloads a
// hostile MCP server or model could produce. The translation into Pi's
// dialect is checked on the payloads recorded from OpenClaw 2026.9.6.
import { test } from "node:test";
import assert from "node:assert/strict";
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import plugin, { piPayload } from "../index.js";

const recorded = join(import.meta.dirname, "..", "..", "..", "testdata", "payloads", "openclaw", "2026.9.6");

function handlers() {
  const on = {};
  plugin.register({ on: (name, fn) => (on[name] = fn) });
  return on;
}

// withHookClient puts an executable ctxhook-hook with body first on PATH.
async function withHookClient(body, fn) {
  const dir = mkdtempSync(join(tmpdir(), "ctxhook-openclaw-"));
  const file = join(dir, "ctxhook-hook");
  writeFileSync(file, "#!/bin/sh\n" + body + "\n");
  chmodSync(file, 0o755);
  const path = process.env.PATH;
  process.env.PATH = dir + ":" + path;
  try {
    return await fn();
  } finally {
    process.env.PATH = path;
    rmSync(dir, { recursive: true, force: true }); // make test fails on a temp entry left behind
  }
}

test("recorded hooks become Pi's events", () => {
  const before = JSON.parse(readFileSync(join(recorded, "hook-before_tool_call-workflow-step.json"), "utf8"));
  const call = JSON.parse(piPayload("tool_call", before.event, before.ctx, "/p"));
  assert.deepEqual(call, { hook_event_name: "tool_call", session_id: before.ctx.sessionId, cwd: "/p",
    event: { toolName: "mcp__workflow__step", toolCallId: "call_fake001", input: { n: 1 } } });
  const after = JSON.parse(readFileSync(join(recorded, "hook-after_tool_call-tickets-get_ticket.json"), "utf8"));
  const result = JSON.parse(piPayload("tool_result", after.event, after.ctx, "/p")).event;
  assert.equal(result.toolName, "mcp__tickets__get_ticket");
  assert.deepEqual(result.details, { server: "tickets", tool: "get_ticket" });
  assert.equal(result.isError, false);
  assert.deepEqual(result.content, after.event.result.content);
});

test("OpenClaw's own tools keep their names", () => {
  const e = JSON.parse(piPayload("tool_call", { toolName: "exec", params: { command: "ls" } }, {}, "/p")).event;
  assert.equal(e.toolName, "exec");
});

test("a hook client that never answers: the call goes on within OpenClaw's budget", async () => {
  const on = handlers();
  await withHookClient("exec sleep 60", async () => {
    const start = Date.now();
    const r = await on.before_tool_call({ toolName: "workflow__step", params: { n: 1 }, toolCallId: "c1" }, { sessionId: "s" });
    assert.equal(r, undefined);
    assert.ok(Date.now() - start < 12000, `took ${Date.now() - start} ms`);
  });
});

test("garbage answers and hostile events change nothing and never throw", async () => {
  const on = handlers();
  const cyclic = { n: 1 };
  cyclic.self = cyclic;
  for (const answer of ["not json", '{"hookSpecificOutput":{"updatedInput":[1,2]}}', '{"hookSpecificOutput":{"updatedInput":"x"}}', ""]) {
    await withHookClient(`cat >/dev/null; printf '%s' '${answer}'`, async () => {
      for (const e of [null, undefined, 42, { toolName: 7, params: "x" }, { toolName: "a__b", params: cyclic }]) {
        assert.equal(await on.before_tool_call(e, { sessionId: "s" }), undefined);
        assert.doesNotThrow(() => on.after_tool_call(e, null));
      }
    });
  }
  // A huge result is sent (or dropped) without throwing.
  await withHookClient("cat >/dev/null", async () => {
    const big = { toolName: "tickets__export_log", params: {}, result: { content: [{ type: "text", text: "x".repeat(8 << 20) }] } };
    assert.doesNotThrow(() => on.after_tool_call(big, { sessionId: "s" }));
    assert.equal(await on.before_tool_call({ toolName: "tickets__get_ticket", params: { id: "1" } }, { sessionId: "s" }), undefined);
  });
});

test("the token is applied as the call's params", async () => {
  const on = handlers();
  await withHookClient(`cat >/dev/null; printf '%s' '{"hookSpecificOutput":{"updatedInput":{"n":1,"session_token":"wfs_x"}}}'`, async () => {
    const r = await on.before_tool_call({ toolName: "workflow__step", params: { n: 1 } }, { sessionId: "s" });
    assert.deepEqual(r, { params: { n: 1, session_token: "wfs_x" } });
  });
});
