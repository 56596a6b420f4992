// Inline edit approval: a proposed edit opens in VS Code's diff editor
// (current text on the left, the proposal on the right) with Accept and
// Reject in the editor title and in a notification.
import * as path from "node:path";
import * as vscode from "vscode";
import type { EditDecision, EditReview } from "./core/permissions";

export const proposedScheme = "hermes-proposed";

/** ReviewManager shows one proposed edit at a time and resolves with the user's answer. */
export class ReviewManager implements vscode.TextDocumentContentProvider, vscode.Disposable {
  private readonly proposals = new Map<string, string>();
  private readonly changed = new vscode.EventEmitter<vscode.Uri>();
  readonly onDidChange = this.changed.event;
  private pending: { resolve: (d: EditDecision) => void; right: vscode.Uri } | undefined;
  private queue: Promise<unknown> = Promise.resolve();
  private seq = 0;
  private readonly registration: vscode.Disposable;

  constructor() {
    this.registration = vscode.Disposable.from(
      vscode.workspace.registerTextDocumentContentProvider(proposedScheme, this),
      // A closed diff's texts are no longer needed.
      vscode.window.tabGroups.onDidChangeTabs((e) => {
        for (const tab of e.closed) {
          if (tab.input instanceof vscode.TabInputTextDiff && tab.input.modified.scheme === proposedScheme) {
            this.proposals.delete(tab.input.original.toString());
            this.proposals.delete(tab.input.modified.toString());
          }
        }
      }),
    );
  }

  provideTextDocumentContent(uri: vscode.Uri): string {
    return this.proposals.get(uri.toString()) ?? "";
  }

  /** ask shows the edit and waits for Accept, Reject or "Accept all" (edits are reviewed one at a time). */
  ask(plan: EditReview, token?: AbortSignal): Promise<EditDecision> {
    const next = this.queue.then(() => this.show(plan, token));
    this.queue = next.catch(() => {});
    return next;
  }

  private async show(plan: EditReview, token?: AbortSignal): Promise<EditDecision> {
    const n = ++this.seq;
    const base = path.basename(plan.path);
    const right = vscode.Uri.from({ scheme: proposedScheme, path: plan.path, query: `proposed=${n}` });
    this.proposals.set(right.toString(), plan.newText);
    // The left side is the text the agent diffed against (the editor's
    // current text, unsaved changes included), kept as a snapshot so the
    // diff still shows the change after it is accepted.
    const left = vscode.Uri.from({ scheme: proposedScheme, path: plan.path, query: `current=${n}` });
    this.proposals.set(left.toString(), plan.oldText ?? "");
    const decision = new Promise<EditDecision>((resolve) => {
      this.pending = { resolve, right };
      token?.addEventListener("abort", () => resolve("dismiss"));
    });
    await vscode.commands.executeCommand("setContext", "hermes.reviewingEdit", true);
    await vscode.commands.executeCommand("vscode.diff", left, right, `${base}: current ↔ proposed by Hermes`, { preview: false });
    const note = plan.notes.length > 0 ? ` (${plan.notes.join("; ")})` : "";
    const buttons = plan.acceptAll ? ["Accept", "Reject", "Accept All Edits This Session"] : ["Accept", "Reject"];
    void vscode.window.showInformationMessage(`Hermes wants to edit ${base}${note}.`, ...buttons).then((choice) => {
      if (choice === "Accept") this.decide("accept");
      else if (choice === "Reject") this.decide("reject");
      else if (choice === "Accept All Edits This Session") this.decide("acceptAll");
    });
    const d = await decision;
    this.pending = undefined;
    await vscode.commands.executeCommand("setContext", "hermes.reviewingEdit", false);
    // An accepted edit's diff stays open (what changed); a rejected one closes.
    if (d !== "accept" && d !== "acceptAll") {
      await this.closeDiff(right);
      this.proposals.delete(right.toString());
      this.proposals.delete(left.toString());
    }
    return d;
  }

  /** decide answers the edit under review (the editor-title buttons and the notification call it). */
  decide(d: EditDecision): boolean {
    if (!this.pending) return false;
    this.pending.resolve(d);
    return true;
  }

  private async closeDiff(right: vscode.Uri): Promise<void> {
    for (const group of vscode.window.tabGroups.all) {
      for (const tab of group.tabs) {
        if (tab.input instanceof vscode.TabInputTextDiff && tab.input.modified.toString() === right.toString()) {
          await vscode.window.tabGroups.close(tab);
        }
      }
    }
  }

  dispose(): void {
    this.pending?.resolve("dismiss");
    this.registration.dispose();
    this.changed.dispose();
  }
}
