// The bench as an MCP server on stdio, made with the MCP TypeScript SDK's low-level `Server`
// (setRequestHandler for tools/list and tools/call), as its users write one: tools/list declares
// the JSON Schema of each tool's zod shape (z.toJSONSchema), and a call's arguments go to the
// body as they came, with no validation: `node mcp_server_lowlevel.mjs CASE VERSION`. The tools
// and cases are bench.mjs's. Each tool body's arguments are appended to $STUDY_LOG as JSON lines
// {"id": request id, "received": {...}}. The SDK and zod are the pinned ones of servers/.
import { appendFileSync } from "node:fs";
import { z } from "../../../servers/node_modules/zod/index.js";
import { Server } from "../../../servers/node_modules/@modelcontextprotocol/sdk/dist/esm/server/index.js";
import { StdioServerTransport } from "../../../servers/node_modules/@modelcontextprotocol/sdk/dist/esm/server/stdio.js";
import {
  CallToolRequestSchema,
  ListToolsRequestSchema,
} from "../../../servers/node_modules/@modelcontextprotocol/sdk/dist/esm/types.js";

import { tools, cases } from "./bench.mjs";

const [caseId, version] = process.argv.slice(2);
const surface = cases[caseId]?.[Number(version) - 1];
if (!surface) {
  console.error(`usage: node mcp_server_lowlevel.mjs CASE 1|2 (cases: ${Object.keys(cases).join(", ")})`);
  process.exit(2);
}
const server = new Server(
  { name: `driftlab-bench-${caseId}-v${version}-lowlevel`, version: "1.0.0" },
  { capabilities: { tools: {} } },
);
const listed = Object.entries(surface).map(([name, key]) => {
  const [description, input, , output] = tools[key];
  const tool = { name, description, inputSchema: z.toJSONSchema(z.object(input), { io: "input" }) };
  if (output) tool.outputSchema = z.toJSONSchema(z.object(output));
  return tool;
});
server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: listed }));
server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
  const key = surface[request.params.name];
  if (!key) return { content: [{ type: "text", text: `unknown tool ${request.params.name}` }], isError: true };
  const args = request.params.arguments ?? {};
  if (process.env.STUDY_LOG) {
    appendFileSync(process.env.STUDY_LOG, JSON.stringify({ id: extra.requestId, received: args }) + "\n");
  }
  try {
    return tools[key][2](args);
  } catch (error) {
    return { content: [{ type: "text", text: String(error.message ?? error) }], isError: true };
  }
});
await server.connect(new StdioServerTransport());
