// Rendering of transcript items to the HTML the chat webview shows. Buttons
// carry data-action attributes; the webview turns clicks into typed
// messages (protocol.ts). Everything the agent or the model wrote is
// escaped or goes through renderMarkdown.
import { describeAnswer, type Approval } from "./approvals";
import { isTodoCall, type AttachmentChip, type ChatItem, type DiffContent, type ToolItem } from "./chat";
import { diffStats, renderDiff } from "./diffview";
import { codeBlock, escapeHtml, inlineCode, renderMarkdown } from "./markdown";
import type { LintSummary } from "./permissions";
import type { RenderedItem } from "./protocol";
import { stripAnsi, type TerminalView } from "./terminals";

/** What rendering needs besides the item. */
export interface RenderContext {
  /** The newest approval of a tool call. */
  approval(toolCallId: string): Approval | undefined;
  terminal(id: string): TerminalView | undefined;
  children(toolCallId: string): ToolItem[];
}

export const noContext: RenderContext = { approval: () => undefined, terminal: () => undefined, children: () => [] };

const kindIcon: Record<string, string> = {
  read: "file",
  edit: "edit",
  delete: "trash",
  move: "arrow-right",
  search: "search",
  execute: "terminal",
  think: "lightbulb",
  fetch: "globe",
  switch_mode: "arrow-swap",
  other: "tools",
};

const statusIcon: Record<string, string> = {
  pending: "circle-large-outline",
  in_progress: "loading codicon-modifier-spin",
  completed: "pass-filled",
  failed: "error",
  cancelled: "circle-slash",
};

const statusName: Record<string, string> = {
  pending: "Pending",
  in_progress: "Running",
  completed: "Done",
  failed: "Failed",
  cancelled: "Cancelled",
};

function icon(name: string, extra = ""): string {
  return `<span class="codicon codicon-${name}${extra ? " " + extra : ""}" aria-hidden="true"></span>`;
}

/** labelHtml escapes an option label, showing its `code` spans as code (hermes-acp's "Always allow `rm -rf build/*`"). */
export function labelHtml(label: string): string {
  return label
    .split(/(`[^`]+`)/)
    .map((part) => (/^`[^`]+`$/.test(part) ? inlineCode(escapeHtml(part.slice(1, -1))) : escapeHtml(part)))
    .join("");
}

function basename(p: string): string {
  const parts = p.split(/[\\/]/);
  return parts[parts.length - 1] || p;
}

/** renderItems renders a transcript. */
export function renderItems(items: ChatItem[], ctx: RenderContext = noContext): RenderedItem[] {
  return items.map((i) => ({ key: i.key, html: renderItem(i, ctx) }));
}

/** renderItem renders one transcript item as the HTML the webview shows. */
export function renderItem(item: ChatItem, ctx: RenderContext = noContext): string {
  switch (item.type) {
    case "user":
      return `<div class="msg user">${chips(item.attachments)}<div class="user-text">${escapeHtml(item.text)}</div></div>`;
    case "agent":
      return `<div class="msg agent markdown">${renderMarkdown(item.text)}</div>`;
    case "thought":
      return `<details class="msg thought" data-key="${escapeHtml(item.key)}"><summary>${icon("lightbulb")} Thinking</summary><div class="markdown">${renderMarkdown(item.text)}</div></details>`;
    case "tool":
      if (isTodoCall(item)) return "";
      return renderTool(item, ctx);
    case "plan": {
      if (item.entries.length === 0) return "";
      const done = item.entries.filter((e) => e.status === "completed").length;
      const rows = item.entries
        .map((e) => {
          const ic = e.status === "completed" ? "pass-filled" : e.status === "in_progress" ? "circle-large-filled" : "circle-large-outline";
          return `<li class="plan-entry plan-${escapeHtml(e.status)}">${icon(ic)}<span>${escapeHtml(e.content)}</span></li>`;
        })
        .join("");
      return `<div class="card plan"><div class="card-head">${icon("checklist")}<span class="card-title">Plan</span><span class="card-meta">${done} of ${item.entries.length} done</span></div><ul>${rows}</ul></div>`;
    }
    case "notice": {
      const ic = item.level === "error" ? "error" : item.level === "warning" ? "warning" : "info";
      const actions = (item.actions ?? []).map((a) => `<button class="secondary" data-action="action" data-id="${escapeHtml(a.id)}">${escapeHtml(a.label)}</button>`).join("");
      return `<div class="notice ${item.level}">${icon(ic)}<div class="notice-body"><div class="markdown">${renderMarkdown(item.text)}</div>${actions ? `<div class="buttons">${actions}</div>` : ""}</div></div>`;
    }
  }
}

function chips(list: AttachmentChip[]): string {
  if (list.length === 0) return "";
  const ic = { file: "file", image: "file-media", selection: "selection" } as const;
  return `<div class="chips">${list.map((c) => `<span class="chip">${icon(ic[c.kind])}<span>${escapeHtml(c.name)}</span>${c.detail ? `<span class="chip-detail">${escapeHtml(c.detail)}</span>` : ""}</span>`).join("")}</div>`;
}

function renderTool(t: ToolItem, ctx: RenderContext): string {
  const approval = ctx.approval(t.id);
  const waiting = approval?.state === "waiting";
  const children = ctx.children(t.id);
  const body: string[] = [];
  if (approval) body.push(renderApproval(approval));
  const isCommand = t.kind === "execute" || t.command !== undefined || t.terminals.length > 0;
  if (t.terminals.length > 0) {
    for (const id of t.terminals) body.push(renderTerminal(id, t, ctx.terminal(id)));
  } else if (isCommand && t.command && !(waiting && approval?.plan.kind === "command")) {
    body.push(`<div class="terminal"><div class="terminal-head"><code>$ ${escapeHtml(t.command)}</code></div></div>`);
  }
  if (!(waiting && approval?.plan.kind === "edit")) {
    t.diffs.forEach((d, i) => body.push(renderEdit(t, d, i)));
  }
  if (t.lint && !(waiting && approval?.plan.lint)) body.push(renderLint(t.lint));
  if (children.length > 0 || /^delegate\b/.test(t.title)) body.push(renderDelegation(t, children, ctx));
  else {
    const texts = t.texts.filter((x) => !(isCommand && t.command && x.trim() === `$ ${t.command}`));
    if (texts.length > 0) {
      const cls = t.status === "failed" ? "tool-result failed" : "tool-result";
      body.push(`<div class="${cls} markdown">${texts.map(renderMarkdown).join("")}</div>`);
    } else if (t.status === "failed" && t.terminals.length === 0) {
      // (A terminal says how its command ended.)
      body.push(`<div class="tool-result failed">The call failed; the agent gave no reason.</div>`);
    }
  }
  // Open by default: what needs the user, what failed, and what shows a command or an edit.
  const childWaiting = children.some((c) => ctx.approval(c.id)?.state === "waiting");
  const open = waiting || childWaiting || t.status === "failed" || isCommand || t.diffs.length > 0 || children.length > 0;
  const status = waiting || childWaiting ? "waiting" : t.status;
  const badge = waiting || childWaiting
    ? `<span class="badge waiting">${icon("bell-dot")}Waiting for you</span>`
    : `<span class="tool-status" title="${escapeHtml(statusName[t.status] ?? t.status)}">${icon(statusIcon[t.status] ?? "circle-large-outline")}</span>`;
  const stats = t.diffs.length === 1 ? diffBadge(t.diffs[0]) : "";
  return (
    `<details class="card tool kind-${escapeHtml(t.kind)} status-${escapeHtml(status)}" data-key="${escapeHtml(t.key)}" data-tool-call="${escapeHtml(t.id)}"${open ? " open" : ""}>` +
    `<summary class="card-head">${icon(kindIcon[t.kind] ?? "tools")}<span class="card-title">${escapeHtml(t.title)}</span>${stats}${badge}</summary>` +
    (body.length ? `<div class="card-body">${body.join("")}</div>` : "") +
    `</details>`
  );
}

function diffBadge(d: DiffContent): string {
  const s = diffStats(d.oldText, d.newText);
  return `<span class="diff-stats"><span class="added">+${s.added}</span> <span class="removed">−${s.removed}</span></span>`;
}

/** renderApproval renders the approval part of a card: its question and buttons, or what was answered. */
export function renderApproval(a: Approval): string {
  const plan = a.plan;
  if (a.state !== "waiting") {
    const allowed = a.state === "answered" && a.answer!.kind.startsWith("allow");
    const ic = a.state === "withdrawn" ? "circle-slash" : allowed ? "check" : "close";
    return `<div class="approval settled ${a.state} ${allowed ? "allowed" : "rejected"}" data-approval="${escapeHtml(a.id)}">${icon(ic)}<span>${labelHtml(describeAnswer(a))}</span></div>`;
  }
  const parts: string[] = [];
  if (plan.kind === "command") {
    parts.push(`<div class="approval-why">${icon("shield")}<span>${escapeHtml(plan.description || "This command needs your approval")}</span></div>`);
    parts.push(codeBlock(plan.command, "bash", "approval-command"));
  } else if (plan.kind === "edit") {
    parts.push(`<div class="approval-why">${icon("shield")}<span>Hermes wants to ${plan.oldText === null ? "create" : "edit"} <a href="${escapeHtml("file://" + plan.path)}">${escapeHtml(basename(plan.path))}</a></span></div>`);
    parts.push(renderEditBody(plan.path, plan.oldText, plan.newText, { approval: a.id }));
  } else {
    parts.push(`<div class="approval-why">${icon("shield")}<span>${escapeHtml(plan.title)}</span></div>`);
  }
  if (plan.lint) parts.push(renderLint(plan.lint));
  for (const n of plan.notes) parts.push(`<div class="approval-note markdown">${renderMarkdown(n)}</div>`);
  const firstAllow = plan.options.findIndex((o) => o.kind === "allow_once");
  const primary = firstAllow >= 0 ? firstAllow : plan.options.findIndex((o) => o.kind.startsWith("allow"));
  const buttons = plan.options
    .map((o, i) => {
      const cls = i === primary ? "primary" : o.kind.startsWith("reject") ? "secondary reject" : "secondary";
      return `<button class="${cls}" data-action="answer" data-approval="${escapeHtml(a.id)}" data-option="${escapeHtml(o.optionId)}"><span class="label">${labelHtml(o.label)}</span></button>`;
    })
    .join("");
  const hint = plan.kind === "edit" ? `<div class="approval-hint">or ${icon("check")} / ${icon("close")} in the diff editor</div>` : "";
  return `<div class="approval waiting" data-approval="${escapeHtml(a.id)}">${parts.join("")}<div class="buttons">${buttons}</div>${hint}</div>`;
}

function renderEditBody(path: string, oldText: string | null, newText: string, target: { tool?: string; index?: number; approval?: string }): string {
  const open = target.approval
    ? `data-action="openDiff" data-approval="${escapeHtml(target.approval)}"`
    : `data-action="openDiff" data-tool="${escapeHtml(target.tool ?? "")}" data-index="${target.index ?? 0}"`;
  return (
    `<div class="edit"><div class="edit-head">${icon("file")}<a href="${escapeHtml("file://" + path)}" title="${escapeHtml(path)}">${escapeHtml(basename(path))}</a>` +
    `${oldText === null ? `<span class="badge">new file</span>` : ""}<button class="secondary small" ${open}>${icon("diff")}Open diff</button></div>` +
    renderDiff(oldText, newText) +
    `</div>`
  );
}

function renderEdit(t: ToolItem, d: DiffContent, index: number): string {
  return renderEditBody(d.path, d.oldText, d.newText, { tool: t.id, index });
}

function renderLint(l: LintSummary): string {
  const items = l.diagnostics.flatMap((f) => f.items.map((d) => ({ file: basename(decodeURIComponent(f.uri.replace(/^file:\/\//, ""))), ...d })));
  const multi = new Set(items.map((i) => i.file)).size > 1;
  const text = l.text.replace(/^Lint of the proposed content:\s*/i, "");
  const bad = l.introduced > 0;
  const list = items
    .slice(0, 20)
    .map((d) => `<li>${icon(d.severity === 1 ? "error" : d.severity === 2 ? "warning" : "info")}<span class="lint-pos">${multi ? escapeHtml(d.file) + ":" : "line "}${d.line + 1}</span> ${escapeHtml(d.message)}</li>`)
    .join("");
  const head = text || (bad ? `introduces ${l.introduced} problem${l.introduced === 1 ? "" : "s"}` : "no new problems");
  return `<div class="lint ${bad ? "bad" : "good"}"><div class="lint-head">${icon(bad ? "warning" : "pass")}<span>Lint: ${escapeHtml(head)}</span></div>${list ? `<ul>${list}</ul>` : ""}</div>`;
}

function renderTerminal(id: string, t: ToolItem, v: TerminalView | undefined): string {
  const command = t.command ?? v?.command ?? "";
  const exit = v?.exitStatus;
  const state = !v
    ? ""
    : exit === null || exit === undefined
      ? `<span class="terminal-state running">${icon("loading", "codicon-modifier-spin")}running</span>`
      : exit.signal
        ? `<span class="terminal-state failed">killed (${escapeHtml(exit.signal)})</span>`
        : `<span class="terminal-state ${exit.exitCode === 0 ? "ok" : "failed"}">exit ${exit.exitCode}</span>`;
  const out = v ? stripAnsi(v.output) : "";
  const lines = out.replace(/\n$/, "");
  const output = v
    ? lines
      ? `<pre class="terminal-output">${v.truncated ? `<span class="terminal-cut">… earlier output cut</span>\n` : ""}${escapeHtml(lines)}</pre>`
      : `<div class="terminal-empty">${exit ? "No output." : "Waiting for output…"}</div>`
    : `<div class="terminal-empty">The output is no longer available.</div>`;
  const show = v && exit === null ? `<button class="icon-button" data-action="showTerminal" data-terminal="${escapeHtml(id)}" title="Show in a terminal">${icon("link-external")}</button>` : "";
  return `<div class="terminal" data-terminal="${escapeHtml(id)}"><div class="terminal-head"><code>$ ${escapeHtml(command)}</code>${state}${show}</div>${output}</div>`;
}

/** One child of a delegate_task call, from the call's progress text. */
export interface ChildProgress {
  n: number;
  status: string;
  calls: number;
  goal: string;
  summary: string;
}

/**
 * parseDelegation reads hermes-acp's progress list of a delegate_task call
 * ("- [1] ⏳ running · 2 tool calls — goal", then "  ↳ summary").
 */
export function parseDelegation(texts: string[]): ChildProgress[] {
  const out: ChildProgress[] = [];
  for (const text of texts) {
    for (const line of text.split("\n")) {
      const m = /^\s*- \[(\d+)\]\s+\S+\s+([\w ]+?)\s+·\s+(\d+) tool calls?\s+—\s+(.*)$/.exec(line);
      if (m) {
        const child = { n: Number(m[1]), status: m[2].trim(), calls: Number(m[3]), goal: m[4].trim(), summary: "" };
        const at = out.findIndex((c) => c.n === child.n);
        if (at >= 0) out[at] = child;
        else out.push(child);
        continue;
      }
      const s = /^\s+↳\s+(.*)$/.exec(line);
      if (s && out.length > 0) out[out.length - 1].summary = s[1].trim();
    }
  }
  return out.sort((a, b) => a.n - b.n);
}

const childStatusIcon: Record<string, string> = {
  queued: "clock",
  running: "loading codicon-modifier-spin",
  completed: "pass-filled",
  failed: "error",
  cancelled: "circle-slash",
  interrupted: "circle-slash",
};

function renderDelegation(t: ToolItem, children: ToolItem[], ctx: RenderContext): string {
  const progress = parseDelegation(t.texts);
  const rest = t.texts.filter((x) => !/^\*\*Subagents\*\*/.test(x) && !/^\s*- \[\d+\]/.test(x));
  const byChild = new Map<number, ToolItem[]>();
  const unlabelled: ToolItem[] = [];
  for (const c of children) {
    const m = /^\[(\d+)\]\s*/.exec(c.title);
    if (m) {
      const list = byChild.get(Number(m[1])) ?? [];
      list.push(c);
      byChild.set(Number(m[1]), list);
    } else unlabelled.push(c);
  }
  let ns = progress.map((p) => p.n);
  for (const n of byChild.keys()) if (!ns.includes(n)) ns.push(n);
  ns = ns.sort((a, b) => a - b);
  const cards = ns.map((n) => {
    const p = progress.find((x) => x.n === n);
    const calls = byChild.get(n) ?? [];
    const status = p?.status ?? "running";
    const rows = calls.map((c) => childCall(c, ctx)).join("");
    return (
      `<div class="child status-${escapeHtml(status.replace(/\s+/g, "-"))}"><div class="child-head">${icon(childStatusIcon[status] ?? "circle-large-outline")}<span class="child-n">${n}</span>` +
      `<span class="child-goal">${escapeHtml(p?.goal ?? `Task ${n}`)}</span><span class="card-meta">${escapeHtml(status)}${p ? ` · ${p.calls} tool call${p.calls === 1 ? "" : "s"}` : ""}</span></div>` +
      (rows ? `<ul class="child-calls">${rows}</ul>` : "") +
      (p?.summary ? `<div class="child-summary markdown">${renderMarkdown(p.summary)}</div>` : "") +
      `</div>`
    );
  });
  const other = unlabelled.map((c) => childCall(c, ctx)).join("");
  return (
    `<div class="delegation">${cards.join("")}${other ? `<ul class="child-calls">${other}</ul>` : ""}</div>` +
    (rest.length ? `<div class="tool-result markdown">${rest.map(renderMarkdown).join("")}</div>` : "")
  );
}

function childCall(c: ToolItem, ctx: RenderContext): string {
  const title = c.title.replace(/^\[\d+\]\s*/, "");
  const a = ctx.approval(c.id);
  const approval = a ? renderApproval(a) : "";
  const reason = c.status === "failed" && c.texts.length ? `<span class="child-reason">${escapeHtml(c.texts[0].replace(/^❌\s*/, "").slice(0, 200))}</span>` : "";
  return `<li class="status-${escapeHtml(c.status)}">${icon(statusIcon[c.status] ?? "circle-large-outline")}${icon(kindIcon[c.kind] ?? "tools")}<span>${escapeHtml(title)}</span>${reason}${approval}</li>`;
}
