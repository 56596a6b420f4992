#!/usr/bin/env node
// Session fork conformance (#28 item 6): the official ACP TypeScript SDK
// forks sessions of hermes-acp with the unstable session/fork, in three
// agent processes sharing one $HERMES_HOME.
//
// Usage:
//   node conformance/fork.mjs AGENT [ARGS...]
//
// The agents inherit this process's environment (HERMES_HOME included) and
// get ARGS; the model (cmd/hermes-acp's TestTypeScriptSDKFork gives a
// script) answers the prompts "one", "two" and "three" of a conversation
// with "first answer", "second answer" and "third answer", by position: a
// conversation with two answers gets "third answer" next, one with three
// gets nothing (the script has run out).
// Environment:
//   CONFORMANCE_WORKDIR     an empty folder for the workspace
//   CONFORMANCE_TRANSCRIPT  a file to append every JSON-RPC line to
//   CONFORMANCE_TIMEOUT_MS  bound on each step (default 20000)
//
// Process 1 advertises sessionCapabilities.fork, runs three turns in mode
// accept_edits and forks the live session whole. Process 2 loads it and
// forks it at the messageId of the second prompt and at that of the second
// answer (both end with the second turn), and is refused a forkAt that names
// no message. Process 3 lists all four sessions (the forks titled with
// " (fork)"), replays each fork (two, two and three turns, with fresh
// messageIds, mode accept_edits) and the original (still three turns), and
// prompts a two-turn fork, which the model answers as the third turn.
//
// Exit status: 0 on success, 1 on any failure, 2 for usage errors.

import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import * as acp from "@agentclientprotocol/sdk";
import { check, describe, fail, failWith, note, report, sdkVersion, show, startAgent, step, stopAgent } from "./lib.mjs";

// Agent is one agent process with an editor connected to it; it records
// every session/update by session, in arrival order.
class Agent {
  constructor(label) {
    this.label = label;
    this.updates = new Map(); // sessionId → [update]
  }

  of(sessionId) {
    if (!this.updates.has(sessionId)) this.updates.set(sessionId, []);
    return this.updates.get(sessionId);
  }

  // open starts the agent, initializes it and runs op(this), then stops it.
  async open(command, args, op) {
    const proc = await startAgent(command, args, { transcript: process.env.CONFORMANCE_TRANSCRIPT, label: this.label });
    try {
      const app = acp.client({ name: `hermes-acp-fork-${this.label}` }).onNotification(acp.methods.client.session.update, ({ params }) => {
        this.of(params.sessionId).push(params.update);
      });
      await app.connectWith(proc.stream, async (conn) => {
        this.init = await step(
          `${this.label}: initialize`,
          conn.request(acp.methods.agent.initialize, {
            protocolVersion: acp.PROTOCOL_VERSION,
            clientCapabilities: { fs: { readTextFile: false, writeTextFile: false }, terminal: false },
            clientInfo: { name: "hermes-acp-fork", version: sdkVersion },
          }),
        );
        this.conn = conn;
        await op(this);
      });
    } finally {
      await stopAgent(proc);
    }
  }

  request(what, method, params) {
    return step(`${this.label}: ${what}`, this.conn.request(method, params));
  }

  async prompt(sessionId, text) {
    const before = this.of(sessionId).length;
    const res = await this.request(`session/prompt ${show(text)}`, acp.methods.agent.session.prompt, { sessionId, prompt: [{ type: "text", text }] });
    check(res.stopReason === "end_turn", `${this.label}: prompt ${show(text)} stopped with ${show(res.stopReason)}, want "end_turn"`);
    return agentText(this.of(sessionId).slice(before));
  }

  fork(what, sessionId, cwd, forkAt) {
    const params = { sessionId, cwd, mcpServers: [] };
    if (forkAt !== undefined) params._meta = { hermes: { forkAt } };
    return this.request(what, acp.methods.agent.session.fork, params);
  }

  // load replays sessionId and returns its messages: [{role, text, id}].
  async load(sessionId, cwd) {
    const before = this.of(sessionId).length;
    const res = await this.request(`session/load ${sessionId}`, acp.methods.agent.session.load, { sessionId, cwd, mcpServers: [] });
    return { res, messages: messages(this.of(sessionId).slice(before)) };
  }
}

function agentText(updates) {
  return updates
    .filter((u) => u.sessionUpdate === "agent_message_chunk" && u.content.type === "text")
    .map((u) => u.content.text)
    .join("");
}

// messages joins a replay's chunks into messages: "user" and "agent" ones,
// each with its messageId.
function messages(updates) {
  const out = [];
  for (const u of updates) {
    const role = { user_message_chunk: "user", agent_message_chunk: "agent" }[u.sessionUpdate];
    if (!role || u.content.type !== "text") continue;
    const last = out.at(-1);
    if (last && last.role === role && last.id === u.messageId) last.text += u.content.text;
    else out.push({ role, text: u.content.text, id: u.messageId });
  }
  return out;
}

const lines = (msgs) => msgs.map((m) => `${m.role}: ${m.text}`);
const turns = (n) =>
  [
    ["one", "first answer"],
    ["two", "second answer"],
    ["three", "third answer"],
  ]
    .slice(0, n)
    .flatMap(([p, a]) => [`user: ${p}`, `agent: ${a}`]);

async function main() {
  const [command, ...args] = process.argv.slice(2);
  if (!command) {
    process.stderr.write("usage: node conformance/fork.mjs AGENT [ARGS...]\n");
    process.exit(2);
  }
  const own = !process.env.CONFORMANCE_WORKDIR;
  const ws = own ? mkdtempSync(`${tmpdir()}/hermes-acp-fork-`) : process.env.CONFORMANCE_WORKDIR;
  try {
    let original, whole, atPrompt, atAnswer, originalIds;
    await new Agent("process1").open(command, args, async (p) => {
      check(p.init.agentCapabilities?.sessionCapabilities?.fork !== undefined && p.init.agentCapabilities?.sessionCapabilities?.fork !== null,
        `process1: sessionCapabilities.fork not advertised: ${show(p.init.agentCapabilities?.sessionCapabilities)}`);
      original = (await p.request("session/new", acp.methods.agent.session.new, { cwd: ws, mcpServers: [] })).sessionId;
      await p.request("session/set_mode", acp.methods.agent.session.setMode, { sessionId: original, modeId: "accept_edits" });
      for (const [text, answer] of [["one", "first answer"], ["two", "second answer"], ["three", "third answer"]]) {
        const got = await p.prompt(original, text);
        check(got === answer, `process1: prompt ${show(text)} was answered ${show(got)}, want ${show(answer)}`);
      }
      const res = await p.fork("session/fork (live, whole)", original, ws);
      whole = res.sessionId;
      check(typeof whole === "string" && whole !== original, `process1: the fork's sessionId ${show(whole)}`);
      check(res.modes?.currentModeId === "accept_edits", `process1: the fork's mode ${show(res.modes?.currentModeId)}, want "accept_edits"`);
      check(Array.isArray(res.configOptions) && res.configOptions.length > 0, `process1: the fork's configOptions ${show(res.configOptions)}`);
      note(`process1: three turns, then a fork of the live session (${whole}) in mode ${res.modes?.currentModeId}`);
    });

    await new Agent("process2").open(command, args, async (p) => {
      const { messages: replay } = await p.load(original, ws);
      check(show(lines(replay)) === show(turns(3)), `process2: the original replayed ${show(lines(replay))}`);
      originalIds = replay.map((m) => m.id);
      const users = replay.filter((m) => m.role === "user");
      const agents = replay.filter((m) => m.role === "agent");
      if (!check(users.length === 3 && agents.length === 3 && replay.every((m) => typeof m.id === "string" && m.id !== ""),
        `process2: the replay's messages lack messageIds: ${show(replay)}`)) {
        return;
      }
      atPrompt = (await p.fork("session/fork at the second prompt", original, ws, users[1].id)).sessionId;
      atAnswer = (await p.fork("session/fork at the second answer", original, ws, agents[1].id)).sessionId;
      check(new Set([original, whole, atPrompt, atAnswer]).size === 4, `process2: the forks' ids are not fresh: ${show([original, whole, atPrompt, atAnswer])}`);
      try {
        await p.conn.request(acp.methods.agent.session.fork, { sessionId: original, cwd: ws, mcpServers: [], _meta: { hermes: { forkAt: "no-such-message" } } });
        fail("process2: a forkAt naming no message was accepted");
      } catch (err) {
        check(err instanceof acp.RequestError && err.code === -32602 && describe(err).includes("no-such-message"),
          `process2: a forkAt naming no message: ${describe(err)}, want -32602 naming it`);
      }
      note(`process2: forked the stored session at the second prompt's messageId (${atPrompt}) and at the second answer's (${atAnswer}); an unknown forkAt is refused`);
    });

    await new Agent("process3").open(command, args, async (p) => {
      const listed = (await p.request("session/list", acp.methods.agent.session.list, {})).sessions;
      const title = (id) => listed.find((s) => s.sessionId === id)?.title;
      check(listed.length === 4, `process3: session/list has ${listed.length} sessions, want the original and three forks: ${show(listed)}`);
      check(title(original) === "one", `process3: the original is titled ${show(title(original))}, want "one"`);
      for (const id of [whole, atPrompt, atAnswer]) {
        check(title(id) === "one (fork)", `process3: fork ${id} is titled ${show(title(id))}, want "one (fork)"`);
      }
      for (const [name, id, n] of [["at the second prompt", atPrompt, 2], ["at the second answer", atAnswer, 2], ["whole", whole, 3], ["original", original, 3]]) {
        const { res, messages: replay } = await p.load(id, ws);
        check(show(lines(replay)) === show(turns(n)), `process3: ${name} replayed ${show(lines(replay))}, want ${n} turns`);
        check(res.modes?.currentModeId === "accept_edits", `process3: ${name} loaded in mode ${show(res.modes?.currentModeId)}, want "accept_edits"`);
        if (id !== original) {
          check(replay.every((m) => !originalIds.includes(m.id)), `process3: ${name} replays messageIds of the original`);
        }
      }
      note("process3: lists all four; the forks at the second prompt and answer replay two turns, the whole fork and the original three, all in accept_edits");
      const next = await p.prompt(atPrompt, "four");
      check(next === "third answer", `process3: the two-turn fork's next prompt was answered ${show(next)}, want "third answer" (the model saw two turns)`);
      const again = await p.load(original, ws);
      check(show(lines(again.messages)) === show(turns(3)), `process3: after prompting the fork, the original replays ${show(lines(again.messages))}`);
      note("process3: the two-turn fork continues as a third turn; the original is unchanged");
    });
  } catch (err) {
    failWith(err);
  } finally {
    if (own) rmSync(ws, { recursive: true, force: true });
  }
  report("session fork conformance", [command, ...args].join(" "));
}

main().catch((err) => {
  fail(`unexpected error: ${err?.stack ?? err}`);
  report("session fork conformance", process.argv.slice(2).join(" "));
});
