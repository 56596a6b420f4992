// Rendering of transcript items to the HTML the chat webview shows. Buttons
// carry data-action attributes; the webview turns clicks into typed
// messages (protocol.ts). Everything the agent or the model wrote is
// escaped or goes through renderMarkdown.
import { describeAnswer, type Approval } from "./approvals";
import { isTodoCall, type AttachmentChip, type Banner, type ChatItem, type CompactionItem, type DiffContent, type ToolItem, type UserItem } from "./chat";
import { describeContent, isQuestion, type FieldPlan, type FormPlan, type FormRequest } from "./forms";
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
  /** The newest question (elicitation) of a tool call. */
  form?(toolCallId: string): FormRequest | undefined;
  /** A question by id (one that belongs to no tool call). */
  formById?(id: string): FormRequest | undefined;
  /** The agent message (by item index) ends a turn and the session can be forked there (session/fork with _meta.hermes.forkAt). */
  forkable?(index: number): boolean;
  /** The checkpoint before the turn a user message (its item index) starts, when the agent has one. */
  restorePoint?(index: number): RestorePoint | undefined;
}

/** A turn the agent can restore the workspace to the state before (_hermes/rewind). */
export interface RestorePoint {
  turn: number;
  /** e.g. "2 files: a.go, b.txt" */
  detail: string;
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
  return items.map((it, i) => ({ key: it.key, html: renderItem(it, ctx, i) }));
}

/** renderItem renders one transcript item (the index-th) as the HTML the webview shows. */
export function renderItem(item: ChatItem, ctx: RenderContext = noContext, index = -1): string {
  switch (item.type) {
    case "user":
      return `<div class="msg user">${userActions(item, ctx, index)}${chips(item.attachments)}<div class="user-text">${escapeHtml(item.text)}</div></div>`;
    case "agent": {
      const fork =
        item.messageId && index >= 0 && ctx.forkable?.(index)
          ? `<div class="msg-actions"><button class="icon-button" data-action="fork" data-message="${escapeHtml(item.messageId)}" title="Fork: a new session with the conversation up to here" aria-label="Fork from here">${icon("repo-forked")}</button></div>`
          : "";
      return `<div class="msg agent markdown">${fork}${renderMarkdown(item.text)}</div>`;
    }
    case "form": {
      const f = ctx.formById?.(item.formId);
      if (!f) return "";
      return `<div class="card question${f.state === "waiting" ? " status-waiting" : ""}"><div class="card-body">${renderForm(f)}</div></div>`;
    }
    case "compaction":
      return renderCompaction(item);
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

function userActions(item: UserItem, ctx: RenderContext, index: number): string {
  const p = index >= 0 ? ctx.restorePoint?.(index) : undefined;
  if (!p) return "";
  return (
    `<div class="msg-actions"><button class="icon-button restore" data-action="restore" data-turn="${p.turn}" data-key="${escapeHtml(item.key)}" ` +
    `title="${escapeHtml(`Restore to here: put the files back as they were before this turn (${p.detail})`)}" aria-label="Restore to before this turn">${icon("discard")}</button></div>`
  );
}

const k = (n: number) => (n >= 1000 ? `${(n / 1000).toFixed(n >= 10000 ? 0 : 1)}k` : String(n));

function renderCompaction(c: CompactionItem): string {
  const titles: Record<string, string> = {
    in_progress: "Compacting the conversation…",
    completed: "Compacted the conversation",
    failed: "Compacting the conversation failed",
    cancelled: "Compacting the conversation was cancelled",
  };
  const title = titles[c.status] ?? `Compaction: ${c.status}`;
  const tokens = c.tokensBefore !== undefined && c.tokensAfter !== undefined ? `<span class="card-meta">${k(c.tokensBefore)} → ${k(c.tokensAfter)} tokens</span>` : "";
  const st = c.status === "in_progress" ? icon("loading", "codicon-modifier-spin") : c.status === "completed" ? icon("pass-filled") : c.status === "failed" ? icon("error") : icon("circle-slash");
  const body: string[] = [];
  if (c.error) body.push(`<div class="tool-result failed">${escapeHtml(c.error)}</div>`);
  if (c.summary) body.push(`<div class="compaction-summary markdown">${renderMarkdown(c.summary)}</div>`);
  return (
    `<details class="card compaction status-${escapeHtml(c.status)}" data-key="${escapeHtml(c.key)}"${c.status === "failed" ? " open" : ""}>` +
    `<summary class="card-head">${icon("fold")}<span class="card-title">${escapeHtml(title)}</span>${tokens}<span class="tool-status">${st}</span></summary>` +
    (body.length ? `<div class="card-body">${body.join("")}</div>` : "") +
    `</details>`
  );
}

/** renderBanner renders a session notice as the banner above the conversation. */
export function renderBanner(b: Banner): string {
  const sev = b.severity === "error" || b.severity === "warning" ? b.severity : "info";
  return (
    `<div class="banner ${sev}" role="${sev === "info" ? "status" : "alert"}">${icon(sev === "info" ? "info" : sev)}` +
    `<div class="banner-body"><div class="banner-title">${escapeHtml(b.title)}</div>${b.description ? `<div class="markdown">${renderMarkdown(b.description)}</div>` : ""}</div>` +
    `<button class="icon-button" data-action="dismissBanner" data-key="${escapeHtml(b.key)}" title="Dismiss" aria-label="Dismiss">${icon("close")}</button></div>`
  );
}

/** renderForm renders a question: its fields and Answer/Decline while it waits, else what became of it. */
export function renderForm(f: FormRequest): string {
  const p = f.plan;
  const id = escapeHtml(f.id);
  if (f.state !== "waiting") {
    const text = f.state === "accepted" ? describeContent(p, f.content ?? {}) : f.state === "declined" ? "You declined to answer." : (f.reason ?? "Cancelled.");
    return (
      `<div class="elicitation settled ${f.state}" data-form="${id}">${icon(f.state === "accepted" ? "check" : "circle-slash")}` +
      `<span class="elicitation-q">${escapeHtml(p.title ?? firstLine(p.message))}</span><span class="elicitation-a">${escapeHtml(text)}</span></div>`
    );
  }
  const fields = p.fields.map((x) => renderField(p, x, f.errors?.[x.name])).join("");
  return (
    `<form class="elicitation waiting" data-form="${id}" novalidate>` +
    `<div class="approval-why">${icon("question")}<span>${escapeHtml(p.title ?? "Hermes asks")}</span></div>` +
    `<div class="elicitation-message markdown">${renderMarkdown(p.message)}</div>` +
    (p.description ? `<div class="approval-note">${escapeHtml(p.description)}</div>` : "") +
    fields +
    `<div class="buttons"><button type="submit" class="primary" data-form="${id}">Answer</button>` +
    `<button type="button" class="secondary" data-action="declineForm" data-form="${id}">Decline</button></div></form>`
  );
}

function firstLine(s: string): string {
  const l = s.trim().split("\n")[0];
  return l.length > 120 ? l.slice(0, 119) + "…" : l;
}

function renderField(plan: FormPlan, f: FieldPlan, error: string | undefined): string {
  const name = escapeHtml(f.name);
  const label = `<span class="field-label">${escapeHtml(f.label)}${f.required ? ` <span class="required" title="Required">*</span>` : ""}</span>`;
  const desc = f.description ? `<span class="field-detail">${escapeHtml(f.description)}</span>` : "";
  const err = error ? `<div class="field-error">${icon("error")}${escapeHtml(error)}</div>` : "";
  const legend = !isQuestion(plan, f) || f.description !== undefined;
  const head = `<div class="field-head">${isQuestion(plan, f) ? "" : label}${desc}</div>`;
  const wrap = (inner: string, withHead = legend) => `<div class="field${error ? " invalid" : ""}" data-field="${name}" data-kind="${f.kind}">${withHead ? head : ""}${inner}${err}</div>`;
  const option = (type: "radio" | "checkbox", value: string, text: string, detail: string | undefined, checked: boolean) =>
    `<label class="option"><input type="${type}" name="${name}" value="${escapeHtml(value)}"${checked ? " checked" : ""}><span>${escapeHtml(text)}</span>${detail ? `<span class="option-detail">${escapeHtml(detail)}</span>` : ""}</label>`;
  switch (f.kind) {
    case "choice":
      if (f.options.length > 8) {
        const opts = f.options.map((o) => `<option value="${escapeHtml(o.value)}"${o.value === f.default ? " selected" : ""}>${escapeHtml(o.label)}</option>`).join("");
        return wrap(`<select name="${name}" aria-label="${escapeHtml(f.label)}"><option value="">—</option>${opts}</select>`);
      }
      return wrap(`<div class="options">${f.options.map((o) => option("radio", o.value, o.label, o.description, o.value === f.default)).join("")}</div>`);
    case "multi":
      return wrap(`<div class="options">${f.options.map((o) => option("checkbox", o.value, o.label, o.description, f.default?.includes(o.value) ?? false)).join("")}</div>`);
    case "boolean":
      return wrap(`<div class="options">${option("checkbox", "true", f.label, f.description, f.default ?? false)}</div>`, false);
    case "number":
      return wrap(
        `<input type="number" name="${name}" aria-label="${escapeHtml(f.label)}" step="${f.integer ? "1" : "any"}"${f.minimum !== undefined ? ` min="${f.minimum}"` : ""}${f.maximum !== undefined ? ` max="${f.maximum}"` : ""}${f.default !== undefined ? ` value="${f.default}"` : ""}>`,
      );
    case "text": {
      const attrs = `name="${name}" aria-label="${escapeHtml(f.label)}"${f.maxLength !== undefined ? ` maxlength="${f.maxLength}"` : ""}`;
      if (f.maxLength !== undefined && f.maxLength > 500) return wrap(`<textarea ${attrs} rows="3">${escapeHtml(f.default ?? "")}</textarea>`);
      const type = f.format === "email" ? "email" : f.format === "uri" ? "url" : f.format === "date" ? "date" : "text";
      return wrap(`<input type="${type}" ${attrs}${f.default ? ` value="${escapeHtml(f.default)}"` : ""}>`);
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
  const form = ctx.form?.(t.id);
  const waiting = approval?.state === "waiting" || form?.state === "waiting";
  const children = ctx.children(t.id);
  const body: string[] = [];
  if (approval) body.push(renderApproval(approval));
  if (form) body.push(renderForm(form));
  const isCommand = t.kind === "execute" || t.command !== undefined || t.terminals.length > 0;
  // A command whose output came as text (no editor terminal, or a replayed session): shown as a terminal too.
  let ran: CommandResult | undefined;
  let ranText = "";
  if (isCommand && t.terminals.length === 0) {
    for (const x of t.texts) {
      ran = parseCommandResult(x, t.command);
      if (ran) {
        ranText = x;
        break;
      }
    }
  }
  if (t.terminals.length > 0) {
    for (const id of t.terminals) body.push(renderTerminal(id, t, ctx.terminal(id)));
  } else if (ran) {
    body.push(renderRan(t.command ?? ran.command, ran));
  } else if (isCommand && t.command && !(approval?.state === "waiting" && approval.plan.kind === "command")) {
    body.push(`<div class="terminal"><div class="terminal-head"><code>$ ${escapeHtml(t.command)}</code></div></div>`);
  }
  if (!(approval?.state === "waiting" && approval.plan.kind === "edit")) {
    t.diffs.forEach((d, i) => body.push(renderEdit(t, d, i)));
  }
  if (t.lint && !(approval?.state === "waiting" && approval.plan.lint)) body.push(renderLint(t.lint));
  if (children.length > 0 || /^delegate\b/.test(t.title)) body.push(renderDelegation(t, children, ctx));
  else {
    // The lint box lists the findings: the result's own "⚠️ Lint: …" paragraph would say them twice.
    const listed = t.lint !== undefined && t.lint.diagnostics.some((f) => f.items.length > 0);
    const texts = t.texts
      .map((x) => (listed ? withoutLintParagraph(x) : x))
      .filter((x) => x.trim() !== "" && x !== ranText && !(isCommand && t.command && x.trim() === `$ ${t.command}`));
    if (texts.length > 0) {
      const cls = t.status === "failed" ? "tool-result failed" : "tool-result";
      body.push(`<div class="${cls} markdown">${texts.map(renderMarkdown).join("")}</div>`);
    } else if (t.status === "failed" && t.terminals.length === 0) {
      // (A terminal says how its command ended.)
      body.push(`<div class="tool-result failed">The call failed; the agent gave no reason.</div>`);
    }
  }
  // Open by default: what needs the user, what failed, and what shows a command or an edit.
  const childWaiting = children.some((c) => ctx.approval(c.id)?.state === "waiting" || ctx.form?.(c.id)?.state === "waiting");
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

/** withoutLintParagraph drops the "⚠️ Lint: …" paragraphs hermes-acp's edit results end with. */
function withoutLintParagraph(text: string): string {
  return text
    .split(/\n{2,}/)
    .filter((p) => !/^⚠️ Lint: /.test(p))
    .join("\n\n");
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

/** What the agent's text rendering of a finished command says (hermes-acp's terminal result). */
export interface CommandResult {
  command: string;
  output: string;
  exitCode: number;
  /** e.g. "No matches found" for grep's 1 */
  meaning?: string;
  /** Lines before the command: the sandbox warning, the backend it ran in. */
  notes: string[];
}

/**
 * parseCommandResult reads hermes-acp's text rendering of a finished
 * command: optional notes ("⚠️ …", "Ran in …"), the command in a fence as
 * "$ command", the output in a fence, then "Exit code: N (meaning)". It is
 * what a client without editor terminals sees live and what every client
 * sees in a replayed session. undefined when text is something else.
 */
export function parseCommandResult(text: string, command?: string): CommandResult | undefined {
  const exit = /(?:^|\n)Exit code: (-?\d+)(?: \((.*)\))?\s*$/.exec(text);
  if (!exit) return undefined;
  const rest = text.slice(0, exit.index);
  const fences: string[] = [];
  const fence = /(`{3,})[^\n]*\n([\s\S]*?)\n\1(?:\n|$)/g;
  let last = 0;
  const notes: string[] = [];
  for (let m = fence.exec(rest); m; m = fence.exec(rest)) {
    for (const n of rest.slice(last, m.index).split("\n")) if (n.trim()) notes.push(n.trim());
    fences.push(m[2]);
    last = m.index + m[0].length;
  }
  if (rest.slice(last).trim() !== "") return undefined;
  let cmd = command ?? "";
  let output = "";
  if (fences.length > 0 && fences[0].startsWith("$ ")) {
    cmd = fences[0].slice(2);
    output = fences[1] ?? "";
    if (fences.length > 2) return undefined;
  } else if (fences.length === 1) output = fences[0];
  else if (fences.length > 1) return undefined;
  return { command: cmd, output, exitCode: Number(exit[1]), meaning: exit[2], notes };
}

function renderRan(command: string, r: CommandResult): string {
  const state = `<span class="terminal-state ${r.exitCode === 0 ? "ok" : "failed"}"${r.meaning ? ` title="${escapeHtml(r.meaning)}"` : ""}>exit ${r.exitCode}${r.meaning ? ` · ${escapeHtml(r.meaning)}` : ""}</span>`;
  const notes = r.notes.map((n) => `<div class="terminal-note">${escapeHtml(n)}</div>`).join("");
  const output = r.output ? `<pre class="terminal-output">${escapeHtml(stripAnsi(r.output))}</pre>` : `<div class="terminal-empty">No output.</div>`;
  return `<div class="terminal">${notes}<div class="terminal-head"><code>$ ${escapeHtml(command)}</code>${state}</div>${output}</div>`;
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
