// Context in (core/context.ts), relative times (core/time.ts), terminal
// command display (core/terminals.ts) and the traffic tap (core/traffic.ts).
import assert from "node:assert/strict";
import { test } from "node:test";
import { buildPrompt, selectionUri } from "../src/core/context";
import { displayCommand, stripAnsi } from "../src/core/terminals";
import { relativeTime } from "../src/core/time";
import { clip, maxLoggedLine, tap } from "../src/core/traffic";

const sel = { uri: "file:///ws/src/a.ts", name: "a.ts", startLine: 3, endLine: 5, text: "x\ny\nz" };

test("attached files go as resource links, the selection as an embedded resource of its lines", () => {
  const p = buildPrompt("Explain @a.ts", [{ kind: "file", uri: "file:///ws/a.ts", name: "a.ts" }, { kind: "file", uri: "file:///ws/a.ts", name: "a.ts" }], sel, { embeddedContext: true });
  assert.deepEqual(p.blocks, [
    { type: "text", text: "Explain @a.ts" },
    { type: "resource_link", uri: "file:///ws/a.ts", name: "a.ts" },
    { type: "resource", resource: { uri: "file:///ws/src/a.ts#L3-L5", text: "x\ny\nz", mimeType: "text/x-typescript" } },
  ]);
  assert.deepEqual(p.chips, [{ kind: "file", name: "a.ts" }, { kind: "selection", name: "a.ts", detail: "lines 3–5" }]);
  assert.equal(selectionUri({ ...sel, endLine: 3 }), "file:///ws/src/a.ts#L3");
  // Without embedded context the selection is text.
  const t = buildPrompt("Explain", [], sel, {});
  assert.equal(t.blocks[1].type, "text");
  assert.match((t.blocks[1] as { text: string }).text, /^Selected lines 3–5 of file:\/\/\/ws\/src\/a\.ts:\n\n```\nx\ny\nz\n```$/);
});

test("images go only to an agent that takes them; otherwise the user is told", () => {
  const img = { kind: "image" as const, name: "shot.png", mimeType: "image/png", data: "iVBORw0KGgo=" };
  assert.deepEqual(buildPrompt("look", [img], null, { image: true }).blocks[1], { type: "image", data: "iVBORw0KGgo=", mimeType: "image/png" });
  const no = buildPrompt("look", [img], null, { image: false });
  assert.equal(no.blocks.length, 1);
  assert.deepEqual(no.skipped, ["shot.png: hermes-acp's model does not take images, so it was not sent."]);
  assert.deepEqual(buildPrompt("  ", [], null, {}).blocks, [], "an empty prompt has no blocks");
});

test("History times are relative: just now, minutes, hours, yesterday, days, then the date", () => {
  const now = new Date(2026, 11, 2, 15, 0, 0);
  const ago = (ms: number) => new Date(now.getTime() - ms).toISOString();
  assert.equal(relativeTime(ago(10_000), now), "just now");
  assert.equal(relativeTime(ago(5 * 60_000), now), "5 minutes ago");
  assert.equal(relativeTime(ago(60_000), now), "1 minute ago");
  assert.equal(relativeTime(ago(3 * 3600_000), now), "3 hours ago");
  assert.equal(relativeTime(new Date(2026, 11, 1, 9, 0).toISOString(), now), "yesterday");
  assert.equal(relativeTime(new Date(2026, 10, 28, 9, 0).toISOString(), now), "4 days ago");
  assert.equal(relativeTime(new Date(2026, 9, 3, 9, 0).toISOString(), now), "3 Oct");
  assert.equal(relativeTime(new Date(2025, 9, 3, 9, 0).toISOString(), now), "3 Oct 2025");
  assert.equal(relativeTime("not a time", now), "");
  assert.equal(relativeTime(null, now), "");
});

test("a sandboxed editor terminal shows the command the model ran", () => {
  assert.equal(displayCommand({ command: "/usr/bin/hermes-acp", args: ["sandbox-exec", "--write", "/ws", "--", "/usr/bin/bash", "-c", "rm -rf build && echo ok"] }), "rm -rf build && echo ok");
  assert.equal(displayCommand({ command: "bash", args: ["-c", "make test"] }), "make test");
  assert.equal(displayCommand({ command: "git", args: ["commit", "-m", "a message"] }), "git commit -m 'a message'");
  assert.equal(displayCommand({ command: "ls -la" }), "ls -la");
  assert.equal(stripAnsi("\x1b[1;32mok\x1b[0m\rdone\r\n"), "okdone\r\n");
});

test("the traffic tap passes bytes through and logs whole lines only while on", async () => {
  const lines: string[] = [];
  let on = true;
  const t = tap("←", { enabled: () => on, line: (d, l) => lines.push(`${d} ${l}`) });
  const w = t.writable.getWriter();
  const out: string[] = [];
  const reading = (async () => {
    const r = t.readable.getReader();
    const dec = new TextDecoder();
    for (;;) {
      const { value, done } = await r.read();
      if (done) break;
      out.push(dec.decode(value));
    }
  })();
  const enc = new TextEncoder();
  await w.write(enc.encode('{"a":'));
  await w.write(enc.encode('1}\n{"b":2}\n'));
  on = false;
  await w.write(enc.encode('{"secret":1}\n'));
  await w.close();
  await reading;
  assert.equal(out.join(""), '{"a":1}\n{"b":2}\n{"secret":1}\n');
  assert.deepEqual(lines, ['← {"a":1}', '← {"b":2}']);
  assert.match(clip("x".repeat(maxLoggedLine + 5)), /… \(5 more characters\)$/);
});
