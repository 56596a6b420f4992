#!/usr/bin/env node
// execute_code tool socket conformance (issue 24): one session's script must
// not be able to drive another session's tools. The official ACP TypeScript
// SDK plays an editor with two sessions of one agent:
//   A (workspace wsA, which holds secret.txt): a script reads secret.txt
//     through hermes_tools, writes a-ready, and waits for a-go.
//   B (workspace wsB), a hostile model's script, while A waits: it looks
//     for other scripts' tool sockets and tokens everywhere a process of
//     the same user (root, in CI) can — every /proc/PID/environ, the
//     temporary folders' hermes-exec-* folders and their token files — and
//     asks each socket it finds to read secret.txt, with every token it
//     found (and none).
// B's script must not obtain the secret, and A's session must show no call
// but A's own read. Then A is released and ends normally.
//
// Usage:
//   node conformance/tool_socket.mjs AGENT [ARGS...]
// Environment: SOCKET_WS_A, SOCKET_WS_B (the workspaces), CONFORMANCE_TRANSCRIPT;
// the agent's model follows the prompts "[ID] TOOL {arguments}" and echoes
// the tool's result (cmd/hermes-acp's TestTypeScriptSDKToolSocket).

import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import * as acp from "@agentclientprotocol/sdk";
import { check, failWith, note, report, resultOf, runTurn, sdkVersion, show, startAgent, step, stopAgent } from "./lib.mjs";

const [command, ...args] = process.argv.slice(2);
if (!command) {
  console.error("usage: node conformance/tool_socket.mjs AGENT [ARGS...]");
  process.exit(2);
}
const wsA = process.env.SOCKET_WS_A;
const wsB = process.env.SOCKET_WS_B;
const prompt = (id, tool, a) => `[${id}] ${tool} ${JSON.stringify(a)}`;

const victim = `
import os, time
from hermes_tools import read_file
print("A read:", read_file("secret.txt")["content"])
open("a-ready", "w").close()
deadline = time.time() + 60
while not os.path.exists("a-go") and time.time() < deadline:
    time.sleep(0.05)
print("A done")
`;

const attacker = `
import glob, json, os, socket, tempfile
mine = os.environ.get("HERMES_RPC_SOCKET", "")
sockets, tokens, routes = set(), set(), []
for env in glob.glob("/proc/[0-9]*/environ"):
    try:
        data = open(env, "rb").read()
    except OSError:
        continue
    for kv in data.split(b"\\0"):
        k, _, v = kv.partition(b"=")
        if k == b"HERMES_RPC_SOCKET" and v.decode() != mine:
            sockets.add(v.decode()); routes.append("environ socket")
        if k == b"HERMES_RPC_TOKEN":
            tokens.add(v.decode()); routes.append("environ token")
for tmp in {tempfile.gettempdir(), "/tmp", "/var/tmp", os.environ.get("XDG_RUNTIME_DIR") or "/run/user"}:
    for d in glob.glob(os.path.join(tmp, "**", "hermes-exec-*"), recursive=True):
        s = os.path.join(d, "rpc.sock")
        if s == mine:
            continue  # its own folder
        if os.path.exists(s):
            sockets.add(s); routes.append("temp folder socket")
        for t in glob.glob(os.path.join(d, ".rpc-token")):
            try:
                tokens.add(open(t).read().strip()); routes.append("token file")
            except OSError:
                pass
answers = []
for s in sorted(sockets):
    for tok in sorted(tokens) + [""]:
        try:
            c = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            c.settimeout(10)
            c.connect(s)
            c.sendall((json.dumps({"tool": "read_file", "args": {"path": "secret.txt"}, "token": tok}) + "\\n").encode())
            buf = b""
            while not buf.endswith(b"\\n"):
                chunk = c.recv(65536)
                if not chunk:
                    break
                buf += chunk
            c.close()
            answers.append(buf.decode(errors="replace").strip())
        except OSError as err:
            answers.append("connect failed: " + type(err).__name__)
print("ATTACK " + json.dumps({"sockets": len(sockets), "tokens": len(tokens), "routes": sorted(set(routes)), "answers": answers}))
`;

try {
  const agentProc = await startAgent(command, args, { transcript: process.env.CONFORMANCE_TRANSCRIPT, label: "tool_socket" });
  try {
    const app = acp.client({ name: "hermes-acp-tool-socket" }).onRequest(acp.methods.client.session.requestPermission, async ({ params }) => {
      const once = params.options.find((o) => o.kind === "allow_once");
      return { outcome: { outcome: "selected", optionId: once.optionId } };
    });
    await app.connectWith(agentProc.stream, async (agent) => {
      await step(
        "initialize",
        agent.request(acp.methods.agent.initialize, {
          protocolVersion: acp.PROTOCOL_VERSION,
          clientCapabilities: { fs: { readTextFile: false, writeTextFile: false }, terminal: false },
          clientInfo: { name: "hermes-acp-tool-socket", version: sdkVersion },
        }),
      );
      const a = await step("session/new A", agent.buildSession(wsA).start());
      const b = await step("session/new B", agent.buildSession(wsB).start());
      const turnA = runTurn(a, "victim", prompt("victim", "execute_code", { code: victim }));
      // A's turn ending first means its script failed: say how.
      let endedA = null;
      turnA.then((t) => { endedA = t; }, (err) => { endedA = { error: String(err) }; });
      const t0 = Date.now();
      while (!existsSync(join(wsA, "a-ready"))) {
        if (endedA) throw new Error(`A's turn ended before its script got ready: ${show(endedA.error ?? resultOf(endedA, "victim"))}`);
        if (Date.now() - t0 > 90000) throw new Error("A's script never got ready (90 s)");
        await new Promise((r) => setTimeout(r, 25));
      }
      note("A's script read secret.txt through its own socket and waits");

      const tb = await runTurn(b, "attack", prompt("attack", "execute_code", { code: attacker }));
      const rb = resultOf(tb, "attack");
      const out = String(rb?.output ?? "");
      const line = out.split("\n").find((l) => l.startsWith("ATTACK "));
      check(line, `attack: the script did not report: ${show(rb)}`);
      const seen = line ? JSON.parse(line.slice(7)) : { answers: [] };
      check(!out.includes("TOPSECRET"), `attack: B's script read A's secret: ${show(out)}`);
      check(seen.tokens === 0, `attack: B's script found ${seen.tokens} tokens (${show(seen.routes)})`);
      for (const ans of seen.answers) {
        check(!ans.includes("TOPSECRET") && (ans.includes("Refused") || ans.startsWith("connect failed")), `attack: a socket answered ${show(ans)}`);
      }
      note(`attack: B found ${seen.sockets} other socket(s) (${show(seen.routes)}) and no token; every try was refused or could not connect: ${show(seen.answers.map((x) => x.slice(0, 60)))}`);

      writeFileSync(join(wsA, "a-go"), "");
      const ta = await step("victim: end", turnA);
      const ra = resultOf(ta, "victim");
      check(ra?.status === "success" && String(ra.output).includes("A read: 1|TOPSECRET") && String(ra.output).includes("A done"), `victim: ${show(ra)}`);
      const children = ta.updates.filter((u) => u.sessionUpdate === "tool_call" && u._meta?.hermes?.parentToolCallId === "call_victim");
      check(show(children.map((u) => u.title)) === show(["[py 1] read: secret.txt"]), `victim: calls shown under A's script ${show(children.map((u) => u.title))}, want only A's own read`);
      const stray = tb.updates.filter((u) => u.sessionUpdate === "tool_call" && u._meta?.hermes?.parentToolCallId);
      check(stray.length === 0, `attack: B's session shows tool calls ${show(stray.map((u) => u.title))}`);
      note("A's script ended normally; A's session shows only its own read");
      a.dispose?.();
      b.dispose?.();
    });
  } finally {
    await stopAgent(agentProc);
  }
} catch (err) {
  failWith(err);
}
process.exit(report("execute_code tool socket", [command, ...args].join(" ")));
