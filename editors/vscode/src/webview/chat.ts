// The chat webview (bundled into media/chat.js): renders the items the
// extension sends (already HTML), the mode and model pickers, slash-command
// completion, send and cancel.
import { completeSlash, type SlashCommand } from "../core/slash";

declare function acquireVsCodeApi(): { postMessage(m: unknown): void };

(function () {
  const vscode = acquireVsCodeApi();
  const byId = <T extends HTMLElement>(id: string) => document.getElementById(id) as T;
  const log = byId<HTMLDivElement>("log");
  const prompt = byId<HTMLTextAreaElement>("prompt");
  const send = byId<HTMLButtonElement>("send");
  const cancel = byId<HTMLButtonElement>("cancel");
  const mode = byId<HTMLSelectElement>("mode");
  const model = byId<HTMLSelectElement>("model");
  const completions = byId<HTMLDivElement>("completions");
  let commands: SlashCommand[] = [];
  let modelId = "";

  function setItem(index: number, html: string) {
    let el = log.children[index];
    while (!el) {
      el = document.createElement("div");
      el.className = "item";
      log.appendChild(el);
      el = log.children[index];
    }
    el.innerHTML = html;
    log.scrollTop = log.scrollHeight;
  }

  function fillSelect(select: HTMLSelectElement, options: { value: string; name: string }[], value: string) {
    select.innerHTML = "";
    for (const o of options) {
      const opt = document.createElement("option");
      opt.value = o.value;
      opt.textContent = o.name;
      opt.selected = o.value === value;
      select.appendChild(opt);
    }
    select.hidden = options.length === 0;
  }

  window.addEventListener("message", (e) => {
    const m = e.data;
    if (m.type === "reset") {
      log.innerHTML = "";
      m.items.forEach((html: string, i: number) => setItem(i, html));
    } else if (m.type === "item") {
      setItem(m.index, m.html);
    } else if (m.type === "state") {
      fillSelect(mode, m.modes.map((x: { id: string; name: string }) => ({ value: x.id, name: x.name })), m.modeId);
      if (m.model) {
        modelId = m.model.id;
        fillSelect(model, m.model.options, m.model.value);
      } else fillSelect(model, [], "");
      commands = m.commands;
      cancel.hidden = !m.busy;
      send.disabled = m.busy;
      document.body.dataset.state = m.state;
    }
  });

  function submit() {
    const text = prompt.value.trim();
    if (!text) return;
    vscode.postMessage({ type: "prompt", text });
    prompt.value = "";
    completions.hidden = true;
  }

  function showCompletions() {
    const v = prompt.value;
    const list = completeSlash(commands, v);
    completions.innerHTML = "";
    for (const c of list) {
      const row = document.createElement("div");
      row.className = "completion";
      row.textContent = "/" + c.name + " — " + c.description;
      row.addEventListener("mousedown", (ev) => {
        ev.preventDefault();
        prompt.value = "/" + c.name + " ";
        completions.hidden = true;
        prompt.focus();
      });
      completions.appendChild(row);
    }
    completions.hidden = list.length === 0;
    return list;
  }

  prompt.addEventListener("input", showCompletions);
  prompt.addEventListener("keydown", (e) => {
    if (e.key === "Tab" && prompt.value.startsWith("/")) {
      const list = showCompletions();
      if (list.length > 0) {
        e.preventDefault();
        prompt.value = "/" + list[0].name + " ";
        completions.hidden = true;
      }
    } else if (e.key === "Enter" && !e.shiftKey) {
      e.preventDefault();
      submit();
    }
  });
  send.addEventListener("click", submit);
  cancel.addEventListener("click", () => vscode.postMessage({ type: "cancel" }));
  byId("new").addEventListener("click", () => vscode.postMessage({ type: "newSession" }));
  byId("history").addEventListener("click", () => vscode.postMessage({ type: "history" }));
  mode.addEventListener("change", () => vscode.postMessage({ type: "setMode", modeId: mode.value }));
  model.addEventListener("change", () => vscode.postMessage({ type: "setConfig", configId: modelId, value: model.value }));
  vscode.postMessage({ type: "ready" });
})();
