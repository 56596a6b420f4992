// The host↔webview protocol (core/protocol.ts): every message the webview
// may send is accepted as typed, anything else is refused with a reason.
import assert from "node:assert/strict";
import { test } from "node:test";
import { parseWebviewMessage, type WebviewMessage } from "../src/core/protocol";

test("each message the webview sends is accepted as it was sent", () => {
  const good: WebviewMessage[] = [
    { type: "ready" },
    { type: "prompt", text: "hi", attachments: [{ kind: "file", uri: "file:///ws/a.ts", name: "a.ts" }, { kind: "image", name: "p.png", mimeType: "image/png", data: "iVBORw0KGgo=" }], includeSelection: true },
    { type: "cancel" },
    { type: "newSession" },
    { type: "history" },
    { type: "setOption", configId: "mode", value: "accept_edits" },
    { type: "setOption", configId: "thinking", value: true },
    { type: "answer", approvalId: "approval_1", optionId: "allow_once" },
    { type: "findFiles", query: "conf" },
    { type: "pickFiles" },
    { type: "dropped", uris: ["file:///ws/a.ts"] },
    { type: "action", action: "configureModel" },
    { type: "openDiff", toolCallId: "call_1", index: 0 },
    { type: "openDiff", approvalId: "approval_2" },
    { type: "openLink", href: "file:///ws/a.ts#L3" },
    { type: "copy", text: "x" },
    { type: "showTerminal", terminalId: "term_1" },
    { type: "formAnswer", formId: "form_1", values: { choice: "pg", other: "", ok: true, tags: ["a", "b"] } },
    { type: "formDecline", formId: "form_1" },
    { type: "dismissBanner", key: "banner3" },
    { type: "fork", messageId: "0123abcd" },
    { type: "restore", turn: 2 },
  ];
  for (const m of good) assert.deepEqual(parseWebviewMessage(m), m, JSON.stringify(m));
});

test("malformed messages are refused with what is wrong", () => {
  const cases: [unknown, RegExp][] = [
    [null, /invalid/i],
    ["prompt", /invalid/i],
    [{ type: "nosuch" }, /type/],
    [{ type: "prompt", text: "hi" }, /attachments/],
    [{ type: "prompt", text: "hi", attachments: [{ kind: "image", name: "x", mimeType: "text/html", data: "x" }], includeSelection: false }, /attachments\.0\.mimeType/],
    [{ type: "answer", approvalId: "", optionId: "x" }, /approvalId/],
    [{ type: "action", action: "rm -rf" }, /action/],
    [{ type: "openDiff", toolCallId: "c", index: -1 }, /index/],
    [{ type: "setOption", configId: "mode", value: 3 }, /value/],
    [{ type: "formAnswer", formId: "form_1", values: { n: 3 } }, /values\.n/],
    [{ type: "formAnswer", formId: "form_1" }, /values/],
    [{ type: "formDecline", formId: "" }, /formId/],
    [{ type: "restore", turn: 0 }, /turn/],
    [{ type: "restore", turn: 1.5 }, /turn/],
    [{ type: "fork" }, /messageId/],
  ];
  for (const [raw, why] of cases) {
    const r = parseWebviewMessage(raw);
    assert.ok(r instanceof Error, `${JSON.stringify(raw)} was accepted`);
    assert.match(r.message, /^bad message from the chat view: /);
    assert.match(r.message, why, `${JSON.stringify(raw)}: ${r.message}`);
  }
});
