// A workflow MCP server built with the official TypeScript SDK: the peer
// the proxy must work with at the server end. start_session issues a token
// in result _meta only; step requires the current token and rotates it.
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { CallToolRequestSchema, ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { createHash } from "node:crypto";

let token = "";
let issued = 0;
function next() {
  issued++;
  let t = "";
  while (t.length < 476) t += createHash("sha256").update(`ts-${process.pid}-${issued}-${t}`).digest("hex");
  return "wfs_" + t.slice(0, 476);
}

const server = new Server({ name: "ts-workflow", version: "1.0.0" }, { capabilities: { tools: {} } });
server.setRequestHandler(ListToolsRequestSchema, async () => ({
  tools: [
    { name: "start_session", description: "Start a workflow session.", inputSchema: { type: "object", properties: {} } },
    { name: "step", description: "Run a step.", inputSchema: { type: "object", properties: { n: { type: "number" }, session_token: { type: "string" } }, required: ["n"] } },
  ],
}));
server.setRequestHandler(CallToolRequestSchema, async (req) => {
  const { name, arguments: args = {} } = req.params;
  if (name === "start_session") {
    token = next();
    return { content: [{ type: "text", text: "session started" }], _meta: { session_token: token } };
  }
  if (name === "step") {
    if (!token || args.session_token !== token) {
      return { content: [{ type: "text", text: "wrong session token" }], isError: true };
    }
    token = next();
    return { content: [{ type: "text", text: `step ${args.n} done: TS-CHECK-${args.n}` }], _meta: { session_token: token } };
  }
  return { content: [{ type: "text", text: `unknown tool ${name}` }], isError: true };
});
await server.connect(new StdioServerTransport());
