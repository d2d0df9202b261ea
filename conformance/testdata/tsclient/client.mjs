// Drives yieldshell (argv[2]) with the official TypeScript MCP SDK client:
// tools/list must pass the SDK's validation, every answer must match its
// tool's output schema (the SDK checks structured content itself), and
// exec/wait/read must round-trip, and a process log resource must be listed,
// subscribed to and read as it changes. Prints a JSON summary; exits 1 on
// failure.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { ResourceUpdatedNotificationSchema } from "@modelcontextprotocol/sdk/types.js";

const bin = process.argv[2];
const fail = (msg) => {
  console.error("tsclient: " + msg);
  process.exit(1);
};

const transport = new StdioClientTransport({ command: bin, args: [], env: process.env, stderr: "inherit" });
const client = new Client({ name: "yieldshell-tsclient", version: "0" });
await client.connect(transport);
const summary = { server: client.getServerVersion() };

const { tools } = await client.listTools();
summary.tools = tools.map((t) => t.name).sort();
for (const name of ["cleanup", "exec", "ps", "read", "stop", "wait", "write"]) {
  const t = tools.find((x) => x.name === name);
  if (!t) fail(`tools/list lacks ${name}`);
  if (!t.outputSchema) fail(`${name} has no output schema`);
  const a = t.annotations ?? {};
  if (!t.title || a.destructiveHint === undefined || a.openWorldHint === undefined) fail(`${name}: title or annotations missing`);
}

const call = async (name, args, options) => {
  const res = await client.callTool({ name, arguments: args }, undefined, options);
  return res;
};

const ex = await call("exec", { command: "printf 'one\\n'; sleep 1.5; printf 'two\\n'", side_effects: ["NONE"], yield_ms: 0 });
if (ex.isError || ex.structuredContent.status !== "backgrounded") fail("exec: " + JSON.stringify(ex));
const id = ex.structuredContent.process_id;

let progress = 0;
const w = await call("wait", { process_id: id, timeout_ms: 20000 }, {
  onprogress: () => { progress++; },
  resetTimeoutOnProgress: true,
});
if (w.structuredContent.status !== "completed") fail("wait: " + JSON.stringify(w.structuredContent));
summary.progress_notifications = progress;
if (progress < 1) fail("no progress notification while wait blocked");

const all = await call("read", { process_id: id, since_seq: 0 });
if (all.structuredContent.stdout !== "one\ntwo\n") fail("read since_seq 0: " + JSON.stringify(all.structuredContent));
const rest = await call("read", { process_id: id, since_seq: all.structuredContent.next_seq });
if (rest.structuredContent.stdout !== "") fail("read from next_seq: " + JSON.stringify(rest.structuredContent));

const unknown = await call("read", { process_id: "proc_missing" });
if (!unknown.isError) fail("read of an unknown process is not an error");

// Resources: a process's log is listed, read, and subscribed to; a line
// it prints after the subscription is announced and then read.
const updated = [];
let onUpdate = () => {};
client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => { updated.push(n.params.uri); onUpdate(); });
const bg = await call("exec", { command: "read _; echo after-subscribe; sleep 30", side_effects: ["NONE"], yield_ms: 0 });
const bgId = bg.structuredContent.process_id;
const uri = `yieldshell://process/${bgId}/log`;
const { resources } = await client.listResources();
if (!resources.some((r) => r.uri === uri)) fail("resources/list lacks " + uri);
await client.subscribeResource({ uri });
// Each resources/updated is followed by a read, until the line is there.
const nextUpdate = () => new Promise((resolve, reject) => {
  onUpdate = () => { if (updated.at(-1) === uri) resolve(); };
  setTimeout(() => reject(new Error("no resources/updated for the log within 10 s")), 10000).unref();
});
let update = nextUpdate();
await call("write", { process_id: bgId, input: "go", newline: true, yield_ms: 0 });
for (let seen = false; !seen; ) {
  await update.catch((e) => fail(e.message));
  update = nextUpdate();
  const log = await client.readResource({ uri });
  seen = log.contents.some((c) => (c.text ?? "").includes("after-subscribe"));
}
update.catch(() => {});
await client.unsubscribeResource({ uri });
await call("stop", { process_id: bgId });
summary.resource_updates = updated.length;

const ps = await call("ps", {});
summary.ps = ps.structuredContent.processes.length;
await client.close();
console.log(JSON.stringify(summary));
