// Keeps one hermes-acp running: starts it, and restarts it when it dies
// unexpectedly, up to a few times a minute.
import { AgentConnection, LaunchError, type ClientHost, type LaunchOptions } from "./connection";

export interface SupervisorEvents {
  /** A connection is up (the first one, or after a restart). */
  started(c: AgentConnection, restarted: boolean): void;
  /** The agent died; it is being restarted (attempt n). */
  restarting(why: string, attempt: number): void;
  /** The agent cannot be (re)started; err says why. */
  failed(err: Error): void;
}

/** AgentSupervisor owns the current AgentConnection. */
export class AgentSupervisor {
  current: AgentConnection | undefined;
  private restarts: number[] = [];
  private stopped = false;

  constructor(
    private readonly launch: () => LaunchOptions,
    private readonly host: ClientHost,
    private readonly events: SupervisorEvents,
    readonly maxRestartsPerMinute = 3,
  ) {}

  /** start starts the agent (stopping the current one first). */
  async start(restarted = false): Promise<AgentConnection | undefined> {
    this.stopped = false;
    this.current?.dispose();
    this.current = undefined;
    let c: AgentConnection;
    try {
      c = await AgentConnection.start(this.launch(), this.host);
    } catch (err) {
      this.events.failed(err instanceof Error ? err : new Error(String(err)));
      return undefined;
    }
    this.current = c;
    void c.exited.then((s) => this.onExit(c, s));
    this.events.started(c, restarted);
    return c;
  }

  private onExit(c: AgentConnection, s: { code: number | null; signal: string | null }): void {
    if (this.stopped || c.isDisposed || this.current !== c) return;
    this.current = undefined;
    const why = `hermes-acp exited unexpectedly (${s.signal ? "signal " + s.signal : "status " + s.code})`;
    const now = Date.now();
    this.restarts = this.restarts.filter((t) => now - t < 60000);
    if (this.restarts.length >= this.maxRestartsPerMinute) {
      this.events.failed(new LaunchError(`${why}, ${this.restarts.length} times in a minute; not restarting it again. See the "Hermes" output, then run "Hermes: Restart the Agent".`, "failed"));
      return;
    }
    this.restarts.push(now);
    this.events.restarting(why, this.restarts.length);
    void this.start(true);
  }

  /** stop stops the agent for good (until start). */
  stop(): void {
    this.stopped = true;
    this.current?.dispose();
    this.current = undefined;
  }
}
