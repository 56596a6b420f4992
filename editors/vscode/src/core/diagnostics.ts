// Conversion of the _hermes/publishDiagnostics extension into editor
// diagnostics, and the bookkeeping that clears them when a session closes.
import { fileURLToPath } from "node:url";

/** An LSP position: 0-based line, UTF-16 character. */
export interface LspPosition {
  line: number;
  character: number;
}

/** One diagnostic as hermes-acp publishes it (exactly LSP's shape). */
export interface LspDiagnostic {
  range: { start: LspPosition; end: LspPosition };
  severity?: number;
  code?: string | number;
  source?: string;
  message: string;
}

/** The params of _hermes/publishDiagnostics. */
export interface PublishDiagnosticsParams {
  sessionId: string;
  uri: string;
  version?: number;
  diagnostics: LspDiagnostic[];
}

export const publishDiagnosticsMethod = "_hermes/publishDiagnostics";

/** Editor severities, numbered as vscode.DiagnosticSeverity. */
export const Severity = { Error: 0, Warning: 1, Information: 2, Hint: 3 } as const;

/** A diagnostic ready for the editor (vscode.Diagnostic's fields). */
export interface EditorDiagnostic {
  startLine: number;
  startCharacter: number;
  endLine: number;
  endCharacter: number;
  severity: number;
  message: string;
  source: string;
  code?: string | number;
}

/**
 * toEditorDiagnostic maps an LSP diagnostic: LSP severity 1–4 (error,
 * warning, information, hint; absent means error) to the editor's 0–3;
 * positions are kept (both are 0-based, UTF-16).
 */
export function toEditorDiagnostic(d: LspDiagnostic): EditorDiagnostic {
  const sev = d.severity && d.severity >= 1 && d.severity <= 4 ? d.severity - 1 : Severity.Error;
  return {
    startLine: d.range.start.line,
    startCharacter: d.range.start.character,
    endLine: d.range.end.line,
    endCharacter: d.range.end.character,
    severity: sev,
    message: d.message,
    source: d.source ?? "hermes",
    code: d.code,
  };
}

/** validPublish reports why params are not a publishDiagnostics notification, or "". */
export function validPublish(p: unknown): string {
  const v = p as PublishDiagnosticsParams;
  if (!v || typeof v !== "object") return "params are not an object";
  if (typeof v.sessionId !== "string") return "sessionId is not a string";
  if (typeof v.uri !== "string" || !v.uri.startsWith("file://")) return "uri is not a file:// URI";
  if (!Array.isArray(v.diagnostics)) return "diagnostics is not an array";
  for (const d of v.diagnostics) {
    if (!d || typeof d.message !== "string" || !d.range?.start || !d.range?.end) return "a diagnostic lacks range or message";
  }
  return "";
}

/** The editor side of a diagnostic collection (vscode.DiagnosticCollection). */
export interface DiagnosticSink {
  set(path: string, diagnostics: EditorDiagnostic[]): void;
  delete(path: string): void;
}

/**
 * DiagnosticsStore forwards published sets to a sink, one set per file
 * (a publish replaces the file's set; an empty list clears it), remembers
 * which files each session published to, and clears them when the session
 * closes. Publishes older than the file's last version are dropped.
 */
export class DiagnosticsStore {
  private readonly bySession = new Map<string, Set<string>>();
  private readonly versions = new Map<string, number>();

  constructor(private readonly sink: DiagnosticSink) {}

  publish(p: PublishDiagnosticsParams): void {
    const path = fileURLToPath(p.uri);
    if (p.version !== undefined) {
      const last = this.versions.get(path);
      if (last !== undefined && p.version < last) return;
      this.versions.set(path, p.version);
    }
    let files = this.bySession.get(p.sessionId);
    if (!files) this.bySession.set(p.sessionId, (files = new Set()));
    if (p.diagnostics.length === 0) {
      this.sink.delete(path);
      files.delete(path);
      return;
    }
    files.add(path);
    this.sink.set(path, p.diagnostics.map(toEditorDiagnostic));
  }

  /** closeSession clears every file the session published diagnostics for. */
  closeSession(sessionId: string): void {
    for (const path of this.bySession.get(sessionId) ?? []) {
      this.sink.delete(path);
      this.versions.delete(path);
    }
    this.bySession.delete(sessionId);
  }
}
