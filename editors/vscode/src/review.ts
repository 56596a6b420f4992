// Edit review in VS Code's diff editor: a waiting edit approval opens as a
// diff (the text the agent read on the left, its proposal on the right)
// with Accept (✓) and Reject (✗) in the editor title. The diff follows the
// approval whichever surface answers it: accepted, it stays open to show
// what changed; rejected or withdrawn, it closes. Proposals are shown one
// at a time, in the order they came. Diffs of finished edits open
// read-only from the chat's "Open diff".
import * as path from "node:path";
import * as vscode from "vscode";
import type { Approval, ApprovalBroker, Surface } from "./core/approvals";
import type { EditReview } from "./core/permissions";

export const proposedScheme = "hermes-proposed";

/** DiffReview shows edit approvals in the diff editor. */
export class DiffReview implements vscode.TextDocumentContentProvider, vscode.Disposable {
  private readonly texts = new Map<string, string>();
  private readonly changed = new vscode.EventEmitter<vscode.Uri>();
  readonly onDidChange = this.changed.event;
  private readonly queue: string[] = []; // approval ids waiting for their turn in the diff editor
  private shown: { id: string; right: vscode.Uri } | undefined;
  private readonly rights = new Map<string, vscode.Uri>(); // approval id → its proposal's URI
  private readonly disposables: vscode.Disposable[] = [];
  private seq = 0;

  constructor(private readonly broker: ApprovalBroker) {
    this.disposables.push(
      vscode.workspace.registerTextDocumentContentProvider(proposedScheme, this),
      // A closed diff's texts are no longer needed.
      vscode.window.tabGroups.onDidChangeTabs((e) => {
        for (const tab of e.closed) {
          if (tab.input instanceof vscode.TabInputTextDiff && tab.input.modified.scheme === proposedScheme) {
            this.texts.delete(tab.input.original.toString());
            this.texts.delete(tab.input.modified.toString());
          }
        }
        void this.updateContext();
      }),
      this.changed,
    );
    const off = broker.onChange((a) => this.onApproval(a));
    this.disposables.push({ dispose: off });
  }

  provideTextDocumentContent(uri: vscode.Uri): string {
    return this.texts.get(uri.toString()) ?? "";
  }

  private onApproval(a: Approval): void {
    if (a.plan.kind !== "edit") return;
    if (a.state === "waiting") {
      if (!this.queue.includes(a.id)) this.queue.push(a.id);
      if (!this.shown) void this.showNext();
      return;
    }
    const i = this.queue.indexOf(a.id);
    if (i >= 0) this.queue.splice(i, 1);
    const right = this.rights.get(a.id);
    this.rights.delete(a.id);
    const accepted = a.state === "answered" && a.answer!.kind.startsWith("allow");
    // An accepted edit's diff stays open (what changed); a rejected or withdrawn one closes.
    const closing = right && !accepted ? this.closeDiff(right) : Promise.resolve();
    if (this.shown?.id === a.id) {
      this.shown = undefined;
      void closing.then(() => this.showNext());
    }
    void this.updateContext();
  }

  private async showNext(): Promise<void> {
    while (this.queue.length > 0 && !this.shown) {
      const id = this.queue[0];
      const a = this.broker.get(id);
      if (!a || a.state !== "waiting" || a.plan.kind !== "edit") {
        this.queue.shift();
        continue;
      }
      await this.show(a, a.plan);
    }
    await this.updateContext();
  }

  private async show(a: Approval, plan: EditReview): Promise<void> {
    let right = this.rights.get(a.id);
    if (!right) {
      right = this.uris(plan.path, plan.oldText ?? "", plan.newText, `approval=${a.id}`).right;
      this.rights.set(a.id, right);
    }
    this.shown = { id: a.id, right };
    await vscode.commands.executeCommand("vscode.diff", this.leftOf(right), right, `${path.basename(plan.path)}: current ↔ proposed by Hermes`, { preview: false });
  }

  /** open brings a waiting edit approval's diff to the front (from the chat's "Open diff"). */
  async open(approvalId: string): Promise<void> {
    const a = this.broker.get(approvalId);
    if (!a || a.plan.kind !== "edit") return;
    if (a.state !== "waiting") {
      await this.showStatic(a.plan.path, a.plan.oldText, a.plan.newText);
      return;
    }
    // This proposal goes first (another may be in the diff editor; it stays open and queued).
    const i = this.queue.indexOf(approvalId);
    if (i > 0) this.queue.splice(i, 1);
    if (i !== 0) this.queue.unshift(approvalId);
    await this.show(a, a.plan);
    await this.updateContext();
  }

  /** showStatic opens a read-only diff of a finished edit. */
  async showStatic(file: string, oldText: string | null, newText: string): Promise<void> {
    const u = this.uris(file, oldText ?? "", newText, "done");
    await vscode.commands.executeCommand("vscode.diff", u.left, u.right, `${path.basename(file)}: before ↔ after Hermes's edit`, { preview: true });
  }

  private uris(file: string, left: string, right: string, tag: string): { left: vscode.Uri; right: vscode.Uri } {
    const n = ++this.seq;
    // The left side is the text the agent diffed against (the editor's
    // text, unsaved changes included), kept as a snapshot so the diff still
    // shows the change after it is accepted.
    const l = vscode.Uri.from({ scheme: proposedScheme, path: file, query: `current=${n}&${tag}` });
    const r = vscode.Uri.from({ scheme: proposedScheme, path: file, query: `proposed=${n}&${tag}` });
    this.texts.set(l.toString(), left);
    this.texts.set(r.toString(), right);
    return { left: l, right: r };
  }

  private leftOf(right: vscode.Uri): vscode.Uri {
    return right.with({ query: right.query.replace(/^proposed=/, "current=") });
  }

  /** forget drops the texts of a proposal whose tab never opened or was closed. */
  private dropTexts(right: vscode.Uri): void {
    this.texts.delete(right.toString());
    this.texts.delete(this.leftOf(right).toString());
  }

  /**
   * approvalFor finds the edit approval a title-bar or palette command is
   * about: the one of the diff it was clicked in (the modified side's URI
   * comes as the argument), else the one in the active tab, else the shown one.
   */
  approvalFor(arg?: unknown): string | undefined {
    const fromUri = (u: vscode.Uri | undefined) => (u?.scheme === proposedScheme ? /(?:^|&)approval=([^&]+)/.exec(u.query)?.[1] : undefined);
    if (typeof arg === "string" && this.broker.get(arg)) return arg;
    if (arg instanceof vscode.Uri) return fromUri(arg);
    const tab = vscode.window.tabGroups.activeTabGroup.activeTab?.input;
    if (tab instanceof vscode.TabInputTextDiff) {
      const id = fromUri(tab.modified);
      if (id) return id;
    }
    return this.shown?.id;
  }

  /** decide answers the edit a diff editor button was pressed for. */
  decide(decision: "accept" | "reject", arg?: unknown, via: Surface = "diff"): boolean {
    const id = this.approvalFor(arg);
    return id !== undefined && this.broker.answerEdit(id, decision, via);
  }

  /** hermes.reviewingEdit: the active tab is the diff of a waiting edit (the ✓/✗ buttons show). */
  private async updateContext(): Promise<void> {
    const tab = vscode.window.tabGroups.activeTabGroup.activeTab?.input;
    let on = false;
    if (tab instanceof vscode.TabInputTextDiff && tab.modified.scheme === proposedScheme) {
      const id = /(?:^|&)approval=([^&]+)/.exec(tab.modified.query)?.[1];
      on = id !== undefined && this.broker.get(id)?.state === "waiting";
    }
    await vscode.commands.executeCommand("setContext", "hermes.reviewingEdit", on);
  }

  private async closeDiff(right: vscode.Uri): Promise<void> {
    this.dropTexts(right);
    for (const group of vscode.window.tabGroups.all) {
      for (const tab of group.tabs) {
        if (tab.input instanceof vscode.TabInputTextDiff && tab.input.modified.toString() === right.toString()) {
          await vscode.window.tabGroups.close(tab);
        }
      }
    }
  }

  dispose(): void {
    for (const d of this.disposables) d.dispose();
  }
}
