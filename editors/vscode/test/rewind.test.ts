// "Restore to here" (core/rewind.ts): the agent's turns with checkpoints
// mapped to the chat's user messages, and what a restore did or would do.
import assert from "node:assert/strict";
import { test } from "node:test";
import { ChatState } from "../src/core/chat";
import { renderItem } from "../src/core/render";
import { describeFiles, matchTurns, parseResult, parseTurns } from "../src/core/rewind";

test("the agent's list of turns is read in order; malformed entries are skipped, a malformed answer is an error", () => {
  const turns = parseTurns({
    turns: [
      { turn: 2, at: "2026-12-02T18:05:00Z", prompt: "Clean the build folder", files: [{ path: "/ws/build/out.o", change: "deleted", added: 0, removed: 1, binary: true }] },
      { turn: 1, at: "2026-12-02T18:00:00Z", prompt: "Add the beta tag", files: [{ path: "/ws/config.json", change: "modified", added: 1, removed: 1 }, { path: "/ws/new.txt", change: "added", added: 2, removed: 0 }] },
      { turn: 0, files: [] },
      { turn: "3" },
      { turn: 4, files: [{ added: 1 }] },
    ],
  });
  assert.ok(!(turns instanceof Error));
  assert.deepEqual(turns, [
    {
      turn: 1,
      prompt: "Add the beta tag",
      at: "2026-12-02T18:00:00Z",
      files: [
        { path: "/ws/config.json", change: "modified", added: 1, removed: 1, binary: false, conflict: "" },
        { path: "/ws/new.txt", change: "added", added: 2, removed: 0, binary: false, conflict: "" },
      ],
    },
    { turn: 2, prompt: "Clean the build folder", at: "2026-12-02T18:05:00Z", files: [{ path: "/ws/build/out.o", change: "deleted", added: 0, removed: 1, binary: true, conflict: "" }] },
    { turn: 4, prompt: "", at: undefined, files: [] },
  ]);
  assert.equal(describeFiles(turns[0].files), "2 files: config.json (+1 −1), new.txt (added)");
  assert.equal(describeFiles(turns[1].files), "1 file: out.o (deleted, binary)");
  assert.equal(describeFiles(Array.from({ length: 8 }, (_, i) => ({ path: `/ws/f${i}`, change: "modified", added: 0, removed: 0, binary: false, conflict: "" })), 3), "8 files: f0, f1, f2 and 5 more");
  assert.match((parseTurns({}) as Error).message, /no turns list/);
  assert.match((parseTurns(null) as Error).message, /no turns list/);
});

test("a restore's answer says what became of it", () => {
  const r = parseResult({ outcome: "restored", files: [{ path: "/ws/a.go", change: "restore", added: 3, removed: 1 }, { path: "/ws/b.txt", change: "restore", conflict: "changed after the agent's turn" }], failed: ["/ws/c.txt: permission denied"], conversationDropped: true });
  assert.ok(!(r instanceof Error));
  assert.equal(r.outcome, "restored");
  assert.deepEqual(r.files.map((f) => [f.path, f.conflict]), [
    ["/ws/a.go", ""],
    ["/ws/b.txt", "changed after the agent's turn"],
  ]);
  assert.deepEqual(r.failed, ["/ws/c.txt: permission denied"]);
  assert.equal(r.conversationDropped, true);
  assert.deepEqual(parseResult({ outcome: "nothing", files: [] }), { outcome: "nothing", files: [], failed: [], conversationDropped: false });
  assert.match((parseResult({ files: [] }) as Error).message, /no outcome and files/);
});

test("turns map to the chat's user messages by their prompt, in order, skipping the turns that changed nothing", () => {
  const long = "x".repeat(130);
  const prompts = ["Explain this", "Add the beta tag to config.json", "Explain this", "Clean the build folder\nand the cache", long];
  const m = matchTurns(
    [
      { turn: 1, prompt: "Add the beta tag to config.json", files: [] },
      { turn: 2, prompt: "Clean the build folder", files: [] },
      { turn: 3, prompt: "x".repeat(119) + "…", files: [] },
      { turn: 4, prompt: "Not in this chat", files: [] },
      { turn: 5, prompt: "", files: [] },
    ],
    prompts,
  );
  assert.deepEqual(
    [...m].map(([i, t]) => [i, t.turn]),
    [
      [1, 1],
      [3, 2],
      [4, 3],
    ],
    "the first message that asked nothing to change has no button; a prompt the agent cut at 120 characters matches",
  );
  assert.deepEqual([...matchTurns([{ turn: 1, prompt: "Explain this", files: [] }], prompts).keys()], [0]);
});

test("a user message with a checkpoint gets a restore button; an answer that ends a turn gets a fork button", () => {
  const c = new ChatState();
  c.user("Add the beta tag");
  c.apply({ sessionUpdate: "agent_message_chunk", content: { type: "text", text: "Done." }, messageId: "m-1" });
  c.user("Again");
  assert.equal(c.turnOf(0), 1);
  assert.equal(c.turnOf(2), 2);
  assert.equal(c.turnOf(1), undefined);
  const ctx = {
    approval: () => undefined,
    terminal: () => undefined,
    children: () => [],
    restorePoint: (i: number) => (i === 0 ? { turn: 1, detail: "1 file: config.json (+1 −1)" } : undefined),
    forkable: (i: number) => i === 1,
  };
  assert.match(renderItem(c.items[0], ctx, 0), /<button class="icon-button restore" data-action="restore" data-turn="1"[^>]*title="Restore to here: put the files back as they were before this turn \(1 file: config\.json \(\+1 −1\)\)"/);
  assert.doesNotMatch(renderItem(c.items[2], ctx, 2), /data-action="restore"/);
  assert.match(renderItem(c.items[1], ctx, 1), /data-action="fork" data-message="m-1"/);
  assert.doesNotMatch(renderItem(c.items[1], { ...ctx, forkable: () => false }, 1), /data-action="fork"/);
  assert.doesNotMatch(renderItem(c.items[0]), /msg-actions/, "without the agent's support there are no buttons");
});
