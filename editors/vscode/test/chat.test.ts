import assert from "node:assert/strict";
import { test } from "node:test";
import { ChatState, completeSlash, renderItem } from "../src/core/chat";

test("streamed chunks build one message; thoughts and messages alternate as items", () => {
  const c = new ChatState();
  assert.deepEqual(c.apply({ sessionUpdate: "agent_thought_chunk", content: { type: "text", text: "Let me " } }), [0]);
  assert.deepEqual(c.apply({ sessionUpdate: "agent_thought_chunk", content: { type: "text", text: "think." } }), [0]);
  c.apply({ sessionUpdate: "agent_message_chunk", content: { type: "text", text: "Hello **wor" } });
  assert.deepEqual(c.apply({ sessionUpdate: "agent_message_chunk", content: { type: "text", text: "ld**\n\n- a\n- b" } }), [1]);
  assert.equal(c.items.length, 2);
  assert.equal(renderItem(c.items[0]), "<details class=\"msg thought\"><summary>Thinking</summary><p>Let me think.</p>\n</details>");
  const html = renderItem(c.items[1]);
  assert.match(html, /<strong>world<\/strong>/);
  assert.match(html, /<li>a<\/li>\s*<li>b<\/li>/);
});

test("raw HTML from the model is shown as text, not markup", () => {
  const c = new ChatState();
  c.apply({ sessionUpdate: "agent_message_chunk", content: { type: "text", text: "<img src=x onerror=alert(1)>\n\nok" } });
  const html = renderItem(c.items[0]);
  assert.doesNotMatch(html, /<img/);
  assert.match(html, /&lt;img src=x onerror=alert\(1\)&gt;/);
  assert.equal(renderItem({ type: "user", text: "<b>me</b>" }), '<div class="msg user">&lt;b&gt;me&lt;/b&gt;</div>');
});

test("a tool call is one card updated in place with its status", () => {
  const c = new ChatState();
  c.apply({ sessionUpdate: "agent_message_chunk", content: { type: "text", text: "Writing." } });
  assert.deepEqual(c.apply({ sessionUpdate: "tool_call", toolCallId: "call_1", title: "Write config.json", kind: "edit", status: "pending", content: [{ type: "diff", path: "/ws/config.json", newText: "{}" }] }), [1]);
  assert.match(renderItem(c.items[1]), /status-pending[\s\S]*Write config\.json[\s\S]*✎ \/ws\/config\.json/);
  assert.deepEqual(c.apply({ sessionUpdate: "tool_call_update", toolCallId: "call_1", status: "completed", content: [{ type: "content", content: { type: "text", text: "wrote 3 lines" } }] }), [1]);
  const html = renderItem(c.items[1]);
  assert.match(html, /status-completed/);
  assert.match(html, /✓/);
  assert.match(html, /wrote 3 lines/);
  c.apply({ sessionUpdate: "agent_message_chunk", content: { type: "text", text: "Done." } });
  assert.equal(c.items.length, 3, "text after a tool call is a new message");
});

test("the plan is one checklist, replaced by each update", () => {
  const c = new ChatState();
  c.apply({ sessionUpdate: "plan", entries: [{ content: "Read", status: "in_progress", priority: "high" }] });
  c.apply({ sessionUpdate: "agent_message_chunk", content: { type: "text", text: "x" } });
  assert.deepEqual(
    c.apply({
      sessionUpdate: "plan",
      entries: [
        { content: "Read", status: "completed", priority: "high" },
        { content: "Edit", status: "pending", priority: "medium" },
      ],
    }),
    [0],
  );
  const html = renderItem(c.items[0]);
  assert.match(html, /<li class="plan-completed"><input type="checkbox" disabled checked> Read<\/li>/);
  assert.match(html, /<li class="plan-pending"><input type="checkbox" disabled> Edit<\/li>/);
});

test("commands and mode come from updates; slash completion filters by prefix", () => {
  const c = new ChatState();
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
  assert.deepEqual(completeSlash(c.commands, "hello"), []);
});
