// The chat transcript: session updates folded into items, and each item
// rendered to HTML for the chat webview (Markdown for the agent's text).
import type * as acp from "@agentclientprotocol/sdk";
import { Marked } from "marked";

export type ChatItem =
  | { type: "user"; text: string }
  | { type: "agent"; text: string }
  | { type: "thought"; text: string }
  | { type: "tool"; id: string; title: string; kind: string; status: string; text: string[]; diffs: { path: string; newText: string }[] }
  | { type: "plan"; entries: { content: string; status: string; priority: string }[] }
  | { type: "notice"; level: "info" | "error"; text: string };

import type { SlashCommand } from "./slash";

export type { SlashCommand } from "./slash";
export { completeSlash } from "./slash";

/** ChatState is one session's transcript and the pickers' state. */
export class ChatState {
  items: ChatItem[] = [];
  commands: SlashCommand[] = [];
  modeId = "";
  title = "";
  private readonly tools = new Map<string, number>();
  private planIndex = -1;

  /**
   * apply folds one session update into the transcript and returns the
   * indexes of the items it changed (streamed chunks extend the last item
   * of their kind, so a message stays one item).
   */
  apply(u: acp.SessionUpdate): number[] {
    switch (u.sessionUpdate) {
      case "agent_message_chunk":
        return this.appendText("agent", u.content);
      case "agent_thought_chunk":
        return this.appendText("thought", u.content);
      case "user_message_chunk":
        return this.appendText("user", u.content);
      case "tool_call": {
        const item: ChatItem = { type: "tool", id: u.toolCallId, title: u.title, kind: u.kind ?? "other", status: u.status ?? "pending", text: [], diffs: [] };
        fillTool(item, u.content);
        const at = this.tools.get(u.toolCallId);
        if (at !== undefined) {
          this.items[at] = item;
          return [at];
        }
        this.tools.set(u.toolCallId, this.items.length);
        return [this.items.push(item) - 1];
      }
      case "tool_call_update": {
        const at = this.tools.get(u.toolCallId);
        if (at === undefined) {
          return this.apply({ ...u, sessionUpdate: "tool_call", title: u.title ?? u.toolCallId } as acp.SessionUpdate);
        }
        const item = this.items[at] as Extract<ChatItem, { type: "tool" }>;
        if (u.title) item.title = u.title;
        if (u.kind) item.kind = u.kind;
        if (u.status) item.status = u.status;
        if (u.content) {
          item.text = [];
          item.diffs = [];
          fillTool(item, u.content);
        }
        return [at];
      }
      case "plan": {
        const item: ChatItem = { type: "plan", entries: u.entries.map((e) => ({ content: e.content, status: e.status, priority: e.priority })) };
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
      default:
        return [];
    }
  }

  /** user records a prompt the user sent. */
  user(text: string): number[] {
    return [this.items.push({ type: "user", text }) - 1];
  }

  notice(level: "info" | "error", text: string): number[] {
    return [this.items.push({ type: "notice", level, text }) - 1];
  }

  private appendText(type: "agent" | "thought" | "user", content: acp.ContentBlock): number[] {
    const text = content.type === "text" ? content.text : content.type === "resource_link" ? `[${content.name}](${content.uri})` : `[${content.type}]`;
    const last = this.items.length - 1;
    const item = this.items[last];
    if (item && item.type === type) {
      item.text += text;
      return [last];
    }
    return [this.items.push({ type, text }) - 1];
  }
}

function fillTool(item: Extract<ChatItem, { type: "tool" }>, content: acp.ToolCallContent[] | null | undefined): void {
  for (const c of content ?? []) {
    if (c.type === "content" && c.content.type === "text") item.text.push(c.content.text);
    else if (c.type === "diff") item.diffs.push({ path: c.path, newText: c.newText });
    else if (c.type === "terminal") item.text.push(`(terminal ${c.terminalId})`);
  }
}

const markdown = new Marked({ gfm: true, async: false });
markdown.use({
  renderer: {
    // Raw HTML in the model's text is shown as text, never interpreted.
    html(token) {
      return escapeHtml(token.text);
    },
  },
});

export function escapeHtml(s: string): string {
  return s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;").replace(/'/g, "&#39;");
}

/** renderMarkdown renders the agent's text (raw HTML escaped). */
export function renderMarkdown(text: string): string {
  return markdown.parse(text) as string;
}

const statusIcon: Record<string, string> = { pending: "○", in_progress: "◐", completed: "✓", failed: "✗" };

/** renderItem renders one transcript item as the HTML the webview shows. */
export function renderItem(item: ChatItem): string {
  switch (item.type) {
    case "user":
      return `<div class="msg user">${escapeHtml(item.text)}</div>`;
    case "agent":
      return `<div class="msg agent">${renderMarkdown(item.text)}</div>`;
    case "thought":
      return `<details class="msg thought"><summary>Thinking</summary>${renderMarkdown(item.text)}</details>`;
    case "tool": {
      const body = [
        ...item.text.map((t) => `<pre class="tool-text">${escapeHtml(t)}</pre>`),
        ...item.diffs.map((d) => `<div class="tool-diff">✎ ${escapeHtml(d.path)}</div>`),
      ].join("");
      return (
        `<div class="tool status-${escapeHtml(item.status)}" data-tool-call="${escapeHtml(item.id)}">` +
        `<div class="tool-head"><span class="tool-status" title="${escapeHtml(item.status)}">${statusIcon[item.status] ?? "○"}</span> ` +
        `<span class="tool-title">${escapeHtml(item.title)}</span> <span class="tool-kind">${escapeHtml(item.kind)}</span></div>${body}</div>`
      );
    }
    case "plan":
      return (
        `<div class="plan"><div class="plan-head">Plan</div><ul>` +
        item.entries
          .map((e) => `<li class="plan-${escapeHtml(e.status)}"><input type="checkbox" disabled${e.status === "completed" ? " checked" : ""}> ${escapeHtml(e.content)}</li>`)
          .join("") +
        `</ul></div>`
      );
    case "notice":
      return `<div class="notice ${item.level}">${escapeHtml(item.text)}</div>`;
  }
}
