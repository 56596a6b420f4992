// The ACP connection to one hermes-acp process, on the official TypeScript
// SDK: it starts the binary, serves the client methods through a host (the
// editor), and offers the agent methods the UI calls.
import { execFile, spawn, type ChildProcess } from "node:child_process";
import { Readable, Writable } from "node:stream";
import * as acp from "@agentclientprotocol/sdk";
import { FsService, NotFoundError } from "./fsService";
import { DiagnosticsStore, publishDiagnosticsMethod, validPublish, type PublishDiagnosticsParams } from "./diagnostics";
import { TerminalManager } from "./terminals";

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
  requestPermission(req: acp.RequestPermissionRequest): Promise<acp.RequestPermissionResponse>;
  fs: FsService;
  terminals: TerminalManager;
  diagnostics: DiagnosticsStore;
  onUpdate(n: acp.SessionNotification): void;
  /** log receives the agent's stderr, line by line. */
  log(line: string): void;
}

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
    const stream = acp.ndJsonStream(Writable.toWeb(child.stdin!) as WritableStream<Uint8Array>, Readable.toWeb(child.stdout!) as ReadableStream<Uint8Array>);
    c.conn = clientApp(host).connect(stream);
    try {
      c.init = await Promise.race([
        c.conn.agent.request(acp.methods.agent.initialize, {
          protocolVersion: acp.PROTOCOL_VERSION,
          // _meta.hermes.diagnostics asks for _hermes/publishDiagnostics (the Problems panel).
          clientCapabilities: { fs: { readTextFile: true, writeTextFile: true }, terminal: true, _meta: { hermes: { diagnostics: true } } },
          clientInfo: { name: "hermes-acp-vscode", version: "0.1.0" },
        }),
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

  newSession(cwd: string): Promise<acp.NewSessionResponse> {
    return this.agent.request(acp.methods.agent.session.new, { cwd, mcpServers: [] });
  }

  loadSession(sessionId: string, cwd: string): Promise<acp.LoadSessionResponse> {
    return this.agent.request(acp.methods.agent.session.load, { sessionId, cwd, mcpServers: [] });
  }

  listSessions(cwd: string): Promise<acp.ListSessionsResponse> {
    return this.agent.request(acp.methods.agent.session.list, { cwd });
  }

  prompt(sessionId: string, text: string): Promise<acp.PromptResponse> {
    return this.agent.request(acp.methods.agent.session.prompt, { sessionId, prompt: [{ type: "text", text }] });
  }

  cancel(sessionId: string): Promise<void> {
    return this.agent.notify(acp.methods.agent.session.cancel, { sessionId });
  }

  setMode(sessionId: string, modeId: string): Promise<acp.SetSessionModeResponse> {
    return this.agent.request(acp.methods.agent.session.setMode, { sessionId, modeId });
  }

  setConfigOption(sessionId: string, configId: string, value: string): Promise<acp.SetSessionConfigOptionResponse> {
    return this.agent.request(acp.methods.agent.session.setConfigOption, { sessionId, configId, value });
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

function clientApp(host: ClientHost): acp.ClientApp {
  return acp
    .client({ name: "hermes-acp-vscode" })
    .onRequest(acp.methods.client.session.requestPermission, ({ params }) => host.requestPermission(params))
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
