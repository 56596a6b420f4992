// The notification that Hermes waits for the user: shown while an edit
// waits (its diff may hide the chat) or while any approval waits and the
// chat is out of sight. It is a progress notification, so it closes by
// itself the moment the last approval is answered, wherever that happens;
// its links answer an edit or bring the card into view.
import * as vscode from "vscode";
import type { Approval, ApprovalBroker } from "./core/approvals";
import type { FormBroker, FormRequest } from "./core/forms";

function commandLink(label: string, command: string, args: unknown[]): string {
  return `[${label}](command:${command}?${encodeURIComponent(JSON.stringify(args))})`;
}

/** messageFor is the notification's text for the approval it is about. */
export function messageFor(a: Approval, count: number): string {
  const more = count > 1 ? ` (and ${count - 1} more)` : "";
  if (a.plan.kind === "edit") {
    const name = a.plan.path.split(/[\\/]/).pop() ?? a.plan.path;
    const lint = a.plan.lint && a.plan.lint.introduced > 0 ? ` — lint: introduces ${a.plan.lint.introduced} problem${a.plan.lint.introduced === 1 ? "" : "s"}` : "";
    return (
      `Hermes wants to ${a.plan.oldText === null ? "create" : "edit"} ${name}${lint}${more}. ` +
      `${commandLink("Accept", "hermes.acceptEdit", [a.id, "notification"])} · ${commandLink("Reject", "hermes.rejectEdit", [a.id, "notification"])} · ${commandLink("Show in chat", "hermes.showApproval", [a.id])}`
    );
  }
  const what = a.plan.kind === "command" ? `run \`${a.plan.command.length > 80 ? a.plan.command.slice(0, 77) + "…" : a.plan.command}\`` : a.plan.title;
  return `Hermes is waiting for you: ${what}${more}. ${commandLink("Show in chat", "hermes.showApproval", [a.id])}`;
}

/** questionMessage is the notification's text for a question of the agent. */
export function questionMessage(f: FormRequest, count: number): string {
  const line = (f.plan.title ?? f.plan.message).trim().split("\n")[0];
  const more = count > 1 ? ` (and ${count - 1} more)` : "";
  return `Hermes asks you: ${line.length > 100 ? line.slice(0, 99) + "…" : line}${more}. ${commandLink("Answer in chat", "hermes.showApproval", [f.id])}`;
}

/** ApprovalNotifier keeps the notification in step with the waiting approvals and questions. */
export class ApprovalNotifier implements vscode.Disposable {
  private active: { resolve: () => void; about: string } | undefined;
  private readonly off: () => void;

  constructor(
    private readonly broker: ApprovalBroker,
    private readonly forms: FormBroker,
    private readonly chatVisible: () => boolean,
  ) {
    const a = broker.onChange(() => this.update());
    const f = forms.onChange(() => this.update());
    this.off = () => {
      a();
      f();
    };
  }

  /** update shows, changes or closes the notification. */
  update(): void {
    const waiting = this.broker.waiting();
    const questions = this.forms.waiting();
    const hidden = !this.chatVisible();
    const show = waiting.some((a) => a.plan.kind === "edit") || ((waiting.length > 0 || questions.length > 0) && hidden);
    if (!show) {
      this.close();
      return;
    }
    const first = waiting.find((a) => a.plan.kind === "edit") ?? waiting[0];
    const message = first ? messageFor(first, waiting.length) : questionMessage(questions[0], questions.length);
    if (this.active) {
      if (this.active.about !== message) {
        // A progress notification's text cannot be replaced, only added to: start a new one.
        this.close();
      } else return;
    }
    let resolve!: () => void;
    const done = new Promise<void>((r) => (resolve = r));
    this.active = { resolve, about: message };
    void vscode.window.withProgress({ location: vscode.ProgressLocation.Notification, title: message, cancellable: false }, () => done);
  }

  private close(): void {
    const a = this.active;
    this.active = undefined;
    a?.resolve();
  }

  dispose(): void {
    this.off();
    this.close();
  }
}
