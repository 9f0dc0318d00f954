// A driftlab checker in Node: detected when the ordered list of tool names changed.
// JSON Lines: one request per stdin line, one answer per stdout line.
import { createInterface } from "node:readline";

// A missing name differs from every present one, null included.
const names = (payload) =>
  JSON.parse(payload).tools.map((t) => ("name" in t ? JSON.stringify(t.name) : "(missing)"));

for await (const line of createInterface({ input: process.stdin })) {
  const request = JSON.parse(line);
  const [old, now] = [names(request.approved), names(request.candidate)];
  const detected = old.length !== now.length || old.some((name, i) => name !== now[i]);
  const findings = detected ? [{ rule: "ordered-names", pointer: "/tools" }] : [];
  process.stdout.write(JSON.stringify({ id: request.id, detected, findings }) + "\n");
}
