// @ctxhook/agent-sdk: ctxhook as Claude Agent SDK hook callbacks.
//
// The SDK hands its callbacks the same input objects Claude Code gives
// command hooks, and reads back the same JSON, so each callback passes its
// input to ctxhook's plugin.wasm as a "claude-code" payload and returns the
// plugin's answer as the hook output: the ctxhook daemon's when it runs,
// else the plugin's in-process (@ctxhook/core). The plugin is loaded once,
// on the first call. A failure returns {} (no opinion): the agent goes on.
//
//   import { query } from "@anthropic-ai/claude-agent-sdk";
//   import { ctxhookHooks } from "@ctxhook/agent-sdk";
//   for await (const m of query({ prompt, options: { hooks: ctxhookHooks() } })) { ... }
import { Host } from "@ctxhook/core";

const HARNESS = "claude-code";

// The events ctxhook handles, with the tool matcher each needs: tokens are
// injected into MCP calls only; every tool result is recorded.
const EVENTS = {
  PreToolUse: "mcp__.*",
  PostToolUse: undefined,
  PostToolUseFailure: undefined,
  UserPromptSubmit: undefined,
  SessionStart: undefined,
  Stop: undefined,
};

/**
 * ctxhookHooks returns an Options.hooks object for query().
 * @param {object} [opts] { wasm, ctxhook, env, log, daemon (false: always in-process), timeout (seconds, default 30), merge (existing hooks to keep) }
 */
export function ctxhookHooks(opts = {}) {
  let host;
  const load = () => (host ??= Host.load(opts).catch((err) => {
    (opts.log ?? ((m) => process.stderr.write(`ctxhook: ${m}\n`)))(`not loaded, the agent continues without it: ${err.message}`);
    return null;
  }));
  const callback = async (input) => {
    const h = await load();
    if (!h || !input || typeof input !== "object") return {};
    const d = await h.decide(HARNESS, input.hook_event_name ?? "", JSON.stringify(input));
    if (!d.stdout) return {};
    try {
      return JSON.parse(d.stdout);
    } catch {
      return {};
    }
  };
  const hooks = { ...(opts.merge ?? {}) };
  for (const [event, matcher] of Object.entries(EVENTS)) {
    const entry = { hooks: [callback], timeout: opts.timeout ?? 30 };
    if (matcher) entry.matcher = matcher;
    hooks[event] = [...(hooks[event] ?? []), entry];
  }
  return hooks;
}
