// "Restore to here": hermes-acp's checkpoints extension (_hermes/rewind/list
// and _hermes/rewind/apply, advertised in agentCapabilities._meta.hermes.rewind).
// The agent records the workspace before the first change of a turn; the
// chat puts a restore button on the prompt of each turn that has a
// checkpoint. A restore is asked and shown by the agent itself: a card in
// the conversation with the files and a permission request (restore, restore
// and drop the conversation, overwrite the files changed since, cancel),
// answered in the chat like any approval. This file reads the agent's
// answers; nothing here talks to VS Code.

/** One file a turn changed, or a restore changes. */
export interface RewindFile {
  path: string;
  /** In a turn: added, modified, deleted; in a restore: restore, remove, recreate. */
  change: string;
  added: number;
  removed: number;
  binary: boolean;
  /** Why a restore leaves the file alone unless confirmed (changed since the turn); "" when it does not. */
  conflict: string;
}

/** A turn with a checkpoint. */
export interface RewindTurn {
  /** The agent's number of the turn (what /rewind N and _hermes/rewind/apply take). */
  turn: number;
  /** The first line of the turn's prompt. */
  prompt: string;
  /** When the checkpoint was taken (RFC 3339). */
  at?: string;
  files: RewindFile[];
}

/** What a restore did. */
export interface RewindResult {
  /** dry_run, restored, declined (the user said no), nothing (the files were as they had been). */
  outcome: string;
  files: RewindFile[];
  failed: string[];
  /** The conversation from the turn on was dropped too: the chat reloads the session. */
  conversationDropped: boolean;
}

function record(v: unknown): Record<string, unknown> | undefined {
  return v && typeof v === "object" && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
}

const count = (v: unknown) => (typeof v === "number" && Number.isFinite(v) && v >= 0 ? v : 0);

function fileOf(v: unknown): RewindFile | undefined {
  const r = record(v);
  if (!r || typeof r.path !== "string" || r.path === "") return undefined;
  return {
    path: r.path,
    change: typeof r.change === "string" ? r.change : "",
    added: count(r.added),
    removed: count(r.removed),
    binary: r.binary === true,
    conflict: typeof r.conflict === "string" ? r.conflict : "",
  };
}

function filesOf(v: unknown): RewindFile[] {
  return Array.isArray(v) ? v.map(fileOf).filter((f): f is RewindFile => f !== undefined) : [];
}

/** parseTurns reads the answer of _hermes/rewind/list ({turns: [{turn, at, prompt, files}]}); an Error says what is wrong. */
export function parseTurns(raw: unknown): RewindTurn[] | Error {
  const turns = record(raw)?.turns;
  if (!Array.isArray(turns)) return new Error("_hermes/rewind/list: the answer has no turns list");
  const out: RewindTurn[] = [];
  for (const t of turns) {
    const r = record(t);
    if (!r || typeof r.turn !== "number" || !Number.isInteger(r.turn) || r.turn < 1) continue;
    out.push({ turn: r.turn, prompt: typeof r.prompt === "string" ? r.prompt : "", at: typeof r.at === "string" ? r.at : undefined, files: filesOf(r.files) });
  }
  return out.sort((a, b) => a.turn - b.turn);
}

/** parseResult reads the answer of _hermes/rewind/apply ({outcome, files, failed?, conversationDropped?}); an Error says what is wrong. */
export function parseResult(raw: unknown): RewindResult | Error {
  const r = record(raw);
  if (!r || typeof r.outcome !== "string" || !Array.isArray(r.files)) return new Error("_hermes/rewind/apply: the answer has no outcome and files");
  return {
    outcome: r.outcome,
    files: filesOf(r.files),
    failed: Array.isArray(r.failed) ? r.failed.filter((x): x is string => typeof x === "string") : [],
    conversationDropped: r.conversationDropped === true,
  };
}

function base(p: string): string {
  const parts = p.split(/[\\/]/);
  return parts[parts.length - 1] || p;
}

/** describeFiles words files for a tooltip: "2 files: a.go (+3 −1), b.txt (added)". */
export function describeFiles(files: RewindFile[], max = 6): string {
  if (files.length === 0) return "no files";
  const one = (f: RewindFile) => {
    const what = f.binary ? (f.change ? `${f.change}, binary` : "binary") : f.change === "modified" || f.change === "restore" || f.change === "" ? (f.added || f.removed ? `+${f.added} −${f.removed}` : "") : f.change;
    return what ? `${base(f.path)} (${what})` : base(f.path);
  };
  const shown = files.slice(0, max).map(one).join(", ");
  const more = files.length > max ? ` and ${files.length - max} more` : "";
  return `${files.length} file${files.length === 1 ? "" : "s"}: ${shown}${more}`;
}

/**
 * matchTurns maps the agent's turns to the chat's user messages: the agent
 * numbers only the turns that changed files, so each turn (in order) goes
 * to the next user message whose first line is the turn's prompt (the agent
 * keeps its first line, cut at 120 characters). A turn no message matches
 * gets no button, so that a button never restores some other turn than
 * the one it is on. The result maps a user message's place among the user
 * messages (0-based) to its turn.
 */
export function matchTurns(turns: RewindTurn[], prompts: string[]): Map<number, RewindTurn> {
  const out = new Map<number, RewindTurn>();
  let next = 0;
  for (const t of turns) {
    const exact = t.prompt.trim();
    const cut = exact.replace(/…$/, "");
    if (exact === "") continue;
    for (let i = next; i < prompts.length; i++) {
      const first = prompts[i].trim().split("\n")[0].trim();
      if (first === exact || (cut.length >= 100 && first.startsWith(cut))) {
        out.set(i, t);
        next = i + 1;
        break;
      }
    }
  }
  return out;
}
