// Roots over HTTP with the official TypeScript SDK client (issue 41 item 1).
// argv: url token dirA dirB. The server runs with YIELDSHELL_ALLOWED_CWDS=roots.
// At each protocol version the SDK speaks: a client naming dirA runs pwd in
// dirA; after it names dirB (roots/list_changed) in dirB; a client answering
// roots/list with an error, and one with an empty list, are refused with a
// message that says which. Prints a JSON summary; exits 1 on failure.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ListRootsRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { pathToFileURL } from "node:url";

const [url, token, dirA, dirB] = process.argv.slice(2);
const fail = (msg) => {
  console.error("tsclient roots: " + msg);
  process.exit(1);
};

// connect opens a session at protocol version v whose roots/list handler
// is answer.
async function connect(v, answer) {
  const transport = new StreamableHTTPClientTransport(new URL(url), {
    requestInit: { headers: { Authorization: "Bearer " + token } },
  });
  // The SDK always offers its latest version; older ones are offered by
  // rewriting initialize, as an older client would send it.
  const send = transport.send.bind(transport);
  transport.send = (msg, opts) => {
    if (msg.method === "initialize") msg.params.protocolVersion = v;
    return send(msg, opts);
  };
  const client = new Client({ name: "yieldshell-tsclient-roots", version: "0" }, { capabilities: { roots: { listChanged: true } } });
  client.setRequestHandler(ListRootsRequestSchema, answer);
  await client.connect(transport);
  return client;
}

const pwd = async (client) => {
  const res = await client.callTool({ name: "exec", arguments: { command: "pwd", side_effects: ["NONE"] } });
  const s = res.structuredContent ?? {};
  if (s.status === "completed") return s.stdout.trim();
  return "refused: " + (s.error ?? JSON.stringify(res.content));
};

const root = (dir) => ({ uri: pathToFileURL(dir).href, name: dir });
const summary = {};
for (const v of ["2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"]) {
  let roots = [root(dirA)];
  let asked = 0;
  const c = await connect(v, async () => {
    asked++;
    return { roots };
  });
  const first = await pwd(c);
  if (first !== dirA) fail(`${v}: pwd = ${first}, want ${dirA} (roots/list answered ${asked} times)`);
  roots = [root(dirB)];
  await c.sendRootsListChanged();
  const second = await pwd(c);
  if (second !== dirB) fail(`${v}: after roots/list_changed pwd = ${second}, want ${dirB}`);
  await c.close();

  const failing = await connect(v, async () => {
    throw new Error("no roots for you");
  });
  const refusedErr = await pwd(failing);
  if (!/refused: .*answered roots\/list with an error/.test(refusedErr) || !/Open the client on a project folder/.test(refusedErr))
    fail(`${v}: a failed roots/list: ${refusedErr}`);
  await failing.close();

  const empty = await connect(v, async () => ({ roots: [] }));
  const refusedEmpty = await pwd(empty);
  if (!/refused: .*answered roots\/list with no roots/.test(refusedEmpty)) fail(`${v}: an empty roots/list: ${refusedEmpty}`);
  await empty.close();
  summary[v] = { asked, first, second };
}
console.log(JSON.stringify(summary));
