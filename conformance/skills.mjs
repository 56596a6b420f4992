#!/usr/bin/env node
// Skills conformance (issue #14): the official ACP TypeScript SDK plays an
// editor while the model (scripted by cmd/hermes-acp's
// TestTypeScriptSDKSkills) creates a skill with skill_manage and, in a later
// session of another agent process sharing $HERMES_HOME, lists and views it.
//
// Usage:
//   node conformance/skills.mjs AGENT [ARGS...]
//
// Environment:
//   SKILLS_WS               the session's cwd
//   SKILLS_PHASE            "create" or "use"
//   SKILLS_HOME             $HERMES_HOME of the agent (to check diff paths)
//   CONFORMANCE_TRANSCRIPT  a file to append every JSON-RPC line to
//   CONFORMANCE_TIMEOUT_MS  bound on each step (default 20000)
//
// Prompts (the model's replies are the Go test's):
//   create phase:
//     "skill create": skill_manage create of deploy-checklist (category
//       devops), call id call_skill_create. The editor gets one
//       session/request_permission whose tool call carries the diff of the
//       new $SKILLS_HOME/skills/devops/deploy-checklist/SKILL.md (oldText
//       null), answers "allow", and sees the call completed, kind "edit",
//       titled "skill create: deploy-checklist"; the model then says
//       "create done".
//     "skill reject": skill_manage create of rejected-skill; the editor
//       answers "reject" and sees the call failed; the model says
//       "reject done".
//   use phase:
//     "skill use": skills_list (call_skills_list), then skill_view of
//       deploy-checklist (call_skill_view), then "use done". Both calls are
//       kind "read", completed, titled "skills list" and
//       "skill view (deploy-checklist)"; the view's completion never shows
//       the skill's body.
//   poisoned phase (issue 25; the Go test has written a project skill
//   "helper" whose description is a prompt injection, as any command could):
//     "skill poisoned": the reply starts with the notice (as ⚠️ text: this
//       editor takes no notice updates) that helper was left out, then
//       skill_view of helper (call_skill_poisoned), which fails naming the
//       pattern, then "poisoned done".
//     "skill inject": skill_manage create of sneaky whose description is an
//       injection (call_skill_inject): refused before any permission
//       request, naming the pattern; then "inject done".
//     "/context": reports the skill left out, its SKILL.md and findings.
//
// Exit status: 0 on success, 1 on any failure, 2 for usage errors.

import * as acp from "@agentclientprotocol/sdk";
import { agentText, check, failWith, note, report, runTurn, sdkVersion, show, startAgent, step, stopAgent } from "./lib.mjs";

// BODY_MARK is a line of the skill's body the editor must never be shown
// by the view's completion (the Go test writes it into the skill).
const BODY_MARK = "Run the smoke tests against staging";

function calls(updates, id) {
  const mine = updates.filter((u) => (u.sessionUpdate === "tool_call" || u.sessionUpdate === "tool_call_update") && u.toolCallId === id);
  const start = mine.find((u) => u.sessionUpdate === "tool_call");
  const end = mine.filter((u) => u.sessionUpdate === "tool_call_update" && (u.status === "completed" || u.status === "failed")).at(-1);
  return { mine, start, end };
}

function checkCall(name, updates, id, { kind, title, status }) {
  const { mine, start, end } = calls(updates, id);
  if (!check(start !== undefined, `${name}: no tool_call for ${id}; updates ${show(updates.map((u) => u.sessionUpdate))}`)) return { mine };
  check(start.kind === kind, `${name}: ${id} kind ${show(start.kind)}, want ${show(kind)}`);
  check(start.title === title, `${name}: ${id} title ${show(start.title)}, want ${show(title)}`);
  if (check(end !== undefined, `${name}: ${id} never ended: ${show(mine)}`)) {
    check(end.status === status, `${name}: ${id} ended ${show(end.status)}, want ${show(status)}: ${show(end)}`);
  }
  return { mine, start, end };
}

async function main() {
  const [command, ...args] = process.argv.slice(2);
  const ws = process.env.SKILLS_WS;
  const home = process.env.SKILLS_HOME;
  const phase = process.env.SKILLS_PHASE;
  if (!command || !ws || !home || !["create", "use", "poisoned"].includes(phase)) {
    process.stderr.write("usage: SKILLS_WS=DIR SKILLS_HOME=DIR SKILLS_PHASE=create|use|poisoned node conformance/skills.mjs AGENT [ARGS...]\n");
    process.exit(2);
  }
  const permissions = [];
  let answer = "";
  const agentProc = await startAgent(command, args, { transcript: process.env.CONFORMANCE_TRANSCRIPT, label: `skills ${phase}` });
  try {
    const app = acp.client({ name: "hermes-acp-skills" }).onRequest(acp.methods.client.session.requestPermission, ({ params }) => {
      permissions.push(params);
      if (!answer) {
        check(false, `unexpected session/request_permission for ${show(params.toolCall?.title)}`);
        return { outcome: { outcome: "selected", optionId: "reject" } };
      }
      return { outcome: { outcome: "selected", optionId: answer } };
    });
    await app.connectWith(agentProc.stream, async (agent) => {
      await step(
        "initialize",
        agent.request(acp.methods.agent.initialize, {
          protocolVersion: acp.PROTOCOL_VERSION,
          clientCapabilities: { fs: { readTextFile: false, writeTextFile: false }, terminal: false },
          clientInfo: { name: "hermes-acp-skills", version: sdkVersion },
        }),
      );
      const session = await step("session/new", agent.buildSession(ws).start());
      try {
        if (phase === "create") {
          // An approved create: the permission request shows the diff.
          answer = "allow";
          let turn = await runTurn(session, "skill create", "skill create");
          check(turn.stopReason === "end_turn", `skill create: stopReason ${show(turn.stopReason)}`);
          checkCall("skill create", turn.updates, "call_skill_create", { kind: "edit", title: "skill create: deploy-checklist", status: "completed" });
          const skillMD = `${home}/skills/devops/deploy-checklist/SKILL.md`;
          if (check(permissions.length === 1, `skill create: ${permissions.length} permission requests, want 1`)) {
            const tc = permissions[0].toolCall;
            check(tc.toolCallId === "call_skill_create", `skill create: permission for ${show(tc.toolCallId)}`);
            const diffs = (tc.content ?? []).filter((c) => c.type === "diff");
            if (check(diffs.length === 1, `skill create: permission content ${show(tc.content)}, want one diff`)) {
              check(diffs[0].path === skillMD, `skill create: diff path ${show(diffs[0].path)}, want ${show(skillMD)}`);
              check(diffs[0].oldText === null || diffs[0].oldText === undefined, `skill create: diff oldText ${show(diffs[0].oldText)}, want none`);
              check(diffs[0].newText.includes(BODY_MARK) && diffs[0].newText.startsWith("---\nname: deploy-checklist\n"), `skill create: diff newText ${show(diffs[0].newText)}`);
            }
            check(show(permissions[0].options.map((o) => o.optionId)) === show(["allow", "allow_session", "reject"]), `skill create: options ${show(permissions[0].options)}`);
          }
          check(agentText(turn.updates).includes("create done"), `skill create: agent text ${show(agentText(turn.updates))}`);
          note(`skill create: approved through session/request_permission with the diff of ${skillMD}`);

          // A rejected create: failed, nothing written.
          answer = "reject";
          turn = await runTurn(session, "skill reject", "skill reject");
          checkCall("skill reject", turn.updates, "call_skill_reject", { kind: "edit", title: "skill create: rejected-skill", status: "failed" });
          check(permissions.length === 2, `skill reject: ${permissions.length} permission requests in all, want 2`);
          check(agentText(turn.updates).includes("reject done"), `skill reject: agent text ${show(agentText(turn.updates))}`);
          note("skill reject: the rejected create ended failed");
        } else if (phase === "poisoned") {
          let turn = await runTurn(session, "skill poisoned", "skill poisoned");
          // The session's first prompt says, in the chat (this editor takes
          // no notice updates), which skill the threat scan refused.
          const said = agentText(turn.updates);
          const noticeAt = said.indexOf("⚠️ 1 skill was left out of this session");
          check(noticeAt >= 0 && noticeAt < said.indexOf("poisoned done") && said.includes("`helper`") && said.includes("prompt_injection"),
            `skill poisoned: the first reply does not begin with the refused skill's notice: ${show(said.slice(0, 400))}`);
          check(!turn.updates.some((u) => u.sessionUpdate === "notice"), "skill poisoned: a notice update to an editor that did not opt in");
          const view = checkCall("skill poisoned", turn.updates, "call_skill_poisoned", { kind: "read", title: "skill view (helper)", status: "failed" });
          check(show(view.end?.content ?? []).includes("prompt_injection"), `skill poisoned: the failed view does not name the pattern: ${show(view.end?.content)}`);
          check(agentText(turn.updates).includes("poisoned done"), `skill poisoned: agent text ${show(agentText(turn.updates))}`);
          turn = await runTurn(session, "skill inject", "skill inject");
          const inject = checkCall("skill inject", turn.updates, "call_skill_inject", { kind: "edit", title: "skill create: sneaky", status: "failed" });
          check(show(inject.end?.content ?? []).includes("threat pattern 'prompt_injection'"), `skill inject: the refusal does not name the pattern: ${show(inject.end?.content)}`);
          check(permissions.length === 0, `skill inject: ${permissions.length} permission requests for a refused create, want none`);
          turn = await runTurn(session, "context", "/context");
          const ctx = agentText(turn.updates);
          check(ctx.includes("Skills left out (possible prompt injection): 1") && ctx.includes("`helper`") && ctx.includes("/.hermes/skills/helper/SKILL.md") && ctx.includes("prompt_injection"),
            `/context does not report the skill left out: ${show(ctx)}`);
          note("poisoned: the project skill with an injected description was refused by skill_view and reported by /context; a poisoned create was refused without asking");
        } else {
          const turn = await runTurn(session, "skill use", "skill use");
          check(turn.stopReason === "end_turn", `skill use: stopReason ${show(turn.stopReason)}`);
          const list = checkCall("skill use", turn.updates, "call_skills_list", { kind: "read", title: "skills list", status: "completed" });
          check(show(list.end?.content ?? []).includes("deploy-checklist"), `skill use: the listing's completion does not name the skill: ${show(list.end?.content)}`);
          const view = checkCall("skill use", turn.updates, "call_skill_view", { kind: "read", title: "skill view (deploy-checklist)", status: "completed" });
          const shown = show(view.mine ?? []);
          check(!shown.includes(BODY_MARK), `skill use: the view's updates echo the skill's body: ${shown}`);
          check(show(view.end?.content ?? []).includes("Loaded skill"), `skill use: the view's completion ${show(view.end?.content)}`);
          check(permissions.length === 0, `skill use: ${permissions.length} permission requests, want none`);
          check(agentText(turn.updates).includes("use done"), `skill use: agent text ${show(agentText(turn.updates))}`);
          note("skill use: listed and viewed in a new session of a new process");
        }
      } finally {
        session.dispose();
      }
    });
  } catch (err) {
    failWith(err);
  } finally {
    await stopAgent(agentProc);
  }
  report(`skills conformance (${phase})`, command);
}

await main();
