// The provider of the Chat view (hermes.chat): its HTML shell, and the
// typed messages in both directions. Messages from the webview are checked
// (core/protocol.ts) before the controller sees them.
import { randomBytes } from "node:crypto";
import * as vscode from "vscode";
import { parseWebviewMessage, type HostMessage, type WebviewMessage } from "./core/protocol";

export class ChatViewProvider implements vscode.WebviewViewProvider, vscode.Disposable {
  static readonly viewId = "hermes.chat";
  private view: vscode.WebviewView | undefined;
  private readonly disposables: vscode.Disposable[] = [];
  private readonly visibleEmitter = new vscode.EventEmitter<boolean>();
  /** Fires when the view is shown or hidden. */
  readonly onDidChangeVisibility = this.visibleEmitter.event;

  constructor(
    private readonly extensionUri: vscode.Uri,
    private readonly handle: (m: WebviewMessage) => void | Promise<void>,
    private readonly onResolved: () => void,
    private readonly log: (line: string) => void,
  ) {}

  get visible(): boolean {
    return this.view?.visible ?? false;
  }

  resolveWebviewView(view: vscode.WebviewView): void {
    this.view = view;
    const media = vscode.Uri.joinPath(this.extensionUri, "media");
    view.webview.options = { enableScripts: true, localResourceRoots: [media] };
    const nonce = randomBytes(16).toString("base64");
    const uri = (f: string) => view.webview.asWebviewUri(vscode.Uri.joinPath(media, f));
    const csp = [
      "default-src 'none'",
      `style-src ${view.webview.cspSource}`,
      `font-src ${view.webview.cspSource}`,
      `script-src 'nonce-${nonce}'`,
      `img-src ${view.webview.cspSource} data:`,
    ].join("; ");
    view.webview.html = `<!DOCTYPE html><html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="${csp}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<link rel="stylesheet" href="${uri("codicon.css")}"><link rel="stylesheet" href="${uri("chat.css")}"></head>
<body data-phase="starting">
<div id="banners" hidden></div>
<main id="log" aria-live="polite" aria-label="Conversation"></main>
<section id="empty" hidden></section>
<footer id="composer">
  <div id="waiting" hidden><span class="codicon codicon-bell-dot"></span><span id="waiting-text"></span></div>
  <div id="plan-mode" hidden><span class="codicon codicon-checklist"></span><span>Plan mode: Hermes reads and plans; it changes nothing until you approve its plan.</span></div>
  <div id="completions" role="listbox" hidden></div>
  <div id="context" class="chips"></div>
  <div id="input-box">
    <textarea id="prompt" rows="1" placeholder="Ask Hermes — @ to attach a file, / for commands" aria-label="Prompt"></textarea>
    <div id="toolbar">
      <button id="attach" class="icon-button" title="Attach files or images" aria-label="Attach"><span class="codicon codicon-attach"></span></button>
      <span id="pickers"></span>
      <span id="usage" hidden></span>
      <span class="spacer"></span>
      <button id="send" class="icon-button primary" title="Send (Enter)" aria-label="Send"><span class="codicon codicon-send"></span></button>
      <button id="stop" class="icon-button" title="Stop (Escape)" aria-label="Stop" hidden><span class="codicon codicon-debug-stop"></span></button>
    </div>
  </div>
</footer>
<script nonce="${nonce}" src="${uri("chat.js")}"></script></body></html>`;
    this.disposables.push(
      view.webview.onDidReceiveMessage(async (raw) => {
        const m = parseWebviewMessage(raw);
        if (m instanceof Error) {
          this.log(`[${m.message}]`);
          return;
        }
        try {
          await this.handle(m);
        } catch (err) {
          this.log(`[handling ${m.type} failed: ${(err as Error).stack ?? err}]`);
        }
      }),
      view.onDidChangeVisibility(() => this.visibleEmitter.fire(view.visible)),
      view.onDidDispose(() => {
        if (this.view === view) this.view = undefined;
      }),
    );
    this.onResolved();
  }

  /** post sends a message to the webview (dropped while the view is not resolved). */
  post(m: HostMessage): void {
    void this.view?.webview.postMessage(m);
  }

  /** setTitle shows the session's title next to the view's name. */
  setTitle(title: string): void {
    if (this.view) this.view.description = title;
  }

  /** reveal shows the view. */
  async reveal(): Promise<void> {
    if (this.view) this.view.show(false);
    else await vscode.commands.executeCommand(`${ChatViewProvider.viewId}.focus`);
  }

  dispose(): void {
    this.visibleEmitter.dispose();
    for (const d of this.disposables) d.dispose();
  }
}
