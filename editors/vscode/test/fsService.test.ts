import assert from "node:assert/strict";
import { test } from "node:test";
import { FsService, NotFoundError, sliceLines, type DocumentHost } from "../src/core/fsService";

function host(open: Record<string, string>, disk: Record<string, string>) {
  const writes: [string, string][] = [];
  const h: DocumentHost = {
    openDocumentText: (p) => open[p],
    readDisk: async (p) => {
      if (!(p in disk)) throw new Error("ENOENT");
      return disk[p];
    },
    applyAndSave: async (p, t) => {
      writes.push([p, t]);
      open[p] = t;
      disk[p] = t;
    },
  };
  return { h, writes };
}

test("reads come from the open document's unsaved text, else the disk", async () => {
  const { h } = host({ "/ws/a.txt": "unsaved\n" }, { "/ws/a.txt": "saved\n", "/ws/b.txt": "disk only\n" });
  const fs = new FsService(h);
  assert.deepEqual(await fs.read({ path: "/ws/a.txt" }), { content: "unsaved\n" });
  assert.deepEqual(await fs.read({ path: "/ws/b.txt" }), { content: "disk only\n" });
  await assert.rejects(fs.read({ path: "/ws/none.txt" }), NotFoundError);
  await assert.rejects(fs.read({ path: "relative.txt" }), /absolute/);
});

test("line and limit select lines (1-based), keeping line endings", async () => {
  const text = "one\ntwo\r\nthree\nfour";
  assert.equal(sliceLines(text, 2, 2), "two\r\nthree\n");
  assert.equal(sliceLines(text, 4), "four");
  assert.equal(sliceLines(text, undefined, 1), "one\n");
  assert.equal(sliceLines(text, 9, 1), "");
  const { h } = host({ "/ws/a": text }, {});
  assert.deepEqual(await new FsService(h).read({ path: "/ws/a", line: 3, limit: 1 }), { content: "three\n" });
});

test("writes go through the editor, whole text at once", async () => {
  const { h, writes } = host({}, {});
  const fs = new FsService(h);
  assert.deepEqual(await fs.write({ path: "/ws/new.json", content: "{}\n" }), {});
  assert.deepEqual(writes, [["/ws/new.json", "{}\n"]]);
  assert.deepEqual(await fs.read({ path: "/ws/new.json" }), { content: "{}\n" });
});
