#!/usr/bin/env node
// Diagnostics conformance: the official ACP TypeScript SDK plays an editor
// against an agent whose model follows
// cmd/hermes-acp/testdata/e2e/diagnostics.txtar, writing broken and then
// fixed JSON, Go and YAML files, and checks the hermes-acp diagnostics
// extension as an editor receives it.
//
// Usage:
//   node conformance/diagnostics.mjs AGENT [ARGS...]
//
// The agent inherits this process's environment; it must talk to a model
// that plays the scenario (cmd/hermes-acp's TestTypeScriptSDKDiagnostics
// starts a fake one). Environment:
//   CONFORMANCE_SCENARIO    the txtar scenario (default: the one above)
//   CONFORMANCE_WORKDIR     an empty folder for the workspace (default: a
//                           temporary folder, removed afterwards)
//   CONFORMANCE_TRANSCRIPT  a file to append every JSON-RPC line to
//   CONFORMANCE_TIMEOUT_MS  bound on each step (default 20000)
//   CONFORMANCE_DIAGNOSTICS "off": play an editor that does not ask for the
//                           extension (no clientCapabilities._meta.hermes,
//                           no handler for it), which must receive no
//                           _hermes/* notification and still see the lint
//                           in the permission request, the completing
//                           update and the model's result
//
// The editor advertises fs.readTextFile/writeTextFile (buffers in memory,
// reads falling back to the disk) and clientCapabilities._meta.hermes.
// diagnostics (it asks for the extension, as our VS Code extension does),
// and allows every edit. For each step it
// checks: the permission request carries toolCall._meta.hermes.lint with the
// step's status and counts and a text line with the lint summary ("this edit
// introduces 1 syntax error"); the editor receives fs/write_text_file with
// exactly the content; exactly one _hermes/publishDiagnostics for the file's
// file:// URI arrives, through the SDK's handler for the extension method,
// with a growing version and exactly the expected LSP diagnostics (0-based
// line, UTF-16 character, severity 1, source "hermes-lint", code), an empty
// list when the file is fixed; the completing tool_call_update carries the
// same set in _meta.hermes.lint; and the model's reply quotes a tool result
// with lint.status and "(line L, column C)" for each diagnostic.
//
// The SDK delivers extension notifications to a handler registered with
// onNotification(method, parser, handler); the parser here validates the
// LSP shape with zod. Exit status: 0 on success, 1 on any failure, 2 for
// usage errors.

import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { pathToFileURL } from "node:url";
import * as acp from "@agentclientprotocol/sdk";
import * as z from "zod";
import {
  check,
  fail,
  failWith,
  inOrder,
  isNotification,
  loadScenario,
  note,
  playTurn,
  report,
  sdkVersion,
  show,
  startAgent,
  step,
  stopAgent,
} from "./lib.mjs";

const method = "_hermes/publishDiagnostics";

// The notification's params as DESIGN.md defines them: LSP's Diagnostic
// with hermes-lint's fields.
const position = z.object({ line: z.number().int().nonnegative(), character: z.number().int().nonnegative() });
const diagnostic = z.object({
  range: z.object({ start: position, end: position }),
  severity: z.number().int().min(1).max(4),
  source: z.literal("hermes-lint"),
  code: z.union([z.string(), z.number()]),
  message: z.string().min(1),
});
const publishParams = z.object({
  sessionId: z.string().min(1),
  uri: z.string().startsWith("file://"),
  version: z.number().int().optional(),
  diagnostics: z.array(diagnostic),
});

// Published collects the notifications the SDK delivered, in order, and
// lets a step wait for the n-th one.
class Published {
  constructor() {
    this.list = [];
    this.waiters = [];
  }

  add(params) {
    this.list.push(params);
    this.waiters = this.waiters.filter(({ n, resolve }) => {
      if (this.list.length < n) return true;
      resolve();
      return false;
    });
  }

  // count resolves once n notifications have been delivered.
  count(n) {
    if (this.list.length >= n) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push({ n, resolve }));
  }
}

function editorApp(ws, buffers, published, record, optIn) {
  const app = acp
    .client({ name: "hermes-acp-diagnostics" })
    .onRequest(acp.methods.client.session.requestPermission, ({ params }) => {
      record.permissions.push(params);
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
      record.writes.push(params);
      buffers.set(params.path, params.content);
      return {};
    });
  // An editor that does not know the extension registers no handler: the
  // SDK would report any notification it then received.
  if (!optIn) return app;
  return app
    .onNotification(
      method,
      (raw) => {
        const r = publishParams.safeParse(raw);
        if (!r.success) fail(`${method}: params do not match the LSP shape: ${r.error.message}\n    params: ${show(raw)}`);
        return raw;
      },
      ({ params }) => {
        published.add(params);
      },
    );
}

const update = (e) => e?.msg?.params?.update;

// checkDiagnostics compares a published set with the step's expectation.
function checkDiagnostics(where, got, want) {
  if (!check(Array.isArray(got) && got.length === want.length, `${where}: ${got?.length} diagnostics ${show(got)}, want ${want.length}: ${show(want)}`)) {
    return;
  }
  want.forEach((w, i) => {
    const d = got[i];
    const start = d.range?.start;
    check(
      start?.line === w.line && start?.character === w.character,
      `${where}: diagnostic ${i} starts at ${show(start)}, want {"line":${w.line},"character":${w.character}} (0-based line, UTF-16 character)`,
    );
    check(
      d.range.end.line > w.line || (d.range.end.line === w.line && d.range.end.character >= w.character),
      `${where}: diagnostic ${i} ends at ${show(d.range.end)}, before its start`,
    );
    check(d.severity === 1, `${where}: diagnostic ${i} severity ${show(d.severity)}, want 1 (error)`);
    check(d.source === "hermes-lint", `${where}: diagnostic ${i} source ${show(d.source)}, want "hermes-lint"`);
    check(d.code === w.code, `${where}: diagnostic ${i} code ${show(d.code)}, want ${show(w.code)}`);
    check(typeof d.message === "string" && d.message !== "", `${where}: diagnostic ${i} has no message`);
  });
}

// checkLintMeta checks a _meta.hermes.lint object against the step.
function checkLintMeta(where, lint, st) {
  if (!check(lint !== undefined && lint !== null, `${where}: no _meta.hermes.lint`)) return;
  for (const k of ["status", "introduced", "preexisting"]) {
    check(lint[k] === st.lint[k], `${where}: _meta.hermes.lint.${k} ${show(lint[k])}, want ${show(st.lint[k])}`);
  }
}

async function playStep(session, wire, st, ctx) {
  const { ws, files, published, record, versions, optIn } = ctx;
  const abs = join(ws, st.args.path);
  const uri = pathToFileURL(abs).href;
  const content = files.get(st.contentFile);
  const callId = `call_${st.id}`;
  const name = st.id;
  const seen = published.list.length;
  const permissionsBefore = record.permissions.length;
  const writesBefore = record.writes.length;

  const turn = await playTurn(session, wire, st.id, st.prompt);
  check(turn.stopReason === "end_turn", `${name}: stopReason ${show(turn.stopReason)}, want "end_turn"`);

  // The permission request shows the lint of the proposed content.
  const asked = turn.requests("session/request_permission");
  const permissions = record.permissions.slice(permissionsBefore);
  if (check(asked.length === 1 && permissions.length === 1, `${name}: ${asked.length} permission requests on the wire (${permissions.length} through the SDK), want 1`)) {
    const tc = permissions[0].toolCall;
    checkLintMeta(`${name}: the permission request's toolCall`, tc?._meta?.hermes?.lint, st);
    const texts = (tc?.content ?? []).filter((c) => c.type === "content" && c.content?.type === "text").map((c) => c.content.text);
    check(
      texts.some((t) => t.includes(st.permissionSummary)),
      `${name}: the permission request's text ${show(texts)} does not say ${show(st.permissionSummary)}`,
    );
  }

  // The editor wrote exactly the content.
  const writes = record.writes.slice(writesBefore);
  if (check(writes.length === 1, `${name}: ${writes.length} fs/write_text_file, want 1`)) {
    check(writes[0].path === abs && writes[0].content === content, `${name}: fs/write_text_file ${show(writes[0])}, want path ${show(abs)} and content ${show(content)}`);
  }

  const onWire = turn.notifications(method);
  if (!optIn) {
    // Nothing of ours on the wire; the lint is in the completing update.
    const ours = turn.entries.filter((e) => e.from === "agent" && e.msg?.method?.startsWith("_hermes/"));
    check(ours.length === 0, `${name}: ${ours.length} _hermes/* notifications to an editor that did not ask for them: ${show(ours.map((e) => e.msg.method))}`);
    const final = turn.finalUpdate(callId);
    check(update(final)?.status === "completed", `${name}: the tool call ended ${show(update(final)?.status)}, want "completed"`);
    const lint = update(final)?._meta?.hermes?.lint;
    checkLintMeta(`${name}: the completing tool_call_update`, lint, st);
    const files = lint?.diagnostics ?? [];
    if (st.diagnostics.length > 0 && check(files.length === 1 && files[0].uri === uri, `${name}: the completing _meta.hermes.lint.diagnostics names ${show(files.map((f) => f.uri))}, want [${show(uri)}]`)) {
      checkDiagnostics(`${name}: the completing update's diagnostics`, files[0].diagnostics, st.diagnostics);
    }
  } else {
  // Exactly one notification for the file, through the SDK and on the wire.
  check(onWire.length === 1, `${name}: ${onWire.length} ${method} on the wire during the turn, want 1`);
  await step(`${name}: ${method} through the SDK's handler`, published.count(seen + 1));
  const mine = published.list.slice(seen);
  if (check(mine.length === 1, `${name}: the SDK delivered ${mine.length} ${method}, want 1`)) {
    const p = mine[0];
    check(p.sessionId === session.sessionId, `${name}: ${method} sessionId ${show(p.sessionId)}, want ${show(session.sessionId)}`);
    check(p.uri === uri, `${name}: ${method} uri ${show(p.uri)}, want ${show(uri)}`);
    if (check(Number.isInteger(p.version), `${name}: ${method} has no version`)) {
      const prev = versions.get(uri);
      check(prev === undefined || p.version > prev, `${name}: ${method} version ${p.version} after ${prev}, want it to grow`);
      versions.set(uri, p.version);
    }
    checkDiagnostics(`${name}: ${method}`, p.diagnostics, st.diagnostics);

    // The completing update carries the same set.
    const final = turn.finalUpdate(callId);
    check(update(final)?.status === "completed", `${name}: the tool call ended ${show(update(final)?.status)}, want "completed"`);
    const lint = update(final)?._meta?.hermes?.lint;
    checkLintMeta(`${name}: the completing tool_call_update`, lint, st);
    if (lint) {
      const files = lint.diagnostics ?? [];
      check(
        files.length === 1 && files[0].uri === uri,
        `${name}: the completing _meta.hermes.lint.diagnostics names ${show(files.map((f) => f.uri))}, want [${show(uri)}]`,
      );
      check(
        show(files[0]?.diagnostics) === show(p.diagnostics),
        `${name}: the completing update's diagnostics ${show(files[0]?.diagnostics)} differ from the published ${show(p.diagnostics)}`,
      );
    }
    inOrder(name, [
      ["session/request_permission", asked[0]],
      ["fs/write_text_file", turn.requests("fs/write_text_file")[0]],
      [method, onWire[0]],
      ["the completing tool_call_update", final],
      ["the session/prompt response", turn.response],
    ]);
  }
  }

  // The model read the lint.
  const text = turn.text();
  const said = `${st.id} done; the tool said: `;
  if (check(text.includes(said), `${name}: the model's reply ${show(text)} does not quote the tool result`)) {
    const result = text.slice(text.indexOf(said) + said.length);
    check(result.includes(`"status":"${st.lint.status}"`), `${name}: the tool result ${show(result)} lacks lint status ${show(st.lint.status)}`);
    for (const d of st.diagnostics) {
      const at = `(line ${d.line + 1}, column ${d.character + 1})`;
      check(result.includes(at), `${name}: the tool result ${show(result)} does not give the position ${at}`);
    }
  }
  note(`${name}: ${st.diagnostics.length} diagnostic(s) published for ${st.args.path}, lint ${st.lint.status}`);
}

async function main() {
  const [command, ...args] = process.argv.slice(2);
  if (!command) {
    process.stderr.write("usage: node conformance/diagnostics.mjs AGENT [ARGS...]\n");
    process.exit(2);
  }
  const scenarioPath =
    process.env.CONFORMANCE_SCENARIO || new URL("../cmd/hermes-acp/testdata/e2e/diagnostics.txtar", import.meta.url);
  const given = process.env.CONFORMANCE_WORKDIR;
  const workdir = given || mkdtempSync(join(tmpdir(), "hermes-acp-diagnostics-"));
  let agentProc;
  try {
    const { scenario, files } = loadScenario(scenarioPath);
    const ws = join(workdir, "ws");
    mkdirSync(ws, { recursive: true });
    for (const [name, data] of files) {
      if (!name.startsWith("disk/")) continue;
      const p = join(ws, name.slice("disk/".length));
      mkdirSync(dirname(p), { recursive: true });
      writeFileSync(p, data);
    }
    const optIn = process.env.CONFORMANCE_DIAGNOSTICS !== "off";
    const ctx = { ws, files, published: new Published(), record: { permissions: [], writes: [] }, versions: new Map(), buffers: new Map(), optIn };
    agentProc = await startAgent(command, args, { transcript: process.env.CONFORMANCE_TRANSCRIPT, label: "fs" });
    await editorApp(ws, ctx.buffers, ctx.published, ctx.record, optIn).connectWith(agentProc.stream, async (agent) => {
      const init = await step(
        "initialize",
        agent.request(acp.methods.agent.initialize, {
          protocolVersion: acp.PROTOCOL_VERSION,
          clientCapabilities: {
            fs: { readTextFile: true, writeTextFile: true },
            terminal: false,
            ...(optIn ? { _meta: { hermes: { diagnostics: true } } } : {}),
          },
          clientInfo: { name: "hermes-acp-diagnostics", version: sdkVersion },
        }),
      );
      check(init.agentCapabilities?._meta?.hermes?.diagnostics === true, "initialize: agentCapabilities._meta.hermes.diagnostics is not true");
      const session = await step("session/new", agent.buildSession(ws).start());
      try {
        for (const st of scenario.steps) await playStep(session, agentProc.wire, st, ctx);
      } finally {
        session.dispose();
      }
    });
    const total = agentProc.wire.entries.filter((e) => e.from === "agent" && isNotification(e, method)).length;
    const want = optIn ? scenario.steps.length : 0;
    check(total === want, `${total} ${method} in the whole run, want ${optIn ? "one per step" : "none"} (${want})`);
  } catch (err) {
    failWith(err);
  } finally {
    if (agentProc) await stopAgent(agentProc);
    if (!given) rmSync(workdir, { recursive: true, force: true });
  }
  report(process.env.CONFORMANCE_DIAGNOSTICS === "off" ? "diagnostics (not asked for)" : "diagnostics", command);
}

await main();
