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
//     large result becomes its head and a pointer to the stored event,
//     and ctxhook's text for the model is appended.
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
  let sessionId = "";
  try {
    sessionId = ctx?.sessionManager?.getSessionId?.() ?? "";
  } catch {}
  const payload = JSON.stringify({ hook_event_name: event, session_id: sessionId, cwd: ctx?.cwd ?? process.cwd(), event: e });
  return new Promise((resolve) => {
    let out = "";
    let child;
    try {
      child = spawn(argv[0], [...argv.slice(1), event], { stdio: ["pipe", "pipe", "inherit"] });
    } catch {
      resolve(null);
      return;
    }
    const timer = setTimeout(() => child.kill(), DEADLINE_MS);
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
      for (const k of Object.keys(e.input)) if (!(k in updated)) delete e.input[k];
      Object.assign(e.input, updated);
    }
  });

  pi.on("tool_result", async (e, ctx) => {
    const answer = await ask(argv, "tool_result", e, ctx);
    if (!answer) return;
    let content = Array.isArray(e.content) ? e.content : [];
    let changed = false;
    if (typeof answer.updatedMCPToolOutput === "string") {
      content = [{ type: "text", text: answer.updatedMCPToolOutput }];
      changed = true;
    }
    if (typeof answer.additionalContext === "string" && answer.additionalContext) {
      content = [...content, { type: "text", text: answer.additionalContext }];
      changed = true;
    }
    if (changed) return { content };
  });
}
