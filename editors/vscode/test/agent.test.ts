// The client core against the real hermes-acp binary (HERMES_ACP_BIN, built
// by `make editors-test`) with the scripted model of
// fixtures/broken-config.yaml: edit approval, reads of unsaved text, writes
// through the editor, the published diagnostics, the chat transcript,
// restart after a crash, and the messages for a missing or old binary.
import assert from "node:assert/strict";
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { after, test } from "node:test";
import type * as acp from "@agentclientprotocol/sdk";
import { ChatState } from "../src/core/chat";
import { renderItem } from "../src/core/render";
import { AgentConnection, checkBinary, initializeParams, LaunchError, type ClientHost } from "../src/core/connection";
import { restoreSession } from "../src/core/sessions";
import { DiagnosticsStore, type EditorDiagnostic } from "../src/core/diagnostics";
import { FormBroker } from "../src/core/forms";
import { FsService } from "../src/core/fsService";
import { outcomeFor, planPermission, type EditDecision, type PermissionPlan } from "../src/core/permissions";
import { AgentSupervisor } from "../src/core/supervisor";
import { TerminalManager } from "../src/core/terminals";

const bin = process.env.HERMES_ACP_BIN ?? "";
const script = resolve(__dirname, "../../test/fixtures/broken-config.yaml");
const brokenConfig = '{\n  "name": "demo",\n  "tags": ["stable", "beta",]\n}\n';
const temps: string[] = [];
after(() => temps.forEach((d) => rmSync(d, { recursive: true, force: true })));

/**
 * handled checks what the updates sent before a reply did: the connection
 * resolves session/prompt and session/load only once their handlers ran
 * (the SDK resolves the reply first), so this holds at once.
 */
function handled(what: string, cond: () => boolean): void {
  assert.ok(cond(), what);
}

function tempDir(): string {
  const d = mkdtempSync(join(tmpdir(), "hermes-vscode-"));
  temps.push(d);
  return d;
}

test("HERMES_ACP_BIN names the hermes-acp binary under test", () => {
  assert.ok(bin && existsSync(bin), `set HERMES_ACP_BIN to a built hermes-acp (make editors-test does); got ${JSON.stringify(bin)}`);
  assert.ok(existsSync(script), script);
});

/** A fake editor: documents in memory (some open with unsaved text), saves to disk. */
function editor(decision: EditDecision) {
  const open = new Map<string, string>();
  const rec = {
    plans: [] as PermissionPlan[],
    writes: [] as [string, string][],
    diagnostics: new Map<string, EditorDiagnostic[]>(),
    deleted: [] as string[],
    chat: new ChatState(),
    log: [] as string[],
    forms: new FormBroker(),
  };
  const host: ClientHost = {
    elicit: (req, signal) => rec.forms.request(req, signal),
    async requestPermission(req: acp.RequestPermissionRequest) {
      const plan = planPermission(req);
      rec.plans.push(plan);
      assert.equal(plan.kind, "edit");
      return outcomeFor(plan as Extract<PermissionPlan, { kind: "edit" }>, decision);
    },
    fs: new FsService({
      openDocumentText: (p) => open.get(p),
      readDisk: async (p) => readFileSync(p, "utf8"),
      applyAndSave: async (p, t) => {
        rec.writes.push([p, t]);
        open.set(p, t);
        writeFileSync(p, t);
      },
    }),
    terminals: new TerminalManager(),
    diagnostics: new DiagnosticsStore({
      set: (p, ds) => rec.diagnostics.set(p, ds),
      delete: (p) => {
        rec.deleted.push(p);
        rec.diagnostics.delete(p);
      },
    }),
    onUpdate: (n) => rec.chat.apply(n.update),
    log: (l) => rec.log.push(l),
  };
  return { host, open, rec };
}

function launch(ws: string) {
  return { command: bin, args: ["--model", "script:" + script], env: { HERMES_HOME: join(ws, ".hermes-home"), HOME: ws }, cwd: ws };
}

test("an accepted edit is reviewed against the unsaved text, written through the editor, and its lint error published", async () => {
  const ws = tempDir();
  const config = join(ws, "config.json");
  writeFileSync(config, '{"name": "demo"}\n');
  const { host, open, rec } = editor("accept");
  // The user has unsaved changes in the open config.json.
  const unsaved = '{\n  "name": "demo",\n  "tags": ["stable"]\n}\n';
  open.set(config, unsaved);
  const c = await AgentConnection.start(launch(ws), host);
  try {
    assert.equal(c.init.protocolVersion, 1);
    const s = await c.newSession(ws);
    assert.ok(s.modes?.availableModes.some((m) => m.id === "default"), "the session offers the default mode");
    rec.chat.user("Add the beta tag");
    const res = await c.prompt(s.sessionId, "Add the beta tag to config.json");
    assert.equal(res.stopReason, "end_turn");

    assert.equal(rec.plans.length, 1, "one permission request");
    const plan = rec.plans[0];
    assert.ok(plan.kind === "edit");
    assert.equal(plan.path, config);
    assert.equal(plan.oldText, unsaved, "the diff's current text is the editor's unsaved buffer");
    assert.equal(plan.newText, brokenConfig);
    assert.match(plan.lint?.text ?? "", /introduces 1 syntax error/, "the approval carries the lint summary");
    assert.equal(plan.lint?.introduced, 1);
    assert.equal(plan.lint?.diagnostics[0]?.items[0]?.line, 2, "and the error's line, from _meta.hermes.lint");

    assert.deepEqual(rec.writes, [[config, brokenConfig]], "the write went through the editor");
    assert.equal(readFileSync(config, "utf8"), brokenConfig);

    const diags = rec.diagnostics.get(config);
    assert.ok(diags, `diagnostics for ${config}: ${JSON.stringify([...rec.diagnostics.keys()])}`);
    assert.equal(diags.length, 1);
    assert.equal(diags[0].startLine, 2, "the trailing comma's line (0-based)");
    assert.equal(diags[0].severity, 0);
    assert.equal(diags[0].source, "hermes-lint");

    const html = () => rec.chat.items.map((i) => renderItem(i)).join("\n");
    handled("the last answer arrived", () => html().includes("now lists the beta tag."));
    assert.match(html(), /I will add the <strong>beta<\/strong> tag/);
    assert.match(html(), /<details class="msg thought" /);
    assert.match(html(), /class="card tool kind-edit status-completed"/);
    assert.match(html(), /<tr class="diff-add"><td class="ln"><\/td><td class="ln">3<\/td>/, "the card shows the diff");
    assert.match(html(), /Lint: introduces 1 problem/);
    assert.match(html(), /Done: <code class="inline nowrap">config\.json<\/code> now lists the beta tag\./);

    // Closing the session takes its diagnostics out of the Problems panel.
    host.diagnostics.closeSession(s.sessionId);
    assert.deepEqual(rec.deleted, [config]);
    assert.equal(rec.diagnostics.size, 0);
  } finally {
    c.dispose();
    await c.exited;
  }
});

test("a rejected edit leaves the file alone", async () => {
  const ws = tempDir();
  const config = join(ws, "config.json");
  writeFileSync(config, '{"name": "demo"}\n');
  const { host, rec } = editor("reject");
  const c = await AgentConnection.start(launch(ws), host);
  try {
    const s = await c.newSession(ws);
    const res = await c.prompt(s.sessionId, "Add the beta tag to config.json");
    assert.equal(res.stopReason, "end_turn");
    assert.equal(rec.plans.length, 1);
    assert.deepEqual(rec.writes, []);
    assert.equal(readFileSync(config, "utf8"), '{"name": "demo"}\n');
    assert.equal(rec.diagnostics.size, 0);
    const tool = () => rec.chat.items.find((i) => i.type === "tool");
    handled("the tool card shows the rejection", () => {
      const t = tool();
      return t?.type === "tool" && t.status === "failed";
    });
  } finally {
    c.dispose();
    await c.exited;
  }
});

test("the agent is restarted when it dies, and the new one answers", async () => {
  const ws = tempDir();
  const { host } = editor("accept");
  const events: string[] = [];
  let started!: (c: AgentConnection) => void;
  let next = new Promise<AgentConnection>((r) => (started = r));
  const sup = new AgentSupervisor(() => launch(ws), host, {
    started: (c, restarted) => {
      events.push(restarted ? "restarted" : "started");
      started(c);
    },
    restarting: (why) => events.push("restarting: " + why),
    failed: (err) => events.push("failed: " + err.message),
  });
  try {
    await sup.start();
    const first = await next;
    next = new Promise<AgentConnection>((r) => (started = r));
    first.child.kill("SIGKILL");
    const second = await next;
    assert.notEqual(second, first);
    assert.deepEqual(events, ["started", "restarting: hermes-acp exited unexpectedly (signal SIGKILL)", "restarted"]);
    const s = await second.newSession(ws);
    assert.ok(s.sessionId);
  } finally {
    sup.stop();
  }
});

test("a missing binary or an old one gets a message that says how to fix it", async () => {
  await assert.rejects(checkBinary("/nonexistent/hermes-acp"), (err: unknown) => {
    assert.ok(err instanceof LaunchError);
    assert.equal(err.reason, "missing");
    assert.match(err.message, /make install/);
    assert.match(err.message, /hermes\.path/);
    return true;
  });
  const dir = tempDir();
  const old = join(dir, "hermes-acp");
  writeFileSync(old, "#!/bin/sh\necho 'hermes-acp 0.0.9'\n");
  chmodSync(old, 0o755);
  await assert.rejects(checkBinary(old), (err: unknown) => {
    assert.ok(err instanceof LaunchError);
    assert.equal(err.reason, "too-old");
    assert.match(err.message, /0\.0\.9 is too old/);
    return true;
  });
  assert.match(await checkBinary(bin), /^\d+\.\d+\.\d+/);
});

test("terminals run the command, keep the end of long output, and report the exit", async () => {
  const tm = new TerminalManager();
  const { terminalId } = tm.create({ sessionId: "s", command: "sh", args: ["-c", "echo hello; echo oops >&2; exit 3"] });
  const exit = await tm.waitForExit({ sessionId: "s", terminalId });
  assert.equal(exit.exitCode, 3);
  const out = tm.output({ sessionId: "s", terminalId });
  assert.match(out.output, /hello/);
  assert.match(out.output, /oops/);
  assert.equal(out.truncated, false);
  assert.equal(out.exitStatus?.exitCode, 3);
  const long = tm.create({ sessionId: "s", command: "sh", args: ["-c", "printf 'é%.0s' $(seq 1 100); echo END"], outputByteLimit: 11 });
  await tm.waitForExit({ sessionId: "s", terminalId: long.terminalId });
  const o = tm.output({ sessionId: "s", terminalId: long.terminalId });
  assert.equal(o.truncated, true);
  assert.equal(o.output, "éééEND\n", "the end is kept, cut at a character boundary");
  tm.release({ sessionId: "s", terminalId });
  assert.throws(() => tm.output({ sessionId: "s", terminalId }), /no terminal/);
});

test("a terminal released while its command runs is killed, and its card hears how it ended", { timeout: 120_000 }, async () => {
  const tm = new TerminalManager();
  const changes: string[] = [];
  tm.onChange((id) => changes.push(id));
  const { terminalId } = tm.create({ sessionId: "s", command: "sh", args: ["-c", "echo started; exec sleep 120"] });
  await new Promise<void>((resolve) => tm.live(terminalId)!.onOutput(() => resolve()));
  tm.kill({ sessionId: "s", terminalId });
  tm.release({ sessionId: "s", terminalId });
  const ended = await new Promise<string | null>((resolve) => {
    const check = () => {
      const v = tm.view(terminalId);
      if (v?.exitStatus) resolve(v.exitStatus.signal);
    };
    tm.onChange(check);
    check();
  });
  assert.equal(ended, "SIGTERM");
  assert.match(tm.view(terminalId)!.output, /started/);
  assert.ok(changes.filter((id) => id === terminalId).length >= 2, "told of the release and of the exit");
});

test("after the agent restarts, the chat's sessions are loaded again, prompted or not; one it does not have becomes a new session, with the reason", async () => {
  const ws = tempDir();
  writeFileSync(join(ws, "config.json"), '{"name": "demo"}\n');
  const { host, rec } = editor("accept");
  let started!: (c: AgentConnection) => void;
  let next = new Promise<AgentConnection>((r) => (started = r));
  const sup = new AgentSupervisor(() => launch(ws), host, { started: (c) => started(c), restarting: () => {}, failed: () => {} });
  try {
    await sup.start();
    const first = await next;
    const s = await first.newSession(ws);
    const unprompted = await first.newSession(ws);
    assert.equal((await first.prompt(s.sessionId, "Add the beta tag to config.json")).stopReason, "end_turn");
    next = new Promise<AgentConnection>((r) => (started = r));
    first.child.kill("SIGKILL");
    const second = await next;
    // The replay goes into a fresh transcript.
    rec.chat = new ChatState();
    let loading = 0;
    const r = await restoreSession(second, s.sessionId, ws, [], () => loading++);
    assert.equal(r.kind, "loaded");
    assert.equal(r.sessionId, s.sessionId);
    assert.equal(loading, 1);
    handled("the replay brought the prompt and the tool call back", () => rec.chat.items.some((i) => i.type === "user") && rec.chat.items.some((i) => i.type === "tool"));
    // The next prompt in the restored session works (the script's conversation goes on).
    assert.equal((await second.prompt(s.sessionId, "And again")).stopReason, "end_turn", "no Session not found");
    // A session made but never prompted exists too (#27): it loads, and takes a prompt.
    const u = await restoreSession(second, unprompted.sessionId, ws, []);
    assert.equal(u.kind, "loaded");
    assert.equal(u.sessionId, unprompted.sessionId);
    assert.equal((await second.prompt(unprompted.sessionId, "Add the beta tag to config.json")).stopReason, "end_turn");
    // A session the agent does not have (deleted, another data folder) cannot be loaded: a new one, and why.
    const gone = "0f0e0d0c-0b0a-4909-8807-060504030201";
    const n = await restoreSession(second, gone, ws, []);
    assert.equal(n.kind, "new");
    assert.notEqual(n.sessionId, gone);
    if (n.kind === "new") assert.match(n.why, /^the agent no longer has it/);
    assert.equal((await second.prompt(n.sessionId, "Add the beta tag to config.json")).stopReason, "end_turn");
  } finally {
    sup.stop();
  }
});

test("the extension asks for approvals without a timeout and for the lint diagnostics", () => {
  const p = initializeParams();
  assert.deepEqual(p.clientCapabilities?._meta, { hermes: { diagnostics: true, waitForApprovals: true } });
  assert.equal(p.clientCapabilities?.auth?.terminal, true, "the setup method runs in a VS Code terminal");
  assert.equal(p.clientCapabilities?.terminal, true);
});

test("the extension opts in to questions as forms, session notices and compaction updates, and not to URL questions", () => {
  const p = initializeParams();
  assert.deepEqual(p.clientCapabilities?.elicitation, { form: {} }, "the chat shows forms; it does not open URLs for the agent");
  assert.deepEqual(p.clientCapabilities?.session, { notices: {}, compaction: {} });
});
