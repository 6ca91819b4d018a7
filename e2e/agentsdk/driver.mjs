// The Agent SDK end-to-end driver (agentsdk_test.go runs it on Node and on
// Bun): the real @anthropic-ai/claude-agent-sdk query(), which spawns its
// bundled Claude Code CLI against the fake model on 127.0.0.1, with
// ctxhook's callbacks from adapters/agent-sdk as Options.hooks. The hooks
// run in this process; ctxhook decides through its daemon.
//
// The test copies this file next to the SDK's node_modules (e2e/.work) so
// the bare import resolves, and gives it one argument, a JSON file:
//   { adapter, ctxhook, prompt, model, cwd, mcpServers, allowedTools, record }
// It appends one JSON line per observation to `record`:
//   {hook: event, input, output}  each call of a ctxhook callback and its answer
//   {user: event, input}          each call of the test's own merged hook
//   {log: message}                each warning ctxhook logged
//   {message: type, subtype}      each message query() yielded
//   {stderr: text}                the CLI's stderr
// and prints one JSON summary on stdout. It ends by itself: a kept daemon
// connection must not hold the process open.
import { query } from "@anthropic-ai/claude-agent-sdk";
import { appendFileSync, readFileSync } from "node:fs";
import { pathToFileURL } from "node:url";

const cfg = JSON.parse(readFileSync(process.argv[2], "utf8"));
const record = (obj) => appendFileSync(cfg.record, JSON.stringify(obj) + "\n");
const { ctxhookHooks } = await import(pathToFileURL(cfg.adapter).href);

const logs = [];
// A hook of the user's own, kept next to ctxhook's through `merge`: it
// sees every MCP call and has no opinion.
const mine = (event) => async (input) => {
  record({ user: event, input });
  return {};
};
const mineEntry = { matcher: "mcp__.*", hooks: [mine("PreToolUse")] };
const hooks = ctxhookHooks({
  ctxhook: cfg.ctxhook,
  log: (m) => {
    logs.push(m);
    record({ log: m });
  },
  merge: { PreToolUse: [mineEntry] },
});

// Record what ctxhook's callbacks were given and answered, passing both
// through unchanged.
for (const [event, entries] of Object.entries(hooks)) {
  for (const entry of entries) {
    if (entry === mineEntry) continue;
    entry.hooks = entry.hooks.map((cb) => async (input, toolUseID, options) => {
      const output = await cb(input, toolUseID, options);
      record({ hook: event, input, output });
      return output;
    });
  }
}

const summary = {
  runtime: process.versions.bun ? `bun ${process.versions.bun}` : `node ${process.versions.node}`,
  result: null,
  is_error: null,
  session_id: null,
  messages: 0,
  logs,
};
try {
  for await (const m of query({
    prompt: cfg.prompt,
    options: {
      cwd: cfg.cwd,
      model: cfg.model,
      mcpServers: cfg.mcpServers,
      allowedTools: cfg.allowedTools,
      settingSources: [],
      hooks,
      stderr: (text) => record({ stderr: text }),
    },
  })) {
    summary.messages++;
    record({ message: m.type, subtype: m.subtype ?? null });
    if (m.type === "system" && m.subtype === "init") summary.session_id = m.session_id;
    if (m.type === "result") {
      summary.result = m.result ?? null;
      summary.is_error = m.is_error;
      summary.session_id = m.session_id;
    }
  }
} catch (err) {
  summary.error = String(err?.stack ?? err);
}
process.stdout.write(JSON.stringify(summary) + "\n");
if (summary.error) process.exitCode = 1;
