// The approval state machine: every session/request_permission becomes one
// Approval that waits for the user. Several surfaces show it at once — the
// card in the chat, the diff editor (edits), a notification — and any of
// them may answer it; the first answer wins, and every surface is told so
// that it follows (the card says what was chosen and where, the diff
// editor's buttons go away, the notification closes). Nothing here times
// out: a request ends when the user answers it, when the turn is cancelled
// (answered "cancelled", as ACP requires), or when the agent stops waiting
// ($/cancel_request, e.g. its own approvals.timeout, or the agent exiting).
import type * as acp from "@agentclientprotocol/sdk";
import { cancelled, optionFor, planPermission, selected, type EditDecision, type PermissionPlan } from "./permissions";

/** Where an answer came from. */
export type Surface = "chat" | "diff" | "notification" | "command";

export const surfaceNames: Record<Surface, string> = {
  chat: "in the chat",
  diff: "in the diff editor",
  notification: "in the notification",
  command: "with a command",
};

export type ApprovalState = "waiting" | "answered" | "withdrawn";

/** One permission request and what became of it. */
export interface Approval {
  readonly id: string;
  readonly sessionId: string;
  readonly toolCallId: string;
  readonly plan: PermissionPlan;
  state: ApprovalState;
  /** The option chosen, once answered. */
  answer?: { optionId: string; label: string; kind: string; via: Surface };
  /** Why it ended without an answer, once withdrawn. */
  reason?: string;
}

type Listener = (a: Approval) => void;

/** ApprovalBroker holds the approvals of one window, waiting and settled. */
export class ApprovalBroker {
  private readonly all = new Map<string, Approval>();
  private readonly resolvers = new Map<string, (r: acp.RequestPermissionResponse) => void>();
  private readonly listeners = new Set<Listener>();
  private seq = 0;

  /** onChange calls fn for every new approval and every change of state; the result unsubscribes. */
  onChange(fn: Listener): () => void {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }

  private emit(a: Approval): void {
    for (const l of [...this.listeners]) l(a);
  }

  /**
   * request registers a permission request and resolves with the response
   * once it is answered or withdrawn. signal is the request's own
   * cancellation ($/cancel_request from the agent).
   */
  request(req: acp.RequestPermissionRequest, signal?: AbortSignal): Promise<acp.RequestPermissionResponse> {
    const a: Approval = {
      id: `approval_${++this.seq}`,
      sessionId: req.sessionId,
      toolCallId: req.toolCall.toolCallId,
      plan: planPermission(req),
      state: "waiting",
    };
    this.all.set(a.id, a);
    const done = new Promise<acp.RequestPermissionResponse>((resolve) => this.resolvers.set(a.id, resolve));
    if (signal?.aborted) this.withdraw(a.id, "The agent stopped waiting for an answer.");
    else {
      signal?.addEventListener("abort", () => this.withdraw(a.id, "The agent stopped waiting for an answer."), { once: true });
      this.emit(a);
    }
    return done;
  }

  /** get returns an approval by id. */
  get(id: string): Approval | undefined {
    return this.all.get(id);
  }

  /** waiting lists the approvals that wait for the user, oldest first (of one session, if given). */
  waiting(sessionId?: string): Approval[] {
    return [...this.all.values()].filter((a) => a.state === "waiting" && (sessionId === undefined || a.sessionId === sessionId));
  }

  /** latestFor returns the newest approval of a tool call. */
  latestFor(sessionId: string, toolCallId: string): Approval | undefined {
    let found: Approval | undefined;
    for (const a of this.all.values()) if (a.sessionId === sessionId && a.toolCallId === toolCallId) found = a;
    return found;
  }

  /**
   * answer selects one of the request's options. It returns false when the
   * approval no longer waits (answered elsewhere first, or withdrawn) or the
   * option was not offered.
   */
  answer(id: string, optionId: string, via: Surface): boolean {
    const a = this.all.get(id);
    if (!a || a.state !== "waiting") return false;
    const o = a.plan.options.find((o) => o.optionId === optionId);
    if (!o) return false;
    a.state = "answered";
    a.answer = { optionId, label: o.label, kind: o.kind, via };
    this.settle(a, selected(optionId));
    return true;
  }

  /** answerEdit answers an edit review with the diff editor's decision. */
  answerEdit(id: string, decision: EditDecision, via: Surface): boolean {
    const a = this.all.get(id);
    if (!a || a.plan.kind !== "edit") return false;
    const optionId = optionFor(a.plan, decision);
    if (optionId === undefined) return this.withdraw(id, "Dismissed.");
    return this.answer(id, optionId, via);
  }

  /** withdraw ends a waiting approval without an answer (the agent reads "cancelled"). */
  withdraw(id: string, reason: string): boolean {
    const a = this.all.get(id);
    if (!a || a.state !== "waiting") return false;
    a.state = "withdrawn";
    a.reason = reason;
    this.settle(a, cancelled());
    return true;
  }

  /** cancelSession withdraws every waiting approval of a session (its turn was cancelled). */
  cancelSession(sessionId: string, reason = "The turn was cancelled."): void {
    for (const a of this.waiting(sessionId)) this.withdraw(a.id, reason);
  }

  /** withdrawAll withdraws every waiting approval (the agent exited or the window closes). */
  withdrawAll(reason: string): void {
    for (const a of this.waiting()) this.withdraw(a.id, reason);
  }

  /** forget drops the settled approvals of a session (the chat that showed them is gone). */
  forget(sessionId: string): void {
    for (const [id, a] of this.all) if (a.sessionId === sessionId && a.state !== "waiting") this.all.delete(id);
  }

  private settle(a: Approval, r: acp.RequestPermissionResponse): void {
    const resolve = this.resolvers.get(a.id);
    this.resolvers.delete(a.id);
    resolve?.(r);
    this.emit(a);
  }
}

/** describeAnswer says what became of an approval, e.g. "Allowed once · in the diff editor". */
export function describeAnswer(a: Approval): string {
  if (a.state === "waiting") return "Waiting for you";
  if (a.state === "withdrawn") return a.reason ?? "Withdrawn.";
  return `${a.answer!.label} · ${surfaceNames[a.answer!.via]}`;
}
