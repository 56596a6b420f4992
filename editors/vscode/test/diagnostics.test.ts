import assert from "node:assert/strict";
import { test } from "node:test";
import { DiagnosticsStore, Severity, toEditorDiagnostic, validPublish, type EditorDiagnostic } from "../src/core/diagnostics";

const d = (line: number, character: number, severity?: number) => ({
  range: { start: { line, character }, end: { line, character: character + 1 } },
  severity,
  code: "json-syntax",
  source: "hermes-lint",
  message: "invalid character ']' looking for beginning of value",
});

test("LSP severities map to the editor's, absent means error, positions are kept", () => {
  assert.equal(toEditorDiagnostic(d(0, 0, 1)).severity, Severity.Error);
  assert.equal(toEditorDiagnostic(d(0, 0, 2)).severity, Severity.Warning);
  assert.equal(toEditorDiagnostic(d(0, 0, 3)).severity, Severity.Information);
  assert.equal(toEditorDiagnostic(d(0, 0, 4)).severity, Severity.Hint);
  assert.equal(toEditorDiagnostic(d(0, 0)).severity, Severity.Error);
  assert.deepEqual(toEditorDiagnostic(d(1, 30, 1)), {
    startLine: 1,
    startCharacter: 30,
    endLine: 1,
    endCharacter: 31,
    severity: Severity.Error,
    message: "invalid character ']' looking for beginning of value",
    source: "hermes-lint",
    code: "json-syntax",
  });
});

test("malformed notifications are refused with a reason", () => {
  assert.equal(validPublish({ sessionId: "s", uri: "file:///a", diagnostics: [] }), "");
  assert.match(validPublish({ sessionId: "s", uri: "/a", diagnostics: [] }), /file:\/\//);
  assert.match(validPublish({ sessionId: "s", uri: "file:///a" }), /array/);
  assert.match(validPublish({ sessionId: "s", uri: "file:///a", diagnostics: [{ message: "x" }] }), /range/);
});

class Sink {
  files = new Map<string, EditorDiagnostic[]>();
  set(p: string, ds: EditorDiagnostic[]) {
    this.files.set(p, ds);
  }
  delete(p: string) {
    this.files.delete(p);
  }
}

test("a publish replaces the file's set, an empty one clears it, closing the session clears its files", () => {
  const sink = new Sink();
  const store = new DiagnosticsStore(sink);
  store.publish({ sessionId: "s1", uri: "file:///ws/a.json", version: 1, diagnostics: [d(1, 2, 1), d(3, 4, 1)] });
  store.publish({ sessionId: "s1", uri: "file:///ws/b%20c.go", version: 1, diagnostics: [d(0, 1, 1)] });
  store.publish({ sessionId: "s2", uri: "file:///ws/other.yaml", diagnostics: [d(0, 0, 1)] });
  assert.equal(sink.files.get("/ws/a.json")?.length, 2);
  assert.equal(sink.files.get("/ws/b c.go")?.length, 1, "the URI is decoded into a path");
  store.publish({ sessionId: "s1", uri: "file:///ws/a.json", version: 2, diagnostics: [d(5, 0, 1)] });
  assert.deepEqual(sink.files.get("/ws/a.json")?.map((x) => x.startLine), [5]);
  store.publish({ sessionId: "s1", uri: "file:///ws/a.json", version: 1, diagnostics: [d(9, 0, 1)] });
  assert.deepEqual(sink.files.get("/ws/a.json")?.map((x) => x.startLine), [5], "an older version is dropped");
  store.publish({ sessionId: "s1", uri: "file:///ws/a.json", version: 3, diagnostics: [] });
  assert.equal(sink.files.has("/ws/a.json"), false);
  store.closeSession("s1");
  assert.deepEqual([...sink.files.keys()], ["/ws/other.yaml"], "only the other session's file is left");
});
