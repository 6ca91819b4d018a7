// The official TypeScript MCP SDK as a client of `ctxhook mcp`: lists the
// tools, calls each one (the SDK validates structuredContent against each
// tool's outputSchema and throws on a mismatch), checks the metadata, and
// the error paths. Prints one JSON line: {ok, checks, failures}.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";

const [ctxhook] = process.argv.slice(2);
const failures = [];
let checks = 0;
const check = (ok, what) => {
  checks++;
  if (!ok) failures.push(what);
};
const META = ["tokens", "duration_ms", "timestamp", "cached", "results_total", "results_returned", "results_truncated",
  "index_size", "index_last_updated", "warnings", "request_id", "tool_version"];

const client = new Client({ name: "ts-sdk-client", version: "1.0.0" });
await client.connect(new StdioClientTransport({ command: ctxhook, args: ["mcp"], env: process.env }));

const { tools } = await client.listTools();
for (const name of ["search", "get_context", "get_event", "stats"]) {
  const t = tools.find((x) => x.name === name);
  check(t, `tool ${name} listed`);
  check(t?.outputSchema?.properties?.meta, `${name} has an outputSchema with meta`);
  check(t?.annotations?.readOnlyHint === true, `${name} is read-only`);
}

async function ok(name, args) {
  const r = await client.callTool({ name, arguments: args });
  check(!r.isError, `${name} ${JSON.stringify(args)} succeeded: ${JSON.stringify(r.content).slice(0, 200)}`);
  const meta = r.structuredContent?.meta ?? {};
  for (const f of META) check(f in meta, `${name}: structuredContent.meta.${f}`);
  check(r._meta?.ctxhook?.request_id === meta.request_id, `${name}: _meta.ctxhook matches`);
  check(r.content?.[0]?.text?.startsWith("[ctxhook] "), `${name}: text starts with the essentials`);
  return r.structuredContent;
}

const s = await ok("search", { query: "CVX-5909", limit: 5 });
check(s.results.length === 1 && s.meta.results_total === 1, `search found the ticket: ${JSON.stringify(s.results)}`);
const id = s.results[0]?.id;
const e = await ok("get_event", { id, length: 50 });
check(e.body.length === 50 && e.meta.results_truncated === true && e.next_offset === 50, "get_event pages");
const byKey = await ok("get_event", { id: s.results[0]?.key });
check(byKey.body.includes("retryPolicyForGateway"), "get_event by key returns the body");
const c = await ok("get_context", { chunk_id: id, direction: "both", count: 2 });
check(c.events.some((x) => x.anchor && x.id === id), "get_context includes the anchor");
const st = await ok("stats", {});
check(st.events >= 2, "stats counts events");
const again = await ok("search", { query: "CVX-5909", limit: 5 });
check(again.meta.cached === true, "a repeat is served from the cache");

for (const [name, args, want] of [
  ["search", { query: "" }, "query is empty"],
  ["search", { query: "x", limit: -3 }, "between 1 and 50"],
  ["search", { query: "x", limit: 51 }, "between 1 and 50"],
  ["get_event", { id: 424242 }, "no event 424242"],
  ["get_context", { chunk_id: "nope" }, "no event nope"],
]) {
  const r = await client.callTool({ name, arguments: args });
  check(r.isError && r.content?.[0]?.text?.includes(want), `${name} ${JSON.stringify(args)} is a tool error with "${want}": ${JSON.stringify(r.content)}`);
}
await client.close();
console.log(JSON.stringify({ ok: failures.length === 0, checks, failures }));
