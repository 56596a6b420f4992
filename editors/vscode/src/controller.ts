// The controller: one per window. It owns the agent (started on first use:
// the chat view or a command), the shown session and its transcript, and
// connects the surfaces — the chat view, the diff editor, the notification,
// the status bar, terminals, the Problems panel — through the approval
// broker. Editor-independent logic lives in src/core.
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import type * as acp from "@agentclientprotocol/sdk";
import * as vscode from "vscode";
import { ApprovalBroker, type Approval } from "./core/approvals";
import { ChatState } from "./core/chat";
import { type AgentConnection, type ClientHost, type LaunchOptions, LaunchError } from "./core/connection";
import { buildPrompt } from "./core/context";
import { FormBroker, type FormRequest } from "./core/forms";
import { DiagnosticsStore, type EditorDiagnostic } from "./core/diagnostics";
import { FsService, type DocumentHost } from "./core/fsService";
import type { ActionId, Attachment, EmptyState, FileMatch, HostMessage, Picker, SelectionInfo, ViewState, WebviewMessage } from "./core/protocol";
import { renderBanner, renderItem, renderItems, type RenderContext } from "./core/render";
import { describeFiles, matchTurns, parseResult, parseTurns, type RewindResult, type RewindTurn } from "./core/rewind";
import { errorText, isSessionNotFound, modelMissing, restoreSession } from "./core/sessions";
import { AgentSupervisor } from "./core/supervisor";
import { TerminalManager, type AgentTerminal } from "./core/terminals";
import { relativeTime } from "./core/time";
import { ChatViewProvider } from "./chatView";
import { ApprovalNotifier } from "./notifier";
import { DiffReview } from "./review";

/** The session shown in the chat view. */
interface LiveSession {
  id: string;
  chat: ChatState;
  modes: acp.SessionModeState | null | undefined;
  configOptions: acp.SessionConfigOption[];
  busy: boolean;
  /** The agent is replaying the session: the view is redrawn once the replay is in. */
  quiet?: boolean;
  /** The turns the agent can restore the workspace to the state before, by their user message's place among the user messages (0-based). */
  rewind?: Map<number, RewindTurn>;
  /** A restore is under way (its card waits for the user). */
  rewinding?: boolean;
}

const imageExt: Record<string, string> = { png: "image/png", jpg: "image/jpeg", jpeg: "image/jpeg", gif: "image/gif", webp: "image/webp" };
const maxImageBytes = 8 * 1024 * 1024;

export class Controller implements vscode.Disposable {
  private readonly output = vscode.window.createOutputChannel("Hermes");
  private traffic: vscode.OutputChannel | undefined;
  private trafficOn = vscode.workspace.getConfiguration("hermes").get<boolean>("traffic") ?? false;
  private readonly collection = vscode.languages.createDiagnosticCollection("hermes");
  private readonly status = vscode.window.createStatusBarItem(vscode.StatusBarAlignment.Left, 100);
  readonly broker = new ApprovalBroker();
  readonly forms = new FormBroker();
  private readonly diagnostics: DiagnosticsStore;
  private readonly terminals: TerminalManager;
  private readonly supervisor: AgentSupervisor;
  readonly review: DiffReview;
  private readonly notifier: ApprovalNotifier;
  readonly view: ChatViewProvider;
  private readonly disposables: vscode.Disposable[] = [];
  private readonly vsTerminals = new Map<string, vscode.Terminal>();
  private session: LiveSession | undefined;
  private phase: ViewState["phase"] = "idle";
  private launchError: LaunchError | undefined;
  private starting: Promise<AgentConnection | undefined> | undefined;
  private sessionReady: Promise<LiveSession | undefined> | undefined;
  private restartReason = "";
  private selection: SelectionInfo | null = null;
  private pendingRender = new Set<number>();
  private renderTimer: NodeJS.Timeout | undefined;

  constructor(private readonly context: vscode.ExtensionContext) {
    this.diagnostics = new DiagnosticsStore({
      set: (p, ds) => this.collection.set(vscode.Uri.file(p), ds.map(toVscodeDiagnostic)),
      delete: (p) => this.collection.delete(vscode.Uri.file(p)),
    });
    this.terminals = new TerminalManager((t) => this.showTerminal(t));
    this.disposables.push({ dispose: this.terminals.onChange((id) => this.onTerminalChange(id)) });
    const host: ClientHost = {
      requestPermission: (req, signal) => this.broker.request(req, signal),
      elicit: (req, signal) => this.forms.request(req, signal),
      fs: new FsService(documentHost),
      terminals: this.terminals,
      diagnostics: this.diagnostics,
      onUpdate: (n) => this.onUpdate(n),
      log: (line) => this.output.appendLine(line),
      traffic: {
        enabled: () => this.trafficOn,
        line: (dir, text) => this.trafficChannel().appendLine(`${new Date().toISOString().slice(11, 23)} ${dir} ${text}`),
      },
    };
    this.supervisor = new AgentSupervisor(() => this.launchOptions(), host, {
      started: (c, restarted) => void this.onStarted(c, restarted),
      restarting: (why, attempt) => this.onRestarting(why, attempt),
      failed: (err) => this.onFailed(err),
    });
    this.review = new DiffReview(this.broker);
    this.view = new ChatViewProvider(
      context.extensionUri,
      (m) => this.onMessage(m),
      () => void this.ensureStarted(),
      (l) => this.output.appendLine(l),
    );
    this.notifier = new ApprovalNotifier(this.broker, this.forms, () => this.view.visible);
    this.disposables.push(
      { dispose: this.broker.onChange((a) => this.onApproval(a)) },
      { dispose: this.forms.onChange((f) => this.onForm(f)) },
      vscode.window.registerWebviewViewProvider(ChatViewProvider.viewId, this.view, { webviewOptions: { retainContextWhenHidden: true } }),
      this.view.onDidChangeVisibility(() => this.notifier.update()),
      vscode.window.onDidChangeActiveTextEditor(() => this.trackSelection()),
      vscode.window.onDidChangeTextEditorSelection(() => this.trackSelection()),
      vscode.workspace.onDidChangeConfiguration((e) => this.onConfig(e)),
    );
    this.status.command = "hermes.showApproval";
    this.updateStatus();
    this.status.show();
    this.trackSelection();
  }

  // --- the agent ---

  private launchOptions(): LaunchOptions {
    const cfg = vscode.workspace.getConfiguration("hermes");
    const bundled = path.join(this.context.extensionPath, "bin", process.platform === "win32" ? "hermes-acp.exe" : "hermes-acp");
    const command = cfg.get<string>("path") || (fs.existsSync(bundled) ? bundled : "hermes-acp");
    return { command, args: cfg.get<string[]>("args") ?? [], env: cfg.get<Record<string, string>>("env") ?? {}, cwd: this.cwd() };
  }

  private cwd(): string {
    return vscode.workspace.workspaceFolders?.[0]?.uri.fsPath ?? os.homedir();
  }

  /** The other workspace folders, sent as additionalDirectories. */
  private dirs(): string[] {
    return (vscode.workspace.workspaceFolders ?? []).slice(1).map((f) => f.uri.fsPath);
  }

  private get conn(): AgentConnection | undefined {
    return this.supervisor.current;
  }

  /** ensureStarted starts the agent once (the first use of the view or of a command). */
  ensureStarted(): Promise<AgentConnection | undefined> {
    if (this.conn) return Promise.resolve(this.conn);
    if (!this.starting) {
      this.setPhase("starting");
      this.starting = this.supervisor.start().finally(() => (this.starting = undefined));
    }
    return this.starting;
  }

  /** restart restarts the agent and reopens the shown session in it. */
  async restart(reason = "Restarted hermes-acp"): Promise<void> {
    const s = this.session;
    if (s?.busy) this.post(s.chat.interrupt());
    this.broker.withdrawAll("The agent was restarted.");
    this.forms.cancelAll("The agent was restarted.");
    this.restartReason = reason;
    this.setPhase("restarting");
    this.starting = this.supervisor.start(true).finally(() => (this.starting = undefined));
    await this.starting;
    await this.sessionReady;
  }

  private async onStarted(c: AgentConnection, restarted: boolean): Promise<void> {
    this.output.appendLine(`[hermes-acp ${c.version} started: ${this.launchOptions().command}]`);
    this.launchError = undefined;
    this.setPhase("ready");
    const old = this.session;
    if (restarted && old) {
      this.sessionReady = this.restore(c, old);
    } else if (!old) {
      this.sessionReady = this.startSession(c);
    }
    await this.sessionReady;
  }

  private onRestarting(why: string, attempt: number): void {
    this.output.appendLine(`[${why}; restarting (attempt ${attempt})]`);
    this.broker.withdrawAll(`The agent stopped (${why}).`);
    this.forms.cancelAll(`The agent stopped (${why}).`);
    const s = this.session;
    if (s) {
      this.post(s.chat.interrupt());
      s.busy = false;
    }
    this.restartReason = `${why}; restarted it`;
    this.setPhase("restarting");
  }

  private onFailed(err: Error): void {
    this.output.appendLine(`[${err.message}]`);
    this.launchError = err instanceof LaunchError ? err : new LaunchError(err.message, "failed");
    this.broker.withdrawAll("The agent stopped.");
    this.forms.cancelAll("The agent stopped.");
    this.setPhase("stopped");
    const s = this.session;
    if (s && s.chat.items.length > 0) {
      this.post(s.chat.notice("error", err.message, [{ id: "retry", label: "Restart" }, { id: "showLog", label: "Show Log" }, { id: "openSettings", label: "Open Settings" }]));
    }
    this.resetView();
  }

  // --- sessions ---

  private toLive(id: string, res: acp.NewSessionResponse | acp.LoadSessionResponse, chat = new ChatState()): LiveSession {
    chat.modeId = res.modes?.currentModeId ?? chat.modeId;
    return { id, chat, modes: res.modes, configOptions: res.configOptions ?? [], busy: false };
  }

  private async startSession(c: AgentConnection, notice?: string): Promise<LiveSession | undefined> {
    try {
      const res = await c.newSession(this.cwd(), this.dirs());
      this.session = this.toLive(res.sessionId, res);
      if (notice) this.session.chat.notice("info", notice);
      this.resetView();
      return this.session;
    } catch (err) {
      this.output.appendLine(`[session/new failed: ${errorText(err)}]`);
      void vscode.window.showErrorMessage(`Hermes: could not start a session: ${errorText(err)}`);
      return undefined;
    }
  }

  /** restore reopens the shown session in a restarted agent, or starts a new one and says so. */
  private async restore(c: AgentConnection, old: LiveSession): Promise<LiveSession | undefined> {
    const reason = this.restartReason || "hermes-acp restarted";
    this.restartReason = "";
    const hadContent = old.chat.items.length > 0;
    const fresh = new ChatState();
    try {
      const r = await restoreSession(c, old.id, this.cwd(), this.dirs(), () => {
        // The replay fills a new transcript; the old one stays shown until it is in.
        this.session = { ...old, chat: fresh, busy: true, quiet: true };
      });
      if (r.kind === "loaded") {
        this.session = this.toLive(old.id, r.res, fresh);
        if (hadContent) this.session.chat.notice("info", `${reason} and reopened this session.`);
        void this.refreshRewind(this.session);
      } else {
        this.session = this.toLive(r.sessionId, r.res, old.chat);
        this.diagnostics.closeSession(old.id);
        if (hadContent) this.session.chat.notice("warning", `${reason}, but could not reopen this session (${r.why}): this is a new session, which does not remember the conversation above.`);
      }
    } catch (err) {
      this.session = { ...old, busy: false };
      this.post(old.chat.notice("error", `${reason}, but starting a session failed: ${errorText(err)}`));
    }
    this.resetView();
    return this.session;
  }

  /** ensureSession returns the shown session, waiting for a start or restore under way. */
  private async ensureSession(): Promise<LiveSession | undefined> {
    const c = await this.ensureStarted();
    if (this.sessionReady) await this.sessionReady;
    if (this.session) return this.session;
    if (!c) return undefined;
    this.sessionReady = this.startSession(c);
    return this.sessionReady;
  }

  async newSession(): Promise<void> {
    const c = await this.ensureStarted();
    if (!c) return;
    if (this.session?.busy) await this.cancel();
    this.endSession();
    this.sessionReady = this.startSession(c);
    await this.sessionReady;
  }

  /** endSession closes the shown session: its diagnostics leave the Problems panel. */
  private endSession(): void {
    const s = this.session;
    if (!s) return;
    this.session = undefined;
    this.diagnostics.closeSession(s.id);
    this.broker.cancelSession(s.id, "The session was closed.");
    this.broker.forget(s.id);
    this.forms.cancelSession(s.id, "The session was closed.");
    this.forms.forget(s.id);
    void this.conn?.closeSession(s.id).catch(() => {});
  }

  /** pickSession lists previous sessions with relative times and opens the chosen one. */
  async pickSession(): Promise<void> {
    const c = await this.ensureStarted();
    if (!c) return;
    if (!c.init.agentCapabilities?.sessionCapabilities?.list) {
      void vscode.window.showInformationMessage("Hermes: this hermes-acp keeps no session history.");
      return;
    }
    type Item = vscode.QuickPickItem & { id: string };
    const qp = vscode.window.createQuickPick<Item>();
    qp.placeholder = "Open a previous Hermes session";
    qp.matchOnDescription = true;
    qp.busy = true;
    qp.show();
    const canDelete = !!c.init.agentCapabilities?.sessionCapabilities?.delete;
    const del: vscode.QuickInputButton = { iconPath: new vscode.ThemeIcon("trash"), tooltip: "Delete this session" };
    const load = async () => {
      const sessions: acp.SessionInfo[] = [];
      let cursor: string | undefined;
      for (let page = 0; page < 20; page++) {
        const res = await c.listSessions(this.cwd(), cursor);
        sessions.push(...res.sessions);
        cursor = res.nextCursor ?? undefined;
        if (!cursor) break;
      }
      const now = new Date();
      qp.items = sessions.map((s) => ({
        id: s.sessionId,
        label: s.title || "Untitled session",
        description: relativeTime(s.updatedAt, now),
        detail: s.sessionId === this.session?.id ? "the session shown now" : undefined,
        buttons: canDelete ? [del] : [],
      }));
      if (sessions.length === 0) qp.placeholder = "No previous sessions in this folder";
      qp.busy = false;
    };
    try {
      await load();
    } catch (err) {
      qp.hide();
      void vscode.window.showErrorMessage(`Hermes: could not list sessions: ${errorText(err)}`);
      return;
    }
    const chosen = await new Promise<string | undefined>((resolve) => {
      qp.onDidAccept(() => resolve(qp.selectedItems[0]?.id));
      qp.onDidHide(() => resolve(undefined));
      qp.onDidTriggerItemButton(async (e) => {
        await c.deleteSession(e.item.id).catch((err) => vscode.window.showErrorMessage(`Hermes: ${errorText(err)}`));
        await load().catch(() => {});
      });
    });
    qp.dispose();
    if (chosen) await this.openSession(chosen);
  }

  /** openSession shows a previous session: the agent replays it into a new transcript. */
  async openSession(id: string): Promise<void> {
    const c = await this.ensureStarted();
    if (!c) return;
    if (this.session?.id === id) return;
    if (this.session?.busy) await this.cancel();
    const previous = this.session;
    const chat = new ChatState();
    this.session = { id, chat, modes: undefined, configOptions: [], busy: true, quiet: true };
    try {
      const res = await c.loadSession(id, this.cwd(), this.dirs());
      this.session = this.toLive(id, res, chat);
      if (previous) {
        this.diagnostics.closeSession(previous.id);
        this.broker.forget(previous.id);
        this.forms.forget(previous.id);
        void c.closeSession(previous.id).catch(() => {});
      }
      void this.refreshRewind(this.session);
    } catch (err) {
      this.session = previous;
      if (previous) this.post(previous.chat.notice("error", `Could not open the session: ${errorText(err)}`));
      else void vscode.window.showErrorMessage(`Hermes: could not open the session: ${errorText(err)}`);
    }
    this.resetView();
  }

  // --- prompts ---

  async prompt(text: string, attachments: Attachment[] = [], includeSelection = false): Promise<void> {
    const s = await this.ensureSession();
    const c = this.conn;
    if (!s || !c) {
      void vscode.window.showErrorMessage("Hermes: the agent is not running.", "Show Log").then((x) => x && this.output.show());
      return;
    }
    if (s.busy) return;
    const caps = c.init.agentCapabilities?.promptCapabilities ?? {};
    const built = buildPrompt(text, attachments, includeSelection ? this.selectionWithText() : null, caps);
    if (built.blocks.length === 0) return;
    this.post(s.chat.user(text, built.chips));
    for (const why of built.skipped) this.post(s.chat.notice("warning", why));
    await this.run(s, built.blocks, true);
  }

  private async run(s: LiveSession, blocks: acp.ContentBlock[], retry: boolean): Promise<void> {
    const c = this.conn;
    if (!c) return;
    s.busy = true;
    this.setPhase("working");
    try {
      const res = await c.prompt(s.id, blocks);
      this.post(s.chat.endTurn(res.stopReason));
      if (res.stopReason === "cancelled") this.post(s.chat.notice("info", "Stopped."));
      else if (res.stopReason !== "end_turn") this.post(s.chat.notice("warning", stopReasonText(res.stopReason)));
    } catch (err) {
      if (retry && isSessionNotFound(err) && this.session === s) {
        // The agent forgot the session (e.g. its store was reset): go on in a new one.
        const res = await c.newSession(this.cwd(), this.dirs()).catch(() => undefined);
        if (res) {
          s.id = res.sessionId;
          s.modes = res.modes;
          s.configOptions = res.configOptions ?? [];
          s.busy = false;
          this.post(s.chat.notice("warning", "The agent no longer knew this session, so the prompt went to a new session (it does not remember the conversation above)."));
          await this.run(s, blocks, false);
          return;
        }
      }
      if (c.isDisposed || !this.conn) {
        // The agent went away mid-turn; the restart reopens the session and says so.
        this.post(s.chat.interrupt());
      } else {
        this.post(s.chat.notice("error", `The prompt failed: ${errorText(err)}`));
      }
    } finally {
      s.busy = false;
      this.broker.cancelSession(s.id, "The turn ended.");
      this.forms.cancelSession(s.id, "The turn ended.");
      this.setPhase(this.conn ? "ready" : this.phase);
      // The turn's last answer can now be forked at; its checkpoint can be restored.
      this.post(this.turnEnds(s));
      void this.refreshRewind(s);
    }
  }

  async cancel(): Promise<void> {
    const s = this.session;
    if (!s) return;
    // ACP: answer every pending permission request "cancelled", then the agent ends the turn.
    this.broker.cancelSession(s.id);
    this.forms.cancelSession(s.id);
    if (this.conn && s.busy) {
      s.chat.cancelling();
      await this.conn.cancel(s.id);
    }
  }

  // --- updates and approvals ---

  private onUpdate(n: acp.SessionNotification): void {
    const s = this.session;
    if (!s || n.sessionId !== s.id) return;
    const u = n.update;
    if (u.sessionUpdate === "config_option_update") s.configOptions = u.configOptions;
    this.post(s.chat.apply(u));
    switch (u.sessionUpdate) {
      case "current_mode_update":
      case "config_option_update":
      case "available_commands_update":
      case "usage_update":
        this.postState();
        this.updateStatus();
        break;
      case "session_info_update":
        this.view.setTitle(s.chat.title);
        break;
      case "notice":
        this.postState();
        break;
    }
  }

  private onApproval(a: Approval): void {
    const s = this.session;
    if (s && a.sessionId === s.id) {
      let i = s.chat.indexOfTool(a.toolCallId);
      if (i === undefined && a.state === "waiting") {
        // A request for a call the chat has no card for: give it one.
        const kind = a.plan.kind === "edit" ? "edit" : a.plan.kind === "command" ? "execute" : "other";
        s.chat.apply({ sessionUpdate: "tool_call", toolCallId: a.toolCallId, title: a.plan.title, kind, status: "pending" });
        i = s.chat.indexOfTool(a.toolCallId);
      }
      if (i !== undefined) this.post([i]);
      if (a.state === "waiting") this.view.post({ type: "focus", toolCallKey: s.chat.tools.get(a.toolCallId)?.key });
    }
    this.postState();
    this.updateStatus();
  }

  private onForm(f: FormRequest): void {
    const s = this.session;
    if (s && (f.sessionId === undefined || f.sessionId === s.id)) {
      let i = f.toolCallId ? s.chat.indexOfTool(f.toolCallId) : undefined;
      if (i === undefined) {
        // A question of no shown tool call: an item of its own, where the conversation is.
        const at = s.chat.items.findIndex((x) => x.type === "form" && x.formId === f.id);
        i = at >= 0 ? at : f.state === "waiting" ? s.chat.form(f.id)[0] : undefined;
      }
      if (i !== undefined) this.post([i]);
      if (f.state === "waiting" && !f.errors) this.view.post({ type: "focus", toolCallKey: s.chat.items[i ?? -1]?.key });
    }
    this.postState();
    this.updateStatus();
  }

  /** showApproval brings the chat and a waiting approval's card into view. */
  async showApproval(id?: string): Promise<void> {
    await this.view.reveal();
    await this.ensureStarted();
    const s = this.session;
    const f = id ? this.forms.get(id) : undefined;
    if (f && s) {
      // A question: its tool call's card, or its own item.
      const i = f.toolCallId ? s.chat.indexOfTool(f.toolCallId) : s.chat.items.findIndex((x) => x.type === "form" && x.formId === f.id);
      this.view.post({ type: "focus", toolCallKey: s.chat.items[i ?? -1]?.key });
      return;
    }
    const a = (id ? this.broker.get(id) : undefined) ?? this.broker.waiting(s?.id)[0];
    const q = a ? undefined : this.forms.waiting(s?.id)[0];
    if (q && s) {
      await this.showApproval(q.id);
      return;
    }
    if (a && s) this.view.post({ type: "focus", toolCallKey: s.chat.tools.get(s.chat.tools.get(a.toolCallId)?.parent ?? a.toolCallId)?.key });
  }

  private onTerminalChange(id: string): void {
    const s = this.session;
    if (!s) return;
    for (const t of s.chat.tools.values()) {
      if (t.terminals.includes(id)) {
        const i = s.chat.indexOfTool(t.id);
        if (i !== undefined) this.pendingRender.add(i);
      }
    }
    // Live output: at most ten renders a second.
    this.renderTimer ??= setTimeout(() => {
      this.renderTimer = undefined;
      const items = [...this.pendingRender];
      this.pendingRender.clear();
      this.post(items);
    }, 100);
  }

  // --- the chat view ---

  private renderContext(s: LiveSession): RenderContext {
    const canFork = this.conn?.canFork ?? false;
    return {
      approval: (toolCallId) => this.broker.latestFor(s.id, toolCallId),
      terminal: (id) => this.terminals.view(id),
      children: (toolCallId) => s.chat.children.get(toolCallId) ?? [],
      form: (toolCallId) => this.forms.latestFor(s.id, toolCallId),
      formById: (id) => this.forms.get(id),
      forkable: (i) => canFork && endsTurn(s, i),
      restorePoint: (i) => {
        const n = s.chat.turnOf(i);
        const t = n === undefined ? undefined : s.rewind?.get(n - 1);
        return t && !s.busy ? { turn: t.turn, detail: describeFiles(t.files) } : undefined;
      },
    };
  }

  /** turnEnds lists the items that end a turn: the agent messages offered for forking, the user messages offered for restoring. */
  private turnEnds(s: LiveSession): number[] {
    const out: number[] = [];
    s.chat.items.forEach((x, i) => {
      if (x.type === "user" || (x.type === "agent" && endsTurn(s, i))) out.push(i);
    });
    return out;
  }

  /** refreshRewind asks the agent which turns of the session it can restore, and shows their buttons. */
  private async refreshRewind(s: LiveSession): Promise<void> {
    const c = this.conn;
    if (!c?.canRewind || this.session !== s) return;
    let raw: unknown;
    try {
      raw = await c.rewind("list", { sessionId: s.id });
    } catch (err) {
      this.output.appendLine(`[_hermes/rewind/list failed: ${errorText(err)}]`);
      return;
    }
    const turns = parseTurns(raw);
    if (turns instanceof Error) {
      this.output.appendLine(`[${turns.message}]`);
      return;
    }
    const prompts = s.chat.items.filter((x) => x.type === "user").map((x) => (x.type === "user" ? x.text : ""));
    s.rewind = matchTurns(turns, prompts);
    if (this.session === s) this.post(s.chat.items.flatMap((x, i) => (x.type === "user" ? [i] : [])));
  }

  /**
   * restoreTurn puts the workspace back as it was before a turn
   * (_hermes/rewind/apply). The agent asks first: a card in the chat lists
   * the files with their diffs and offers to restore, to restore and drop the
   * conversation from that turn on, to overwrite files changed since, or to
   * cancel; it says on the card what it did. A dropped conversation is
   * reloaded, so that the chat shows what the agent remembers.
   */
  async restoreTurn(turn: number): Promise<void> {
    const s = this.session;
    const c = this.conn;
    if (!s || !c?.canRewind || s.busy || s.rewinding) return;
    s.rewinding = true;
    let r: RewindResult | Error;
    try {
      r = parseResult(await c.rewind("apply", { sessionId: s.id, turn }));
    } catch (err) {
      r = err instanceof Error ? err : new Error(String(err));
    } finally {
      s.rewinding = false;
    }
    if (this.session !== s) return;
    if (r instanceof Error) {
      this.post(s.chat.notice("error", `Could not restore the files to before this turn: ${errorText(r)}`));
      return;
    }
    if (r.outcome === "nothing") this.post(s.chat.notice("info", "Nothing to restore: the files are as they were before that turn."));
    if (r.failed.length > 0) this.post(s.chat.notice("error", `Some files could not be restored:\n\n${r.failed.map((f) => `- ${f}`).join("\n")}`));
    if (r.conversationDropped) {
      await this.reloadSession(s);
      return;
    }
    await this.refreshRewind(s);
  }

  /** reloadSession replays the shown session into a new transcript (the agent changed its history). */
  private async reloadSession(s: LiveSession): Promise<void> {
    const c = this.conn;
    if (!c || this.session !== s) return;
    const chat = new ChatState();
    this.session = { ...s, chat, busy: true, quiet: true };
    try {
      const res = await c.loadSession(s.id, this.cwd(), this.dirs());
      this.session = this.toLive(s.id, res, chat);
      this.session.chat.notice("info", "The conversation from the restored turn on was dropped.");
      void this.refreshRewind(this.session);
    } catch (err) {
      this.session = { ...s, busy: false };
      this.post(s.chat.notice("error", `Could not reload the session: ${errorText(err)}`));
    }
    this.resetView();
  }

  /** fork copies the shown session up to an agent message into a new session (session/fork) and shows the copy. */
  async fork(messageId: string): Promise<void> {
    const s = this.session;
    const c = this.conn;
    if (!s || !c?.canFork || s.busy) return;
    const title = s.chat.title;
    let id: string;
    try {
      id = (await c.forkSession(s.id, this.cwd(), this.dirs(), messageId)).sessionId;
    } catch (err) {
      this.post(s.chat.notice("error", `Could not fork the session: ${errorText(err)}`));
      return;
    }
    await this.openSession(id);
    const now = this.session;
    if (now?.id === id) this.post(now.chat.notice("info", `A fork of ${title ? `“${title}”` : "the session"} up to the chosen answer; the original session is unchanged (History).`));
  }

  private post(indexes: number[]): void {
    const s = this.session;
    if (!s || s.quiet) return;
    const ctx = this.renderContext(s);
    for (const i of indexes) {
      const item = s.chat.items[i];
      if (item) this.view.post({ type: "item", index: i, item: { key: item.key, html: renderItem(item, ctx, i) } });
    }
    if (indexes.length > 0) this.postState();
  }

  private resetView(): void {
    const s = this.session;
    const items = s ? renderItems(s.chat.items, this.renderContext(s)) : [];
    this.view.post({ type: "reset", items });
    this.view.setTitle(s?.chat.title ?? "");
    this.postState();
    this.updateStatus();
  }

  private postState(): void {
    if (this.session?.quiet) return;
    this.view.post({ type: "state", state: this.viewState() });
  }

  private viewState(): ViewState {
    const s = this.session;
    const caps = this.conn?.init.agentCapabilities;
    return {
      phase: this.phase,
      busy: s?.busy ?? false,
      empty: s && s.chat.items.length > 0 ? null : this.emptyState(),
      pickers: s ? pickersOf(s) : [],
      usage: s?.chat.usage ?? null,
      commands: s?.chat.commands ?? [],
      images: caps?.promptCapabilities?.image === true,
      waiting: this.broker.waiting(s?.id).length + this.forms.waiting(s?.id).length,
      banners: (s?.chat.banners ?? []).map((b) => ({ key: b.key, html: renderBanner(b) })),
      planMode: !!s && currentMode(s) === "plan",
    };
  }

  private emptyState(): EmptyState {
    const e = this.launchError;
    if (e?.reason === "missing") {
      return {
        kind: "missing-binary",
        title: "hermes-acp is not installed",
        detail: `${e.message}\n\nIn a clone of hermes-acp: \`make install\` (or \`make install PREFIX=$HOME/.local\`), then Retry.`,
        actions: [
          { id: "openSettings", label: "Set hermes.path", primary: true },
          { id: "installHelp", label: "How to install" },
          { id: "retry", label: "Retry" },
        ],
      };
    }
    if (e?.reason === "too-old") {
      return { kind: "too-old", title: "hermes-acp is too old", detail: e.message, actions: [{ id: "installHelp", label: "How to update", primary: true }, { id: "openSettings", label: "Open Settings" }, { id: "retry", label: "Retry" }] };
    }
    if (e) {
      return { kind: "failed", title: "hermes-acp stopped", detail: e.message, actions: [{ id: "showLog", label: "Show Log", primary: true }, { id: "retry", label: "Restart" }, { id: "openSettings", label: "Open Settings" }] };
    }
    if (this.phase === "starting" || this.phase === "restarting" || this.phase === "idle") {
      return { kind: "starting", title: "Starting hermes-acp…", detail: "", actions: [] };
    }
    if (this.session && modelMissing(this.session.configOptions)) {
      const setup = this.setupMethod();
      return {
        kind: "no-model",
        title: "Choose a model",
        detail: setup
          ? "hermes-acp is running but has no model yet. **Configure model** asks for your OpenAI-compatible or Anthropic server, the model and the API key in a terminal, and reconnects when it is done.\n\nOr set `HERMES_MODEL` and `OPENAI_API_KEY` in `hermes.env`, or `--model` in `hermes.args`."
          : "hermes-acp is running but has no model yet. Run `hermes-acp --setup` in a terminal, or set `HERMES_MODEL` and `OPENAI_API_KEY` in `hermes.env`, or `--model` in `hermes.args`.",
        actions: [...(setup ? [{ id: "configureModel" as const, label: "Configure model", primary: true }] : []), { id: "openSettings", label: "Open Settings" }],
      };
    }
    const canList = !!this.conn?.init.agentCapabilities?.sessionCapabilities?.list;
    return {
      kind: "welcome",
      title: "Ask Hermes",
      detail:
        "Hermes works in this workspace: it reads and edits files — you approve each edit, in the chat or with ✓/✗ in the diff editor — runs commands (dangerous ones ask first) and puts the problems an edit introduces in the Problems panel.\n\n" +
        "Type `@` to attach a file, `/` for commands; the selection in the editor goes along when its chip is on. Escape stops a turn.",
      actions: canList ? [{ id: "history", label: "Open a previous session" }] : [],
    };
  }

  private setupMethod(): (acp.AuthMethodTerminal & { type: "terminal" }) | undefined {
    return this.conn?.init.authMethods?.find((m): m is acp.AuthMethodTerminal & { type: "terminal" } => (m as { type?: string }).type === "terminal");
  }

  private setPhase(p: ViewState["phase"]): void {
    this.phase = p;
    this.updateStatus();
    this.postState();
  }

  private updateStatus(): void {
    const waiting = this.broker.waiting().length + this.forms.waiting().length;
    const s = this.session;
    const mode = s ? pickersOf(s).find((p) => p.category === "mode") : undefined;
    const modeName = mode?.kind === "select" ? mode.options.find((o) => o.value === mode.value)?.name : undefined;
    const icon = { idle: "$(hubot)", starting: "$(sync~spin)", restarting: "$(sync~spin)", ready: "$(hubot)", working: "$(loading~spin)", stopped: "$(error)" }[this.phase];
    if (waiting > 0) {
      this.status.text = `$(bell-dot) Hermes: waiting for you${waiting > 1 ? ` (${waiting})` : ""}`;
      this.status.backgroundColor = new vscode.ThemeColor("statusBarItem.warningBackground");
    } else {
      this.status.text = `${icon} Hermes: ${this.phase === "idle" ? "chat" : this.phase}${modeName ? " · " + modeName : ""}`;
      this.status.backgroundColor = undefined;
    }
    this.status.tooltip = `hermes-acp ${this.conn?.version ?? ""} — ${this.phase}. Click to open the chat.`;
  }

  private async onMessage(m: WebviewMessage): Promise<void> {
    switch (m.type) {
      case "ready":
        this.resetView();
        this.view.post({ type: "selection", selection: this.selection });
        return;
      case "prompt":
        await this.prompt(m.text, m.attachments, m.includeSelection);
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
      case "setOption":
        await this.setOption(m.configId, m.value);
        return;
      case "answer":
        this.broker.answer(m.approvalId, m.optionId, "chat");
        return;
      case "findFiles":
        this.view.post({ type: "fileMatches", query: m.query, files: await findFiles(m.query) });
        return;
      case "pickFiles":
        await this.pickFiles();
        return;
      case "dropped":
        this.view.post({ type: "attach", attachments: await attachmentsFor(m.uris.map((u) => vscode.Uri.parse(u))) });
        return;
      case "action":
        await this.action(m.action);
        return;
      case "openDiff":
        await this.openDiff(m.toolCallId, m.index, m.approvalId);
        return;
      case "openLink":
        await this.openLink(m.href);
        return;
      case "copy":
        await vscode.env.clipboard.writeText(m.text);
        vscode.window.setStatusBarMessage("$(check) Copied", 2000);
        return;
      case "showTerminal":
        this.vsTerminals.get(m.terminalId)?.show(false);
        return;
      case "formAnswer":
        this.forms.submit(m.formId, m.values);
        return;
      case "formDecline":
        this.forms.decline(m.formId);
        return;
      case "dismissBanner":
        if (this.session?.chat.dismissBanner(m.key)) this.postState();
        return;
      case "fork":
        await this.fork(m.messageId);
        return;
      case "restore":
        await this.restoreTurn(m.turn);
        return;
    }
  }

  private async setOption(configId: string, value: string | boolean): Promise<void> {
    const s = this.session;
    const c = this.conn;
    if (!s || !c) return;
    try {
      if (configId === "__mode" && typeof value === "string") {
        await c.setMode(s.id, value);
        s.chat.modeId = value;
      } else {
        const res = await c.setConfigOption(s.id, configId, value);
        s.configOptions = res.configOptions;
      }
    } catch (err) {
      this.post(s.chat.notice("error", `Could not change ${configId}: ${errorText(err)}`));
    }
    this.postState();
    this.updateStatus();
  }

  async action(a: ActionId): Promise<void> {
    switch (a) {
      case "openSettings":
        await vscode.commands.executeCommand("workbench.action.openSettings", "@ext:hermes-acp.hermes-acp");
        return;
      case "configureModel":
        await this.configureModel();
        return;
      case "retry":
        this.launchError = undefined;
        if (this.session) await this.restart("Restarted hermes-acp");
        else await this.ensureStarted();
        return;
      case "showLog":
        this.output.show();
        return;
      case "installHelp":
        await vscode.commands.executeCommand("markdown.showPreview", vscode.Uri.joinPath(this.context.extensionUri, "README.md"));
        return;
      case "newSession":
        await this.newSession();
        return;
      case "history":
        await this.pickSession();
        return;
    }
  }

  /**
   * configureModel runs the agent's terminal setup method (ACP terminal
   * auth: the agent's command with the method's args) in a VS Code
   * terminal, and reconnects once it exits successfully.
   */
  async configureModel(): Promise<void> {
    await this.ensureStarted();
    const method = this.setupMethod();
    const launch = this.launchOptions();
    if (!method) {
      void vscode.window.showInformationMessage("Hermes: run `hermes-acp --setup` in a terminal to choose a model.");
      return;
    }
    const term = vscode.window.createTerminal({
      name: `Hermes: ${method.name}`,
      shellPath: launch.command,
      shellArgs: [...launch.args, ...(method.args ?? [])],
      env: { ...launch.env, ...(method.env ?? {}) },
      cwd: launch.cwd,
    });
    term.show(false);
    const code = await new Promise<number | undefined>((resolve) => {
      const d = vscode.window.onDidCloseTerminal((t) => {
        if (t !== term) return;
        d.dispose();
        resolve(t.exitStatus?.code);
      });
      this.disposables.push(d);
    });
    if (code === 0) {
      await this.restart("Configured the model");
      void vscode.window.showInformationMessage("Hermes: the model is configured; the chat is ready.");
    } else if (code !== undefined) {
      void vscode.window.showWarningMessage(`Hermes: the setup ended with status ${code}; the model is unchanged.`);
    }
  }

  private async pickFiles(): Promise<void> {
    const uris = await vscode.window.showOpenDialog({ canSelectMany: true, openLabel: "Attach", defaultUri: vscode.workspace.workspaceFolders?.[0]?.uri });
    if (uris?.length) this.view.post({ type: "attach", attachments: await attachmentsFor(uris) });
  }

  private async openDiff(toolCallId?: string, index?: number, approvalId?: string): Promise<void> {
    if (approvalId) {
      await this.review.open(approvalId);
      return;
    }
    const t = toolCallId ? this.session?.chat.tools.get(toolCallId) : undefined;
    const d = t?.diffs[index ?? 0];
    if (d) await this.review.showStatic(d.path, d.oldText, d.newText);
  }

  private async openLink(href: string): Promise<void> {
    if (/^https?:|^mailto:/i.test(href)) {
      await vscode.env.openExternal(vscode.Uri.parse(href));
      return;
    }
    let uri: vscode.Uri;
    if (/^file:/i.test(href)) uri = vscode.Uri.parse(href);
    else if (/^[a-z][a-z0-9+.-]*:/i.test(href)) return;
    else uri = vscode.Uri.file(path.resolve(this.cwd(), href.split("#")[0]));
    const line = /#L(\d+)/.exec(href)?.[1] ?? /:(\d+)$/.exec(uri.path)?.[1];
    const doc = await vscode.workspace.openTextDocument(uri.with({ fragment: "" }));
    const pos = line ? new vscode.Position(Math.max(0, Number(line) - 1), 0) : undefined;
    await vscode.window.showTextDocument(doc, { preview: true, selection: pos ? new vscode.Range(pos, pos) : undefined });
  }

  private trackSelection(): void {
    const e = vscode.window.activeTextEditor;
    if (e && e.document.uri.scheme === "file") {
      const sel = e.selection;
      const next: SelectionInfo | null = sel.isEmpty
        ? null
        : { uri: e.document.uri.toString(), name: path.basename(e.document.uri.fsPath), startLine: sel.start.line + 1, endLine: sel.end.character === 0 && sel.end.line > sel.start.line ? sel.end.line : sel.end.line + 1, text: "" };
      const changed = JSON.stringify(next) !== JSON.stringify(this.selection);
      this.selection = next;
      if (changed) this.view.post({ type: "selection", selection: next });
    }
  }

  /** selectionWithText is the tracked selection with its text, read when the prompt is sent. */
  private selectionWithText(): SelectionInfo | null {
    const s = this.selection;
    if (!s) return null;
    const e = vscode.window.visibleTextEditors.find((x) => x.document.uri.toString() === s.uri);
    const text = e ? e.document.getText(e.selection) : "";
    return text ? { ...s, text } : null;
  }

  private onConfig(e: vscode.ConfigurationChangeEvent): void {
    if (e.affectsConfiguration("hermes.traffic")) this.trafficOn = vscode.workspace.getConfiguration("hermes").get<boolean>("traffic") ?? false;
    if ((e.affectsConfiguration("hermes.path") || e.affectsConfiguration("hermes.args") || e.affectsConfiguration("hermes.env")) && (this.conn || this.launchError)) {
      this.launchError = undefined;
      void this.restart("The hermes settings changed; restarted hermes-acp");
    }
  }

  private trafficChannel(): vscode.OutputChannel {
    this.traffic ??= vscode.window.createOutputChannel("Hermes: ACP Traffic");
    return this.traffic;
  }

  /** showTraffic shows the ACP traffic channel, offering to turn logging on. */
  async showTraffic(): Promise<void> {
    if (!this.trafficOn) {
      const on = await vscode.window.showInformationMessage("Hermes: ACP traffic logging is off (hermes.traffic). Turn it on? Every message to and from hermes-acp, prompts and file contents included, goes to the output channel.", "Turn On");
      if (on !== "Turn On") return;
      await vscode.workspace.getConfiguration("hermes").update("traffic", true, vscode.ConfigurationTarget.Global);
      this.trafficOn = true;
    }
    this.trafficChannel().show(true);
  }

  showLog(): void {
    this.output.show();
  }

  /** showTerminal shows an agent terminal as a VS Code terminal fed by its output. */
  private showTerminal(t: AgentTerminal): void {
    const write = new vscode.EventEmitter<string>();
    const close = new vscode.EventEmitter<number | void>();
    const pty: vscode.Pseudoterminal = {
      onDidWrite: write.event,
      onDidClose: close.event,
      open: () => {
        write.fire(`\x1b[2m$ ${t.command}\x1b[0m\r\n`);
        t.onOutput((chunk) => write.fire(chunk.replace(/\r?\n/g, "\r\n")));
        void t.exited.then((s) => write.fire(`\r\n\x1b[2m[exited ${s.signal ?? s.exitCode}]\x1b[0m\r\n`));
      },
      close: () => t.kill(),
    };
    const name = `Hermes: ${t.command.length > 40 ? t.command.slice(0, 39) + "…" : t.command}`;
    const term = vscode.window.createTerminal({ name, pty, isTransient: true });
    this.vsTerminals.set(t.id, term);
  }

  dispose(): void {
    this.broker.withdrawAll("VS Code is closing.");
    this.forms.cancelAll("VS Code is closing.");
    this.endSession();
    this.supervisor.stop();
    this.terminals.dispose();
    this.review.dispose();
    this.notifier.dispose();
    this.view.dispose();
    this.collection.dispose();
    this.status.dispose();
    this.output.dispose();
    this.traffic?.dispose();
    for (const d of this.disposables) d.dispose();
  }
}

/** endsTurn: item i is an agent message that ends a finished turn (what follows it is the next prompt, or nothing once the turn is over). */
function endsTurn(s: LiveSession, i: number): boolean {
  const items = s.chat.items;
  if (items[i]?.type !== "agent") return false;
  for (let j = i + 1; j < items.length; j++) {
    const t = items[j].type;
    if (t === "user") return true;
    if (t !== "notice" && t !== "plan") return false;
  }
  return !s.busy;
}

/** currentMode is the session's mode id (the mode config option, or the legacy modes). */
function currentMode(s: LiveSession): string {
  const mode = pickersOf(s).find((p) => p.category === "mode");
  return mode?.kind === "select" ? mode.value : "";
}

function stopReasonText(r: string): string {
  switch (r) {
    case "max_tokens":
      return "Stopped: the model reached its token limit.";
    case "max_turn_requests":
      return "Stopped: this turn made as many model requests as allowed (agent.max_turns).";
    case "refusal":
      return "The model refused; this prompt and its answer are not part of the conversation.";
    default:
      return `Stopped: ${r}`;
  }
}

/** pickersOf turns a session's config options (or its legacy modes) into composer pickers. */
function pickersOf(s: LiveSession): Picker[] {
  const out: Picker[] = [];
  for (const o of s.configOptions) {
    if (o.type === "select") {
      const options: { value: string; name: string; description?: string; group?: string }[] = [];
      for (const x of o.options as unknown[]) {
        const g = x as { group?: string; name: string; options?: { value: string; name: string; description?: string | null }[]; value?: string; description?: string | null };
        if (Array.isArray(g.options)) for (const y of g.options) options.push({ value: y.value, name: y.name, description: y.description ?? undefined, group: g.name });
        else options.push({ value: g.value!, name: g.name, description: g.description ?? undefined });
      }
      out.push({ kind: "select", id: o.id, name: o.name, category: o.category ?? "", value: o.currentValue, options });
    } else if (o.type === "boolean") {
      out.push({ kind: "boolean", id: o.id, name: o.name, category: o.category ?? "", value: o.currentValue });
    }
  }
  if (!out.some((p) => p.category === "mode") && s.modes && s.modes.availableModes.length > 0) {
    out.unshift({ kind: "select", id: "__mode", name: "Mode", category: "mode", value: s.chat.modeId || s.modes.currentModeId, options: s.modes.availableModes.map((m) => ({ value: m.id, name: m.name, description: m.description ?? undefined })) });
  }
  return out;
}

/** findFiles is the @ completion: workspace files whose name or path contains the query. */
async function findFiles(query: string): Promise<FileMatch[]> {
  const q = query.trim();
  const ci = (s: string) => s.replace(/[[\]{}?*!]/g, "").replace(/[a-z]/gi, (c) => `[${c.toLowerCase()}${c.toUpperCase()}]`);
  const glob = q === "" ? "**/*" : q.includes("/") ? `**/${ci(q)}*` : `**/*${ci(q)}*`;
  const uris = await vscode.workspace.findFiles(glob, "**/{node_modules,.git,out,dist,.hermes}/**", 200);
  const lower = q.toLowerCase();
  return uris
    .map((u) => ({ uri: u.toString(), name: path.basename(u.fsPath), relative: vscode.workspace.asRelativePath(u, false) }))
    .sort((a, b) => {
      const score = (f: FileMatch) => (f.name.toLowerCase().startsWith(lower) ? 0 : f.name.toLowerCase().includes(lower) ? 1 : 2);
      return score(a) - score(b) || a.relative.length - b.relative.length || a.relative.localeCompare(b.relative);
    })
    .slice(0, 30);
}

/** attachmentsFor turns files (attached or dropped) into attachments: images by content, others by reference. */
async function attachmentsFor(uris: vscode.Uri[]): Promise<Attachment[]> {
  const out: Attachment[] = [];
  for (const u of uris) {
    if (u.scheme !== "file" && u.scheme !== "vscode-remote") continue;
    const name = path.basename(u.path);
    const mime = imageExt[name.split(".").pop()?.toLowerCase() ?? ""];
    try {
      const stat = await vscode.workspace.fs.stat(u);
      if (stat.type & vscode.FileType.Directory) continue;
      if (mime && stat.size <= maxImageBytes) {
        const data = Buffer.from(await vscode.workspace.fs.readFile(u)).toString("base64");
        out.push({ kind: "image", name, mimeType: mime, data });
      } else {
        out.push({ kind: "file", uri: vscode.Uri.file(u.fsPath).toString(), name });
      }
    } catch {
      // A file that vanished is not attached.
    }
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

export type { HostMessage };
