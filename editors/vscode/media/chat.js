// The chat webview: renders the items the extension sends (already HTML),
// the mode and model pickers, slash-command completion, send and cancel.
(function () {
  const vscode = acquireVsCodeApi();
  const log = document.getElementById("log");
  const prompt = document.getElementById("prompt");
  const send = document.getElementById("send");
  const cancel = document.getElementById("cancel");
  const mode = document.getElementById("mode");
  const model = document.getElementById("model");
  const completions = document.getElementById("completions");
  let commands = [];
  let modelId = "";

  function setItem(index, html) {
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

  function fillSelect(select, options, value) {
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
      m.items.forEach((html, i) => setItem(i, html));
    } else if (m.type === "item") {
      setItem(m.index, m.html);
    } else if (m.type === "state") {
      fillSelect(mode, m.modes.map((x) => ({ value: x.id, name: x.name })), m.modeId);
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
    const list = v.startsWith("/") && !v.includes(" ") ? commands.filter((c) => c.name.startsWith(v.slice(1))) : [];
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
  document.getElementById("new").addEventListener("click", () => vscode.postMessage({ type: "newSession" }));
  document.getElementById("history").addEventListener("click", () => vscode.postMessage({ type: "history" }));
  mode.addEventListener("change", () => vscode.postMessage({ type: "setMode", modeId: mode.value }));
  model.addEventListener("change", () => vscode.postMessage({ type: "setConfig", configId: modelId, value: model.value }));
  vscode.postMessage({ type: "ready" });
})();
