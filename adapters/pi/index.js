// ctxhook for the Pi coding agent: a Pi extension (`ctxhook install pi`
// writes it into Pi's extensions directory).
//
// Pi runs extensions in-process and hands them its tool events. This one
// sends each tool event, Pi's event object as it is, to ctxhook's hook
// client (`ctxhook-hook pi <event>`), which asks the warm daemon; the
// plugin decides, this file only applies the answer the way Pi 1.6.0
// takes it:
//   - tool_call: event.input is what the tool runs with, changed in place
//     (Pi passed it a deep copy of the model's arguments, so the model
//     never sees an injected token);
//   - tool_result: returning { content } replaces what the model sees: a
//     large result's text becomes its head and a pointer to the stored
//     event, and ctxhook's text for the model is appended. A call a
//     codemode script made is recorded and left as it is (the script
//     reads structuredContent).
// A failure never reaches Pi: the tool call goes on as if ctxhook were
// not installed.
import { spawn } from "node:child_process";

// Filled in by `ctxhook install pi`: the hook client it installed, or
// the ctxhook binary (`ctxhook hook pi <event>`) where there is none.
const INSTALLED = {};

const HARNESS = "pi";

// The hook's own budget: the daemon answers well within it.
const DEADLINE_MS = 30000;

// ask runs the hook client on one event and returns the plugin's answer
// (Claude Code's hookSpecificOutput), or null.
function ask(argv, event, e, ctx) {
  let payload;
  try {
    let sessionId = "";
    try {
      sessionId = ctx?.sessionManager?.getSessionId?.() ?? "";
    } catch {}
    payload = JSON.stringify({ hook_event_name: event, session_id: sessionId, cwd: ctx?.cwd ?? process.cwd(), event: e });
  } catch {
    return Promise.resolve(null); // an event that cannot be sent: the call goes on without ctxhook
  }
  return new Promise((resolve) => {
    let out = "";
    let child;
    try {
      // stderr ignored: the hook client's fail-open notes would land in
      // Pi's screen.
      child = spawn(argv[0], [...argv.slice(1), event], { stdio: ["pipe", "pipe", "ignore"] });
    } catch {
      resolve(null);
      return;
    }
    const timer = setTimeout(() => {
      child.kill();
      setTimeout(() => child.kill("SIGKILL"), 2000).unref();
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

export default function ctxhook(pi) {
  // Installed for the user and for a project, Pi loads both files: one
  // decides, or each event would be decided twice.
  if (globalThis.__ctxhookPiExtension) return;
  globalThis.__ctxhookPiExtension = true;
  const argv = INSTALLED.hookClient
    ? [INSTALLED.hookClient, HARNESS]
    : INSTALLED.ctxhook
      ? [INSTALLED.ctxhook, "hook", HARNESS]
      : ["ctxhook-hook", HARNESS];

  pi.on("tool_call", async (e, ctx) => {
    const answer = await ask(argv, "tool_call", e, ctx);
    const updated = answer?.updatedInput;
    if (updated && typeof updated === "object" && e.input && typeof e.input === "object") {
      // The plugin's input is whole: what it left out goes.
      for (const k of Object.keys(e.input)) if (!Object.hasOwn(updated, k)) delete e.input[k];
      for (const [k, v] of Object.entries(updated)) Object.defineProperty(e.input, k, { value: v, writable: true, enumerable: true, configurable: true });
    }
  });

  pi.on("tool_result", async (e, ctx) => {
    const answer = await ask(argv, "tool_result", e, ctx);
    // A call made from a codemode script returns to the script, which
    // reads structuredContent: it is recorded, and left as it is.
    if (!answer || e.parentToolCallId) return;
    let content = Array.isArray(e.content) ? e.content : [];
    let changed = false;
    if (typeof answer.updatedMCPToolOutput === "string") {
      // The text replaced by its head and a pointer; images and other
      // blocks stay.
      content = [{ type: "text", text: answer.updatedMCPToolOutput }, ...content.filter((b) => b?.type !== "text")];
      changed = true;
    }
    if (typeof answer.additionalContext === "string" && answer.additionalContext) {
      content = [...content, { type: "text", text: answer.additionalContext }];
      changed = true;
    }
    if (changed) return { content, structuredContent: e.structuredContent };
  });
}
