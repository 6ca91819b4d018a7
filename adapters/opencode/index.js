// @ctxhook/opencode: ctxhook inside OpenCode.
//
// OpenCode runs plugins in-process (Bun), so there is no hook command:
// this plugin loads ctxhook's plugin.wasm once per OpenCode process and
// passes each hook's (input, output) objects to it as one payload. The
// plugin decides; this file only applies the answer, the way OpenCode
// 1.18.33 needs it applied:
//   - tool.execute.before: output.args is the very object sent to the MCP
//     server, so it is changed in place (OpenCode ignores a new object).
//     The change lasts for the call: tool.execute.after puts back what
//     the model wrote, after the after-hook is decided, and
//     experimental.chat.messages.transform puts it back in the copy of
//     the conversation sent to the model. Kilo CLI stores the changed
//     arguments with the call, so the token would otherwise reach the
//     model on every later turn.
//   - tool.execute.after: for MCP tools output is the raw CallToolResult
//     (with _meta, which the plugin captures tokens from); a large result
//     is replaced by its head and a pointer, and text for the model is
//     appended, both in output.content, which OpenCode renders after the
//     hook. Built-in tools get the text in output.output.
//   - experimental.session.compacting: the working-state block is pushed
//     onto output.context, which joins the compaction prompt.
// Each hook is decided by the ctxhook daemon when it runs (@ctxhook/core
// asks it first), else in-process, its effects (state, captured events)
// then going through `ctxhook io`: into the same store as every other
// adapter's either way. A failure never reaches OpenCode: the call goes
// on as if ctxhook were not installed.
import { Host } from "@ctxhook/core";

// Filled in by `ctxhook install opencode` with the paths it installed.
const INSTALLED = {};

const HARNESS = "opencode";

// mcpServerNames asks OpenCode for its configured MCP servers, so tools
// of servers ctxhook's config does not name are still recognised.
async function mcpServerNames(client) {
  try {
    const res = await Promise.race([client?.config?.get?.(), new Promise((r) => setTimeout(r, 1000))]);
    const mcp = res?.data?.mcp ?? res?.mcp;
    return mcp && typeof mcp === "object" ? Object.keys(mcp) : [];
  } catch {
    return [];
  }
}

function parseAnswer(stdout) {
  if (!stdout) return null;
  try {
    return JSON.parse(stdout);
  } catch {
    return null;
  }
}

/**
 * The OpenCode plugin. Options (from opencode.json "plugin": [["@ctxhook/opencode", {...}]])
 * override the paths, { wasm, ctxhook }, and may turn the daemon off: { daemon: false }.
 */
export const CtxhookPlugin = async (ctx, options = {}) => {
  let host;
  try {
    host = await Host.load({ ...INSTALLED, ...options });
  } catch (err) {
    process.stderr.write(`ctxhook: not loaded, OpenCode continues without it: ${err.message}\n`);
    return {};
  }
  const directory = ctx?.directory ?? process.cwd();
  const servers = mcpServerNames(ctx?.client);
  // What tool.execute.before changed in each call's args, to put back
  // when the call ends: callID -> { args, was: { key: [present, value] } }.
  // Bounded: a call whose after-hook never comes is forgotten in time.
  const changed = new Map();
  const putBack = (args, was) => {
    for (const [k, [present, v]] of Object.entries(was)) {
      if (present) args[k] = v;
      else delete args[k];
    }
  };
  const restore = (callID) => {
    const c = changed.get(callID);
    if (c) putBack(c.args, c.was);
  };
  const decide = async (hook, input, output) => {
    const payload = JSON.stringify({ hook, directory, mcp_servers: await servers, input, output });
    return parseAnswer((await host.decide(HARNESS, hook, payload)).stdout);
  };
  return {
    "tool.execute.before": async (input, output) => {
      const answer = await decide("tool.execute.before", input, output);
      const args = output?.args;
      if (!answer?.args || !args || typeof args !== "object") return;
      const was = {};
      for (const k of Object.keys(args)) if (!(k in answer.args)) (was[k] = [true, args[k]]), delete args[k];
      for (const [k, v] of Object.entries(answer.args)) {
        if (!(k in args)) was[k] = [false];
        else if (args[k] !== v && !(k in was)) was[k] = [true, args[k]];
      }
      Object.assign(args, answer.args);
      if (input?.callID && Object.keys(was).length) {
        changed.set(input.callID, { args, was });
        if (changed.size > 4096) changed.delete(changed.keys().next().value);
      }
    },
    "tool.execute.after": async (input, output) => {
      let answer;
      try {
        answer = await decide("tool.execute.after", input, output);
      } finally {
        restore(input?.callID);
      }
      if (!answer || !output) return;
      // A large MCP result: its head and a pointer to the stored event,
      // written into the same content array OpenCode renders from.
      if (typeof answer.replace === "string" && Array.isArray(output.content)) {
        output.content.splice(0, output.content.length, { type: "text", text: answer.replace });
      }
      const text = answer.append_text;
      if (!text) return;
      if (Array.isArray(output.content) && typeof output.output !== "string") {
        output.content.push({ type: "text", text });
      } else if (typeof output.output === "string") {
        output.output += `\n\n${text}`;
      }
    },
    // The conversation about to be sent to the model: a call whose
    // arguments tool.execute.before changed shows them as the model
    // wrote them. Each such part is replaced by a copy, so nothing
    // stored is changed.
    "experimental.chat.messages.transform": async (input, output) => {
      if (!changed.size || !Array.isArray(output?.messages)) return;
      for (const m of output.messages) {
        const parts = m?.parts;
        if (!Array.isArray(parts)) continue;
        for (let i = 0; i < parts.length; i++) {
          const p = parts[i];
          const c = p?.type === "tool" && changed.get(p.callID);
          const args = c && p.state?.input;
          if (!args || typeof args !== "object") continue;
          const shown = { ...args };
          putBack(shown, c.was);
          parts[i] = { ...p, state: { ...p.state, input: shown } };
        }
      }
    },
    "chat.message": async (input, output) => {
      await decide("chat.message", input, output);
    },
    // Before a compaction: ctxhook's working-state block joins the
    // compaction prompt, so the summary the session goes on from keeps it.
    "experimental.session.compacting": async (input, output) => {
      const answer = await decide("experimental.session.compacting", input, output);
      if (typeof answer?.context === "string" && Array.isArray(output?.context)) output.context.push(answer.context);
    },
  };
};
