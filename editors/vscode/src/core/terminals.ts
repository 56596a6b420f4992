// ACP terminals: the agent asks the editor to run a command; the editor runs
// it, shows its output (a VS Code terminal fed by a Pseudoterminal) and
// answers output / wait_for_exit / kill / release.
import { spawn, type ChildProcess } from "node:child_process";
import type * as acp from "@agentclientprotocol/sdk";

/** One running (or finished) command. */
export class AgentTerminal {
  readonly id: string;
  output = "";
  truncated = false;
  exitStatus: { exitCode: number | null; signal: string | null } | null = null;
  readonly exited: Promise<{ exitCode: number | null; signal: string | null }>;
  private readonly listeners: ((chunk: string) => void)[] = [];
  private readonly child: ChildProcess;

  constructor(id: string, readonly params: acp.CreateTerminalRequest) {
    this.id = id;
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
      // Keep the end, cut at a character boundary.
      let buf = Buffer.from(this.output).subarray(-limit);
      while (buf.length > 0 && (buf[0] & 0xc0) === 0x80) buf = buf.subarray(1);
      this.output = buf.toString("utf8");
      this.truncated = true;
    }
    for (const l of this.listeners) l(chunk);
  }

  kill(): void {
    if (this.exitStatus === null) this.child.kill("SIGTERM");
  }
}

/** TerminalManager owns the terminals of one agent connection. */
export class TerminalManager {
  private readonly terms = new Map<string, AgentTerminal>();
  private next = 1;

  /** onCreate is told about every new terminal (the UI shows it). */
  constructor(private readonly onCreate: (t: AgentTerminal) => void = () => {}) {}

  create(params: acp.CreateTerminalRequest): acp.CreateTerminalResponse {
    const id = `term_${this.next++}`;
    const t = new AgentTerminal(id, params);
    this.terms.set(id, t);
    this.onCreate(t);
    return { terminalId: id };
  }

  private get(id: string): AgentTerminal {
    const t = this.terms.get(id);
    if (!t) throw new Error(`no terminal ${id}`);
    return t;
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
    return {};
  }

  dispose(): void {
    for (const t of this.terms.values()) t.kill();
    this.terms.clear();
  }
}
