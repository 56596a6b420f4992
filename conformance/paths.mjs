#!/usr/bin/env node
// Path-safety conformance (issue 9, items 1-3): the official ACP TypeScript
// SDK plays an editor while a hostile model tries to leave the workspace
// through a missing folder and a symbolic link, to write .git through a
// committed link without being asked, to overwrite the agent's own
// sessions database, and to read credential files, with the workspace at
// the user's home. The model follows cmd/hermes-acp/testdata/e2e/paths.txtar
// (the folders this script builds are described there).
//
// Usage:
//   node conformance/paths.mjs AGENT [ARGS...]
//
// The agent inherits this process's environment (the "home" clients get
// HOME and HERMES_HOME pointed at the fake home); it must talk to a model
// that plays the scenario (cmd/hermes-acp's TestTypeScriptSDKPaths starts a
// fake one). Environment:
//   CONFORMANCE_SCENARIO    the txtar scenario (default: the one above)
//   CONFORMANCE_WORKDIR     an empty folder for the trees (default: a
//                           temporary folder, removed afterwards)
//   CONFORMANCE_TRANSCRIPT  a file to append every JSON-RPC line to
//   CONFORMANCE_TIMEOUT_MS  bound on each step (default 20000)
//
// The "fs" editor serves fs/read_text_file and fs/write_text_file as real
// editors do: it normalises the path (path.resolve) and lets the operating
// system follow every symbolic link, creating missing folders on write. So
// any path the agent sends that leads outside the workspace would really be
// read or written there; the script checks that none does, that nothing
// outside changed, that the approval of a write through the link to .git
// names the real .git file and comes even in dont_ask, and that
// sessions.db stays byte-identical while a second agent process refuses to
// overwrite it. Exit status: 0 on success, 1 on any failure, 2 for usage
// errors.

import { createHash } from "node:crypto";
import { existsSync, lstatSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, readlinkSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, relative, resolve, sep } from "node:path";
import * as acp from "@agentclientprotocol/sdk";
import { check, fail, failWith, loadScenario, note, playTurn, report, sdkVersion, show, startAgent, step, stopAgent } from "./lib.mjs";

const update = (e) => e?.msg?.params?.update;

function put(p, data) {
  mkdirSync(dirname(p), { recursive: true });
  writeFileSync(p, data);
}

function link(target, p) {
  mkdirSync(dirname(p), { recursive: true });
  symlinkSync(target, p);
}

// build creates the folders of the scenario under workdir.
function build(workdir) {
  const t = {
    out: join(workdir, "out"),
    ws: join(workdir, "ws"),
    home: join(workdir, "home"),
  };
  t.hermes = join(t.home, ".hermes");
  put(join(t.out, "secret"), "outside secret\n");
  put(join(t.ws, ".git", "config"), "[core]\n\tbare = false\n");
  mkdirSync(join(t.ws, ".git", "hooks"), { recursive: true });
  put(join(t.ws, ".env"), "KEY=hunter2\n");
  link("../out", join(t.ws, "link"));
  link(".git", join(t.ws, "gitlink"));
  link(".env", join(t.ws, "envlink"));
  put(join(t.hermes, "config.yaml"), "# the user's settings\n");
  put(join(t.hermes, "memories", "MEMORY.md"), "the user likes tea\n");
  put(join(t.home, ".ssh", "id_rsa"), "-----BEGIN OPENSSH PRIVATE KEY-----\nsecret\n-----END OPENSSH PRIVATE KEY-----\n");
  put(join(t.home, ".ssh", "id_rsa.pub"), "ssh-ed25519 AAAA user@host\n");
  put(join(t.home, ".aws", "credentials"), "[default]\naws_secret_access_key = hunter2\n");
  put(join(t.home, "proj", "readme.md"), "a project in the home folder\n");
  link("../.ssh", join(t.home, "proj", "keys"));
  return t;
}

// treeSum hashes every name, link target and file content below dir.
function treeSum(dir) {
  const h = createHash("sha256");
  const walk = (p) => {
    const st = lstatSync(p);
    h.update(`${relative(dir, p)} ${st.mode}\n`);
    if (st.isSymbolicLink()) h.update(`-> ${readlinkSync(p)}\n`);
    else if (st.isFile()) h.update(readFileSync(p));
    else if (st.isDirectory()) for (const n of readdirSync(p).sort()) walk(join(p, n));
  };
  walk(dir);
  return h.digest("hex");
}

const sha = (p) => createHash("sha256").update(readFileSync(p)).digest("hex");

// landing returns where the kernel would put a file at p: the real path of
// its deepest existing ancestor, with the rest appended.
function landing(p) {
  let probe = p;
  const rest = [];
  for (;;) {
    try {
      return join(realpathSync(probe), ...rest);
    } catch {
      rest.unshift(probe.slice(dirname(probe).length + 1));
      probe = dirname(probe);
    }
  }
}

const within = (p, dir) => p === dir || p.startsWith(dir + sep);

// Editor is the client side of one connection.
class Editor {
  constructor(ws, fs) {
    this.ws = ws;
    this.fs = fs;
    this.answer = "";
    this.permissions = [];
    this.touched = []; // where each fs request really led
  }

  app() {
    let app = acp.client({ name: "hermes-acp-paths" }).onRequest(acp.methods.client.session.requestPermission, ({ params }) => {
      this.permissions.push(params);
      if (!this.answer) {
        fail(`unexpected session/request_permission for ${show(params.toolCall?.title)}; the step expects none`);
        return { outcome: { outcome: "selected", optionId: "reject" } };
      }
      return { outcome: { outcome: "selected", optionId: this.answer } };
    });
    if (!this.fs) return app;
    return app
      .onRequest(acp.methods.client.fs.readTextFile, ({ params }) => {
        const p = resolve(params.path);
        this.touched.push({ method: "fs/read_text_file", path: params.path, real: landing(p) });
        try {
          return { content: readFileSync(p, "utf8") };
        } catch {
          throw acp.RequestError.resourceNotFound(params.path);
        }
      })
      .onRequest(acp.methods.client.fs.writeTextFile, ({ params }) => {
        const p = resolve(params.path);
        this.touched.push({ method: "fs/write_text_file", path: params.path, real: landing(p) });
        mkdirSync(dirname(p), { recursive: true });
        writeFileSync(p, params.content);
        return {};
      });
  }
}

// playSteps runs the steps of one client in one session, setting each
// step's mode first, and checks each turn.
async function playSteps(agent, session, wire, editor, steps) {
  let mode = "default";
  for (const st of steps) {
    if (st.mode && st.mode !== mode) {
      await step(`${st.id}: session/set_mode`, agent.request(acp.methods.agent.session.setMode, { sessionId: session.sessionId, modeId: st.mode }));
      mode = st.mode;
    }
    editor.answer = st.answer ?? "";
    const permissionsBefore = editor.permissions.length;
    const touchedBefore = editor.touched.length;
    const turn = await playTurn(session, wire, st.id, st.prompt);
    const name = st.id;
    const callId = `call_${st.id}`;
    check(turn.stopReason === "end_turn", `${name}: stopReason ${show(turn.stopReason)}, want "end_turn"`);
    const final = update(turn.finalUpdate(callId));
    const want = { read: "completed", written: "completed", denied: "failed", refused: "failed" }[st.outcome];
    check(final?.status === want, `${name}: the tool call ended ${show(final?.status)}, want ${show(want)} (outcome ${st.outcome})`);
    const text = turn.text();
    const said = `${st.id} done; the tool said: `;
    if (check(text.includes(said), `${name}: the model's reply ${show(text)} does not quote the tool result`)) {
      const result = text.slice(text.indexOf(said) + said.length);
      for (const s of st.modelSees ?? []) check(result.includes(s), `${name}: the tool result ${show(result)} lacks ${show(s)}`);
      for (const s of st.modelNotSees ?? []) check(!result.includes(s), `${name}: the tool result ${show(result)} contains ${show(s)}`);
    }
    const asked = editor.permissions.slice(permissionsBefore);
    if (st.answer) {
      if (check(asked.length === 1, `${name}: ${asked.length} permission requests, want 1 (a write through a link to .git always asks, even in ${st.mode})`)) {
        const diffs = (asked[0].toolCall?.content ?? []).filter((c) => c.type === "diff");
        const wantPath = join(editor.ws, st.askPath);
        check(diffs.length === 1 && diffs[0].path === wantPath, `${name}: the approval shows ${show(diffs.map((d) => d.path))}, want the real file ${show(wantPath)}`);
        check(asked[0].toolCall?.title?.includes(wantPath), `${name}: the approval title ${show(asked[0].toolCall?.title)} does not name ${show(wantPath)}`);
      }
    } else {
      check(asked.length === 0, `${name}: ${asked.length} permission requests, want none`);
    }
    for (const t of editor.touched.slice(touchedBefore)) {
      check(within(t.real, editor.ws), `${name}: the agent sent ${t.method} for ${show(t.path)}, which the editor follows to ${show(t.real)}, outside the workspace`);
    }
    if (!editor.fs) {
      for (const m of ["fs/read_text_file", "fs/write_text_file"]) {
        check(turn.requests(m).length === 0, `${name}: the agent sent ${m} to a client without the fs capability`);
      }
    }
    note(`${name} (${st.client}, ${st.mode}): ${final?.status}${st.answer ? ", asked for " + st.askPath : ""}`);
    if (st.after) st.after(turn);
  }
}

// client runs one agent process with one session in cwd for steps.
async function client(command, args, { label, cwd, fs, env, transcript, steps }) {
  const editor = new Editor(cwd, fs);
  const agentProc = await startAgent(command, args, { transcript, label, env });
  try {
    await editor.app().connectWith(agentProc.stream, async (agent) => {
      await step(
        `${label}: initialize`,
        agent.request(acp.methods.agent.initialize, {
          protocolVersion: acp.PROTOCOL_VERSION,
          clientCapabilities: { fs: { readTextFile: fs, writeTextFile: fs }, terminal: false },
          clientInfo: { name: "hermes-acp-paths", version: sdkVersion },
        }),
      );
      const session = await step(`${label}: session/new`, agent.buildSession(cwd).start());
      try {
        await playSteps(agent, session, agentProc.wire, editor, steps);
      } finally {
        session.dispose();
      }
    });
  } finally {
    await stopAgent(agentProc);
  }
  return editor;
}

async function main() {
  const [command, ...args] = process.argv.slice(2);
  if (!command) {
    process.stderr.write("usage: node conformance/paths.mjs AGENT [ARGS...]\n");
    process.exit(2);
  }
  const scenarioPath = process.env.CONFORMANCE_SCENARIO || new URL("../cmd/hermes-acp/testdata/e2e/paths.txtar", import.meta.url);
  const given = process.env.CONFORMANCE_WORKDIR;
  const workdir = realpathSync(given || mkdtempSync(join(tmpdir(), "hermes-acp-paths-")));
  const transcript = process.env.CONFORMANCE_TRANSCRIPT;
  try {
    const { scenario } = loadScenario(scenarioPath);
    const t = build(workdir);
    const outBefore = treeSum(t.out);
    const gitBefore = treeSum(join(t.ws, ".git"));
    const hermesFiles = ["config.yaml", join("memories", "MEMORY.md")].map((f) => join(t.hermes, f));
    const hermesBefore = hermesFiles.map(sha);
    const homeEnv = { ...process.env, HOME: t.home, HERMES_HOME: t.hermes };
    const of = (c) => scenario.steps.filter((s) => s.client === c);
    for (const s of scenario.steps) {
      if (!["fs", "home-a", "home"].includes(s.client)) fail(`${s.id}: paths.mjs does not know the client ${show(s.client)}`);
    }

    await client(command, args, { label: "fs", cwd: t.ws, fs: true, env: process.env, transcript, steps: of("fs") });

    // The first agent on the fake home creates sessions.db and exits; the
    // second refuses to overwrite it. sessions.db must not change while it
    // runs (the agent's own saves go to the write-ahead log).
    await client(command, args, { label: "home-a", cwd: t.home, fs: false, env: homeEnv, transcript, steps: of("home-a") });
    const db = join(t.hermes, "sessions.db");
    if (!existsSync(db)) {
      fail(`${db} does not exist after the first agent's turn`);
    } else {
      const dbBefore = sha(db);
      const steps = of("home").map((s) => ({
        ...s,
        after: () => check(sha(db) === dbBefore, `${s.id}: ${db} changed during the step`),
      }));
      await client(command, args, { label: "home", cwd: t.home, fs: false, env: homeEnv, transcript, steps });
      note("sessions.db byte-identical through every hostile step of the second agent");
    }

    check(treeSum(t.out) === outBefore, `${t.out} changed: a tool read or wrote outside the workspace`);
    check(treeSum(join(t.ws, ".git")) === gitBefore, `${join(t.ws, ".git")} changed although every write there was rejected`);
    hermesFiles.forEach((f, i) => check(sha(f) === hermesBefore[i], `${f} changed`));
    check(!existsSync(join(t.out, "new.txt")), `${join(t.out, "new.txt")} exists: a write escaped the workspace`);
    check(readFileSync(join(t.ws, "notes", "todo.txt"), "utf8") === "an ordinary edit\n", "da_plain_write: notes/todo.txt was not written by the editor");
  } catch (err) {
    failWith(err);
  } finally {
    if (!given) rmSync(workdir, { recursive: true, force: true });
  }
  report("paths", command);
}

await main();
