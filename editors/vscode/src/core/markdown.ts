// Markdown for the chat: GitHub-flavoured (tables, task lists), code blocks
// highlighted by highlight.js with a copy button, inline code kept as
// monospace code, raw HTML shown as text, links limited to safe schemes.
import hljs from "highlight.js/lib/core";
import bash from "highlight.js/lib/languages/bash";
import c from "highlight.js/lib/languages/c";
import cpp from "highlight.js/lib/languages/cpp";
import css from "highlight.js/lib/languages/css";
import diff from "highlight.js/lib/languages/diff";
import dockerfile from "highlight.js/lib/languages/dockerfile";
import go from "highlight.js/lib/languages/go";
import ini from "highlight.js/lib/languages/ini";
import java from "highlight.js/lib/languages/java";
import javascript from "highlight.js/lib/languages/javascript";
import json from "highlight.js/lib/languages/json";
import makefile from "highlight.js/lib/languages/makefile";
import markdownLang from "highlight.js/lib/languages/markdown";
import python from "highlight.js/lib/languages/python";
import rust from "highlight.js/lib/languages/rust";
import shell from "highlight.js/lib/languages/shell";
import sql from "highlight.js/lib/languages/sql";
import typescript from "highlight.js/lib/languages/typescript";
import xml from "highlight.js/lib/languages/xml";
import yaml from "highlight.js/lib/languages/yaml";
import { Marked } from "marked";

const languages = { bash, c, cpp, css, diff, dockerfile, go, ini, java, javascript, json, makefile, markdown: markdownLang, python, rust, shell, sql, typescript, xml, yaml };
for (const [name, lang] of Object.entries(languages)) hljs.registerLanguage(name, lang);
hljs.registerAliases(["sh", "zsh", "console"], { languageName: "bash" });
hljs.registerAliases(["toml"], { languageName: "ini" });
hljs.registerAliases(["html", "svg"], { languageName: "xml" });
hljs.registerAliases(["jsonc"], { languageName: "json" });

export function escapeHtml(s: string): string {
  return s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;").replace(/'/g, "&#39;");
}

/** highlight returns code as highlighted HTML (escaped text when the language is unknown). */
export function highlight(code: string, lang: string): string {
  const name = lang.toLowerCase();
  if (name && hljs.getLanguage(name)) {
    try {
      return hljs.highlight(code, { language: name, ignoreIllegals: true }).value;
    } catch {
      // fall through to plain text
    }
  }
  return escapeHtml(code);
}

/** codeBlock renders a code block with its language and a copy button. */
export function codeBlock(code: string, lang: string, extraClass = ""): string {
  const label = lang ? `<span class="code-lang">${escapeHtml(lang)}</span>` : `<span class="code-lang"></span>`;
  return (
    `<div class="code-block${extraClass ? " " + extraClass : ""}"><div class="code-head">${label}` +
    `<button class="icon-button" data-action="copy" title="Copy" aria-label="Copy"><span class="codicon codicon-copy"></span></button></div>` +
    `<pre><code class="hljs${lang ? " language-" + escapeHtml(lang) : ""}">${highlight(code, lang)}</code></pre></div>`
  );
}

/** safeHref returns href if it is a link the chat may follow (http, https, mailto, file, or a path), else "". */
export function safeHref(href: string): string {
  const h = href.trim();
  if (/^(https?:|mailto:|file:)/i.test(h)) return h;
  if (/^[a-z][a-z0-9+.-]*:/i.test(h)) return ""; // command:, javascript:, vscode: …
  return h;
}

const marked = new Marked({ gfm: true, breaks: false, async: false });
marked.use({
  renderer: {
    // Raw HTML in the model's text is shown as text, never interpreted.
    html({ text }) {
      return escapeHtml(text);
    },
    code({ text, lang }) {
      return codeBlock(text.replace(/\n$/, ""), (lang ?? "").trim().split(/\s+/)[0]);
    },
    codespan({ text }) {
      // marked has already escaped the text of inline code.
      return inlineCode(text);
    },
    link({ href, title, tokens }) {
      const inner = this.parser.parseInline(tokens);
      const safe = safeHref(href);
      if (!safe) return inner;
      return `<a href="${escapeHtml(safe)}"${title ? ` title="${escapeHtml(title)}"` : ""}>${inner}</a>`;
    },
    image({ href, text }) {
      // Remote images are not loaded (the view's security policy); show the link.
      const safe = safeHref(href);
      return safe ? `<a href="${escapeHtml(safe)}">${escapeHtml(text || href)}</a>` : escapeHtml(text);
    },
    table(token) {
      const head = token.header.map((c) => `<th${c.align ? ` class="align-${c.align}"` : ""}>${this.parser.parseInline(c.tokens)}</th>`).join("");
      const rows = token.rows.map((r) => "<tr>" + r.map((c) => `<td${c.align ? ` class="align-${c.align}"` : ""}>${this.parser.parseInline(c.tokens)}</td>`).join("") + "</tr>").join("");
      return `<div class="table-wrap"><table><thead><tr>${head}</tr></thead><tbody>${rows}</tbody></table></div>`;
    },
  },
});

/** renderMarkdown renders the agent's text (raw HTML escaped). */
export function renderMarkdown(text: string): string {
  return marked.parse(text) as string;
}

/**
 * inlineCode is the element of an inline code span whose text is already
 * escaped. A short one without spaces (`--model`, `$HERMES_HOME`) is not
 * broken across lines — a line break after its hyphen would read as two
 * words — longer ones wrap.
 */
export function inlineCode(escaped: string): string {
  return `<code class="${isWord(escaped) ? "inline nowrap" : "inline"}">${escaped}</code>`;
}

function isWord(s: string): boolean {
  return s.length <= 40 && !/\s/.test(s);
}
