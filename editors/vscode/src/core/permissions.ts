// Permission mapping: what the extension shows for a
// session/request_permission (the agent's options with their full labels,
// the command or the file, the lint of a proposed edit) and which of the
// agent's options an answer selects.
import type * as acp from "@agentclientprotocol/sdk";

/** One of the agent's options, as offered. */
export interface PlanOption {
  label: string;
  optionId: string;
  kind: string;
}

/** One diagnostic of a proposed edit (0-based line, as LSP). */
export interface LintDiagnostic {
  line: number;
  message: string;
  severity: number;
  source?: string;
}

/** The lint of a proposed edit (_meta.hermes.lint, or the text summary alone). */
export interface LintSummary {
  /** The agent's words, e.g. "Lint of the proposed content: this edit introduces 1 syntax error". */
  text: string;
  introduced: number;
  preexisting: number;
  diagnostics: { uri: string; items: LintDiagnostic[] }[];
}

interface PlanBase {
  title: string;
  /** Text lines of the request's content besides the lint summary. */
  notes: string[];
  options: PlanOption[];
  lint?: LintSummary;
}

/** A diff the agent proposes: VS Code's diff editor shows it (current vs proposed). */
export interface EditReview extends PlanBase {
  kind: "edit";
  path: string;
  /** The text before the edit; null for a new file. */
  oldText: string | null;
  newText: string;
  accept: string;
  acceptAll?: string;
  reject: string;
}

/** A command the agent wants to run. */
export interface CommandReview extends PlanBase {
  kind: "command";
  command: string;
  /** Why it asks, e.g. "recursive delete". */
  description: string;
}

/** Any other request: its options, shown as buttons. */
export interface Choice extends PlanBase {
  kind: "choice";
}

export type PermissionPlan = EditReview | CommandReview | Choice;

/** The user's answer to an EditReview from the diff editor. */
export type EditDecision = "accept" | "acceptAll" | "reject" | "dismiss";

function pick(options: acp.PermissionOption[], ...kinds: string[]): string | undefined {
  for (const k of kinds) {
    const o = options.find((o) => o.kind === k);
    if (o) return o.optionId;
  }
  return undefined;
}

function textOf(content: acp.ToolCallContent[] | null | undefined): string[] {
  const out: string[] = [];
  for (const c of content ?? []) {
    if (c.type === "content" && c.content.type === "text") out.push(c.content.text);
  }
  return out;
}

function record(v: unknown): Record<string, unknown> | undefined {
  return v && typeof v === "object" && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
}

/**
 * lintOf reads _meta.hermes.lint ({status, introduced, preexisting,
 * diagnostics: [{uri, diagnostics: [LSP]}]}) and the "Lint of the proposed
 * content" text of a tool call; undefined when there is neither.
 */
export function lintOf(meta: unknown, texts: string[]): LintSummary | undefined {
  const text = texts.find((t) => /^Lint of the proposed content/i.test(t)) ?? "";
  const hermes = record(record(meta)?.hermes);
  const lint = record(hermes?.lint);
  if (!lint && !text) return undefined;
  const files: LintSummary["diagnostics"] = [];
  if (Array.isArray(lint?.diagnostics)) {
    for (const f of lint.diagnostics) {
      const fr = record(f);
      if (!fr || typeof fr.uri !== "string" || !Array.isArray(fr.diagnostics)) continue;
      const items: LintDiagnostic[] = [];
      for (const d of fr.diagnostics) {
        const dr = record(d);
        const start = record(record(dr?.range)?.start);
        if (!dr || typeof dr.message !== "string" || typeof start?.line !== "number") continue;
        items.push({ line: start.line, message: dr.message, severity: typeof dr.severity === "number" ? dr.severity : 1, source: typeof dr.source === "string" ? dr.source : undefined });
      }
      files.push({ uri: fr.uri, items });
    }
  }
  return {
    text,
    introduced: typeof lint?.introduced === "number" ? lint.introduced : 0,
    preexisting: typeof lint?.preexisting === "number" ? lint.preexisting : 0,
    diagnostics: files,
  };
}

/**
 * planPermission maps a permission request to what the user is shown: an
 * EditReview when the tool call carries exactly one diff and the agent
 * offers an allow and a reject option, a CommandReview when it names a
 * command (rawInput.command), otherwise a Choice. Every plan keeps all of
 * the agent's options with their full labels.
 */
export function planPermission(req: acp.RequestPermissionRequest): PermissionPlan {
  const tc = req.toolCall;
  const title = tc.title ?? "The agent asks for permission";
  const texts = textOf(tc.content);
  const lint = lintOf(tc._meta, texts);
  const notes = texts.filter((t) => !lint || t !== lint.text);
  const options = req.options.map((o) => ({ label: o.name, optionId: o.optionId, kind: o.kind }));
  const diffs = (tc.content ?? []).filter((c): c is Extract<acp.ToolCallContent, { type: "diff" }> => c.type === "diff");
  const accept = pick(req.options, "allow_once", "allow_always");
  const reject = pick(req.options, "reject_once", "reject_always");
  const base = { title, notes, options, lint };
  if (diffs.length === 1 && accept && reject) {
    const d = diffs[0];
    const acceptAll = pick(req.options, "allow_always");
    return {
      ...base,
      kind: "edit",
      path: d.path,
      oldText: d.oldText ?? null,
      newText: d.newText,
      accept,
      acceptAll: acceptAll !== accept ? acceptAll : undefined,
      reject,
    };
  }
  const raw = record(tc.rawInput);
  if (typeof raw?.command === "string" && raw.command !== "") {
    const description = typeof raw.description === "string" ? raw.description : "";
    // The content repeats the command ("recursive delete\n$ rm -rf build"): the card shows it once.
    const rest = notes.filter((n) => !n.includes(raw.command as string));
    return { ...base, kind: "command", command: raw.command, description, notes: rest };
  }
  return { ...base, kind: "choice" };
}

/** optionFor returns the agent's option an answer from the diff editor selects; undefined for dismiss. */
export function optionFor(plan: EditReview, decision: EditDecision): string | undefined {
  switch (decision) {
    case "accept":
      return plan.accept;
    case "acceptAll":
      return plan.acceptAll ?? plan.accept;
    case "reject":
      return plan.reject;
    case "dismiss":
      return undefined;
  }
}

/** outcomeFor turns the user's answer to an EditReview into the response. */
export function outcomeFor(plan: EditReview, decision: EditDecision): acp.RequestPermissionResponse {
  const id = optionFor(plan, decision);
  return id === undefined ? cancelled() : selected(id);
}

/** selected answers with one of the agent's options. */
export function selected(optionId: string): acp.RequestPermissionResponse {
  return { outcome: { outcome: "selected", optionId } };
}

/** cancelled is the answer to every pending request of a cancelled turn. */
export function cancelled(): acp.RequestPermissionResponse {
  return { outcome: { outcome: "cancelled" } };
}
