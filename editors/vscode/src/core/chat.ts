// The chat transcript: session updates folded into items. Rendering is in
// render.ts; this file only keeps the state.
import type * as acp from "@agentclientprotocol/sdk";
import type { ActionId } from "./protocol";
import { lintOf, type LintSummary } from "./permissions";
import type { SlashCommand } from "./slash";

export type { SlashCommand } from "./slash";
export { completeSlash } from "./slash";

/** An attachment as a user message shows it. */
export interface AttachmentChip {
  kind: "file" | "image" | "selection";
  name: string;
  /** e.g. the line range of a selection */
  detail?: string;
}

export interface UserItem {
  type: "user";
  key: string;
  text: string;
  attachments: AttachmentChip[];
  /** The agent's id of the message (replayed messages carry one). */
  messageId?: string;
}

export interface TextItem {
  type: "agent" | "thought";
  key: string;
  text: string;
  messageId?: string;
}

export interface DiffContent {
  path: string;
  oldText: string | null;
  newText: string;
}

/** One tool call. Children of a delegate_task call are kept under their parent, not as items. */
export interface ToolItem {
  type: "tool";
  key: string;
  id: string;
  title: string;
  kind: string;
  /** pending, in_progress, completed, failed, or (set here) cancelled. */
  status: string;
  /** Text content blocks (Markdown). */
  texts: string[];
  /** Diffs, kept when a later update carries none (the card keeps showing what changed). */
  diffs: DiffContent[];
  /** Terminals embedded in the call (ACP terminal content). */
  terminals: string[];
  rawInput?: unknown;
  /** rawInput.command of a command the call runs. */
  command?: string;
  locations: { path: string; line?: number | null }[];
  lint?: LintSummary;
  /** The delegate_task call this call belongs to (_meta.hermes.parentToolCallId). */
  parent?: string;
}

export interface PlanItem {
  type: "plan";
  key: string;
  entries: { content: string; status: string; priority: string }[];
}

export interface NoticeItem {
  type: "notice";
  key: string;
  level: "info" | "warning" | "error";
  text: string;
  actions?: { id: ActionId; label: string }[];
}

/** A question of the agent (elicitation) that belongs to no tool call's card. */
export interface FormItem {
  type: "form";
  key: string;
  formId: string;
}

/** A compaction of the conversation (compaction_update, compaction_summary_chunk). */
export interface CompactionItem {
  type: "compaction";
  key: string;
  id: string;
  /** in_progress, completed, failed, cancelled (or a newer status). */
  status: string;
  /** The summary, as Markdown. */
  summary: string;
  error?: string;
  /** Tokens in context before and after, when the agent says (_meta.hermes.tokensBefore/After). */
  tokensBefore?: number;
  tokensAfter?: number;
}

/** A session notice (the notice update), shown as a banner above the conversation until dismissed. */
export interface Banner {
  key: string;
  severity: string;
  title: string;
  description?: string;
}

export type ChatItem = UserItem | TextItem | ToolItem | PlanItem | NoticeItem | FormItem | CompactionItem;

/** The todo tool's calls are shown as the plan, not as cards of their own. */
export function isTodoCall(t: ToolItem): boolean {
  return /^todo\b/.test(t.title) && (t.kind === "other" || t.kind === "think");
}

function record(v: unknown): Record<string, unknown> | undefined {
  return v && typeof v === "object" && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
}

/** parentOf returns _meta.hermes.parentToolCallId of an update. */
function parentOf(meta: unknown): string | undefined {
  const p = record(record(meta)?.hermes)?.parentToolCallId;
  return typeof p === "string" && p !== "" ? p : undefined;
}

/**
 * splitAttachments takes apart a prompt as the agent stores it (and
 * replays it): the user's text, then each attached file as
 * "[Attached file: NAME]\nURI: …\n\n<contents>" and each image as
 * "[Attached image: NAME]", so that a loaded session shows chips as the
 * live one did instead of the files' contents.
 */
export function splitAttachments(text: string): { text: string; attachments: AttachmentChip[] } {
  const marker = /(?:^|\n\n)\[Attached (file|image): ([^\]\n]+)\](?:\nURI: (\S+))?/g;
  const found: { index: number; kind: string; name: string; uri?: string }[] = [];
  for (let m = marker.exec(text); m; m = marker.exec(text)) found.push({ index: m.index, kind: m[1], name: m[2], uri: m[3] });
  if (found.length === 0) return { text, attachments: [] };
  const attachments = found.map((f): AttachmentChip => {
    const range = f.uri ? /#L(\d+)(?:-L?(\d+))?$/.exec(f.uri) : null;
    if (range) return { kind: "selection", name: f.name, detail: range[2] && range[2] !== range[1] ? `lines ${range[1]}–${range[2]}` : `line ${range[1]}` };
    return { kind: f.kind === "image" ? "image" : "file", name: f.name };
  });
  return { text: text.slice(0, found[0].index).trimEnd(), attachments };
}

/** ChatState is one session's transcript and the pickers' state. */
export class ChatState {
  items: ChatItem[] = [];
  commands: SlashCommand[] = [];
  modeId = "";
  title = "";
  usage: { used: number; size: number; cost?: { amount: number; currency: string } } | null = null;
  /** Every tool call by id, children included. */
  readonly tools = new Map<string, ToolItem>();
  /** The children of each delegate_task call, in the order they started. */
  readonly children = new Map<string, ToolItem[]>();
  private readonly index = new Map<string, number>(); // tool id → item index (top-level calls)
  private planIndex = -1;
  private keys = 0;
  /** The calls that were unfinished when the user stopped the turn (cancelling). */
  private stopped = new Set<string>();
  /** The session's notices not dismissed, oldest first. */
  banners: Banner[] = [];
  private readonly compactions = new Map<string, number>(); // compaction id → item index

  private key(prefix: string): string {
    return `${prefix}${++this.keys}`;
  }

  /** indexOfTool returns the item index that shows tool call id (a child's parent card). */
  indexOfTool(id: string): number | undefined {
    const t = this.tools.get(id);
    if (!t) return undefined;
    return this.index.get(t.parent !== undefined && !this.index.has(id) ? t.parent : id);
  }

  /**
   * apply folds one session update into the transcript and returns the
   * indexes of the items it changed (streamed chunks extend the last item
   * of their kind and message, so a message stays one item).
   */
  apply(u: acp.SessionUpdate): number[] {
    switch (u.sessionUpdate) {
      case "agent_message_chunk":
        return this.appendText("agent", u.content, u.messageId ?? undefined);
      case "agent_thought_chunk":
        return this.appendText("thought", u.content, u.messageId ?? undefined);
      case "user_message_chunk":
        return this.appendUser(u.content, u.messageId ?? undefined);
      case "tool_call":
        return this.toolCall(u);
      case "tool_call_update": {
        if (!this.tools.has(u.toolCallId)) {
          return this.toolCall({ ...u, sessionUpdate: "tool_call", title: u.title ?? u.toolCallId } as Extract<acp.SessionUpdate, { sessionUpdate: "tool_call" }>);
        }
        const t = this.tools.get(u.toolCallId)!;
        if (u.title) t.title = u.title;
        if (u.kind) t.kind = u.kind;
        if (u.status) t.status = u.status;
        if (u.rawInput !== undefined && u.rawInput !== null) this.setInput(t, u.rawInput);
        if (u.locations) t.locations = u.locations.map((l) => ({ path: l.path, line: l.line }));
        if (u.content) this.fill(t, u.content, u._meta);
        else if (u._meta) this.setLint(t, u._meta, t.texts);
        this.stoppedByUser(t);
        return this.changedFor(t);
      }
      case "plan": {
        const item: PlanItem = { type: "plan", key: "plan", entries: u.entries.map((e) => ({ content: e.content, status: e.status, priority: e.priority })) };
        if (this.planIndex >= 0) {
          this.items[this.planIndex] = item;
          return [this.planIndex];
        }
        this.planIndex = this.items.push(item) - 1;
        return [this.planIndex];
      }
      case "available_commands_update":
        this.commands = u.availableCommands.map((c) => ({ name: c.name, description: c.description, hint: c.input?.hint }));
        return [];
      case "current_mode_update":
        this.modeId = u.currentModeId;
        return [];
      case "session_info_update":
        if (typeof u.title === "string") this.title = u.title;
        return [];
      case "usage_update":
        this.usage = { used: u.used, size: u.size, ...(u.cost ? { cost: { amount: u.cost.amount, currency: u.cost.currency } } : {}) };
        return [];
      case "notice":
        if (u.title) this.banners.push({ key: this.key("banner"), severity: u.severity, title: u.title, description: u.description ?? undefined });
        return [];
      case "compaction_update": {
        const [i, c] = this.compaction(u.compactionId);
        c.status = u.status;
        if (u.summary) c.summary = u.summary.map(blockText).join("");
        if (u.error) c.error = u.error;
        const h = record(record(u._meta)?.hermes);
        if (typeof h?.tokensBefore === "number") c.tokensBefore = h.tokensBefore;
        if (typeof h?.tokensAfter === "number") c.tokensAfter = h.tokensAfter;
        return [i];
      }
      case "compaction_summary_chunk": {
        const [i, c] = this.compaction(u.compactionId);
        c.summary += blockText(u.content);
        return [i];
      }
      default:
        return [];
    }
  }

  /** compaction returns the item of a compaction, adding it (in progress) when it is new. */
  private compaction(id: string): [number, CompactionItem] {
    const at = this.compactions.get(id);
    if (at !== undefined) return [at, this.items[at] as CompactionItem];
    const c: CompactionItem = { type: "compaction", key: this.key("compaction"), id, status: "in_progress", summary: "" };
    const i = this.items.push(c) - 1;
    this.compactions.set(id, i);
    return [i, c];
  }

  /** dismissBanner removes a notice the user closed; false when there is none with that key. */
  dismissBanner(key: string): boolean {
    const n = this.banners.length;
    this.banners = this.banners.filter((b) => b.key !== key);
    return this.banners.length !== n;
  }

  /** form adds a question that belongs to no tool call's card. */
  form(formId: string): number[] {
    return [this.items.push({ type: "form", key: this.key("form"), formId }) - 1];
  }

  /** turnOf returns the 1-based number of the turn a user message starts (its place among the user messages). */
  turnOf(index: number): number | undefined {
    if (this.items[index]?.type !== "user") return undefined;
    let n = 0;
    for (let i = 0; i <= index; i++) if (this.items[i].type === "user") n++;
    return n;
  }

  private toolCall(u: Extract<acp.SessionUpdate, { sessionUpdate: "tool_call" }>): number[] {
    const existing = this.tools.get(u.toolCallId);
    const t: ToolItem = existing ?? {
      type: "tool",
      key: this.key("tool"),
      id: u.toolCallId,
      title: u.title,
      kind: u.kind ?? "other",
      status: u.status ?? "pending",
      texts: [],
      diffs: [],
      terminals: [],
      locations: [],
    };
    t.title = u.title;
    t.kind = u.kind ?? t.kind;
    t.status = u.status ?? t.status;
    if (u.rawInput !== undefined && u.rawInput !== null) this.setInput(t, u.rawInput);
    t.locations = (u.locations ?? []).map((l) => ({ path: l.path, line: l.line }));
    this.fill(t, u.content ?? [], u._meta);
    const parent = parentOf(u._meta);
    if (!existing) {
      this.tools.set(t.id, t);
      if (parent && this.tools.has(parent)) {
        t.parent = parent;
        const list = this.children.get(parent) ?? [];
        list.push(t);
        this.children.set(parent, list);
      } else {
        this.index.set(t.id, this.items.push(t) - 1);
      }
    }
    if (isTodoCall(t) && this.planIndex < 0 && !t.parent) {
      // The plan takes the place of the first todo call.
      this.planIndex = this.index.get(t.id)!;
      this.items[this.planIndex] = { type: "plan", key: "plan", entries: [] };
      this.index.delete(t.id);
      return [];
    }
    return this.changedFor(t);
  }

  private changedFor(t: ToolItem): number[] {
    const i = this.indexOfTool(t.id);
    return i === undefined ? [] : [i];
  }

  private setInput(t: ToolItem, raw: unknown): void {
    t.rawInput = raw;
    const cmd = record(raw)?.command;
    if (typeof cmd === "string" && cmd !== "") t.command = cmd;
  }

  private fill(t: ToolItem, content: acp.ToolCallContent[], meta: unknown): void {
    const texts: string[] = [];
    const diffs: DiffContent[] = [];
    const terminals: string[] = [];
    for (const c of content) {
      if (c.type === "content") {
        if (c.content.type === "text") texts.push(c.content.text);
        else if (c.content.type === "resource_link") texts.push(`[${c.content.name}](${c.content.uri})`);
        else if (c.content.type === "resource" && "text" in c.content.resource) texts.push(c.content.resource.text);
        else if (c.content.type === "image") texts.push("*(an image)*");
      } else if (c.type === "diff") diffs.push({ path: c.path, oldText: c.oldText ?? null, newText: c.newText });
      else if (c.type === "terminal") terminals.push(c.terminalId);
    }
    t.texts = texts;
    if (diffs.length > 0) t.diffs = diffs;
    if (terminals.length > 0) t.terminals = terminals;
    this.setLint(t, meta, texts);
  }

  private setLint(t: ToolItem, meta: unknown, texts: string[]): void {
    const lint = lintOf(meta, texts);
    if (lint) {
      t.lint = lint;
      if (lint.text) t.texts = t.texts.filter((x) => x !== lint.text);
    }
  }

  /** user records a prompt the user sent. */
  user(text: string, attachments: AttachmentChip[] = []): number[] {
    return [this.items.push({ type: "user", key: this.key("user"), text, attachments }) - 1];
  }

  notice(level: NoticeItem["level"], text: string, actions?: NoticeItem["actions"]): number[] {
    return [this.items.push({ type: "notice", key: this.key("notice"), level, text, actions }) - 1];
  }

  /**
   * endTurn marks the calls a cancelled turn left unfinished as cancelled
   * (ACP leaves that to the client) and returns the items it changed.
   */
  endTurn(stopReason: string): number[] {
    const stopped = this.stopped;
    this.stopped = new Set();
    if (stopReason !== "cancelled") return [];
    const changed = new Set<number>();
    for (const t of this.tools.values()) {
      if (t.status === "pending" || t.status === "in_progress" || (stopped.has(t.id) && t.status === "failed" && t.texts.length === 0)) {
        t.status = "cancelled";
        for (const i of this.changedFor(t)) changed.add(i);
      }
    }
    return [...changed];
  }

  /**
   * cancelling notes the calls still running when the user stops the turn:
   * the agent reports them "failed" (ACP has no cancelled status), and a
   * failure it gives no reason for is shown as cancelled.
   */
  cancelling(): void {
    for (const t of this.tools.values()) if (t.status === "pending" || t.status === "in_progress") this.stopped.add(t.id);
  }

  private stoppedByUser(t: ToolItem): void {
    if (this.stopped.has(t.id) && t.status === "failed" && t.texts.length === 0) t.status = "cancelled";
  }

  /** interrupt marks unfinished calls as failed when the agent went away mid-turn. */
  interrupt(): number[] {
    const changed = new Set<number>();
    for (const t of this.tools.values()) {
      if (t.status === "pending" || t.status === "in_progress") {
        t.status = "failed";
        if (t.texts.length === 0) t.texts = ["The agent stopped before this call finished."];
        for (const i of this.changedFor(t)) changed.add(i);
      }
    }
    return [...changed];
  }

  private appendUser(content: acp.ContentBlock, messageId?: string): number[] {
    const last = this.items.length - 1;
    const item = this.items[last];
    const text = blockText(content);
    if (item && item.type === "user" && (messageId === undefined || item.messageId === messageId)) {
      const joined = splitAttachments(item.text + text);
      item.text = joined.text;
      item.attachments = joined.attachments.length ? joined.attachments : item.attachments;
      return [last];
    }
    const split = splitAttachments(text);
    const u: UserItem = { type: "user", key: this.key("user"), text: split.text, attachments: split.attachments, messageId };
    return [this.items.push(u) - 1];
  }

  private appendText(type: "agent" | "thought", content: acp.ContentBlock, messageId?: string): number[] {
    const text = blockText(content);
    const last = this.items.length - 1;
    const item = this.items[last];
    if (item && item.type === type && (messageId === undefined || item.messageId === undefined || item.messageId === messageId)) {
      item.text += text;
      return [last];
    }
    return [this.items.push({ type, key: this.key(type), text, messageId }) - 1];
  }
}

function blockText(content: acp.ContentBlock): string {
  switch (content.type) {
    case "text":
      return content.text;
    case "resource_link":
      return `[${content.name}](${content.uri})`;
    case "image":
      return "*(an image)*";
    default:
      return `*(${content.type})*`;
  }
}
