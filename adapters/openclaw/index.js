// ctxhook for OpenClaw: a native OpenClaw plugin (id "ctxhook") whose
// tool hooks speak ctxhook's Pi dialect.
//
// OpenClaw runs plugins in its own process and hands them typed hooks.
// This one sends each tool hook to ctxhook's hook client
// (`ctxhook-hook openclaw <event>`), which asks the warm daemon; the
// plugin decides, this file only translates and applies, the way
// OpenClaw 2026.9.6 takes it:
//   - before_tool_call {toolName, params, toolCallId} goes as Pi's
//     tool_call {toolName, toolCallId, input}; the answer's updatedInput
//     is returned as { params }, which OpenClaw runs the tool with (the
//     model's own arguments stay as the model sent them);
//   - after_tool_call {toolName, params, result, error} goes as Pi's
//     tool_result {input, content, structuredContent, details {server,
//     tool}, isError}. OpenClaw does not await it and cannot change the
//     result, so nothing of the answer is applied: the call is recorded
//     (and a token in it captured) for the next call.
//   - OpenClaw names an MCP tool <server>__<tool>; it goes as Pi's
//     mcp__<server>__<tool>. OpenClaw's own tools have no "__".
// A failure never reaches OpenClaw: a before_tool_call handler that
// throws or outlives OpenClaw's 15 s budget blocks the tool call, so every
// path here returns (nothing, at worst) well within it.
import { spawn } from "node:child_process";

// Filled in when the plugin is installed: the hook client, or the
// ctxhook binary (`ctxhook hook openclaw <event>`) where there is none.
const INSTALLED = {};

const HARNESS = "openclaw";

// A hook client's budget, and how long a call waits for the result
// before it to be recorded: together under OpenClaw's 15 s
// before_tool_call budget, with room to spare.
const DEADLINE_MS = 9000;
const WAIT_RECORDED_MS = 3000;

// Bounds what is sent for one result: a larger one is recorded cut.
const MAX_PAYLOAD_CHARS = 64 * 1024 * 1024;

function argv() {
  if (INSTALLED.hookClient) return [INSTALLED.hookClient, HARNESS];
  if (INSTALLED.ctxhook) return [INSTALLED.ctxhook, "hook", HARNESS];
  return ["ctxhook-hook", HARNESS];
}

// piName is the name Pi's dialect reads an MCP tool by.
function piName(name) {
  if (typeof name !== "string") return "";
  return name.includes("__") && !name.startsWith("mcp__") ? "mcp__" + name : name;
}

function isObject(v) {
  return v !== null && typeof v === "object" && !Array.isArray(v);
}

// piEvent is OpenClaw's hook event as Pi's: tool_call before the call,
// tool_result after it.
export function piEvent(e) {
  const call = { toolName: piName(e?.toolName), toolCallId: String(e?.toolCallId ?? ""), input: isObject(e?.params) ? e.params : {} };
  if (!("result" in (e ?? {})) && !("error" in (e ?? {}))) return call;
  const result = isObject(e.result) ? e.result : {};
  const details = isObject(result.details) ? result.details : {};
  return {
    ...call,
    content: Array.isArray(result.content) ? result.content : [],
    structuredContent: result.structuredContent,
    details: { server: typeof details.mcpServer === "string" ? details.mcpServer : "", tool: typeof details.mcpTool === "string" ? details.mcpTool : "" },
    isError: Boolean(e.error),
  };
}

// piPayload is what the hook client is sent for one of OpenClaw's tool
// hooks: Pi's event name, the session, the working directory, the event.
export function piPayload(event, e, ctx, cwd) {
  return JSON.stringify({ hook_event_name: event, session_id: String(ctx?.sessionId ?? ""), cwd, event: piEvent(e) });
}

// ask runs the hook client on one event and returns the plugin's answer
// (Claude Code's hookSpecificOutput), or null. It never rejects.
function ask(event, e, ctx) {
  let payload;
  try {
    payload = piPayload(event, e, ctx, process.cwd());
  } catch {
    return Promise.resolve(null); // an event that cannot be sent: the call goes on without ctxhook
  }
  if (payload.length > MAX_PAYLOAD_CHARS) return Promise.resolve(null);
  return new Promise((resolve) => {
    let out = "";
    let child;
    const [cmd, ...args] = argv();
    try {
      // stderr ignored: the hook client's fail-open notes would land in
      // OpenClaw's output.
      child = spawn(cmd, [...args, event], { stdio: ["pipe", "pipe", "ignore"] });
    } catch {
      resolve(null);
      return;
    }
    const timer = setTimeout(() => {
      child.kill();
      setTimeout(() => child.kill("SIGKILL"), 2000).unref();
      resolve(null);
    }, DEADLINE_MS);
    child.on("error", () => {
      clearTimeout(timer);
      resolve(null);
    });
    child.stdout.setEncoding("utf8");
    child.stdout.on("data", (d) => (out += d));
    child.on("close", () => {
      clearTimeout(timer);
      try {
        resolve(out.trim() ? JSON.parse(out).hookSpecificOutput ?? null : null);
      } catch {
        resolve(null);
      }
    });
    child.stdin.on("error", () => {});
    child.stdin.end(payload);
  });
}

// recorded holds, per session, the result still being recorded: OpenClaw
// does not await after_tool_call, and the next call's token may be in it.
const recorded = new Map();

async function beforeToolCall(e, ctx) {
  try {
    const key = String(ctx?.sessionId ?? "");
    const pending = recorded.get(key);
    if (pending) {
      let timer;
      await Promise.race([pending, new Promise((r) => (timer = setTimeout(r, WAIT_RECORDED_MS)))]);
      clearTimeout(timer);
    }
    const answer = await ask("tool_call", e, ctx);
    const updated = answer?.updatedInput;
    // The plugin's input is whole: it replaces the params.
    if (isObject(updated)) return { params: updated };
  } catch {}
  return undefined;
}

function afterToolCall(e, ctx) {
  try {
    const key = String(ctx?.sessionId ?? "");
    const done = ask("tool_result", e, ctx).then(() => {
      if (recorded.get(key) === done) recorded.delete(key);
    });
    recorded.set(key, done);
  } catch {}
}

export default {
  id: "ctxhook",
  name: "ctxhook",
  description: "Relays MCP session tokens and records MCP results in ctxhook's store.",
  register(api) {
    api.on("before_tool_call", beforeToolCall);
    api.on("after_tool_call", afterToolCall);
  },
};
