// The approval state machine (core/approvals.ts): one answer wins whichever
// surface gives it, every surface hears about it, and a request ends only
// by an answer, a cancelled turn or the agent withdrawing it — never by
// time.
import assert from "node:assert/strict";
import { test } from "node:test";
import type * as acp from "@agentclientprotocol/sdk";
import { ApprovalBroker, describeAnswer, type Approval } from "../src/core/approvals";

const commandRequest = (sessionId = "s1", toolCallId = "call_1"): acp.RequestPermissionRequest => ({
  sessionId,
  toolCall: { toolCallId, title: "recursive delete: rm -rf build", kind: "execute", rawInput: { command: "rm -rf build", description: "recursive delete" } },
  options: [
    { optionId: "allow_once", name: "Allow once", kind: "allow_once" },
    { optionId: "allow_session", name: "Allow for session", kind: "allow_always" },
    { optionId: "deny", name: "Deny", kind: "reject_once" },
  ],
});

const editRequest = (): acp.RequestPermissionRequest => ({
  sessionId: "s1",
  toolCall: { toolCallId: "call_2", title: "Approve edit: a.txt", kind: "edit", content: [{ type: "diff", path: "/ws/a.txt", oldText: "a\n", newText: "b\n" }] },
  options: [
    { optionId: "allow", name: "Allow edit", kind: "allow_once" },
    { optionId: "allow_session", name: "Allow all edits this session", kind: "allow_always" },
    { optionId: "reject", name: "Reject", kind: "reject_once" },
  ],
});

function record(b: ApprovalBroker): string[] {
  const seen: string[] = [];
  b.onChange((a: Approval) => seen.push(`${a.id}:${a.state}`));
  return seen;
}

test("a request waits until answered; the first answer wins and is what the agent reads", async () => {
  const b = new ApprovalBroker();
  const seen = record(b);
  const res = b.request(commandRequest());
  const [a] = b.waiting();
  assert.equal(a.state, "waiting");
  assert.equal(a.plan.kind, "command");
  assert.equal(describeAnswer(a), "Waiting for you");
  assert.equal(b.answer(a.id, "nosuch", "chat"), false, "an option that was not offered is no answer");
  assert.equal(b.answer(a.id, "allow_session", "chat"), true);
  assert.equal(b.answer(a.id, "deny", "notification"), false, "a later answer from another surface loses");
  assert.deepEqual(await res, { outcome: { outcome: "selected", optionId: "allow_session" } });
  assert.equal(a.state, "answered");
  assert.deepEqual(a.answer, { optionId: "allow_session", label: "Allow for session", kind: "allow_always", via: "chat" });
  assert.equal(describeAnswer(a), "Allow for session · in the chat");
  assert.deepEqual(seen, ["approval_1:waiting", "approval_1:answered"], "surfaces hear of the request and of its answer, once each");
  assert.deepEqual(b.waiting(), []);
});

test("an edit answered in the diff editor selects the agent's options; the chat card hears of it", async () => {
  const b = new ApprovalBroker();
  const seen = record(b);
  const accept = b.request(editRequest());
  const a = b.waiting()[0];
  assert.equal(a.plan.kind, "edit");
  assert.equal(b.answerEdit(a.id, "accept", "diff"), true);
  assert.deepEqual(await accept, { outcome: { outcome: "selected", optionId: "allow" } });
  assert.equal(describeAnswer(a), "Allow edit · in the diff editor");
  assert.equal(b.answerEdit(a.id, "reject", "chat"), false);
  assert.deepEqual(seen, ["approval_1:waiting", "approval_1:answered"]);

  const reject = b.request(editRequest());
  assert.equal(b.answerEdit(b.waiting()[0].id, "reject", "notification"), true);
  assert.deepEqual(await reject, { outcome: { outcome: "selected", optionId: "reject" } });
  const all = b.request(editRequest());
  assert.equal(b.answerEdit(b.waiting()[0].id, "acceptAll", "chat"), true);
  assert.deepEqual(await all, { outcome: { outcome: "selected", optionId: "allow_session" } });
  assert.equal(b.answerEdit(b.latestFor("s1", "call_1")?.id ?? "none", "accept", "diff"), false, "answerEdit is only for edits");
});

test("cancelling a turn answers its waiting requests cancelled, and only its session's", async () => {
  const b = new ApprovalBroker();
  const mine = b.request(commandRequest("s1", "c1"));
  const other = b.request(commandRequest("s2", "c2"));
  b.cancelSession("s1");
  assert.deepEqual(await mine, { outcome: { outcome: "cancelled" } });
  const a = b.latestFor("s1", "c1")!;
  assert.equal(a.state, "withdrawn");
  assert.equal(describeAnswer(a), "The turn was cancelled.");
  assert.equal(b.answer(a.id, "allow_once", "chat"), false, "a withdrawn request takes no answer");
  assert.equal(b.waiting("s2").length, 1);
  b.withdrawAll("The agent stopped.");
  assert.deepEqual(await other, { outcome: { outcome: "cancelled" } });
  assert.equal(describeAnswer(b.latestFor("s2", "c2")!), "The agent stopped.");
});

test("the agent withdrawing a request ($/cancel_request) ends it; nothing else does", async () => {
  const b = new ApprovalBroker();
  const ac = new AbortController();
  const res = b.request(commandRequest(), ac.signal);
  let settled = false;
  void res.then(() => (settled = true));
  // However long it waits, it waits: there is no timer in the broker.
  await new Promise((r) => setImmediate(r));
  assert.equal(settled, false);
  assert.equal(b.waiting().length, 1);
  ac.abort();
  assert.deepEqual(await res, { outcome: { outcome: "cancelled" } });
  assert.equal(describeAnswer(b.latestFor("s1", "call_1")!), "The agent stopped waiting for an answer.");
  // A request withdrawn before it was seen is never shown.
  const seen = record(b);
  const gone = new AbortController();
  gone.abort();
  assert.deepEqual(await b.request(commandRequest("s1", "call_9"), gone.signal), { outcome: { outcome: "cancelled" } });
  assert.deepEqual(seen, ["approval_2:withdrawn"]);
});

test("forget drops a closed session's settled approvals but keeps waiting ones", async () => {
  const b = new ApprovalBroker();
  const done = b.request(commandRequest("s1", "a"));
  b.answer(b.waiting()[0].id, "deny", "chat");
  await done;
  void b.request(commandRequest("s1", "b"));
  b.forget("s1");
  assert.equal(b.latestFor("s1", "a"), undefined);
  assert.equal(b.latestFor("s1", "b")?.state, "waiting");
});
