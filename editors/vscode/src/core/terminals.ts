// ACP terminals: the agent asks the editor to run a command; the editor runs
// it, shows its output (a VS Code terminal fed by a Pseudoterminal, and the
// tool call's card in the chat, live) and answers output / wait_for_exit /
// kill / release. A released terminal's output stays readable for the card.
import { spawn, type ChildProcess } from "node:child_process";
import type * as acp from "@agentclientprotocol/sdk";

type ExitStatus = { exitCode: number | null; signal: string | null };

/** How much output a finished terminal keeps for the chat card. */
export const keptOutputBytes = 64 * 1024;
/** How many released terminals keep their output. */
export const keptTerminals = 200;

const shells = new Set(["sh", "bash", "zsh", "dash", "ash", "fish"]);

function quote(a: string): string {
  return /^[\w@%+=:,./-]+$/.test(a) ? a : `'${a.replace(/'/g, `'\\''`)}'`;
}

/**
 * displayCommand is the command line a person would have typed: hermes-acp
 * runs editor terminals as `hermes-acp sandbox-exec … -- bash -c CMD`, and
 * plain commands as `bash -c CMD`; both show as CMD.
 */
export function displayCommand(p: { command: string; args?: string[] | null }): string {
  let argv = [p.command, ...(p.args ?? [])];
  const sb = argv.indexOf("sandbox-exec");
  if (sb === 1) {
    const dash = argv.indexOf("--", 2);
    if (dash > 0 && dash < argv.length - 1) argv = argv.slice(dash + 1);
  }
  const base = argv[0].split("/").pop() ?? argv[0];
  if (shells.has(base) && argv.length === 3 && (argv[1] === "-c" || argv[1] === "-lc")) return argv[2];
  if (argv.length === 1) return argv[0];
  return argv.map(quote).join(" ");
}

/** stripAnsi removes terminal escape sequences (colours, cursor moves) for the chat card. */
export function stripAnsi(s: string): string {
  // eslint-disable-next-line no-control-regex
  return s.replace(/\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[@-Z\\-_]/g, "").replace(/\r(?!\n)/g, "");
}

/** What a chat card shows of a terminal. */
export interface TerminalView {
  command: string;
  output: string;
  truncated: boolean;
  exitStatus: ExitStatus | null;
}

/** One running (or finished) command. */
export class AgentTerminal {
  readonly id: string;
  readonly command: string;
  output = "";
  truncated = false;
  exitStatus: ExitStatus | null = null;
  readonly exited: Promise<ExitStatus>;
  private readonly listeners: ((chunk: string) => void)[] = [];
  private readonly child: ChildProcess;

  constructor(
    id: string,
    readonly params: acp.CreateTerminalRequest,
  ) {
    this.id = id;
    this.command = displayCommand(params);
    const env = { ...process.env };
    for (const e of params.env ?? []) env[e.name] = e.value;
    this.child = spawn(params.command, params.args ?? [], { cwd: params.cwd ?? undefined, env, shell: (params.args ?? []).length === 0 });
    const onData = (b: Buffer) => this.append(b.toString("utf8"));
    this.child.stdout?.on("data", onData);
    this.child.stderr?.on("data", onData);
    this.exited = new Promise((resolve) => {
      this.child.on("error", (err) => {
        this.append(`${err.message}\n`);
        this.exitStatus = { exitCode: 127, signal: null };
        resolve(this.exitStatus);
      });
      this.child.on("close", (code, signal) => {
        this.exitStatus = { exitCode: code, signal: signal ?? null };
        resolve(this.exitStatus);
      });
    });
  }

  /** onOutput calls fn with the output so far and every later chunk. */
  onOutput(fn: (chunk: string) => void): void {
    if (this.output) fn(this.output);
    this.listeners.push(fn);
  }

  private append(chunk: string): void {
    this.output += chunk;
    const limit = this.params.outputByteLimit;
    if (limit != null && Buffer.byteLength(this.output) > limit) {
      this.output = tail(this.output, limit);
      this.truncated = true;
    }
    for (const l of this.listeners) l(chunk);
  }

  kill(): void {
    if (this.exitStatus === null) this.child.kill("SIGTERM");
  }

  view(): TerminalView {
    const cut = Buffer.byteLength(this.output) > keptOutputBytes;
    return { command: this.command, output: cut ? tail(this.output, keptOutputBytes) : this.output, truncated: this.truncated || cut, exitStatus: this.exitStatus };
  }
}

/** tail keeps the last limit bytes of s, cut at a character boundary. */
function tail(s: string, limit: number): string {
  let buf = Buffer.from(s).subarray(-limit);
  while (buf.length > 0 && (buf[0] & 0xc0) === 0x80) buf = buf.subarray(1);
  return buf.toString("utf8");
}

/** TerminalManager owns the terminals of one agent connection. */
export class TerminalManager {
  private readonly terms = new Map<string, AgentTerminal>();
  private readonly released = new Map<string, TerminalView>();
  private readonly changeListeners = new Set<(id: string) => void>();
  private next = 1;

  /** onCreate is told about every new terminal (the UI shows it). */
  constructor(private readonly onCreate: (t: AgentTerminal) => void = () => {}) {}

  /** onChange calls fn with a terminal's id when it prints or exits. */
  onChange(fn: (id: string) => void): () => void {
    this.changeListeners.add(fn);
    return () => this.changeListeners.delete(fn);
  }

  create(params: acp.CreateTerminalRequest): acp.CreateTerminalResponse {
    const id = `term_${this.next++}`;
    const t = new AgentTerminal(id, params);
    this.terms.set(id, t);
    t.onOutput(() => this.changed(id));
    void t.exited.then(() => this.changed(id));
    this.onCreate(t);
    return { terminalId: id };
  }

  private changed(id: string): void {
    for (const l of [...this.changeListeners]) l(id);
  }

  private get(id: string): AgentTerminal {
    const t = this.terms.get(id);
    if (!t) throw new Error(`no terminal ${id}`);
    return t;
  }

  /** view returns what the chat shows of a terminal, running or released; undefined if unknown. */
  view(id: string): TerminalView | undefined {
    return this.terms.get(id)?.view() ?? this.released.get(id);
  }

  /** live returns a terminal that is not released yet. */
  live(id: string): AgentTerminal | undefined {
    return this.terms.get(id);
  }

  output(p: acp.TerminalOutputRequest): acp.TerminalOutputResponse {
    const t = this.get(p.terminalId);
    return { output: t.output, truncated: t.truncated, exitStatus: t.exitStatus };
  }

  async waitForExit(p: acp.WaitForTerminalExitRequest): Promise<acp.WaitForTerminalExitResponse> {
    return await this.get(p.terminalId).exited;
  }

  kill(p: acp.KillTerminalRequest): acp.KillTerminalResponse {
    this.get(p.terminalId).kill();
    return {};
  }

  release(p: acp.ReleaseTerminalRequest): acp.ReleaseTerminalResponse {
    const t = this.get(p.terminalId);
    t.kill();
    this.terms.delete(p.terminalId);
    this.released.set(p.terminalId, t.view());
    void t.exited.then(() => {
      if (!this.released.has(p.terminalId)) return;
      // The card shows how the released command ended.
      this.released.set(p.terminalId, t.view());
      this.changed(p.terminalId);
    });
    while (this.released.size > keptTerminals) this.released.delete(this.released.keys().next().value as string);
    this.changed(p.terminalId);
    return {};
  }

  dispose(): void {
    for (const t of this.terms.values()) t.kill();
    this.terms.clear();
  }
}
