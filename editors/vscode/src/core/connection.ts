// The ACP connection to one hermes-acp process, on the official TypeScript
// SDK: it starts the binary, serves the client methods through a host (the
// editor), and offers the agent methods the UI calls.
import { execFile, spawn, type ChildProcess } from "node:child_process";
import { Readable, Writable } from "node:stream";
import * as acp from "@agentclientprotocol/sdk";
import { FsService, NotFoundError } from "./fsService";
import { DiagnosticsStore, publishDiagnosticsMethod, validPublish, type PublishDiagnosticsParams } from "./diagnostics";
import { TerminalManager } from "./terminals";
import { tap, type TrafficSink } from "./traffic";

/** The oldest hermes-acp the extension works with. */
export const minVersion = "0.1.0";

/** How to start the agent. */
export interface LaunchOptions {
  command: string;
  args: string[];
  env: Record<string, string>;
  cwd: string;
}

/** What the editor provides to the connection. */
export interface ClientHost {
  /** signal aborts when the agent withdraws the request ($/cancel_request). */
  requestPermission(req: acp.RequestPermissionRequest, signal: AbortSignal): Promise<acp.RequestPermissionResponse>;
  /** elicit asks the user the agent's question (elicitation/create, form mode); signal as for requestPermission. */
  elicit(req: acp.CreateElicitationRequest, signal: AbortSignal): Promise<acp.CreateElicitationResponse>;
  fs: FsService;
  terminals: TerminalManager;
  diagnostics: DiagnosticsStore;
  onUpdate(n: acp.SessionNotification): void;
  /** log receives the agent's stderr, line by line. */
  log(line: string): void;
  /** traffic, if given, sees every JSON-RPC line while it is enabled. */
  traffic?: TrafficSink;
}

/** initializeParams is the initialize request the extension sends. */
export function initializeParams(): acp.InitializeRequest {
  return { protocolVersion: acp.PROTOCOL_VERSION, clientCapabilities, clientInfo };
}

/** The client's name and version in initialize. */
export const clientInfo = { name: "hermes-acp-vscode", title: "Hermes for VS Code", version: "0.2.0" };

/**
 * The capabilities the extension advertises: the editor's file system and
 * terminals, terminal authentication (the agent's setup method runs in a
 * VS Code terminal), questions as forms in the chat (form elicitation),
 * session notices (banners) and compaction updates (a card in the
 * conversation), and two hermes extensions: the lint diagnostics
 * (_hermes/publishDiagnostics) and approvals that wait for the user (every
 * request stays in the chat until answered, so the agent need not time
 * out).
 */
export const clientCapabilities: acp.ClientCapabilities = {
  fs: { readTextFile: true, writeTextFile: true },
  terminal: true,
  auth: { terminal: true },
  elicitation: { form: {} },
  session: { notices: {}, compaction: {} },
  _meta: { hermes: { diagnostics: true, waitForApprovals: true } },
};

/** The methods of hermes-acp's checkpoints extension (agentCapabilities._meta.hermes.rewind). */
export const rewindMethods = { list: "_hermes/rewind/list", apply: "_hermes/rewind/apply" } as const;

/** The binary could not be started or is too old; message says how to fix it. */
export class LaunchError extends Error {
  constructor(
    message: string,
    readonly reason: "missing" | "too-old" | "failed",
  ) {
    super(message);
  }
}

/** compareVersions compares dotted numeric versions ("0.1.0-dev" counts as 0.1.0). */
export function compareVersions(a: string, b: string): number {
  const pa = a.split("-")[0].split(".").map(Number);
  const pb = b.split("-")[0].split(".").map(Number);
  for (let i = 0; i < 3; i++) {
    const d = (pa[i] || 0) - (pb[i] || 0);
    if (d !== 0) return d;
  }
  return 0;
}

/** checkBinary runs `command --version` and returns the version, or throws a LaunchError that says what to do. */
export function checkBinary(command: string, env: Record<string, string> = {}): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(command, ["--version"], { env: { ...process.env, ...env }, timeout: 15000 }, (err, stdout) => {
      if (err) {
        const code = (err as NodeJS.ErrnoException).code;
        if (code === "ENOENT" || code === "EACCES") {
          reject(
            new LaunchError(
              `hermes-acp was not found (${command}). Install it — in a clone of hermes-acp run "make install" — or set "hermes.path" to the binary.`,
              "missing",
            ),
          );
        } else {
          reject(new LaunchError(`${command} --version failed: ${err.message}`, "failed"));
        }
        return;
      }
      const m = /^hermes-acp (\S+)/.exec(stdout.trim());
      if (!m) {
        reject(new LaunchError(`${command} is not hermes-acp (--version printed ${JSON.stringify(stdout.trim().slice(0, 80))}). Set "hermes.path" to the hermes-acp binary.`, "failed"));
        return;
      }
      if (compareVersions(m[1], minVersion) < 0) {
        reject(new LaunchError(`hermes-acp ${m[1]} is too old: this extension needs ${minVersion} or newer. Update it (git pull && make install in your clone) or set "hermes.path".`, "too-old"));
        return;
      }
      resolve(m[1]);
    });
  });
}

/** AgentConnection is one running hermes-acp and its ACP connection. Call dispose to stop it. */
export class AgentConnection {
  readonly exited: Promise<{ code: number | null; signal: string | null }>;
  init!: acp.InitializeResponse;
  private conn!: acp.ClientConnection;
  private disposed = false;

  private constructor(
    readonly child: ChildProcess,
    readonly version: string,
  ) {
    this.exited = new Promise((resolve) => {
      child.on("exit", (code, signal) => resolve({ code, signal }));
      child.on("error", () => resolve({ code: null, signal: null }));
    });
  }

  get agent(): acp.ClientContext {
    return this.conn.agent;
  }

  get isDisposed(): boolean {
    return this.disposed;
  }

  /** start checks the binary, starts it and completes initialize. */
  static async start(opts: LaunchOptions, host: ClientHost): Promise<AgentConnection> {
    const version = await checkBinary(opts.command, opts.env);
    const child = spawn(opts.command, opts.args, { cwd: opts.cwd, env: { ...process.env, ...opts.env }, stdio: ["pipe", "pipe", "pipe"] });
    const c = new AgentConnection(child, version);
    let pending = "";
    child.stderr!.setEncoding("utf8");
    child.stderr!.on("data", (s: string) => {
      pending += s;
      const lines = pending.split("\n");
      pending = lines.pop() ?? "";
      for (const l of lines) host.log(l);
    });
    child.stdin!.on("error", () => {});
    let toAgent = Writable.toWeb(child.stdin!) as WritableStream<Uint8Array>;
    let fromAgent = Readable.toWeb(child.stdout!) as ReadableStream<Uint8Array>;
    if (host.traffic) {
      const out = tap("→", host.traffic);
      void out.readable.pipeTo(toAgent).catch(() => {});
      toAgent = out.writable;
      fromAgent = fromAgent.pipeThrough(tap("←", host.traffic));
    }
    const stream = acp.ndJsonStream(toAgent, fromAgent);
    c.conn = clientApp(host).connect(stream);
    try {
      c.init = await Promise.race([
        c.conn.agent.request(acp.methods.agent.initialize, initializeParams()),
        c.exited.then((s) => {
          throw new LaunchError(`hermes-acp exited during initialize (${s.signal ?? "status " + s.code}); see the "Hermes" output`, "failed");
        }),
      ]);
    } catch (err) {
      c.dispose();
      throw err;
    }
    return c;
  }

  /** roots returns the additionalDirectories to send: all but the first folder, when the agent takes them. */
  private roots(dirs: string[]): { additionalDirectories?: string[] } {
    return dirs.length > 0 && this.init.agentCapabilities?.sessionCapabilities?.additionalDirectories ? { additionalDirectories: dirs } : {};
  }

  newSession(cwd: string, dirs: string[] = []): Promise<acp.NewSessionResponse> {
    return this.agent.request(acp.methods.agent.session.new, { cwd, mcpServers: [], ...this.roots(dirs) });
  }

  /** canLoad: the agent replays sessions (session/load). */
  get canLoad(): boolean {
    return this.init.agentCapabilities?.loadSession === true;
  }

  /** loadSession resolves once the replay the agent sent before its reply has been handled. */
  async loadSession(sessionId: string, cwd: string, dirs: string[] = []): Promise<acp.LoadSessionResponse> {
    const res = await this.agent.request(acp.methods.agent.session.load, { sessionId, cwd, mcpServers: [], ...this.roots(dirs) });
    await updatesHandled();
    return res;
  }

  listSessions(cwd: string, cursor?: string): Promise<acp.ListSessionsResponse> {
    return this.agent.request(acp.methods.agent.session.list, { cwd, ...(cursor ? { cursor } : {}) });
  }

  async deleteSession(sessionId: string): Promise<void> {
    await this.agent.request(acp.methods.agent.session.delete, { sessionId });
  }

  /** prompt resolves once the updates the agent sent before its reply have been handled. */
  async prompt(sessionId: string, prompt: string | acp.ContentBlock[]): Promise<acp.PromptResponse> {
    const blocks = typeof prompt === "string" ? [{ type: "text" as const, text: prompt }] : prompt;
    const res = await this.agent.request(acp.methods.agent.session.prompt, { sessionId, prompt: blocks });
    await updatesHandled();
    return res;
  }

  cancel(sessionId: string): Promise<void> {
    return this.agent.notify(acp.methods.agent.session.cancel, { sessionId });
  }

  setMode(sessionId: string, modeId: string): Promise<acp.SetSessionModeResponse> {
    return this.agent.request(acp.methods.agent.session.setMode, { sessionId, modeId });
  }

  setConfigOption(sessionId: string, configId: string, value: string | boolean): Promise<acp.SetSessionConfigOptionResponse> {
    const params = typeof value === "boolean" ? { sessionId, configId, type: "boolean" as const, value } : { sessionId, configId, value };
    return this.agent.request(acp.methods.agent.session.setConfigOption, params);
  }

  /** canFork: the agent copies sessions (unstable session/fork, sessionCapabilities.fork). */
  get canFork(): boolean {
    return !!(this.init.agentCapabilities?.sessionCapabilities as { fork?: unknown } | undefined)?.fork;
  }

  /** forkSession copies a session up to and including the message messageId (_meta.hermes.forkAt); the copy is a new session. */
  forkSession(sessionId: string, cwd: string, dirs: string[], messageId?: string): Promise<acp.NewSessionResponse> {
    return this.agent.request<acp.NewSessionResponse>("session/fork", { sessionId, cwd, mcpServers: [], ...this.roots(dirs), ...(messageId ? { _meta: { hermes: { forkAt: messageId } } } : {}) });
  }

  /** canRewind: the agent keeps checkpoints and offers _hermes/rewind/* (agentCapabilities._meta.hermes.rewind). */
  get canRewind(): boolean {
    const m = this.init.agentCapabilities?._meta as { hermes?: { rewind?: unknown } } | undefined;
    return !!m?.hermes?.rewind;
  }

  /** rewind calls one of the checkpoints extension's methods; the answer is checked by core/rewind.ts. */
  rewind(method: keyof typeof rewindMethods, params: Record<string, unknown>): Promise<unknown> {
    return this.agent.request<unknown>(rewindMethods[method], params);
  }

  async closeSession(sessionId: string): Promise<void> {
    if (this.init.agentCapabilities?.sessionCapabilities?.close) {
      await this.agent.request(acp.methods.agent.session.close, { sessionId });
    }
  }

  /** dispose closes the connection and stops the process (it exits when its stdin closes). */
  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    this.conn?.close();
    this.child.stdin?.end();
    const t = setTimeout(() => this.child.kill("SIGKILL"), 5000);
    void this.exited.then(() => clearTimeout(t));
  }
}

/**
 * updatesHandled waits until the notifications received before a reply
 * have been handled. The SDK resolves a request as soon as its reply is
 * read, but runs each notification through its chain of handlers in
 * promises, so the updates the agent sent just before the reply (the last
 * words of a turn, the end of a replay) are handled a few microtasks
 * later; they all are once the microtask queue has drained, which a
 * macrotask (setImmediate) waits for. Without this, a notice the chat adds
 * after the reply lands among the replayed messages.
 */
function updatesHandled(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

function clientApp(host: ClientHost): acp.ClientApp {
  return acp
    .client({ name: "hermes-acp-vscode" })
    .onRequest(acp.methods.client.session.requestPermission, ({ params, signal }) => host.requestPermission(params, signal))
    .onRequest(acp.methods.client.elicitation.create, ({ params, signal }) => host.elicit(params, signal))
    .onRequest(acp.methods.client.fs.readTextFile, async ({ params }) => {
      try {
        return await host.fs.read(params);
      } catch (err) {
        if (err instanceof NotFoundError) throw acp.RequestError.resourceNotFound(params.path);
        throw err;
      }
    })
    .onRequest(acp.methods.client.fs.writeTextFile, ({ params }) => host.fs.write(params))
    .onRequest(acp.methods.client.terminal.create, ({ params }) => host.terminals.create(params))
    .onRequest(acp.methods.client.terminal.output, ({ params }) => host.terminals.output(params))
    .onRequest(acp.methods.client.terminal.waitForExit, ({ params }) => host.terminals.waitForExit(params))
    .onRequest(acp.methods.client.terminal.kill, ({ params }) => host.terminals.kill(params))
    .onRequest(acp.methods.client.terminal.release, ({ params }) => host.terminals.release(params))
    .onNotification(acp.methods.client.session.update, ({ params }) => host.onUpdate(params))
    .onNotification<PublishDiagnosticsParams>(
      publishDiagnosticsMethod,
      (raw) => {
        const why = validPublish(raw);
        if (why) throw new Error(`${publishDiagnosticsMethod}: ${why}`);
        return raw as PublishDiagnosticsParams;
      },
      ({ params }) => host.diagnostics.publish(params),
    );
}
