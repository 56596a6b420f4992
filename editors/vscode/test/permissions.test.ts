import assert from "node:assert/strict";
import { test } from "node:test";
import type * as acp from "@agentclientprotocol/sdk";
import { outcomeFor, planPermission } from "../src/core/permissions";

const options: acp.PermissionOption[] = [
  { optionId: "allow", name: "Allow", kind: "allow_once" },
  { optionId: "allow_session", name: "Allow all edits this session", kind: "allow_always" },
  { optionId: "reject", name: "Reject", kind: "reject_once" },
];

function editRequest(content: acp.ToolCallContent[], opts = options): acp.RequestPermissionRequest {
  return { sessionId: "s1", toolCall: { toolCallId: "call_1", title: "Write config.json", kind: "edit", content }, options: opts };
}

test("a request with one diff becomes an edit review whose answers select the agent's options", () => {
  const plan = planPermission(
    editRequest([
      { type: "diff", path: "/ws/config.json", oldText: "{}\n", newText: '{"a":1}\n' },
      { type: "content", content: { type: "text", text: "this edit introduces 1 syntax error" } },
    ]),
  );
  assert.equal(plan.kind, "edit");
  if (plan.kind !== "edit") return;
  assert.equal(plan.path, "/ws/config.json");
  assert.equal(plan.oldText, "{}\n");
  assert.equal(plan.newText, '{"a":1}\n');
  assert.deepEqual(plan.notes, ["this edit introduces 1 syntax error"]);
  assert.deepEqual(plan.options.map((o) => o.label), ["Allow", "Allow all edits this session", "Reject"], "the full labels of every option");
  assert.deepEqual(outcomeFor(plan, "accept"), { outcome: { outcome: "selected", optionId: "allow" } });
  assert.deepEqual(outcomeFor(plan, "acceptAll"), { outcome: { outcome: "selected", optionId: "allow_session" } });
  assert.deepEqual(outcomeFor(plan, "reject"), { outcome: { outcome: "selected", optionId: "reject" } });
  assert.deepEqual(outcomeFor(plan, "dismiss"), { outcome: { outcome: "cancelled" } });
});

test("a new file has no old text", () => {
  const plan = planPermission(editRequest([{ type: "diff", path: "/ws/new.txt", newText: "hi\n" }]));
  assert.equal(plan.kind, "edit");
  assert.equal(plan.kind === "edit" && plan.oldText, null);
});

test("without allow_always, Accept all falls back to the single allow", () => {
  const plan = planPermission(editRequest([{ type: "diff", path: "/ws/a", oldText: "", newText: "x" }], [options[0], options[2]]));
  assert.equal(plan.kind, "edit");
  if (plan.kind !== "edit") return;
  assert.equal(plan.acceptAll, undefined);
  assert.deepEqual(outcomeFor(plan, "acceptAll"), { outcome: { outcome: "selected", optionId: "allow" } });
});

test("requests without a diff, or with two, show the agent's options", () => {
  for (const content of [
    [{ type: "content", content: { type: "text", text: "run `make test`" } }],
    [
      { type: "diff", path: "/ws/a", newText: "a" },
      { type: "diff", path: "/ws/b", newText: "b" },
    ],
  ] as acp.ToolCallContent[][]) {
    const plan = planPermission(editRequest(content));
    assert.equal(plan.kind, "choice");
    if (plan.kind !== "choice") return;
    assert.deepEqual(
      plan.options.map((o) => o.optionId),
      ["allow", "allow_session", "reject"],
    );
  }
});

test("an edit the agent offers no reject option for is shown as a choice", () => {
  const plan = planPermission(editRequest([{ type: "diff", path: "/ws/a", newText: "a" }], [options[0]]));
  assert.equal(plan.kind, "choice");
});

test("a command request names the command once, with why it asks and every option's full label", () => {
  const plan = planPermission({
    sessionId: "s1",
    toolCall: {
      toolCallId: "call_1",
      title: "recursive delete: rm -rf build",
      kind: "execute",
      rawInput: { command: "rm -rf build", description: "recursive delete" },
      content: [{ type: "content", content: { type: "text", text: "recursive delete\n$ rm -rf build" } }],
    },
    options: [
      { optionId: "allow_once", name: "Allow once", kind: "allow_once" },
      { optionId: "allow_prefix", name: "Always allow commands starting with `rm`", kind: "allow_always" },
      { optionId: "deny_always", name: "Deny always", kind: "reject_always" },
    ],
  });
  assert.equal(plan.kind, "command");
  if (plan.kind !== "command") return;
  assert.equal(plan.command, "rm -rf build");
  assert.equal(plan.description, "recursive delete");
  assert.deepEqual(plan.notes, [], "the content that repeats the command is not shown twice");
  assert.deepEqual(plan.options.map((o) => o.label), ["Allow once", "Always allow commands starting with `rm`", "Deny always"]);
});

test("the lint of a proposed edit comes from _meta.hermes.lint and the agent's summary line", () => {
  const plan = planPermission({
    ...editRequest([
      { type: "diff", path: "/ws/config.json", oldText: "{}\n", newText: "{,}\n" },
      { type: "content", content: { type: "text", text: "Lint of the proposed content: this edit introduces 1 syntax error" } },
    ]),
  });
  assert.equal(plan.kind, "edit");
  assert.deepEqual(plan.notes, [], "the summary is the lint's, not a note");
  assert.equal(plan.lint?.text, "Lint of the proposed content: this edit introduces 1 syntax error");
  const withMeta = planPermission({
    ...editRequest([{ type: "diff", path: "/ws/config.json", oldText: "{}\n", newText: "{,}\n" }]),
    toolCall: {
      toolCallId: "call_1",
      title: "Approve edit",
      kind: "edit",
      content: [{ type: "diff", path: "/ws/config.json", oldText: "{}\n", newText: "{,}\n" }],
      _meta: { hermes: { lint: { status: "ok", introduced: 1, preexisting: 2, diagnostics: [{ uri: "file:///ws/config.json", diagnostics: [{ range: { start: { line: 0, character: 1 }, end: { line: 0, character: 2 } }, severity: 1, message: "unexpected ," }] }] } } },
    },
  });
  assert.deepEqual(withMeta.lint, { text: "", introduced: 1, preexisting: 2, diagnostics: [{ uri: "file:///ws/config.json", items: [{ line: 0, message: "unexpected ,", severity: 1, source: undefined }] }] });
});
