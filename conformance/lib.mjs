// Shared machinery of the conformance scripts (run.mjs, edits.mjs,
// diagnostics.mjs): they drive an ACP agent with the official TypeScript SDK
// (@agentclientprotocol/sdk) and fail on anything an editor built on that SDK
// would trip over.
//
// What lives here: the capture of the SDK's complaints (everything it logs
// through console.error / console.warn is a complaint about the agent's
// messages), the failure list and summary with the final report, steps with
// a timeout, prompt turns, starting and stopping the agent over stdio with a
// wire tap that sees every line in both directions, a txtar reader for the
// shared fixtures in cmd/hermes-acp/testdata/e2e, and what a turn's tool
// calls said (updates, final status, the result the fake model echoes) and
// the processes left in /proc.

import { spawn } from "node:child_process";
import { appendFileSync, readFileSync, readdirSync } from "node:fs";
import { Readable, Writable } from "node:stream";
import { format } from "node:util";
import * as acp from "@agentclientprotocol/sdk";

// The SDK's complaints, recorded from the moment this module is imported.
const sdkComplaints = [];
for (const level of ["error", "warn"]) {
  const original = console[level].bind(console);
  console[level] = (...args) => {
    sdkComplaints.push(`console.${level}: ${format(...args)}`);
    original(...args);
  };
}

const failures = [];
const summary = [];

// check records message as a failure unless ok; it returns ok.
export function check(ok, message) {
  if (!ok) failures.push(message);
  return ok;
}

// fail records a failure.
export function fail(message) {
  failures.push(message);
}

// note adds a line to the summary printed on success.
export function note(line) {
  summary.push(line);
}

// Fatal ends the run at once (caught by the script's main).
export class Fatal extends Error {}

export function fatal(message) {
  throw new Fatal(message);
}

// failWith records err as a failure: a Fatal's message as is, anything else
// as an unexpected error with its stack.
export function failWith(err) {
  failures.push(err instanceof Fatal ? err.message : `unexpected error: ${err?.stack ?? err}`);
}

export const show = (v) => JSON.stringify(v);

export const stepTimeout = Number(process.env.CONFORMANCE_TIMEOUT_MS || 20000);

// step awaits promise, failing the run if it takes longer than stepTimeout.
export async function step(name, promise) {
  let timer;
  const timeout = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new Fatal(`${name}: no answer within ${stepTimeout} ms`)), stepTimeout);
  });
  try {
    return await Promise.race([promise, timeout]);
  } catch (err) {
    if (err instanceof Fatal) throw err;
    throw new Fatal(`${name}: ${describe(err)}`);
  } finally {
    clearTimeout(timer);
  }
}

export function describe(err) {
  if (err instanceof acp.RequestError) {
    return `JSON-RPC error ${err.code}: ${err.message}${err.data === undefined ? "" : " " + show(err.data)}`;
  }
  return err instanceof Error ? err.message : String(err);
}

// runTurn sends a prompt and collects the session's updates, in order,
// until the turn stops. onUpdate sees each update as it arrives.
export async function runTurn(session, name, text, onUpdate = () => {}) {
  const updates = [];
  session.prompt(text).catch(() => {}); // the stop (or error) also arrives through nextUpdate
  for (;;) {
    const message = await step(`${name}: session/prompt`, session.nextUpdate());
    if (message.kind === "stop") {
      return { stopReason: message.stopReason, updates };
    }
    updates.push(message.update);
    await onUpdate(message.update);
  }
}

export function agentText(updates) {
  return updates
    .filter((u) => u.sessionUpdate === "agent_message_chunk" && u.content.type === "text")
    .map((u) => u.content.text)
    .join("");
}

export function kinds(updates) {
  const counts = {};
  for (const u of updates) counts[u.sessionUpdate] = (counts[u.sessionUpdate] ?? 0) + 1;
  return Object.entries(counts)
    .map(([k, n]) => `${k}×${n}`)
    .join(", ");
}

export const joined = (parts) => parts.join("");

// callUpdates are a turn's tool_call and tool_call_update notifications
// of tool call id.
export const callUpdates = (turn, id) =>
  turn.updates.filter((u) => (u.sessionUpdate === "tool_call" || u.sessionUpdate === "tool_call_update") && u.toolCallId === id);

// finalOf is tool call id's last update (completed or failed).
export const finalOf = (turn, id) => callUpdates(turn, id).filter((u) => u.status === "completed" || u.status === "failed").at(-1);

// resultOf returns what the model was told about call id, for the fake
// models that echo a tool's result ("ID done; the tool said: RESULT"),
// parsed when it is JSON.
export function resultOf(turn, id) {
  const text = agentText(turn.updates);
  const prefix = `${id} done; the tool said: `;
  const i = text.indexOf(prefix);
  if (i < 0) return undefined;
  let raw = text.slice(i + prefix.length);
  // A background process that ends meanwhile is announced in the chat
  // ("\n\n[IMPORTANT: Background process …]\n\n") right after the echo.
  const note = raw.indexOf("\n\n[IMPORTANT: ");
  if (note >= 0) raw = raw.slice(0, note);
  try {
    return JSON.parse(raw);
  } catch {
    return raw;
  }
}

// processesWith lists the processes (zombies included) whose command line
// contains needle, from /proc.
export function processesWith(needle) {
  const out = [];
  for (const pid of readdirSync("/proc")) {
    if (!/^\d+$/.test(pid)) continue;
    try {
      const cmd = readFileSync(`/proc/${pid}/cmdline`, "utf8").replaceAll("\0", " ");
      if (cmd.includes(needle) && Number(pid) !== process.pid) out.push(`${pid}: ${cmd.trim()}`);
    } catch {
      // gone meanwhile
    }
  }
  return out;
}

// waitFor polls cond every 50 ms until it holds or ms pass (processes
// appear and are reaped asynchronously: a started command shows up, a killed
// one goes away, a little later); it returns cond's last value.
export async function waitFor(cond, ms = 5000) {
  const end = performance.now() + ms;
  for (;;) {
    const v = cond();
    if (v || performance.now() > end) return v;
    await new Promise((r) => setTimeout(r, 50));
  }
}

// sdkVersion is the version of the installed @agentclientprotocol/sdk.
export const sdkVersion = JSON.parse(
  readFileSync(new URL("./node_modules/@agentclientprotocol/sdk/package.json", import.meta.url), "utf8"),
).version;

// Wire is the log of every JSON-RPC line exchanged with one agent process,
// in the order the lines crossed the pipe. Each entry is {seq, from, raw,
// msg}: from is "agent" or "client", raw the line, msg the parsed message
// (undefined for a line that is not JSON). When a transcript file is given,
// each entry is also appended to it as {"conn": label, "from": …, "line": …}.
export class Wire {
  constructor(transcript, label) {
    this.entries = [];
    this.transcript = transcript;
    this.label = label;
  }

  add(from, raw) {
    let msg;
    try {
      msg = JSON.parse(raw);
    } catch {
      msg = undefined;
    }
    const entry = { seq: this.entries.length, from, raw, msg };
    this.entries.push(entry);
    if (this.transcript) appendFileSync(this.transcript, JSON.stringify({ conn: this.label, from, line: raw }) + "\n");
    return entry;
  }

  // mark returns the current end of the log, for since().
  mark() {
    return this.entries.length;
  }

  // since returns the entries logged from mark on.
  since(mark) {
    return this.entries.slice(mark);
  }
}

// Wire entry predicates.
export const isRequest = (e, method) => e.msg?.method === method && e.msg.id !== undefined;
export const isNotification = (e, method) => e.msg?.method === method && e.msg.id === undefined;
export const isUpdate = (e, kind) => isNotification(e, "session/update") && e.msg.params?.update?.sessionUpdate === kind;

// tapLines passes a byte stream through unchanged and hands every complete
// line (decoded as UTF-8, without its newline) to onLine.
function tapLines(onLine) {
  const decoder = new TextDecoder();
  let pending = "";
  return new TransformStream({
    transform(chunk, controller) {
      pending += decoder.decode(chunk, { stream: true });
      for (let i = pending.indexOf("\n"); i >= 0; i = pending.indexOf("\n")) {
        const line = pending.slice(0, i).replace(/\r$/, "");
        pending = pending.slice(i + 1);
        if (line.trim() !== "") onLine(line);
      }
      controller.enqueue(chunk);
    },
    flush() {
      if (pending.trim() !== "") onLine(pending);
    },
  });
}

// startAgent spawns command with args (stderr inherited) and returns
// {child, exited, stream, wire}: stream is the SDK's NDJSON stream over the
// child's stdio, and wire logs every line in both directions (to transcript
// too, under label, when given).
export async function startAgent(command, args, { env = process.env, transcript, label = "agent" } = {}) {
  const child = spawn(command, args, { stdio: ["pipe", "pipe", "inherit"], env });
  const exited = new Promise((resolve) => {
    child.on("error", (err) => resolve({ code: null, signal: null, error: err }));
    child.on("exit", (code, signal) => resolve({ code, signal }));
  });
  child.stdin.on("error", () => {}); // an agent that exits early: reported through `exited`
  try {
    await new Promise((resolve, reject) => {
      child.once("spawn", resolve);
      child.once("error", reject);
    });
  } catch (err) {
    throw new Fatal(`cannot start the agent ${show(command)}: ${err.message}`);
  }
  const wire = new Wire(transcript, label);
  const toAgent = tapLines((line) => wire.add("client", line));
  void toAgent.readable.pipeTo(Writable.toWeb(child.stdin)).catch(() => {});
  const fromAgent = Readable.toWeb(child.stdout).pipeThrough(tapLines((line) => wire.add("agent", line)));
  const stream = acp.ndJsonStream(toAgent.writable, fromAgent);
  return { child, exited, stream, wire, command };
}

// stopAgent closes the agent's stdin and waits up to 5 s for it to exit
// with status 0, recording a failure otherwise.
export async function stopAgent({ child, exited, command }) {
  child.stdin.end();
  let timer;
  const status = await Promise.race([
    exited,
    new Promise((resolve) => {
      timer = setTimeout(() => resolve(null), 5000);
    }),
  ]);
  clearTimeout(timer);
  if (status === null) {
    failures.push("the agent did not exit within 5 s of its stdin closing");
    child.kill("SIGKILL");
  } else if (status.error) {
    failures.push(`could not start the agent ${show(command)}: ${status.error.message}`);
  } else if (status.code !== 0) {
    failures.push(`the agent exited with ${status.signal ? "signal " + status.signal : "status " + status.code}, want 0`);
  }
}

// report prints the outcome (the failures, or the summary) and exits: 0 on
// success, 1 on any failure or SDK complaint.
export function report(title, command) {
  for (const c of sdkComplaints) failures.push(`the SDK rejected or reported an agent message: ${c}`);
  if (failures.length > 0) {
    process.stdout.write(`${title} FAILED (@agentclientprotocol/sdk ${sdkVersion}, ${command}):\n`);
    for (const f of failures) process.stdout.write(`  ✗ ${f}\n`);
    process.exit(1);
  }
  process.stdout.write(`${title} OK (@agentclientprotocol/sdk ${sdkVersion}, ${command}):\n`);
  for (const s of summary) process.stdout.write(`  ✓ ${s}\n`);
  process.stdout.write("  ✓ no agent message rejected by the SDK's schema validation\n");
  process.exit(0);
}

// parseTxtar parses the txtar format of golang.org/x/tools/txtar: a comment,
// then files each introduced by a line "-- name --". Every non-empty file
// ends with a newline, as txtar.Parse makes it.
export function parseTxtar(text) {
  const files = new Map();
  const lines = text.split("\n");
  if (lines.at(-1) === "") lines.pop();
  let name = null;
  let body = [];
  const commentLines = [];
  const flush = () => {
    if (name !== null) {
      const data = body.length > 0 ? body.join("\n") + "\n" : "";
      files.set(name, data);
    }
  };
  for (const line of lines) {
    const m = /^-- (.+) --$/.exec(line);
    if (m && m[1].trim() !== "") {
      flush();
      name = m[1].trim();
      body = [];
    } else if (name === null) {
      commentLines.push(line);
    } else {
      body.push(line);
    }
  }
  flush();
  return { comment: commentLines.join("\n"), files };
}

// loadScenario reads a txtar fixture: its scenario.json file parsed, and
// every file by name.
export function loadScenario(path) {
  const { files } = parseTxtar(readFileSync(path, "utf8"));
  const json = files.get("scenario.json");
  if (json === undefined) fatal(`${path}: no scenario.json file in the archive`);
  return { scenario: JSON.parse(json), files };
}

// Turn is what one prompt turn looked like on the wire and through the SDK.
// entries are the wire entries from the session/prompt request to its
// response; updates and stopReason come from the SDK's session helper.
export class Turn {
  constructor(entries, result) {
    this.entries = entries;
    this.updates = result.updates;
    this.stopReason = result.stopReason;
    const prompt = entries.find((e) => e.from === "client" && isRequest(e, "session/prompt"));
    this.response = prompt && entries.find((e) => e.from === "agent" && e.msg?.method === undefined && e.msg?.id === prompt.msg.id);
  }

  // agent returns the agent's entries that match pred.
  agent(pred) {
    return this.entries.filter((e) => e.from === "agent" && pred(e));
  }

  requests(method) {
    return this.agent((e) => isRequest(e, method));
  }

  notifications(method) {
    return this.agent((e) => isNotification(e, method));
  }

  // toolCall returns the tool_call announcing callId, or undefined.
  toolCall(callId) {
    return this.agent((e) => isUpdate(e, "tool_call") && e.msg.params.update.toolCallId === callId)[0];
  }

  // finalUpdate returns the tool_call_update that ended callId (status
  // completed or failed), or undefined.
  finalUpdate(callId) {
    return this.agent(
      (e) =>
        isUpdate(e, "tool_call_update") &&
        e.msg.params.update.toolCallId === callId &&
        ["completed", "failed"].includes(e.msg.params.update.status),
    ).at(-1);
  }

  text() {
    return agentText(this.updates);
  }
}

// playTurn runs one prompt turn on session and returns it as a Turn.
export async function playTurn(session, wire, name, text) {
  const mark = wire.mark();
  const result = await runTurn(session, name, text);
  return new Turn(wire.since(mark), result);
}

// inOrder checks that the named wire entries appear in the given order; a
// missing entry is reported by the caller, not here.
export function inOrder(what, named) {
  const present = named.filter(([, e]) => e !== undefined);
  for (let i = 1; i < present.length; i++) {
    const [a, ea] = present[i - 1];
    const [b, eb] = present[i];
    check(ea.seq < eb.seq, `${what}: ${a} arrived after ${b}, want ${a} first`);
  }
}
