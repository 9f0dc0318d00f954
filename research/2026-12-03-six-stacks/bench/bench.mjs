// The bench's tools and cases for the TypeScript servers (mcp_server.mjs with McpServer and
// zod, mcp_server_lowlevel.mjs with the low-level Server): the twin of bench.py (same cases,
// tools, parameters and bodies). Each tool: [description, zod input shape, body, zod output
// shape (optional)].
import { z } from "../../../servers/node_modules/zod/index.js";

const text = (t) => ({ content: [{ type: "text", text: t }] });
const units = { celsius: 0, fahrenheit: 32, kelvin: 273.15 };

export const tools = {
  get_forecast_v1: ["Weather forecast for a city.", { city: z.string() }, (a) => text(`sunny in ${a.city}`)],
  get_forecast_v2: ["Weather forecast for a location.", { location: z.string() }, (a) => text(`sunny in ${a.location}`)],
  search_docs_v1: ["Searches the documentation.", { query: z.string(), max_results: z.number().int().default(5) },
    (a) => text(`${a.max_results} results for ${a.query}`)],
  search_docs_v2: ["Searches the documentation.", { query: z.string(), limit: z.number().int().default(5) },
    (a) => text(`${a.limit} results for ${a.query}`)],
  set_temperature_v1: ["Sets the thermostat, in degrees Celsius.", { celsius: z.number() },
    (a) => text(`thermostat set to ${a.celsius}`)],
  set_temperature_v2: ["Sets the thermostat, in whole degrees Celsius.", { celsius: z.number().int() },
    (a) => text(`thermostat set to ${a.celsius}`)],
  tag_item_v1: ["Adds labels to an item.", { item_id: z.string(), labels: z.array(z.string()) },
    (a) => text(`${a.item_id} tagged ${a.labels.length} times`)],
  tag_item_v2: ["Adds comma-separated labels to an item.", { item_id: z.string(), labels: z.string() },
    (a) => text(`${a.item_id} tagged ${a.labels.split(",").length} times`)],
  convert_temperature_v1: ["Converts a Celsius temperature to the given unit.",
    { value: z.number(), unit: z.enum(["celsius", "fahrenheit", "kelvin"]) },
    (a) => text(`${a.value + units[a.unit]} ${a.unit}`)],
  convert_temperature_v2: ["Converts a Celsius temperature to the given unit.",
    { value: z.number(), unit: z.enum(["celsius", "fahrenheit"]) },
    (a) => {
      const offset = { celsius: 0, fahrenheit: 32 }[a.unit];
      if (offset === undefined) throw new Error(`no offset for ${a.unit}`);
      return text(`${a.value + offset} ${a.unit}`);
    }],
  send_message_v1: ["Sends a message to the team.", { text: z.string() }, (a) => text(`sent ${JSON.stringify(a.text)}`)],
  send_message_v2: ["Sends a message to a channel.", { text: z.string(), channel: z.string() },
    (a) => text(`sent ${JSON.stringify(a.text)} to ${a.channel}`)],
  list_items_v1: ["Lists the items in a folder.", { folder: z.string() }, (a) => {
    const out = { items: [`${a.folder}/a`, `${a.folder}/b`] };
    return { ...text(JSON.stringify(out)), structuredContent: out };
  }, { items: z.array(z.string()) }],
  list_items_v2: ["Lists the items in a folder.", { folder: z.string() }, (a) => {
    const out = { data: { results: [`${a.folder}/a`, `${a.folder}/b`] } };
    return { ...text(JSON.stringify(out)), structuredContent: out };
  }, { data: z.object({ results: z.array(z.string()) }) }],
  get_alerts: ["Active weather alerts for a region.", { region: z.string() }, (a) => text(`no alerts in ${a.region}`)],
  fetch_alerts: ["Active weather alerts for a region.", { region: z.string() }, (a) => text(`no alerts in ${a.region}`)],
  read_text_file_v1: ["Read the complete contents of a file as text. Use 'head' to read only the first N lines,\nor 'tail' to read only the last N lines.",
    { path: z.string(), head: z.number().int().nullable().default(null), tail: z.number().int().nullable().default(null) },
    (a) => text(lines(a.head, a.tail))],
  read_text_file_v2: ["Read the complete contents of a file as text. Use 'max_lines' to read only the first N\nlines, or 'tail' to read only the last N lines.",
    { path: z.string(), max_lines: z.number().int().nullable().default(null), tail: z.number().int().nullable().default(null) },
    (a) => text(lines(a.max_lines, a.tail))],
  git_log_v1: ["Shows the commit logs, newest first: at most max_count, and only those at or after\nstart_timestamp (an ISO date) when it is given.",
    { repo_path: z.string(), max_count: z.number().int().default(10), start_timestamp: z.string().nullable().default(null) },
    (a) => text(log(a.max_count, a.start_timestamp))],
  git_log_v2: ["Shows the commit logs, newest first: at most max_count, and only those at or after\nsince (an ISO date) when it is given.",
    { repo_path: z.string(), max_count: z.number().int().default(10), since: z.string().nullable().default(null) },
    (a) => text(log(a.max_count, a.since))],
};

// bench.py's _FILE and _COMMITS, and what its read_text_file and git_log bodies answer.
const file = Array.from({ length: 40 }, (_, i) => `line ${i + 1}`);
const commits = Array.from({ length: 30 }, (_, i) => `2026-11-${String(30 - i).padStart(2, "0")} commit ${30 - i}`);
function lines(first, last) {
  if (first !== null && first !== undefined) return file.slice(0, Math.max(first, 0)).join("\n");
  if (last !== null && last !== undefined) return file.slice(file.length - Math.max(Math.min(last, file.length), 0)).join("\n");
  return file.join("\n");
}
function log(count, since) {
  const kept = commits.filter((c) => since === null || since === undefined || c.slice(0, 10) >= since);
  return kept.slice(0, Math.max(count ?? 10, 0)).join("\n") || "no commits"; // a low-level server sets no defaults
}

// Each case: its tools at version 1 and version 2 (tool name -> body key), as in bench.py.
export const cases = {
  "renamed-required": [{ get_forecast: "get_forecast_v1" }, { get_forecast: "get_forecast_v2" }],
  "renamed-optional": [{ search_docs: "search_docs_v1" }, { search_docs: "search_docs_v2" }],
  "narrowed-float-int": [{ set_temperature: "set_temperature_v1" }, { set_temperature: "set_temperature_v2" }],
  "narrowed-list-str": [{ tag_item: "tag_item_v1" }, { tag_item: "tag_item_v2" }],
  "enum-value-removed": [{ convert_temperature: "convert_temperature_v1" }, { convert_temperature: "convert_temperature_v2" }],
  "required-added": [{ send_message: "send_message_v1" }, { send_message: "send_message_v2" }],
  "output-shape": [{ list_items: "list_items_v1" }, { list_items: "list_items_v2" }],
  "tool-removed": [{ get_forecast: "get_forecast_v1", get_alerts: "get_alerts" }, { get_forecast: "get_forecast_v1" }],
  "tool-renamed": [{ get_alerts: "get_alerts" }, { fetch_alerts: "fetch_alerts" }],
  "real-read-text-file": [{ read_text_file: "read_text_file_v1" }, { read_text_file: "read_text_file_v2" }],
  "real-git-log": [{ git_log: "git_log_v1" }, { git_log: "git_log_v2" }],
};
