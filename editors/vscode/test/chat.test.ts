// The transcript (core/chat.ts) and its rendering (core/render.ts): what a
// user sees of messages, tool calls, the plan, terminals, edits, failures
// and delegated children.
import assert from "node:assert/strict";
import { test } from "node:test";
import type * as acp from "@agentclientprotocol/sdk";
import { ApprovalBroker } from "../src/core/approvals";
import { ChatState, completeSlash, splitAttachments } from "../src/core/chat";
import { renderMarkdown } from "../src/core/markdown";
import { FormBroker } from "../src/core/forms";
import { parseCommandResult, parseDelegation, renderBanner, renderItem, type RenderContext } from "../src/core/render";
import type { TerminalView } from "../src/core/terminals";

const text = (t: string): acp.ContentBlock => ({ type: "text", text: t });

function ctxOf(chat: ChatState, extra: Partial<RenderContext> = {}): RenderContext {
  return { approval: () => undefined, terminal: () => undefined, children: (id) => chat.children.get(id) ?? [], ...extra };
}

test("streamed chunks build one message; thoughts and messages alternate as items", () => {
  const c = new ChatState();
  assert.deepEqual(c.apply({ sessionUpdate: "agent_thought_chunk", content: text("Let me ") }), [0]);
  assert.deepEqual(c.apply({ sessionUpdate: "agent_thought_chunk", content: text("think.") }), [0]);
  c.apply({ sessionUpdate: "agent_message_chunk", content: text("Hello **wor") });
  assert.deepEqual(c.apply({ sessionUpdate: "agent_message_chunk", content: text("ld**\n\n- a\n- b") }), [1]);
  assert.equal(c.items.length, 2);
  assert.match(renderItem(c.items[0]), /<details class="msg thought"[^>]*><summary>.*Thinking<\/summary><div class="markdown"><p>Let me think\.<\/p>/);
  const html = renderItem(c.items[1]);
  assert.match(html, /<strong>world<\/strong>/);
  assert.match(html, /<li>a<\/li>\s*<li>b<\/li>/);
});

test("a new messageId starts a new message even of the same kind", () => {
  const c = new ChatState();
  c.apply({ sessionUpdate: "agent_message_chunk", content: text("one"), messageId: "m1" });
  c.apply({ sessionUpdate: "agent_message_chunk", content: text("two"), messageId: "m2" });
  assert.equal(c.items.length, 2);
});

test("raw HTML from the model is shown as text, not markup; unsafe links are dropped", () => {
  const c = new ChatState();
  c.apply({ sessionUpdate: "agent_message_chunk", content: text("<img src=x onerror=alert(1)>\n\nok [run](command:workbench.action.quit) [site](https://example.org)") });
  const html = renderItem(c.items[0]);
  assert.doesNotMatch(html, /<img/);
  assert.match(html, /&lt;img src=x onerror=alert\(1\)&gt;/);
  assert.doesNotMatch(html, /command:/, "a command: link from the model is not a link");
  assert.match(html, /<a href="https:\/\/example\.org">site<\/a>/);
  c.user("<b>me</b>");
  assert.match(renderItem(c.items[1]), /<div class="user-text">&lt;b&gt;me&lt;\/b&gt;<\/div>/);
});

test("inline code is monospace code and keeps its underscores; tables have a head and rows; code blocks are highlighted with a copy button", () => {
  const html = renderMarkdown("Set `$HERMES_HOME` or HERMES_HOME_DIR.\n\n| key | value |\n|---|---|\n| `a_b` | 1 |\n\n```go\nfunc main() { return }\n```");
  assert.match(html, /<code class="inline nowrap">\$HERMES_HOME<\/code>/);
  assert.match(html, /HERMES_HOME_DIR/, "underscores in plain words stay");
  assert.match(renderMarkdown("Run `hermes-acp --setup` or `--model`."), /<code class="inline">hermes-acp --setup<\/code> or <code class="inline nowrap">--model<\/code>/, "a short span does not break at its hyphen; one with spaces wraps");
  assert.match(html, /<table><thead><tr><th>key<\/th><th>value<\/th><\/tr><\/thead><tbody><tr><td><code class="inline nowrap">a_b<\/code><\/td><td>1<\/td><\/tr><\/tbody><\/table>/);
  assert.match(html, /<div class="code-block"><div class="code-head"><span class="code-lang">go<\/span><button class="icon-button" data-action="copy"/);
  assert.match(html, /<span class="hljs-keyword">func<\/span>/);
  // An unknown language is escaped text.
  assert.match(renderMarkdown("```nosuchlang\n<a>\n```"), /<code class="hljs language-nosuchlang">&lt;a&gt;<\/code>/);
});

test("a tool call is one card updated in place with its status; its result is Markdown", () => {
  const c = new ChatState();
  c.apply({ sessionUpdate: "agent_message_chunk", content: text("Reading.") });
  assert.deepEqual(c.apply({ sessionUpdate: "tool_call", toolCallId: "call_1", title: "read: a.txt", kind: "read", status: "in_progress" }), [1]);
  assert.match(renderItem(c.items[1]), /status-in_progress[\s\S]*read: a\.txt/);
  assert.deepEqual(
    c.apply({ sessionUpdate: "tool_call_update", toolCallId: "call_1", status: "completed", content: [{ type: "content", content: text("Read a.txt — 1 total lines\n\n```\n1|hello\n```") }] }),
    [1],
  );
  const html = renderItem(c.items[1]);
  assert.match(html, /status-completed/);
  assert.match(html, /codicon-pass-filled/);
  assert.match(html, /<pre><code class="hljs">1\|hello<\/code><\/pre>/, "the result's code fence is a code block, not literal backticks");
  assert.doesNotMatch(html, /```/);
  c.apply({ sessionUpdate: "agent_message_chunk", content: text("Done.") });
  assert.equal(c.items.length, 3, "text after a tool call is a new message");
});

test("a failed call shows its reason, or says that none was given", () => {
  const c = new ChatState();
  c.apply({ sessionUpdate: "tool_call", toolCallId: "c1", title: "read: nosuch.txt", kind: "read", status: "in_progress" });
  c.apply({ sessionUpdate: "tool_call_update", toolCallId: "c1", status: "failed", content: [{ type: "content", content: text("❌ File not found: nosuch.txt") }] });
  const html = renderItem(c.items[0]);
  assert.match(html, /status-failed/);
  assert.match(html, / open>/, "a failed card is open");
  assert.match(html, /<div class="tool-result failed markdown"><p>❌ File not found: nosuch\.txt<\/p>/);
  c.apply({ sessionUpdate: "tool_call", toolCallId: "c2", title: "web_extract", kind: "fetch", status: "failed" });
  assert.match(renderItem(c.items[1]), /The call failed; the agent gave no reason\./);
});

test("a terminal card shows the command and the terminal's output, live, not the terminal's id", () => {
  const c = new ChatState();
  c.apply({ sessionUpdate: "tool_call", toolCallId: "call_1", title: "terminal: make test", kind: "execute", status: "in_progress", rawInput: { command: "make test" }, content: [{ type: "content", content: text("$ make test") }] });
  c.apply({ sessionUpdate: "tool_call_update", toolCallId: "call_1", status: "in_progress", content: [{ type: "terminal", terminalId: "term_1" }] });
  let view: TerminalView = { command: "make test", output: "ok  \x1b[32mpkg\x1b[0m\n", truncated: false, exitStatus: null };
  const ctx = ctxOf(c, { terminal: (id) => (id === "term_1" ? view : undefined) });
  let html = renderItem(c.items[0], ctx);
  assert.match(html, /<div class="terminal" data-terminal="term_1"><div class="terminal-head"><code>\$ make test<\/code>/);
  assert.match(html, /running/);
  assert.match(html, /<pre class="terminal-output">ok {2}pkg<\/pre>/, "colour codes are stripped");
  assert.doesNotMatch(html, /term_1\)/);
  view = { ...view, output: view.output + "PASS\n", exitStatus: { exitCode: 0, signal: null } };
  html = renderItem(c.items[0], ctx);
  assert.match(html, /ok {2}pkg\nPASS<\/pre>/);
  assert.match(html, /exit 0/);
  // A replayed command (no terminal any more) keeps the command and shows the result.
  const r = new ChatState();
  r.apply({ sessionUpdate: "tool_call", toolCallId: "call_1", title: "terminal: make test", kind: "execute", status: "pending", rawInput: { command: "make test" } });
  r.apply({ sessionUpdate: "tool_call_update", toolCallId: "call_1", status: "completed", content: [{ type: "content", content: text("- **exit_code**: 0\n- **output**: PASS") }] });
  html = renderItem(r.items[0], ctxOf(r));
  assert.match(html, /<code>\$ make test<\/code>/);
  assert.match(html, /<strong>output<\/strong>: PASS/);
});

test("an edit card shows the inline diff, its stats, the lint, and a button for the diff editor", () => {
  const c = new ChatState();
  c.apply({
    sessionUpdate: "tool_call",
    toolCallId: "e1",
    title: "patch: config.json",
    kind: "edit",
    status: "pending",
    content: [{ type: "diff", path: "/ws/config.json", oldText: '{\n  "a": 1\n}\n', newText: '{\n  "a": 1,\n}\n' }],
  });
  c.apply({
    sessionUpdate: "tool_call_update",
    toolCallId: "e1",
    status: "completed",
    content: [{ type: "content", content: text("Wrote config.json") }],
    _meta: { hermes: { lint: { status: "ok", introduced: 1, preexisting: 0, diagnostics: [{ uri: "file:///ws/config.json", diagnostics: [{ range: { start: { line: 2, character: 0 }, end: { line: 2, character: 1 } }, severity: 1, message: "expected a value" }] }] } } },
  });
  const html = renderItem(c.items[0], ctxOf(c));
  assert.match(html, /<span class="added">\+1<\/span> <span class="removed">−1<\/span>/);
  assert.match(html, /<tr class="diff-del"><td class="ln">2<\/td><td class="ln"><\/td><td class="diff-text"> {2}&quot;a&quot;: 1<\/td><\/tr>/);
  assert.match(html, /<tr class="diff-add"><td class="ln"><\/td><td class="ln">2<\/td><td class="diff-text"> {2}&quot;a&quot;: 1,<\/td><\/tr>/);
  assert.match(html, /data-action="openDiff" data-tool="e1" data-index="0"/);
  assert.match(html, /Lint: introduces 1 problem/);
  assert.match(html, /line 3<\/span> expected a value/);
  assert.match(html, /Wrote config\.json/);
  // hermes-acp's result names the finding too: the card lists it once, in the lint box.
  c.apply({
    sessionUpdate: "tool_call_update",
    toolCallId: "e1",
    content: [{ type: "content", content: text("✅ write_file completed for `config.json` (40 bytes)\n\n⚠️ Lint: config.json:3:1: expected a value\n\n⚠️ The file was reformatted") }],
  });
  const again = renderItem(c.items[0], ctxOf(c));
  assert.equal((again.match(/expected a value/g) ?? []).length, 1, again);
  assert.match(again, /line 3<\/span> expected a value/);
  assert.match(again, /write_file completed for <code class="inline nowrap">config\.json<\/code> \(40 bytes\)/);
  assert.match(again, /The file was reformatted/, "other warnings stay");
});

test("todo calls are shown as the plan, in the place of the first one", () => {
  const c = new ChatState();
  c.apply({ sessionUpdate: "agent_message_chunk", content: text("Planning.") });
  assert.deepEqual(c.apply({ sessionUpdate: "tool_call", toolCallId: "t1", title: "todo (2 items)", kind: "other", status: "in_progress" }), []);
  assert.deepEqual(
    c.apply({ sessionUpdate: "plan", entries: [{ content: "Read", status: "completed", priority: "medium" }, { content: "Fix", status: "in_progress", priority: "medium" }] }),
    [1],
  );
  c.apply({ sessionUpdate: "tool_call_update", toolCallId: "t1", status: "completed" });
  c.apply({ sessionUpdate: "agent_message_chunk", content: text("x") });
  assert.deepEqual(c.apply({ sessionUpdate: "plan", entries: [{ content: "Read", status: "completed", priority: "medium" }, { content: "Fix", status: "completed", priority: "medium" }] }), [1]);
  const html = renderItem(c.items[1]);
  assert.match(html, /<span class="card-title">Plan<\/span><span class="card-meta">2 of 2 done<\/span>/);
  assert.match(html, /<li class="plan-entry plan-completed">.*<span>Fix<\/span><\/li>/);
  assert.equal(c.items.filter((i) => i.type === "tool").length, 0, "no card of its own for todo");
});

test("a delegate_task call is a card with a part per child: its goal, progress, summary and calls", () => {
  const c = new ChatState();
  c.apply({ sessionUpdate: "tool_call", toolCallId: "call_6", title: "delegate: 2 tasks", kind: "other", status: "in_progress", content: [{ type: "content", content: text("- [1] Count a\n- [2] Count b") }] });
  c.apply({ sessionUpdate: "tool_call", toolCallId: "call_6.1.call_7", title: "[1] read: a.txt", kind: "read", status: "in_progress", _meta: { hermes: { parentToolCallId: "call_6" } } });
  assert.equal(c.items.length, 1, "a child's call is not an item of its own");
  assert.deepEqual(c.apply({ sessionUpdate: "tool_call_update", toolCallId: "call_6.1.call_7", status: "completed", _meta: { hermes: { parentToolCallId: "call_6" } } }), [0], "a child's update redraws the parent card");
  const progress = "**Subagents**: 1 running, 1 done of 2\n- [1] ⏳ running · 1 tool call — Count a\n- [2] ✅ completed · 0 tool calls — Count b\n  ↳ b has 3 lines";
  c.apply({ sessionUpdate: "tool_call_update", toolCallId: "call_6", status: "in_progress", content: [{ type: "content", content: text(progress) }] });
  assert.deepEqual(parseDelegation([progress]), [
    { n: 1, status: "running", calls: 1, goal: "Count a", summary: "" },
    { n: 2, status: "completed", calls: 0, goal: "Count b", summary: "b has 3 lines" },
  ]);
  const html = renderItem(c.items[0], ctxOf(c));
  assert.match(html, /<div class="child status-running">[\s\S]*<span class="child-goal">Count a<\/span><span class="card-meta">running · 1 tool call<\/span>[\s\S]*<span>read: a\.txt<\/span>/);
  assert.match(html, /<div class="child status-completed">[\s\S]*Count b[\s\S]*b has 3 lines/);
});

test("a waiting approval is part of its call's card; the card follows the answer", () => {
  const c = new ChatState();
  const broker = new ApprovalBroker();
  c.apply({ sessionUpdate: "tool_call", toolCallId: "call_1", title: "terminal: rm -rf build", kind: "execute", status: "pending", rawInput: { command: "rm -rf build" } });
  // The request as hermes-acp sends it: titled with the command, the dangers in its text.
  void broker.request({
    sessionId: "s",
    toolCall: { toolCallId: "call_1", title: "rm -rf build", kind: "execute", rawInput: { command: "rm -rf build", reasons: ["recursive delete"] }, content: [{ type: "content", content: text("Needs approval: recursive delete.") }] },
    options: [
      { optionId: "allow_once", name: "Allow once", kind: "allow_once" },
      { optionId: "allow_session", name: "Allow for this session", kind: "allow_always" },
      { optionId: "allow_always", name: "Always allow this exact command", kind: "allow_always" },
      { optionId: "allow_prefix", name: "Always allow `rm -rf build/*`", kind: "allow_always" },
      { optionId: "deny", name: "Deny", kind: "reject_once" },
      { optionId: "deny_always", name: "Deny always", kind: "reject_always" },
    ],
  });
  const ctx = ctxOf(c, { approval: (id) => broker.latestFor("s", id) });
  let html = renderItem(c.items[0], ctx);
  assert.match(html, /status-waiting/);
  assert.match(html, /Waiting for you/);
  assert.match(html, /Needs approval: recursive delete\./);
  assert.match(html, /<span class="hljs-built_in">rm<\/span> -rf build/);
  assert.match(html, /<button class="primary" data-action="answer" data-approval="approval_1" data-option="allow_once"><span class="label">Allow once<\/span><\/button>/);
  assert.match(html, /><span class="label">Allow for this session<\/span><\/button>/);
  assert.match(html, /><span class="label">Always allow this exact command<\/span><\/button>/);
  assert.match(html, /><span class="label">Always allow <code class="inline">rm -rf build\/\*<\/code><\/span><\/button>/, "the full label, its code span as code");
  assert.match(html, /<button class="secondary reject" [^>]*data-option="deny"><span class="label">Deny<\/span><\/button>/);
  assert.match(html, /<button class="secondary reject" [^>]*data-option="deny_always"><span class="label">Deny always<\/span><\/button>/);
  assert.equal((html.match(/data-action="answer"/g) ?? []).length, 6, "every option is a button");
  broker.answer("approval_1", "allow_once", "chat");
  html = renderItem(c.items[0], ctx);
  assert.doesNotMatch(html, /Waiting for you/);
  assert.match(html, /<div class="approval settled answered allowed"[^>]*>.*Allow once · in the chat<\/span><\/div>/);
});

test("a replayed prompt shows its attachments as chips, not the files' contents", () => {
  const stored = "Explain this\n\n[Attached file: a.ts]\nURI: file:///ws/a.ts\n\nconst a = 1;\n\n[Attached file: b.ts]\nURI: file:///ws/b.ts#L3-L5\n\nx\ny\nz\n\n[Attached image: shot.png]";
  assert.deepEqual(splitAttachments(stored), {
    text: "Explain this",
    attachments: [
      { kind: "file", name: "a.ts" },
      { kind: "selection", name: "b.ts", detail: "lines 3–5" },
      { kind: "image", name: "shot.png" },
    ],
  });
  const c = new ChatState();
  c.apply({ sessionUpdate: "user_message_chunk", content: text(stored), messageId: "u1" });
  const html = renderItem(c.items[0]);
  assert.match(html, /<span class="chip">.*<span>a\.ts<\/span><\/span>/);
  assert.doesNotMatch(html, /const a = 1/);
  assert.deepEqual(splitAttachments("no attachments"), { text: "no attachments", attachments: [] });
});

test("a call the agent reports failed after the user stopped the turn, without a reason, is shown cancelled", () => {
  const c = new ChatState();
  c.apply({ sessionUpdate: "tool_call", toolCallId: "a", title: "terminal: sleep 120", kind: "execute", status: "in_progress", content: [{ type: "terminal", terminalId: "term_1" }] });
  c.apply({ sessionUpdate: "tool_call", toolCallId: "b", title: "read: x", kind: "read", status: "in_progress" });
  c.apply({ sessionUpdate: "tool_call", toolCallId: "c", title: "read: y", kind: "read", status: "in_progress" });
  c.cancelling();
  // hermes-acp ends the stopped calls "failed" (ACP has no cancelled status).
  c.apply({ sessionUpdate: "tool_call_update", toolCallId: "a", status: "failed", content: [{ type: "terminal", terminalId: "term_1" }] });
  c.apply({ sessionUpdate: "tool_call_update", toolCallId: "b", status: "failed", content: [{ type: "content", content: text("permission denied: x") }] });
  assert.equal(c.tools.get("a")!.status, "cancelled");
  assert.equal(c.tools.get("b")!.status, "failed", "a failure with a reason stays a failure");
  assert.deepEqual(c.endTurn("cancelled"), [2], "the one still running when the turn ended");
  assert.equal(c.tools.get("c")!.status, "cancelled");
  assert.doesNotMatch(renderItem(c.items[0]), /gave no reason/);
  // The next turn's failures are failures again.
  c.apply({ sessionUpdate: "tool_call", toolCallId: "d", title: "read: z", kind: "read", status: "failed" });
  assert.equal(c.tools.get("d")!.status, "failed");
  assert.match(renderItem(c.items[3]), /gave no reason/);
});

test("a failed terminal call lets its terminal say how it ended", () => {
  const c = new ChatState();
  c.apply({ sessionUpdate: "tool_call", toolCallId: "a", title: "terminal: false", kind: "execute", status: "failed", content: [{ type: "terminal", terminalId: "term_1" }] });
  const html = renderItem(c.items[0], ctxOf(c, { terminal: () => ({ command: "false", output: "", truncated: false, exitStatus: { exitCode: 1, signal: null } }) }));
  assert.match(html, /exit 1/);
  assert.doesNotMatch(html, /gave no reason/);
});

test("a cancelled turn marks its unfinished calls cancelled; usage and commands come from updates", () => {
  const c = new ChatState();
  c.apply({ sessionUpdate: "tool_call", toolCallId: "a", title: "terminal: sleep 100", kind: "execute", status: "in_progress" });
  c.apply({ sessionUpdate: "tool_call", toolCallId: "b", title: "read: x", kind: "read", status: "completed" });
  assert.deepEqual(c.endTurn("end_turn"), []);
  assert.deepEqual(c.endTurn("cancelled"), [0]);
  assert.equal(c.tools.get("a")!.status, "cancelled");
  assert.equal(c.tools.get("b")!.status, "completed");
  assert.match(renderItem(c.items[0]), /codicon-circle-slash/);
  c.apply({ sessionUpdate: "usage_update", used: 369, size: 128000 });
  assert.deepEqual(c.usage, { used: 369, size: 128000 });
  c.apply({
    sessionUpdate: "available_commands_update",
    availableCommands: [
      { name: "help", description: "Show help" },
      { name: "mode", description: "Switch mode", input: { hint: "default | accept_edits" } },
      { name: "model", description: "Switch model" },
    ],
  });
  c.apply({ sessionUpdate: "current_mode_update", currentModeId: "accept_edits" });
  assert.equal(c.modeId, "accept_edits");
  assert.deepEqual(completeSlash(c.commands, "/mo").map((x) => x.name), ["mode", "model"]);
  assert.deepEqual(completeSlash(c.commands, "/").length, 3);
  assert.deepEqual(completeSlash(c.commands, "/mode x"), []);
});

test("a command whose result came as text (a replayed session, a client without terminals) is shown as a terminal with its output and exit", () => {
  const live = "```\n$ rm -rf build\n```\n\n```\nremoved build/out.o\n```\n\nExit code: 0";
  const r = new ChatState();
  r.apply({ sessionUpdate: "tool_call", toolCallId: "call_1", title: "terminal: rm -rf build", kind: "execute", status: "pending", rawInput: { command: "rm -rf build" } });
  r.apply({ sessionUpdate: "tool_call_update", toolCallId: "call_1", status: "completed", content: [{ type: "content", content: text(live) }] });
  const html = renderItem(r.items[0], ctxOf(r));
  assert.match(html, /<div class="terminal"><div class="terminal-head"><code>\$ rm -rf build<\/code><span class="terminal-state ok">exit 0<\/span><\/div><pre class="terminal-output">removed build\/out\.o<\/pre><\/div>/);
  assert.doesNotMatch(html, /Exit code|```|tool-result/, "the text is not shown a second time as Markdown");
  assert.equal((html.match(/\$ rm -rf build/g) ?? []).length, 1, "the command is shown once");

  const failed = parseCommandResult("⚠️ no network sandbox\n\nRan in docker container abc (image x)\n\n````\n$ grep -r x .\n````\n\nExit code: 1 (No matches found)");
  assert.deepEqual(failed, { command: "grep -r x .", output: "", exitCode: 1, meaning: "No matches found", notes: ["⚠️ no network sandbox", "Ran in docker container abc (image x)"] });
  const card = new ChatState();
  card.apply({ sessionUpdate: "tool_call", toolCallId: "g", title: "terminal: grep", kind: "execute", status: "completed", rawInput: { command: "grep -r x ." }, content: [{ type: "content", content: text("```\n$ grep -r x .\n```\n\nExit code: 1 (No matches found)") }] });
  assert.match(renderItem(card.items[0], ctxOf(card)), /<span class="terminal-state failed" title="No matches found">exit 1 · No matches found<\/span><\/div><div class="terminal-empty">No output\.<\/div>/);
  assert.equal(parseCommandResult("Some **markdown**\n\nExit code: 0"), undefined, "text around the fences is not a command result");
  assert.equal(parseCommandResult("no exit line"), undefined);
});

test("session notices are banners, not messages; they can be dismissed", () => {
  const c = new ChatState();
  assert.deepEqual(c.apply({ sessionUpdate: "notice", severity: "warning", title: "The sandbox is weaker here", description: "Landlock is **missing**" }), []);
  c.apply({ sessionUpdate: "notice", severity: "_hermes_custom", title: "Hello" });
  assert.equal(c.items.length, 0);
  assert.equal(c.banners.length, 2);
  const html = renderBanner(c.banners[0]);
  assert.match(html, /<div class="banner warning" role="alert">.*<div class="banner-title">The sandbox is weaker here<\/div><div class="markdown"><p>Landlock is <strong>missing<\/strong><\/p>/s);
  assert.match(html, /data-action="dismissBanner" data-key="banner1"/);
  assert.match(renderBanner(c.banners[1]), /class="banner info" role="status"/, "an unknown severity is shown as information");
  assert.equal(c.dismissBanner("banner1"), true);
  assert.equal(c.dismissBanner("banner1"), false);
  assert.deepEqual(c.banners.map((b) => b.title), ["Hello"]);
});

test("a compaction is one card: in progress, then completed with its summary and token counts, or failed with the reason", () => {
  const c = new ChatState();
  c.user("hi");
  assert.deepEqual(c.apply({ sessionUpdate: "compaction_update", compactionId: "c1", status: "in_progress" }), [1]);
  assert.match(renderItem(c.items[1]), /Compacting the conversation….*codicon-loading/s);
  assert.deepEqual(c.apply({ sessionUpdate: "compaction_summary_chunk", compactionId: "c1", content: text("The user asked **hi**") }), [1]);
  c.apply({ sessionUpdate: "compaction_summary_chunk", compactionId: "c1", content: text(" twice.") });
  c.apply({ sessionUpdate: "compaction_update", compactionId: "c1", status: "completed", _meta: { hermes: { tokensBefore: 42000, tokensAfter: 8100 } } });
  assert.equal(c.items.length, 2);
  const done = renderItem(c.items[1]);
  assert.match(done, /<details class="card compaction status-completed"[^>]*><summary class="card-head">.*Compacted the conversation<\/span><span class="card-meta">42k → 8\.1k tokens<\/span>/s);
  assert.match(done, /The user asked <strong>hi<\/strong> twice\./);
  // A summary in the final update replaces the streamed one; a failure says why and is open.
  c.apply({ sessionUpdate: "compaction_update", compactionId: "c2", status: "failed", error: "the model timed out" });
  const failed = renderItem(c.items[2]);
  assert.match(failed, /status-failed" data-key="compaction\d+" open>/);
  assert.match(failed, /Compacting the conversation failed.*the model timed out/s);
  c.apply({ sessionUpdate: "compaction_update", compactionId: "c1", status: "completed", summary: [text("Short.")] });
  assert.match(renderItem(c.items[1]), /<p>Short\.<\/p>/);
  assert.doesNotMatch(renderItem(c.items[1]), /twice/);
});

test("a question of a tool call is part of its card, which waits; one of no call is an item of its own", async () => {
  const forms = new FormBroker();
  const c = new ChatState();
  c.apply({ sessionUpdate: "tool_call", toolCallId: "call_1", title: "clarify", kind: "other", status: "in_progress" });
  const pending = forms.request({ sessionId: "s1", toolCallId: "call_1", mode: "form", message: "Which one?", requestedSchema: { properties: { choice: { type: "string", enum: ["a", "b"] } }, required: ["choice"] } });
  const ctx = ctxOf(c, { form: (id) => forms.latestFor("s1", id), formById: (id) => forms.get(id) });
  let html = renderItem(c.items[0], ctx);
  assert.match(html, /status-waiting/);
  assert.match(html, /Waiting for you/);
  assert.match(html, /<form class="elicitation waiting"/);
  forms.submit("form_1", { choice: "b" });
  assert.deepEqual(await pending, { action: "accept", content: { choice: "b" } });
  html = renderItem(c.items[0], ctx);
  assert.doesNotMatch(html, /Waiting for you/);
  assert.match(html, /elicitation settled accepted/);

  void forms.request({ sessionId: "s1", mode: "form", message: "Name?", requestedSchema: { properties: { name: { type: "string" } } } });
  assert.deepEqual(c.form("form_2"), [1]);
  assert.match(renderItem(c.items[1], ctx, 1), /<div class="card question status-waiting"><div class="card-body"><form class="elicitation waiting" data-form="form_2"/);
});
