// The bench as an MCP server on stdio, made with the MCP TypeScript SDK and zod, as that SDK's
// users write tools (z.object input schemas, registerTool): `node mcp_server.mjs CASE VERSION`.
// The tools and cases are bench.mjs's, the twin of bench.py. Each tool body's arguments
// are appended to $STUDY_LOG as JSON lines {"id": request id, "received": {...}}.
// The SDK and zod are the pinned ones of servers/ (npm ci --prefix servers).
import { appendFileSync } from "node:fs";
import { z } from "../../../servers/node_modules/zod/index.js";
import { McpServer } from "../../../servers/node_modules/@modelcontextprotocol/sdk/dist/esm/server/mcp.js";
import { StdioServerTransport } from "../../../servers/node_modules/@modelcontextprotocol/sdk/dist/esm/server/stdio.js";

import { tools, cases } from "./bench.mjs";

const [caseId, version] = process.argv.slice(2);
const surface = cases[caseId]?.[Number(version) - 1];
if (!surface) {
  console.error(`usage: node mcp_server.mjs CASE 1|2 (cases: ${Object.keys(cases).join(", ")})`);
  process.exit(2);
}
const server = new McpServer({ name: `driftlab-bench-${caseId}-v${version}`, version: "1.0.0" });
for (const [name, key] of Object.entries(surface)) {
  const [description, input, body, output] = tools[key];
  const config = { description, inputSchema: z.object(input) };
  if (output) config.outputSchema = z.object(output);
  server.registerTool(name, config, async (args, extra) => {
    if (process.env.STUDY_LOG) {
      appendFileSync(process.env.STUDY_LOG, JSON.stringify({ id: extra.requestId, received: args }) + "\n");
    }
    return body(args);
  });
}
await server.connect(new StdioServerTransport());
