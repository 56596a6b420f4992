// The chat webview (bundled into media/chat.js): shows the items the host
// renders (HTML), the empty state, and the composer — prompt, attachments
// (@ completion, the attach button, drag and drop, pasted images), the
// editor's selection, the pickers, usage, Send/Stop. Every message it
// posts is one of protocol.ts's WebviewMessage; clicks on rendered items
// are routed by their data-action attributes.
import type { Attachment, EmptyState, FileMatch, HostMessage, Picker, RenderedItem, SelectionInfo, ViewState, WebviewMessage } from "../core/protocol";
import { completeSlash, type SlashCommand } from "../core/slash";

declare function acquireVsCodeApi(): { postMessage(m: unknown): void; getState(): unknown; setState(s: unknown): void };

(function () {
  const vscode = acquireVsCodeApi();
  const send = (m: WebviewMessage) => vscode.postMessage(m);
  const byId = <T extends HTMLElement>(id: string) => document.getElementById(id) as T;
  const log = byId<HTMLElement>("log");
  const empty = byId<HTMLElement>("empty");
  const prompt = byId<HTMLTextAreaElement>("prompt");
  const sendBtn = byId<HTMLButtonElement>("send");
  const stopBtn = byId<HTMLButtonElement>("stop");
  const attachBtn = byId<HTMLButtonElement>("attach");
  const pickers = byId<HTMLElement>("pickers");
  const usage = byId<HTMLElement>("usage");
  const completions = byId<HTMLElement>("completions");
  const contextRow = byId<HTMLElement>("context");
  const waiting = byId<HTMLElement>("waiting");
  const waitingText = byId<HTMLElement>("waiting-text");
  const banners = byId<HTMLElement>("banners");
  const planMode = byId<HTMLElement>("plan-mode");

  let state: ViewState | undefined;
  let commands: SlashCommand[] = [];
  let attachments: Attachment[] = [];
  let selection: SelectionInfo | null = null;
  let includeSelection = true;
  let dismissedSelection = "";
  /** details elements the user opened or closed, by data-key */
  const toggled = new Map<string, boolean>();
  let completion: { kind: "slash" | "file"; items: { label: string; detail: string; apply: () => void }[]; active: number } | undefined;
  let fileQuery: { start: number; query: string } | undefined;

  const saved = vscode.getState() as { draft?: string } | undefined;
  if (saved?.draft) prompt.value = saved.draft;

  function esc(s: string): string {
    return s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");
  }

  /** inline renders the little Markdown of the empty state: paragraphs, `code`, **bold**. */
  function inline(s: string): string {
    return s
      .split(/\n\n+/)
      .map((p) => `<p>${esc(p).replace(/`([^`]+)`/g, (_, c: string) => `<code class="${c.length <= 40 && !/\s/.test(c) ? "inline nowrap" : "inline"}">${c}</code>`).replace(/\*\*([^*]+)\*\*/g, "<strong>$1</strong>")}</p>`)
      .join("");
  }

  // --- the transcript ---

  function nearBottom(): boolean {
    return log.scrollHeight - log.scrollTop - log.clientHeight < 80;
  }

  function fill(el: HTMLElement, item: RenderedItem) {
    // What the user typed into a waiting question survives the card being redrawn.
    const drafts = new Map<string, { values: FormValues; focus?: string }>();
    for (const f of el.querySelectorAll<HTMLFormElement>("form[data-form]")) {
      const active = document.activeElement as HTMLInputElement | null;
      drafts.set(f.dataset.form!, { values: formValues(f), focus: active && f.contains(active) ? active.name : undefined });
    }
    el.dataset.key = item.key;
    el.innerHTML = item.html;
    el.hidden = item.html === "";
    for (const d of el.querySelectorAll<HTMLDetailsElement>("details[data-key]")) {
      const open = toggled.get(d.dataset.key!);
      if (open !== undefined) d.open = open;
    }
    for (const f of el.querySelectorAll<HTMLFormElement>("form[data-form]")) {
      const d = drafts.get(f.dataset.form!);
      if (d) restoreValues(f, d.values, d.focus);
    }
  }

  // --- questions (forms) ---

  type FormValues = Extract<WebviewMessage, { type: "formAnswer" }>["values"];

  /** formValues collects a question's fields as the host expects them. */
  function formValues(form: HTMLFormElement): FormValues {
    const out: FormValues = {};
    for (const field of form.querySelectorAll<HTMLElement>("[data-field]")) {
      const name = field.dataset.field!;
      const inputs = [...field.querySelectorAll<HTMLInputElement>("input")];
      switch (field.dataset.kind) {
        case "boolean":
          out[name] = inputs[0]?.checked ?? false;
          break;
        case "multi":
          out[name] = inputs.filter((i) => i.checked).map((i) => i.value);
          break;
        case "choice":
          out[name] = inputs.find((i) => i.checked)?.value ?? field.querySelector("select")?.value ?? "";
          break;
        default:
          out[name] = (field.querySelector<HTMLInputElement | HTMLTextAreaElement>("input, textarea")?.value ?? "");
      }
    }
    return out;
  }

  function restoreValues(form: HTMLFormElement, values: FormValues, focus?: string) {
    for (const field of form.querySelectorAll<HTMLElement>("[data-field]")) {
      const v = values[field.dataset.field!];
      if (v === undefined) continue;
      for (const i of field.querySelectorAll<HTMLInputElement>("input")) {
        if (i.type === "checkbox") i.checked = typeof v === "boolean" ? v : Array.isArray(v) && v.includes(i.value);
        else if (i.type === "radio") i.checked = i.value === v;
        else if (typeof v === "string") i.value = v;
      }
      const other = field.querySelector<HTMLTextAreaElement | HTMLSelectElement>("textarea, select");
      if (other && typeof v === "string") other.value = v;
    }
    if (focus) form.querySelector<HTMLElement>(`[name="${CSS.escape(focus)}"]`)?.focus();
  }

  // Typing a free answer picks the choice it belongs to ("Other …", as hermes's clarify offers it).
  document.addEventListener("input", (e) => {
    const input = e.target as HTMLInputElement;
    const form = input instanceof HTMLInputElement ? input.closest<HTMLFormElement>("form[data-form]") : null;
    if (!form || input.type !== "text" || input.value === "") return;
    const other = [...form.querySelectorAll<HTMLInputElement>('[data-kind="choice"] input[type="radio"]')].find((r) => /^other\b/i.test(r.value));
    if (other) other.checked = true;
  });

  document.addEventListener("submit", (e) => {
    const form = (e.target as HTMLElement).closest<HTMLFormElement>("form[data-form]");
    if (!form) return;
    e.preventDefault();
    form.classList.add("answering");
    send({ type: "formAnswer", formId: form.dataset.form!, values: formValues(form) });
  });

  function setItem(index: number, item: RenderedItem) {
    const stick = nearBottom();
    while (log.children.length <= index) {
      const el = document.createElement("div");
      el.className = "item";
      log.appendChild(el);
    }
    fill(log.children[index] as HTMLElement, item);
    if (stick) log.scrollTop = log.scrollHeight;
  }

  log.addEventListener("click", (e) => {
    const summary = (e.target as HTMLElement).closest("summary");
    const d = summary?.parentElement as HTMLDetailsElement | null;
    if (d?.dataset.key) setTimeout(() => toggled.set(d.dataset.key!, d.open), 0);
  });

  // --- clicks on rendered content ---

  document.addEventListener("click", (e) => {
    const target = e.target as HTMLElement;
    const a = target.closest("a");
    if (a && a.getAttribute("href")) {
      e.preventDefault();
      send({ type: "openLink", href: a.getAttribute("href")! });
      return;
    }
    const el = target.closest<HTMLElement>("[data-action]");
    if (!el) return;
    const d = el.dataset;
    switch (d.action) {
      case "answer":
        // The card shows the choice at once; the host's update confirms it.
        el.closest(".approval")?.classList.add("answering");
        send({ type: "answer", approvalId: d.approval!, optionId: d.option! });
        break;
      case "copy": {
        const code = el.closest(".code-block")?.querySelector("code");
        if (code) send({ type: "copy", text: code.textContent ?? "" });
        el.classList.add("done");
        setTimeout(() => el.classList.remove("done"), 1200);
        break;
      }
      case "openDiff":
        if (d.approval) send({ type: "openDiff", approvalId: d.approval });
        else send({ type: "openDiff", toolCallId: d.tool!, index: Number(d.index ?? 0) });
        break;
      case "action":
        send({ type: "action", action: d.id as Extract<WebviewMessage, { type: "action" }>["action"] });
        break;
      case "showTerminal":
        send({ type: "showTerminal", terminalId: d.terminal! });
        break;
      case "removeAttachment":
        attachments.splice(Number(d.index), 1);
        renderContext();
        break;
      case "toggleSelection":
        includeSelection = !includeSelection;
        renderContext();
        break;
      case "dropSelection":
        dismissedSelection = selectionKey(selection);
        renderContext();
        break;
      case "scrollToWaiting":
        scrollToWaiting();
        break;
      case "declineForm":
        el.closest("form")?.classList.add("answering");
        send({ type: "formDecline", formId: d.form! });
        break;
      case "dismissBanner":
        el.closest(".banner")?.remove();
        send({ type: "dismissBanner", key: d.key! });
        break;
      case "fork":
        send({ type: "fork", messageId: d.message! });
        break;
      case "restore":
        send({ type: "restore", turn: Number(d.turn) });
        break;
    }
  });

  function scrollToWaiting() {
    const card = log.querySelector(".approval.waiting, .elicitation.waiting");
    if (card) {
      card.scrollIntoView({ block: "center", behavior: "smooth" });
      card.classList.add("flash");
      setTimeout(() => card.classList.remove("flash"), 1200);
    }
  }

  // --- state ---

  function renderEmpty(e: EmptyState | null) {
    empty.hidden = e === null;
    document.body.classList.toggle("has-empty", e !== null);
    if (!e) return;
    const icon = { welcome: "hubot", "missing-binary": "error", "too-old": "warning", failed: "error", "no-model": "settings-gear", starting: "loading codicon-modifier-spin" }[e.kind];
    empty.innerHTML =
      `<div class="empty ${e.kind}"><span class="codicon codicon-${icon} empty-icon"></span><h2>${esc(e.title)}</h2>` +
      `<div class="empty-detail">${inline(e.detail)}</div>` +
      `<div class="buttons">${e.actions.map((a) => `<button class="${a.primary ? "primary" : "secondary"}" data-action="action" data-id="${esc(a.id)}">${esc(a.label)}</button>`).join("")}</div></div>`;
    empty.dataset.kind = e.kind;
  }

  function renderPickers(list: Picker[]) {
    pickers.innerHTML = "";
    for (const p of list) {
      if (p.kind === "boolean") {
        const label = document.createElement("label");
        label.className = "picker toggle";
        label.title = p.name;
        const box = document.createElement("input");
        box.type = "checkbox";
        box.checked = p.value;
        box.addEventListener("change", () => send({ type: "setOption", configId: p.id, value: box.checked }));
        label.append(box, document.createTextNode(p.name));
        pickers.appendChild(label);
        continue;
      }
      if (p.options.length === 0) continue;
      const wrap = document.createElement("span");
      wrap.className = `picker picker-${p.category || "other"}`;
      const select = document.createElement("select");
      select.title = p.name;
      select.setAttribute("aria-label", p.name);
      select.dataset.configId = p.id;
      let group: HTMLOptGroupElement | undefined;
      for (const o of p.options) {
        const opt = document.createElement("option");
        opt.value = o.value;
        opt.textContent = o.name;
        if (o.description) opt.title = o.description;
        opt.selected = o.value === p.value;
        if (o.group) {
          if (group?.label !== o.group) {
            group = document.createElement("optgroup");
            group.label = o.group;
            select.appendChild(group);
          }
          group.appendChild(opt);
        } else select.appendChild(opt);
      }
      select.disabled = p.options.length < 2;
      select.addEventListener("change", () => send({ type: "setOption", configId: p.id, value: select.value }));
      wrap.appendChild(select);
      wrap.insertAdjacentHTML("beforeend", `<span class="codicon codicon-chevron-down"></span>`);
      pickers.appendChild(wrap);
    }
  }

  function renderUsage(u: ViewState["usage"]) {
    usage.hidden = !u || u.size <= 0;
    if (!u || u.size <= 0) return;
    const pct = Math.min(100, Math.round((u.used / u.size) * 100));
    const k = (n: number) => (n >= 1000 ? `${(n / 1000).toFixed(n >= 10000 ? 0 : 1)}k` : String(n));
    usage.textContent = `${pct}%`;
    usage.className = pct >= 80 ? "high" : "";
    usage.style.setProperty("--pct", `${pct}`);
    usage.title = `Context: ${u.used.toLocaleString()} of ${u.size.toLocaleString()} tokens (${k(u.used)} / ${k(u.size)})${u.cost ? ` · cost so far ${u.cost.amount.toFixed(u.cost.amount < 1 ? 4 : 2)} ${u.cost.currency}` : ""}`;
  }

  function applyState(s: ViewState) {
    state = s;
    document.body.dataset.phase = s.phase;
    document.body.classList.toggle("busy", s.busy);
    sendBtn.hidden = s.busy;
    stopBtn.hidden = !s.busy;
    commands = s.commands;
    renderEmpty(s.empty);
    renderPickers(s.pickers);
    renderUsage(s.usage);
    banners.innerHTML = s.banners.map((b) => b.html).join("");
    banners.hidden = s.banners.length === 0;
    planMode.hidden = !s.planMode;
    waiting.hidden = s.waiting === 0;
    waiting.dataset.action = "scrollToWaiting";
    waitingText.textContent = s.waiting === 1 ? "Hermes is waiting for your answer" : `Hermes is waiting for ${s.waiting} answers`;
    prompt.placeholder = s.images ? "Ask Hermes — @ to attach a file, / for commands, paste an image" : "Ask Hermes — @ to attach a file, / for commands";
  }

  // --- context: attachments and the selection ---

  function selectionKey(s: SelectionInfo | null): string {
    return s ? `${s.uri}:${s.startLine}-${s.endLine}` : "";
  }

  function renderContext() {
    const chips: string[] = attachments.map((a, i) => {
      const icon = a.kind === "image" ? "file-media" : "file";
      const warn = a.kind === "image" && state && !state.images ? ` title="This model does not take images: it will not be sent"` : "";
      return `<span class="chip${warn ? " warn" : ""}"${warn}><span class="codicon codicon-${icon}"></span><span>${esc(a.name)}</span><button class="chip-x" data-action="removeAttachment" data-index="${i}" title="Remove" aria-label="Remove ${esc(a.name)}"><span class="codicon codicon-close"></span></button></span>`;
    });
    if (selection && selectionKey(selection) !== dismissedSelection) {
      const lines = selection.startLine === selection.endLine ? `line ${selection.startLine}` : `lines ${selection.startLine}–${selection.endLine}`;
      chips.push(
        `<span class="chip selection${includeSelection ? "" : " off"}" title="${includeSelection ? "The selection goes with the prompt; click to leave it out" : "Click to send the selection with the prompt"}">` +
          `<button class="chip-toggle" data-action="toggleSelection"><span class="codicon codicon-${includeSelection ? "eye" : "eye-closed"}"></span><span>${esc(selection.name)}</span><span class="chip-detail">${lines}</span></button>` +
          `<button class="chip-x" data-action="dropSelection" title="Leave out" aria-label="Leave out the selection"><span class="codicon codicon-close"></span></button></span>`,
      );
    }
    contextRow.innerHTML = chips.join("");
    contextRow.hidden = chips.length === 0;
  }

  function addAttachments(list: Attachment[]) {
    for (const a of list) {
      if (a.kind === "file" && attachments.some((x) => x.kind === "file" && x.uri === a.uri)) continue;
      attachments.push(a);
    }
    renderContext();
  }

  // --- completions ---

  function closeCompletions() {
    completion = undefined;
    fileQuery = undefined;
    completions.hidden = true;
  }

  function showCompletions() {
    if (!completion || completion.items.length === 0) {
      completions.hidden = true;
      return;
    }
    completions.innerHTML = completion.items
      .map((c, i) => `<div class="completion${i === completion!.active ? " active" : ""}" role="option" data-i="${i}"><span class="completion-label">${esc(c.label)}</span><span class="completion-detail">${esc(c.detail)}</span></div>`)
      .join("");
    completions.hidden = false;
  }

  completions.addEventListener("mousedown", (e) => {
    const row = (e.target as HTMLElement).closest<HTMLElement>(".completion");
    if (!row || !completion) return;
    e.preventDefault();
    completion.items[Number(row.dataset.i)].apply();
    closeCompletions();
    prompt.focus();
  });

  function updateCompletions() {
    const v = prompt.value;
    const caret = prompt.selectionStart ?? v.length;
    if (v.startsWith("/") && !v.includes(" ") && caret <= v.length) {
      const list = completeSlash(commands, v);
      completion = {
        kind: "slash",
        active: 0,
        items: list.map((c) => ({
          label: "/" + c.name,
          detail: c.description + (c.hint ? ` — ${c.hint}` : ""),
          apply: () => {
            prompt.value = "/" + c.name + " ";
          },
        })),
      };
      showCompletions();
      return;
    }
    const before = v.slice(0, caret);
    const m = /(^|\s)@([^\s@]*)$/.exec(before);
    if (m) {
      fileQuery = { start: caret - m[2].length - 1, query: m[2] };
      send({ type: "findFiles", query: m[2] });
      return;
    }
    closeCompletions();
  }

  function onFileMatches(query: string, files: FileMatch[]) {
    if (!fileQuery || fileQuery.query !== query) return;
    const q = fileQuery;
    completion = {
      kind: "file",
      active: 0,
      items: files.map((f) => ({
        label: f.name,
        detail: f.relative,
        apply: () => {
          // The mention stays in the text (@name); the file goes along as an attachment.
          const v = prompt.value;
          const end = q.start + 1 + q.query.length;
          prompt.value = v.slice(0, q.start) + "@" + f.name + " " + v.slice(end);
          const caret = q.start + f.name.length + 2;
          prompt.setSelectionRange(caret, caret);
          addAttachments([{ kind: "file", uri: f.uri, name: f.name }]);
        },
      })),
    };
    if (files.length === 0) completion.items = [];
    showCompletions();
  }

  // --- the composer ---

  function autosize() {
    prompt.style.height = "auto";
    prompt.style.height = Math.min(prompt.scrollHeight, 240) + "px";
  }

  function submit() {
    const text = prompt.value.trim();
    if (state?.busy) return;
    if (!text && attachments.length === 0) return;
    send({ type: "prompt", text, attachments, includeSelection: includeSelection && !!selection && selectionKey(selection) !== dismissedSelection });
    prompt.value = "";
    attachments = [];
    renderContext();
    closeCompletions();
    autosize();
    vscode.setState({ draft: "" });
  }

  prompt.addEventListener("input", () => {
    autosize();
    updateCompletions();
    vscode.setState({ draft: prompt.value });
  });
  prompt.addEventListener("keydown", (e) => {
    if (completion && !completions.hidden && completion.items.length > 0) {
      if (e.key === "ArrowDown" || e.key === "ArrowUp") {
        e.preventDefault();
        const n = completion.items.length;
        completion.active = (completion.active + (e.key === "ArrowDown" ? 1 : n - 1)) % n;
        showCompletions();
        return;
      }
      if (e.key === "Tab" || (e.key === "Enter" && !e.shiftKey)) {
        e.preventDefault();
        completion.items[completion.active].apply();
        closeCompletions();
        autosize();
        return;
      }
      if (e.key === "Escape") {
        e.preventDefault();
        closeCompletions();
        return;
      }
    }
    if (e.key === "Enter" && !e.shiftKey && !e.isComposing) {
      e.preventDefault();
      submit();
    }
  });
  // Escape stops the running turn, wherever the focus is in the view.
  document.addEventListener("keydown", (e) => {
    if (e.key === "Escape" && state?.busy && (completions.hidden || !completion)) {
      e.preventDefault();
      send({ type: "cancel" });
    }
  });
  sendBtn.addEventListener("click", submit);
  stopBtn.addEventListener("click", () => send({ type: "cancel" }));
  attachBtn.addEventListener("click", () => send({ type: "pickFiles" }));

  // Pasted images.
  prompt.addEventListener("paste", (e) => {
    const files = [...(e.clipboardData?.items ?? [])].filter((i) => i.kind === "file" && i.type.startsWith("image/")).map((i) => i.getAsFile()).filter((f): f is File => f !== null);
    if (files.length === 0) return;
    e.preventDefault();
    void readImages(files);
  });

  async function readImages(files: File[]) {
    const out: Attachment[] = [];
    for (const f of files) {
      const data = await new Promise<string>((resolve) => {
        const r = new FileReader();
        r.onload = () => resolve(String(r.result).replace(/^data:[^,]*,/, ""));
        r.onerror = () => resolve("");
        r.readAsDataURL(f);
      });
      if (data) out.push({ kind: "image", name: f.name && f.name !== "image.png" ? f.name : `pasted-${out.length + attachments.length + 1}.png`, mimeType: f.type || "image/png", data });
    }
    addAttachments(out);
  }

  // Drag and drop: files from the Explorer or editor tabs (URIs), images from the desktop.
  document.addEventListener("dragover", (e) => {
    e.preventDefault();
    document.body.classList.add("dragging");
  });
  document.addEventListener("dragleave", (e) => {
    if (e.relatedTarget === null) document.body.classList.remove("dragging");
  });
  document.addEventListener("drop", (e) => {
    e.preventDefault();
    document.body.classList.remove("dragging");
    const dt = e.dataTransfer;
    if (!dt) return;
    const uris = new Set<string>();
    for (const type of ["application/vnd.code.uri-list", "text/uri-list"]) {
      for (const line of (dt.getData(type) || "").split(/\r?\n/)) if (line.trim() && !line.startsWith("#")) uris.add(line.trim());
    }
    try {
      const res = JSON.parse(dt.getData("ResourceURLs") || "[]") as unknown;
      if (Array.isArray(res)) for (const u of res) if (typeof u === "string") uris.add(u);
    } catch {
      // not a resource list
    }
    if (uris.size > 0) send({ type: "dropped", uris: [...uris] });
    else {
      const images = [...dt.files].filter((f) => f.type.startsWith("image/"));
      if (images.length) void readImages(images);
    }
    prompt.focus();
  });

  // --- messages from the host ---

  window.addEventListener("message", (e: MessageEvent<HostMessage>) => {
    const m = e.data;
    switch (m.type) {
      case "reset":
        log.innerHTML = "";
        m.items.forEach((it, i) => setItem(i, it));
        log.scrollTop = log.scrollHeight;
        break;
      case "item":
        setItem(m.index, m.item);
        break;
      case "state":
        applyState(m.state);
        renderContext();
        break;
      case "fileMatches":
        onFileMatches(m.query, m.files);
        break;
      case "attach":
        addAttachments(m.attachments);
        prompt.focus();
        break;
      case "selection":
        if (selectionKey(m.selection) !== selectionKey(selection)) includeSelection = true;
        selection = m.selection;
        renderContext();
        break;
      case "focus": {
        const el = m.toolCallKey ? log.querySelector(`[data-key="${CSS.escape(m.toolCallKey)}"]`) : null;
        if (el) {
          el.scrollIntoView({ block: "nearest", behavior: "smooth" });
          const card = el.querySelector(".approval.waiting, .elicitation.waiting") ?? el;
          // A question takes the keyboard: its first field.
          el.querySelector<HTMLElement>(".elicitation.waiting input, .elicitation.waiting textarea, .elicitation.waiting select")?.focus({ preventScroll: true });
          card.classList.add("flash");
          setTimeout(() => card.classList.remove("flash"), 1200);
        } else prompt.focus();
        break;
      }
    }
  });

  autosize();
  renderContext();
  send({ type: "ready" });
  prompt.focus();
})();
