#!/usr/bin/env node
// Session-store conformance: the official ACP TypeScript SDK plays editors
// that share one $HERMES_HOME, as an editor with two windows on one thread
// does, and one whose session database is damaged.
//
// Usage:
//   node conformance/store.mjs AGENT [ARGS...]
//
// The agents inherit this process's environment (HERMES_HOME included); the
// model must answer every prompt with "answer to: PROMPT" (cmd/hermes-acp's
// TestTypeScriptSDKStore starts such a fake). Environment:
//   CONFORMANCE_WORKDIR     an empty folder for the workspace (default: a
//                           temporary folder, removed afterwards)
//   CONFORMANCE_TRANSCRIPT  a file to append every JSON-RPC line to
//   CONFORMANCE_TIMEOUT_MS  bound on each step (default 20000)
//   STORE_DAMAGED_HOME      a HERMES_HOME whose sessions.db is damaged and
//                           whose config.yaml sets approvals.timeout to "abc"
//                           (skipped when unset)
//
// Two windows: window 1 starts a session and prompts; window 2 (a second
// agent process) loads it; they prompt in turn, four times. A third process
// then loads the session and must replay every prompt of both windows with
// its answer, in the order they were made. With the damaged database, the
// first prompt's reply starts with the two notices (the damaged database,
// the bad configuration value) before the model's answer, the second reply
// has no notice, session/list is empty, and the agent exits cleanly (the Go
// test checks the file is byte for byte unchanged). Then an editor that
// advertises session.notices gets the same two problems as notice updates
// before the answer, and no notice text.
//
// Exit status: 0 on success, 1 on any failure, 2 for usage errors.

import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import * as acp from "@agentclientprotocol/sdk";
import { check, fail, failWith, note, report, sdkVersion, show, startAgent, step, stopAgent } from "./lib.mjs";

// Window is one agent process with an editor connected to it: it records
// every session/update by session, in arrival order.
class Window {
  constructor(label, session) {
    this.label = label;
    this.session = session; // clientCapabilities.session, if any
    this.updates = new Map(); // sessionId → [update]
  }

  of(sessionId) {
    if (!this.updates.has(sessionId)) this.updates.set(sessionId, []);
    return this.updates.get(sessionId);
  }

  // open starts the agent, initializes it and runs op(agent), then stops it.
  async open(command, args, env, op) {
    const proc = await startAgent(command, args, { env, transcript: process.env.CONFORMANCE_TRANSCRIPT, label: this.label });
    try {
      const app = acp.client({ name: `hermes-acp-store-${this.label}` }).onNotification(acp.methods.client.session.update, ({ params }) => {
        this.of(params.sessionId).push(params.update);
      });
      await app.connectWith(proc.stream, async (agent) => {
        const init = await step(
          `${this.label}: initialize`,
          agent.request(acp.methods.agent.initialize, {
            protocolVersion: acp.PROTOCOL_VERSION,
            clientCapabilities: { fs: { readTextFile: false, writeTextFile: false }, terminal: false, ...(this.session ? { session: this.session } : {}) },
            clientInfo: { name: "hermes-acp-store", version: sdkVersion },
          }),
        );
        check(init.agentCapabilities?.loadSession === true, `${this.label}: loadSession not advertised`);
        this.agent = agent;
        await op(this);
      });
    } finally {
      await stopAgent(proc);
    }
  }

  // prompt runs one turn and returns the agent text it streamed.
  async prompt(sessionId, text) {
    const before = this.of(sessionId).length;
    const res = await step(
      `${this.label}: session/prompt ${show(text)}`,
      this.agent.request(acp.methods.agent.session.prompt, { sessionId, prompt: [{ type: "text", text }] }),
    );
    check(res.stopReason === "end_turn", `${this.label}: prompt ${show(text)} stopped with ${show(res.stopReason)}, want "end_turn"`);
    return agentText(this.of(sessionId).slice(before));
  }

  // list returns the stored sessions (which also saves pending messages).
  async list() {
    const res = await step(`${this.label}: session/list`, this.agent.request(acp.methods.agent.session.list, {}));
    return res.sessions;
  }

  async load(sessionId, cwd) {
    await step(`${this.label}: session/load`, this.agent.request(acp.methods.agent.session.load, { sessionId, cwd, mcpServers: [] }));
  }
}

function agentText(updates) {
  return updates
    .filter((u) => u.sessionUpdate === "agent_message_chunk" && u.content.type === "text")
    .map((u) => u.content.text)
    .join("");
}

// conversation lists a replay as "user: …" and "agent: …" lines.
function conversation(updates) {
  const out = [];
  for (const u of updates) {
    if (u.sessionUpdate === "user_message_chunk") out.push(`user: ${u.content.text}`);
    if (u.sessionUpdate === "agent_message_chunk") out.push(`agent: ${u.content.text}`);
  }
  return out;
}

async function twoWindows(command, args, ws) {
  const env = process.env;
  const prompts = [];
  let sessionId;
  const w1 = new Window("window1");
  await w1.open(command, args, env, async () => {
    const res = await step("window1: session/new", w1.agent.request(acp.methods.agent.session.new, { cwd: ws, mcpServers: [] }));
    sessionId = res.sessionId;
    const first = "one (window 1)";
    check((await w1.prompt(sessionId, first)) === `answer to: ${first}`, "window1: first answer");
    prompts.push(first);
    await w1.list();
    const w2 = new Window("window2");
    await w2.open(command, args, env, async () => {
      await w2.load(sessionId, ws);
      const replayed = conversation(w2.of(sessionId));
      check(show(replayed) === show([`user: ${first}`, `agent: answer to: ${first}`]), `window2: load replayed ${show(replayed)}`);
      const turns = [
        [w1, "two (window 1)"],
        [w2, "three (window 2)"],
        [w1, "four (window 1)"],
        [w2, "five (window 2)"],
      ];
      for (const [i, [w, text]] of turns.entries()) {
        const answer = await w.prompt(sessionId, text);
        check(answer === `answer to: ${text}`, `${w.label}: answer ${show(answer)} to ${show(text)}`);
        prompts.push(text);
        // Save now, except the last turn: that one is saved when its agent exits.
        if (i < turns.length - 1) await w.list();
      }
    });
  });
  const w3 = new Window("window3");
  await w3.open(command, args, env, async () => {
    const listed = await w3.list();
    check(listed.length === 1 && listed[0].sessionId === sessionId, `window3: session/list = ${show(listed)}, want the one session`);
    await w3.load(sessionId, ws);
    const got = conversation(w3.of(sessionId));
    const want = prompts.flatMap((p) => [`user: ${p}`, `agent: answer to: ${p}`]);
    if (check(show(got) === show(want), `window3: the replay lost or reordered messages:\n      got  ${show(got)}\n      want ${show(want)}`)) {
      note(`two windows on one session: a third process replays all ${prompts.length} prompts of both, with their answers, in order`);
    }
  });
}

async function damagedDatabase(command, args, ws, home) {
  const env = { ...process.env, HERMES_HOME: home };
  const w = new Window("damaged");
  await w.open(command, args, env, async () => {
    const res = await step("damaged: session/new", w.agent.request(acp.methods.agent.session.new, { cwd: ws, mcpServers: [] }));
    const sid = res.sessionId;
    const first = await w.prompt(sid, "hello");
    const db = first.indexOf("sessions.db is damaged");
    const cfg = first.indexOf("approvals.timeout: \"abc\" is not a whole number");
    const answer = first.indexOf("answer to: hello");
    check(db >= 0, `damaged: the first reply does not say the database is damaged: ${show(first)}`);
    check(cfg >= 0, `damaged: the first reply does not name the bad approvals.timeout: ${show(first)}`);
    check(answer > db && answer > cfg, `damaged: the model's answer is missing or comes before the notices: ${show(first)}`);
    check(first.startsWith("⚠️ "), `damaged: the first reply does not start with the notices: ${show(first)}`);
    const second = await w.prompt(sid, "again");
    check(second === "answer to: again", `damaged: the second reply is ${show(second)}, want the answer alone (notices are shown once)`);
    const listed = await w.list();
    check(listed.length === 0, `damaged: session/list = ${show(listed)}, want none (persistence is off)`);
    note("damaged sessions.db and a bad config value: both named once, before the first answer; prompting works; nothing listed");
  });
  const n = new Window("damaged-notices", { notices: {} });
  await n.open(command, args, env, async () => {
    const res = await step("damaged-notices: session/new", n.agent.request(acp.methods.agent.session.new, { cwd: ws, mcpServers: [] }));
    const sid = res.sessionId;
    const first = await n.prompt(sid, "hello");
    check(first === "answer to: hello", `damaged-notices: the first reply is ${show(first)}, want the answer alone (the problems go as notice updates)`);
    const updates = n.of(sid);
    const notices = updates.filter((u) => u.sessionUpdate === "notice");
    const answerAt = updates.findIndex((u) => u.sessionUpdate === "agent_message_chunk");
    const lastNoticeAt = updates.findLastIndex((u) => u.sessionUpdate === "notice");
    const titled = (title, text) => notices.find((u) => u.title === title && u.description?.includes(text));
    check(titled("Configuration problems", "approvals.timeout: \"abc\" is not a whole number")?.severity === "warning",
      `damaged-notices: no warning notice for the bad approvals.timeout in ${show(notices)}`);
    check(titled("Session database problem", "sessions.db is damaged")?.severity === "error",
      `damaged-notices: no error notice for the damaged database in ${show(notices)}`);
    check(notices.length === 2 && lastNoticeAt < answerAt, `damaged-notices: ${notices.length} notices (want 2), the last at update ${lastNoticeAt}, the answer at ${answerAt}`);
    const second = await n.prompt(sid, "again");
    check(second === "answer to: again" && n.of(sid).filter((u) => u.sessionUpdate === "notice").length === 2,
      `damaged-notices: the second prompt repeated a notice or changed the answer (${show(second)})`);
    note(`an editor that takes notices: ${notices.map((u) => `${u.severity} notice ${show(u.title)}`).join(" and ")} before the first answer, no notice text`);
  });
}

async function main() {
  const [command, ...args] = process.argv.slice(2);
  if (!command) {
    process.stderr.write("usage: node conformance/store.mjs AGENT [ARGS...]\n");
    process.exit(2);
  }
  const own = !process.env.CONFORMANCE_WORKDIR;
  const ws = own ? mkdtempSync(`${tmpdir()}/hermes-acp-store-`) : process.env.CONFORMANCE_WORKDIR;
  try {
    await twoWindows(command, args, ws);
    if (process.env.STORE_DAMAGED_HOME) {
      await damagedDatabase(command, args, ws, process.env.STORE_DAMAGED_HOME);
    }
  } catch (err) {
    failWith(err);
  } finally {
    if (own) rmSync(ws, { recursive: true, force: true });
  }
  report("session store conformance", [command, ...args].join(" "));
}

main().catch((err) => {
  fail(`unexpected error: ${err?.stack ?? err}`);
  report("session store conformance", process.argv.slice(2).join(" "));
});
