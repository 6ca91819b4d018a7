// A dependency-free MCP server on stdio for the first-answer benchmark:
// what any Node server costs to start (node itself, no SDK imports), so
// the proxy's start-up is also measured beside a server of the kind most
// MCP servers are. It answers initialize, tools/list and tools/call of
// one tool, "big", whose result is `bytes` letters with a session token
// in _meta.
import { createInterface } from "node:readline";

const send = (m) => process.stdout.write(JSON.stringify(m) + "\n");
let n = 0;
createInterface({ input: process.stdin }).on("line", (line) => {
  let m;
  try {
    m = JSON.parse(line);
  } catch {
    return;
  }
  if (m.id === undefined || !m.method) return;
  switch (m.method) {
    case "initialize":
      return send({ jsonrpc: "2.0", id: m.id, result: {
        protocolVersion: m.params?.protocolVersion ?? "2025-06-18",
        capabilities: { tools: {} },
        serverInfo: { name: "node-bench", version: "1" } } });
    case "tools/list":
      return send({ jsonrpc: "2.0", id: m.id, result: { tools: [{ name: "big",
        inputSchema: { type: "object", properties: { bytes: { type: "integer" } } } }] } });
    case "tools/call": {
      const bytes = m.params?.arguments?.bytes ?? 1000;
      n++;
      return send({ jsonrpc: "2.0", id: m.id, result: {
        content: [{ type: "text", text: "x".repeat(bytes) }],
        _meta: { session_token: "tok-" + n + "-" + "a".repeat(40) } } });
    }
    default:
      return send({ jsonrpc: "2.0", id: m.id, error: { code: -32601, message: "no such method" } });
  }
});
