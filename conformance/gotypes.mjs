#!/usr/bin/env node
// Go type check conformance: the official ACP TypeScript SDK plays an
// editor while a scripted model edits a Go package, and checks that the
// type errors an edit introduces reach the user before and after the write.
//
// Usage:
//   node conformance/gotypes.mjs AGENT [ARGS...]
//
// The agent is started with ARGS plus "--model script:FILE", a script this
// file writes. The agent inherits this process's environment, which must
// let it run the go command (a Go toolchain on PATH, the build cache).
// Environment:
//   CONFORMANCE_WORKDIR     an empty folder for the workspace and script
//                           (default: a temporary folder, removed afterwards)
//   CONFORMANCE_TRANSCRIPT  a file to append every JSON-RPC line to
//   CONFORMANCE_TIMEOUT_MS  bound on each step (default 20000)
//
// The workspace is a module with a main package of two files. The editor
// advertises fs.readTextFile/writeTextFile and keeps what the agent writes
// in its buffers, never on disk (as an editor with unsaved buffers), asks
// for our diagnostics (clientCapabilities._meta.hermes.diagnostics), and
// allows every edit. The scenario:
//   1. warm: the model adds a clean file; then /context is asked until it
//      says the module's dependency information is cached (the first check
//      in a module builds its dependencies' export data, which may take
//      longer than the approval's budget);
//   2. break: a patch that calls an undefined function. The permission
//      request says "this edit introduces 1 type error" and carries the
//      go-types diagnostic in _meta.hermes.lint; the tool result the model
//      reads has lint status error and "GoTypeError: undefined:
//      undefinedHelper (line 7, column 2)"; the editor receives a
//      _hermes/publishDiagnostics for main.go with that go-types
//      diagnostic (0-based line 6, character 1, severity 1, source
//      hermes-lint);
//   3. fix: a patch that removes the call. The permission request says "no
//      new lint errors"; main.go's diagnostics are published again without
//      it; the tool result's lint status is ok;
//   4. /context says "Go type check: on".
// With CONFORMANCE_GO_HOLD set to a file that exists, the go command on
// the agent's PATH is expected to hold its dependency loads (go list
// -export) while that file exists (cmd/hermes-acp's test puts such a
// wrapper first on PATH). Then, first, a second agent on a fresh copy of the
// workspace plays "held": the same breaking patch while the check cannot
// finish. The permission request still comes (its summary says "Go type
// check still running"), the edit is written and the tool result tells the
// model the check is still running; once the file is removed, the
// go-types diagnostic is published.
// Exit status: 0 on success, 1 on any failure, 2 for usage errors.

import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import * as acp from "@agentclientprotocol/sdk";
import { check, failWith, note, playTurn, report, sdkVersion, show, startAgent, step, stepTimeout, stopAgent } from "./lib.mjs";

const method = "_hermes/publishDiagnostics";

const seedFiles = {
  "go.mod": "module example.com/demo\n\ngo 1.26\n",
  "main.go": 'package main\n\nimport "fmt"\n\nfunc main() {\n\tfmt.Println(greet("world"))\n}\n',
  "greet.go": 'package main\n\nimport "strings"\n\nfunc greet(name string) string { return "hello " + strings.ToUpper(name) }\n',
};

const call = 'fmt.Println(greet("world"))';
const broken = `${call}\n\tundefinedHelper()`;

const steps = [
  {
    id: "warm",
    tool: "write_file",
    args: { path: "util.go", content: "package main\n\nfunc twice(n int) int { return 2 * n }\n" },
    sees: '"status":"ok"',
  },
  {
    id: "break",
    tool: "patch",
    args: { mode: "replace", path: "main.go", old_string: call, new_string: broken },
    sees: "GoTypeError: undefined: undefinedHelper (line 7, column 2)",
    summary: "this edit introduces 1 type error",
    introduced: 1,
    typeDiagnostics: [{ line: 6, character: 1, message: "undefined: undefinedHelper" }],
  },
  {
    id: "fix",
    tool: "patch",
    args: { mode: "replace", path: "main.go", old_string: broken, new_string: call },
    sees: '"status":"ok"',
    summary: "no new lint errors",
    introduced: 0,
    typeDiagnostics: [],
  },
];

function script() {
  const replies = [];
  for (const st of steps) {
    replies.push({ tool_calls: [{ name: st.tool, id: `call_${st.id}`, arguments: st.args }] });
    replies.push({ expect: { role: "tool", contains: st.sees }, text: `${st.id} ok` });
  }
  return JSON.stringify({ replies }, null, 1);
}

// Published collects the notifications the SDK delivered and lets a step
// wait for one that matches.
class Published {
  constructor() {
    this.list = [];
    this.waiters = [];
  }

  add(params) {
    this.list.push(params);
    this.waiters = this.waiters.filter(({ from, pred, resolve }) => {
      const hit = this.list.slice(from).find(pred);
      if (hit) resolve(hit);
      return !hit;
    });
  }

  // find resolves with the first notification from index from on that
  // satisfies pred.
  find(from, pred) {
    const hit = this.list.slice(from).find(pred);
    if (hit) return Promise.resolve(hit);
    return new Promise((resolve) => this.waiters.push({ from, pred, resolve }));
  }
}

const update = (e) => e?.msg?.params?.update;
const goTypes = (ds) => (ds ?? []).filter((d) => d.code === "go-types");

// sameDiagnostics compares go-types diagnostics with the step's.
function sameDiagnostics(got, want) {
  return (
    got.length === want.length &&
    want.every((w, i) => {
      const d = got[i];
      return (
        d.range?.start?.line === w.line &&
        d.range?.start?.character === w.character &&
        d.message === w.message &&
        d.severity === 1 &&
        d.source === "hermes-lint"
      );
    })
  );
}

// playHeld is the "held" scenario (see the header).
async function playHeld(command, args, workdir, hold) {
  const ws = join(workdir, "held-ws");
  mkdirSync(ws, { recursive: true });
  for (const [name, data] of Object.entries(seedFiles)) writeFileSync(join(ws, name), data);
  const st = steps[1];
  const scriptPath = join(workdir, "held-script.yaml");
  writeFileSync(
    scriptPath,
    JSON.stringify({
      replies: [
        { tool_calls: [{ name: st.tool, id: "call_held", arguments: st.args }] },
        { expect: { role: "tool", contains: "The Go type check of this edit is still running" }, text: "held ok" },
      ],
    }),
  );
  const permissions = [];
  const writes = [];
  const published = new Published();
  const app = acp
    .client({ name: "hermes-acp-gotypes-held" })
    .onRequest(acp.methods.client.session.requestPermission, ({ params }) => {
      permissions.push(params);
      return { outcome: { outcome: "selected", optionId: "allow" } };
    })
    .onNotification(
      method,
      (raw) => raw,
      ({ params }) => published.add(params),
    );
  const agentProc = await startAgent(command, [...args, "--model", `script:${scriptPath}`], { transcript: process.env.CONFORMANCE_TRANSCRIPT, label: "held" });
  try {
    await app.connectWith(agentProc.stream, async (agent) => {
      await step(
        "held: initialize",
        agent.request(acp.methods.agent.initialize, {
          protocolVersion: acp.PROTOCOL_VERSION,
          clientCapabilities: { fs: { readTextFile: false, writeTextFile: false }, terminal: false, _meta: { hermes: { diagnostics: true } } },
          clientInfo: { name: "hermes-acp-gotypes-held", version: sdkVersion },
        }),
      );
      const session = await step("held: session/new", agent.buildSession(ws).start());
      try {
        const turn = await playTurn(session, agentProc.wire, "held", "held");
        check(turn.text() === "held ok", `held: the model's reply is ${show(turn.text())}, want "held ok" (its tool result did not say the type check is still running)`);
        check(update(turn.finalUpdate("call_held"))?.status === "completed", "held: the patch did not complete");
        if (check(permissions.length === 1, `held: ${permissions.length} permission requests, want 1`)) {
          const texts = (permissions[0].toolCall?.content ?? []).filter((c) => c.type === "content").map((c) => c.content?.text);
          check(texts.some((t) => t?.includes("Go type check still running")), `held: the permission request's text ${show(texts)} does not say "Go type check still running"`);
        }
        const onDisk = readFileSync(join(ws, "main.go"), "utf8");
        check(onDisk.includes("undefinedHelper()"), `held: main.go was not written while the check was held: ${show(onDisk)}`);
        rmSync(hold); // the dependency load goes on
        const uri = pathToFileURL(join(ws, "main.go")).href;
        await step(
          `held: ${method} with the go-types diagnostic once the check can finish`,
          published.find(0, (n) => n.uri === uri && sameDiagnostics(goTypes(n.diagnostics), st.typeDiagnostics)),
        );
        note("held: the approval and the write did not wait for the held check; its diagnostic followed");
      } finally {
        session.dispose();
      }
    });
  } finally {
    await stopAgent(agentProc);
  }
}

async function contextText(session, wire, name) {
  return (await playTurn(session, wire, name, "/context")).text();
}

async function main() {
  const [command, ...args] = process.argv.slice(2);
  if (!command) {
    process.stderr.write("usage: node conformance/gotypes.mjs AGENT [ARGS...]\n");
    process.exit(2);
  }
  const given = process.env.CONFORMANCE_WORKDIR;
  const workdir = given || mkdtempSync(join(tmpdir(), "hermes-acp-gotypes-"));
  let agentProc;
  try {
    if (process.env.CONFORMANCE_GO_HOLD) await playHeld(command, args, workdir, process.env.CONFORMANCE_GO_HOLD);
    const ws = join(workdir, "ws");
    mkdirSync(ws, { recursive: true });
    for (const [name, data] of Object.entries(seedFiles)) writeFileSync(join(ws, name), data);
    const scriptPath = join(workdir, "script.yaml");
    writeFileSync(scriptPath, script());
    const buffers = new Map();
    const permissions = [];
    const published = new Published();
    const app = acp
      .client({ name: "hermes-acp-gotypes" })
      .onRequest(acp.methods.client.session.requestPermission, ({ params }) => {
        permissions.push(params);
        return { outcome: { outcome: "selected", optionId: "allow" } };
      })
      .onRequest(acp.methods.client.fs.readTextFile, ({ params }) => {
        const text = buffers.get(params.path);
        if (text !== undefined) return { content: text };
        try {
          return { content: readFileSync(params.path, "utf8") };
        } catch {
          throw acp.RequestError.resourceNotFound(params.path);
        }
      })
      .onRequest(acp.methods.client.fs.writeTextFile, ({ params }) => {
        buffers.set(params.path, params.content); // unsaved: never on disk
        return {};
      })
      .onNotification(
        method,
        (raw) => raw,
        ({ params }) => published.add(params),
      );
    agentProc = await startAgent(command, [...args, "--model", `script:${scriptPath}`], { transcript: process.env.CONFORMANCE_TRANSCRIPT, label: "gotypes" });
    await app.connectWith(agentProc.stream, async (agent) => {
      await step(
        "initialize",
        agent.request(acp.methods.agent.initialize, {
          protocolVersion: acp.PROTOCOL_VERSION,
          clientCapabilities: { fs: { readTextFile: true, writeTextFile: true }, terminal: false, _meta: { hermes: { diagnostics: true } } },
          clientInfo: { name: "hermes-acp-gotypes", version: sdkVersion },
        }),
      );
      const session = await step("session/new", agent.buildSession(ws).start());
      try {
        for (const st of steps) {
          const name = st.id;
          const seen = published.list.length;
          const asked = permissions.length;
          const turn = await playTurn(session, agentProc.wire, name, st.id);
          check(turn.text() === `${st.id} ok`, `${name}: the model's reply is ${show(turn.text())}, want ${show(`${st.id} ok`)} (its tool result lacked ${show(st.sees)})`);
          const final = update(turn.finalUpdate(`call_${st.id}`));
          check(final?.status === "completed", `${name}: the tool call ended ${show(final?.status)}, want "completed"`);
          const mine = permissions.slice(asked);
          if (!check(mine.length === 1, `${name}: ${mine.length} permission requests, want 1`)) continue;
          if (st.id === "warm") {
            // The first check in the module builds its dependencies'
            // export data: wait until it is cached.
            const deadline = Date.now() + 3 * stepTimeout;
            let text = "";
            while (Date.now() < deadline) {
              text = await contextText(session, agentProc.wire, "warm: /context");
              if (text.includes("dependency information of")) break;
              await new Promise((r) => setTimeout(r, 200));
            }
            check(text.includes("dependency information of"), `warm: /context never said the dependency information is cached: ${show(text)}`);
            note("warm: the module's dependency information is cached");
            continue;
          }
          const tc = mine[0].toolCall;
          const texts = (tc?.content ?? []).filter((c) => c.type === "content" && c.content?.type === "text").map((c) => c.content.text);
          check(texts.some((t) => t.includes(st.summary)), `${name}: the permission request's text ${show(texts)} does not say ${show(st.summary)}`);
          const lint = tc?._meta?.hermes?.lint;
          check(lint?.introduced === st.introduced, `${name}: the permission request's _meta.hermes.lint.introduced ${show(lint?.introduced)}, want ${st.introduced}`);
          const proposed = goTypes((lint?.diagnostics ?? []).flatMap((f) => f.diagnostics));
          check(sameDiagnostics(proposed, st.typeDiagnostics), `${name}: the permission request's go-types diagnostics ${show(proposed)}, want ${show(st.typeDiagnostics)}`);
          const doneLint = final?._meta?.hermes?.lint;
          check(doneLint?.introduced === st.introduced, `${name}: the completing update's _meta.hermes.lint.introduced ${show(doneLint?.introduced)}, want ${st.introduced}`);

          // The editor's diagnostics for main.go end up with exactly the
          // step's go-types set.
          const uri = pathToFileURL(join(ws, st.args.path)).href;
          const p = await step(
            `${name}: ${method} for ${st.args.path} with the go-types set ${show(st.typeDiagnostics)}`,
            published.find(seen, (n) => n.uri === uri && sameDiagnostics(goTypes(n.diagnostics), st.typeDiagnostics)),
          );
          check(p.sessionId === session.sessionId, `${name}: ${method} sessionId ${show(p.sessionId)}, want ${show(session.sessionId)}`);
          note(`${name}: the permission request said ${show(st.summary)}; ${goTypes(p.diagnostics).length} go-types diagnostic(s) published for ${st.args.path}`);
        }
        const text = await contextText(session, agentProc.wire, "/context");
        check(text.includes("Go type check: on"), `/context ${show(text)} does not say "Go type check: on"`);
        check(!Object.keys(seedFiles).some((f) => readFileSync(join(ws, f), "utf8") !== seedFiles[f]), "the agent wrote to the disk instead of the editor's buffers");
      } finally {
        session.dispose();
      }
    });
  } catch (err) {
    failWith(err);
  } finally {
    if (agentProc) await stopAgent(agentProc);
    if (!given) rmSync(workdir, { recursive: true, force: true });
  }
  report("gotypes", command);
}

await main();
