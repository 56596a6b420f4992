// The VS Code extension: an ACP client for hermes-acp. Activation is lazy —
// opening the Hermes view or running one of its commands — and starts no
// process by itself: the agent starts when the chat view is resolved or a
// command needs it (controller.ts).
import * as vscode from "vscode";
import { Controller } from "./controller";

export function activate(context: vscode.ExtensionContext): void {
  const c = new Controller(context);
  context.subscriptions.push(c);
  const cmd = (id: string, fn: (...a: unknown[]) => unknown) => context.subscriptions.push(vscode.commands.registerCommand(id, fn));
  cmd("hermes.newSession", () => c.newSession());
  cmd("hermes.sendPrompt", async (text?: unknown) => {
    const t = typeof text === "string" ? text : await vscode.window.showInputBox({ prompt: "Prompt for Hermes" });
    if (t) await c.prompt(t);
  });
  cmd("hermes.cancel", () => c.cancel());
  cmd("hermes.loadSession", () => c.pickSession());
  cmd("hermes.restart", () => c.restart());
  cmd("hermes.showLog", () => c.showLog());
  cmd("hermes.showTraffic", () => c.showTraffic());
  cmd("hermes.configureModel", () => c.configureModel());
  cmd("hermes.showApproval", (id?: unknown) => c.showApproval(typeof id === "string" ? id : undefined));
  // From the diff editor's title (the argument is the proposal's URI), the notification (the approval's id) or the palette.
  cmd("hermes.acceptEdit", (arg?: unknown, via?: unknown) => c.review.decide("accept", arg, via === "notification" ? "notification" : arg === undefined ? "command" : "diff"));
  cmd("hermes.rejectEdit", (arg?: unknown, via?: unknown) => c.review.decide("reject", arg, via === "notification" ? "notification" : arg === undefined ? "command" : "diff"));
}

export function deactivate(): void {}
