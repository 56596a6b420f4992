// The VS Code extension: an ACP client for hermes-acp. It wires the
// editor-independent core (src/core) to VS Code: the chat webview, the diff
// editor for edit approval, documents for fs/*, Pseudoterminals for
// terminal/*, the "hermes" diagnostic collection, a status-bar item and the
// "Hermes" output channel.
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import type * as acp from "@agentclientprotocol/sdk";
import * as vscode from "vscode";
import { ChatState, renderItem } from "./core/chat";
import { type AgentConnection, type ClientHost, type LaunchOptions } from "./core/connection";
import { DiagnosticsStore, type EditorDiagnostic } from "./core/diagnostics";
import { FsService, type DocumentHost } from "./core/fsService";
import { outcomeFor, planPermission, selected } from "./core/permissions";
import { AgentSupervisor } from "./core/supervisor";
import { TerminalManager, type AgentTerminal } from "./core/terminals";
import { ReviewManager } from "./review";

export function activate(context: vscode.ExtensionContext): void {
  const ext = new HermesExtension(context);
  context.subscriptions.push(ext);
  void ext.start();
}

export function deactivate(): void {}

/** The session shown in the chat view. */
interface Session {
  id: string;
  chat: ChatState;
  modes: acp.SessionModeState | null | undefined;
  configOptions: acp.SessionConfigOption[];
  busy: boolean;
}

class HermesExtension implements vscode.Disposable, vscode.WebviewViewProvider {
  private readonly output = vscode.window.createOutputChannel("Hermes");
  private readonly collection = vscode.languages.createDiagnosticCollection("hermes");
  private readonly status = vscode.window.createStatusBarItem(vscode.StatusBarAlignment.Left, 100);
  private readonly review = new ReviewManager();
  private readonly diagnostics: DiagnosticsStore;
  private readonly terminals: TerminalManager;
  private readonly supervisor: AgentSupervisor;
  private readonly disposables: vscode.Disposable[] = [];
  private view: vscode.WebviewView | undefined;
  private session: Session | undefined;
  private state = "starting";

  constructor(private readonly context: vscode.ExtensionContext) {
    this.diagnostics = new DiagnosticsStore({
      set: (p, ds) => this.collection.set(vscode.Uri.file(p), ds.map(toVscodeDiagnostic)),
      delete: (p) => this.collection.delete(vscode.Uri.file(p)),
    });
    this.terminals = new TerminalManager((t) => showTerminal(t));
    const host: ClientHost = {
      requestPermission: (req) => this.requestPermission(req),
      fs: new FsService(documentHost),
      terminals: this.terminals,
      diagnostics: this.diagnostics,
      onUpdate: (n) => this.onUpdate(n),
      log: (line) => this.output.appendLine(line),
    };
    this.supervisor = new AgentSupervisor(() => this.launchOptions(), host, {
      started: (c, restarted) => {
        this.output.appendLine(`[hermes-acp ${c.version} started: ${this.launchOptions().command}]`);
        this.setState("ready");
        if (restarted) {
          this.endSession();
          void vscode.window.showWarningMessage("Hermes: the agent stopped and was restarted; your next prompt starts a new session.");
        }
      },
      restarting: (why, attempt) => {
        this.output.appendLine(`[${why}; restarting (attempt ${attempt})]`);
        this.session?.chat && this.post(this.session.chat.notice("error", `${why}; restarting it.`));
        this.setState("restarting");
      },
      failed: (err) => {
        this.output.appendLine(`[${err.message}]`);
        this.setState("stopped");
        void vscode.window.showErrorMessage(`Hermes: ${err.message}`, "Open Settings", "Show Log", "Retry").then((c) => {
          if (c === "Open Settings") void vscode.commands.executeCommand("workbench.action.openSettings", "hermes.");
          else if (c === "Show Log") this.output.show();
          else if (c === "Retry") void this.supervisor.start();
        });
      },
    });
    this.status.command = "hermes.chat.focus";
    this.status.show();
    this.setState("starting");
    const cmd = (id: string, fn: (...a: any[]) => unknown) => this.disposables.push(vscode.commands.registerCommand(id, fn));
    cmd("hermes.newSession", () => this.newSession());
    cmd("hermes.sendPrompt", async (text?: string) => {
      const t = text ?? (await vscode.window.showInputBox({ prompt: "Prompt for Hermes" }));
      if (t) await this.prompt(t);
    });
    cmd("hermes.cancel", () => this.cancel());
    cmd("hermes.loadSession", () => this.pickSession());
    cmd("hermes.restart", () => this.supervisor.start());
    cmd("hermes.showLog", () => this.output.show());
    cmd("hermes.acceptEdit", () => this.review.decide("accept"));
    cmd("hermes.rejectEdit", () => this.review.decide("reject"));
    this.disposables.push(vscode.window.registerWebviewViewProvider("hermes.chat", this, { webviewOptions: { retainContextWhenHidden: true } }));
  }

  start(): Promise<unknown> {
    return this.supervisor.start();
  }

  private launchOptions(): LaunchOptions {
    const cfg = vscode.workspace.getConfiguration("hermes");
    const bundled = path.join(this.context.extensionPath, "bin", process.platform === "win32" ? "hermes-acp.exe" : "hermes-acp");
    const command = cfg.get<string>("path") || (fs.existsSync(bundled) ? bundled : "hermes-acp");
    return {
      command,
      args: cfg.get<string[]>("args") ?? [],
      env: cfg.get<Record<string, string>>("env") ?? {},
      cwd: vscode.workspace.workspaceFolders?.[0]?.uri.fsPath ?? os.homedir(),
    };
  }

  private get conn(): AgentConnection | undefined {
    return this.supervisor.current;
  }

  private setState(s: string): void {
    this.state = s;
    const mode = this.session?.modes?.availableModes.find((m) => m.id === (this.session?.chat.modeId || this.session?.modes?.currentModeId));
    const icon = { starting: "$(sync~spin)", restarting: "$(sync~spin)", ready: "$(hubot)", working: "$(loading~spin)", stopped: "$(error)" }[s] ?? "$(hubot)";
    this.status.text = `${icon} Hermes: ${s}${mode ? " · " + mode.name : ""}`;
    this.status.tooltip = `hermes-acp ${this.conn?.version ?? ""} — ${s}. Click to open the chat.`;
    this.postState();
  }

  // --- sessions ---

  private async ensureSession(): Promise<Session | undefined> {
    if (this.session) return this.session;
    return this.newSession();
  }

  private async newSession(): Promise<Session | undefined> {
    const conn = this.conn ?? (await this.supervisor.start());
    if (!conn) return undefined;
    this.endSession();
    const res = await conn.newSession(this.launchOptions().cwd);
    this.session = { id: res.sessionId, chat: new ChatState(), modes: res.modes, configOptions: res.configOptions ?? [], busy: false };
    this.session.chat.modeId = res.modes?.currentModeId ?? "";
    this.resetView();
    this.setState("ready");
    return this.session;
  }

  /** endSession closes the shown session: its diagnostics leave the Problems panel. */
  private endSession(): void {
    const s = this.session;
    if (!s) return;
    this.session = undefined;
    this.diagnostics.closeSession(s.id);
    void this.conn?.closeSession(s.id).catch(() => {});
  }

  private async pickSession(): Promise<void> {
    const conn = this.conn;
    if (!conn) return;
    const cwd = this.launchOptions().cwd;
    const list = await conn.listSessions(cwd);
    const pick = await vscode.window.showQuickPick(
      list.sessions.map((s) => ({ label: s.title || s.sessionId, description: s.updatedAt ?? "", id: s.sessionId })),
      { placeHolder: "Open a previous Hermes session" },
    );
    if (!pick) return;
    this.endSession();
    const chat = new ChatState();
    this.session = { id: pick.id, chat, modes: undefined, configOptions: [], busy: true };
    this.resetView();
    const res = await conn.loadSession(pick.id, cwd);
    this.session.modes = res.modes;
    this.session.configOptions = res.configOptions ?? [];
    this.session.busy = false;
    if (res.modes) chat.modeId = res.modes.currentModeId;
    this.resetView();
    this.setState("ready");
  }

  private async prompt(text: string): Promise<void> {
    const s = await this.ensureSession();
    const conn = this.conn;
    if (!s || !conn) return;
    this.post(s.chat.user(text));
    s.busy = true;
    this.setState("working");
    try {
      const res = await conn.prompt(s.id, text);
      if (res.stopReason !== "end_turn") this.post(s.chat.notice("info", `Stopped: ${res.stopReason}`));
    } catch (err) {
      this.post(s.chat.notice("error", `The prompt failed: ${(err as Error).message}`));
    } finally {
      s.busy = false;
      this.setState(this.conn ? "ready" : this.state);
    }
  }

  private async cancel(): Promise<void> {
    if (this.session && this.conn) {
      await this.conn.cancel(this.session.id);
      this.review.decide("dismiss");
    }
  }

  private onUpdate(n: acp.SessionNotification): void {
    const s = this.session;
    if (!s || n.sessionId !== s.id) return;
    const u = n.update;
    if (u.sessionUpdate === "config_option_update") s.configOptions = u.configOptions;
    this.post(s.chat.apply(u));
    if (u.sessionUpdate === "current_mode_update" || u.sessionUpdate === "config_option_update" || u.sessionUpdate === "available_commands_update") {
      this.setState(this.state);
    }
  }

  private async requestPermission(req: acp.RequestPermissionRequest): Promise<acp.RequestPermissionResponse> {
    const plan = planPermission(req);
    if (plan.kind === "edit") {
      return outcomeFor(plan, await this.review.ask(plan));
    }
    const note = plan.notes.length ? ` — ${plan.notes.join("; ")}` : "";
    const choice = await vscode.window.showInformationMessage(`Hermes: ${plan.title}${note}`, ...plan.options.map((o) => o.label));
    const o = plan.options.find((o) => o.label === choice);
    return o ? selected(o.optionId) : { outcome: { outcome: "cancelled" } };
  }

  // --- the chat webview ---

  resolveWebviewView(view: vscode.WebviewView): void {
    this.view = view;
    const media = vscode.Uri.joinPath(this.context.extensionUri, "media");
    view.webview.options = { enableScripts: true, localResourceRoots: [media] };
    const nonce = String(Math.random()).slice(2) + String(Date.now());
    const js = view.webview.asWebviewUri(vscode.Uri.joinPath(media, "chat.js"));
    const css = view.webview.asWebviewUri(vscode.Uri.joinPath(media, "chat.css"));
    view.webview.html = `<!DOCTYPE html><html><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src ${view.webview.cspSource}; script-src 'nonce-${nonce}'; img-src ${view.webview.cspSource} data:;">
<link rel="stylesheet" href="${css}"></head><body>
<div id="bar"><select id="mode" title="Mode"></select><select id="model" title="Model"></select>
<button id="new" title="New session">New</button><button id="history" title="Previous sessions">History</button></div>
<div id="log" aria-live="polite"></div>
<div id="completions" hidden></div>
<div id="input"><textarea id="prompt" rows="3" placeholder="Ask Hermes — / for commands"></textarea>
<button id="send">Send</button><button id="cancel" hidden>Cancel</button></div>
<script nonce="${nonce}" src="${js}"></script></body></html>`;
    view.webview.onDidReceiveMessage((m) => this.onMessage(m), undefined, this.disposables);
  }

  private async onMessage(m: any): Promise<void> {
    switch (m?.type) {
      case "ready":
        this.resetView();
        return;
      case "prompt":
        await this.prompt(String(m.text));
        return;
      case "cancel":
        await this.cancel();
        return;
      case "newSession":
        await this.newSession();
        return;
      case "history":
        await this.pickSession();
        return;
      case "setMode":
        if (this.session && this.conn) {
          await this.conn.setMode(this.session.id, String(m.modeId));
          this.session.chat.modeId = String(m.modeId);
          this.setState(this.state);
        }
        return;
      case "setConfig":
        if (this.session && this.conn) {
          const res = await this.conn.setConfigOption(this.session.id, String(m.configId), String(m.value));
          this.session.configOptions = res.configOptions;
          this.postState();
        }
        return;
    }
  }

  private post(indexes: number[]): void {
    const s = this.session;
    if (!s || !this.view) return;
    for (const i of indexes) void this.view.webview.postMessage({ type: "item", index: i, html: renderItem(s.chat.items[i]) });
  }

  private resetView(): void {
    const items = this.session?.chat.items.map(renderItem) ?? [];
    void this.view?.webview.postMessage({ type: "reset", items });
    this.postState();
  }

  private postState(): void {
    const s = this.session;
    const model = s?.configOptions.find((o) => o.category === "model" || o.id === "model");
    void this.view?.webview.postMessage({
      type: "state",
      state: this.state,
      busy: s?.busy ?? false,
      modes: s?.modes?.availableModes.map((m) => ({ id: m.id, name: m.name })) ?? [],
      modeId: s?.chat.modeId ?? "",
      model: model && model.type === "select" ? { id: model.id, value: model.currentValue, options: flattenOptions(model.options) } : null,
      commands: s?.chat.commands ?? [],
    });
  }

  dispose(): void {
    this.endSession();
    this.supervisor.stop();
    this.terminals.dispose();
    this.review.dispose();
    this.collection.dispose();
    this.status.dispose();
    this.output.dispose();
    for (const d of this.disposables) d.dispose();
  }
}

function flattenOptions(options: acp.SessionConfigSelectOptions): { value: string; name: string }[] {
  const out: { value: string; name: string }[] = [];
  for (const o of options as any[]) {
    if (Array.isArray(o.options)) for (const g of o.options) out.push({ value: g.value, name: g.name });
    else out.push({ value: o.value, name: o.name });
  }
  return out;
}

function toVscodeDiagnostic(d: EditorDiagnostic): vscode.Diagnostic {
  const diag = new vscode.Diagnostic(new vscode.Range(d.startLine, d.startCharacter, d.endLine, d.endCharacter), d.message, d.severity as vscode.DiagnosticSeverity);
  diag.source = d.source;
  if (d.code !== undefined) diag.code = d.code;
  return diag;
}

/** documentHost serves fs/* from VS Code's documents. */
const documentHost: DocumentHost = {
  openDocumentText(p) {
    return vscode.workspace.textDocuments.find((d) => d.uri.scheme === "file" && d.uri.fsPath === p)?.getText();
  },
  readDisk(p) {
    return fs.promises.readFile(p, "utf8");
  },
  async applyAndSave(p, text) {
    const uri = vscode.Uri.file(p);
    const edit = new vscode.WorkspaceEdit();
    if (fs.existsSync(p)) {
      const doc = await vscode.workspace.openTextDocument(uri);
      edit.replace(uri, new vscode.Range(doc.positionAt(0), doc.positionAt(doc.getText().length)), text);
    } else {
      edit.createFile(uri, { ignoreIfExists: true });
      edit.insert(uri, new vscode.Position(0, 0), text);
    }
    if (!(await vscode.workspace.applyEdit(edit))) throw new Error(`${p}: VS Code refused the edit`);
    const doc = await vscode.workspace.openTextDocument(uri);
    if (!(await doc.save())) throw new Error(`${p}: could not save`);
  },
};

/** showTerminal shows an agent terminal as a VS Code terminal fed by its output. */
function showTerminal(t: AgentTerminal): void {
  const write = new vscode.EventEmitter<string>();
  const close = new vscode.EventEmitter<number | void>();
  const pty: vscode.Pseudoterminal = {
    onDidWrite: write.event,
    onDidClose: close.event,
    open: () => {
      write.fire(`\x1b[2m$ ${[t.params.command, ...(t.params.args ?? [])].join(" ")}\x1b[0m\r\n`);
      t.onOutput((chunk) => write.fire(chunk.replace(/\r?\n/g, "\r\n")));
      void t.exited.then((s) => write.fire(`\r\n\x1b[2m[exited ${s.signal ?? s.exitCode}]\x1b[0m\r\n`));
    },
    close: () => t.kill(),
  };
  vscode.window.createTerminal({ name: `Hermes: ${t.params.command}`, pty }).show(true);
}
