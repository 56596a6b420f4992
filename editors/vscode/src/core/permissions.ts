// Permission mapping: what the extension shows for a session/request_permission
// and which of the agent's options the user's answer selects.
import type * as acp from "@agentclientprotocol/sdk";

/** A diff the agent proposes: VS Code's diff editor shows it (current vs proposed). */
export interface EditReview {
  kind: "edit";
  title: string;
  path: string;
  /** The text before the edit; null for a new file. */
  oldText: string | null;
  newText: string;
  /** Text lines of the request's content (e.g. "this edit introduces 1 syntax error"). */
  notes: string[];
  accept: string;
  acceptAll?: string;
  reject: string;
}

/** Any other request: its options, shown as buttons. */
export interface Choice {
  kind: "choice";
  title: string;
  notes: string[];
  options: { label: string; optionId: string; kind: string }[];
}

export type PermissionPlan = EditReview | Choice;

/** The user's answer to an EditReview. */
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

/**
 * planPermission maps a permission request to what the user is shown: an
 * EditReview when the tool call carries exactly one diff and the agent offers
 * an allow and a reject option, otherwise a Choice of the agent's options.
 */
export function planPermission(req: acp.RequestPermissionRequest): PermissionPlan {
  const tc = req.toolCall;
  const title = tc.title ?? "The agent asks for permission";
  const notes = textOf(tc.content);
  const diffs = (tc.content ?? []).filter((c): c is Extract<acp.ToolCallContent, { type: "diff" }> => c.type === "diff");
  const accept = pick(req.options, "allow_once", "allow_always");
  const reject = pick(req.options, "reject_once", "reject_always");
  if (diffs.length === 1 && accept && reject) {
    const d = diffs[0];
    const acceptAll = pick(req.options, "allow_always");
    return {
      kind: "edit",
      title,
      path: d.path,
      oldText: d.oldText ?? null,
      newText: d.newText,
      notes,
      accept,
      acceptAll: acceptAll !== accept ? acceptAll : undefined,
      reject,
    };
  }
  return {
    kind: "choice",
    title,
    notes,
    options: req.options.map((o) => ({ label: o.name, optionId: o.optionId, kind: o.kind })),
  };
}

/** outcomeFor turns the user's answer to an EditReview into the response. */
export function outcomeFor(plan: EditReview, decision: EditDecision): acp.RequestPermissionResponse {
  switch (decision) {
    case "accept":
      return selected(plan.accept);
    case "acceptAll":
      return selected(plan.acceptAll ?? plan.accept);
    case "reject":
      return selected(plan.reject);
    case "dismiss":
      return { outcome: { outcome: "cancelled" } };
  }
}

/** selected answers with one of the agent's options. */
export function selected(optionId: string): acp.RequestPermissionResponse {
  return { outcome: { outcome: "selected", optionId } };
}
