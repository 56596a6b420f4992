// The inline diff of an edit card: unified hunks (jsdiff's structuredPatch)
// rendered as rows with old and new line numbers.
import { structuredPatch } from "diff";
import { escapeHtml } from "./markdown";

/** The most diff rows a card shows; the diff editor shows the rest. */
export const maxDiffRows = 300;

export interface DiffStats {
  added: number;
  removed: number;
}

/** diffStats counts the added and removed lines of an edit. */
export function diffStats(oldText: string | null, newText: string): DiffStats {
  const p = structuredPatch("a", "b", oldText ?? "", newText, undefined, undefined, { context: 0 });
  let added = 0;
  let removed = 0;
  for (const h of p.hunks) {
    for (const l of h.lines) {
      if (l.startsWith("+")) added++;
      else if (l.startsWith("-")) removed++;
    }
  }
  return { added, removed };
}

/** renderDiff renders the change from oldText (null: a new file) to newText with 3 lines of context. */
export function renderDiff(oldText: string | null, newText: string): string {
  const p = structuredPatch("a", "b", oldText ?? "", newText, undefined, undefined, { context: 3 });
  if (p.hunks.length === 0) return `<div class="diff-empty">No change.</div>`;
  const rows: string[] = [];
  let shown = 0;
  let total = 0;
  for (const h of p.hunks) total += h.lines.length + 1;
  outer: for (const h of p.hunks) {
    rows.push(`<tr class="diff-hunk"><td class="ln"></td><td class="ln"></td><td class="diff-text">@@ −${h.oldStart},${h.oldLines} +${h.newStart},${h.newLines} @@</td></tr>`);
    shown++;
    let o = h.oldStart;
    let n = h.newStart;
    for (const line of h.lines) {
      if (shown >= maxDiffRows) break outer;
      const mark = line[0];
      const text = escapeHtml(line.slice(1)) || "&nbsp;";
      if (mark === "+") rows.push(`<tr class="diff-add"><td class="ln"></td><td class="ln">${n++}</td><td class="diff-text">${text}</td></tr>`);
      else if (mark === "-") rows.push(`<tr class="diff-del"><td class="ln">${o++}</td><td class="ln"></td><td class="diff-text">${text}</td></tr>`);
      else if (mark === "\\") continue; // "\ No newline at end of file"
      else rows.push(`<tr class="diff-ctx"><td class="ln">${o++}</td><td class="ln">${n++}</td><td class="diff-text">${text}</td></tr>`);
      shown++;
    }
  }
  const more = total > shown ? `<div class="diff-more">… ${total - shown} more lines: open the diff to see them all.</div>` : "";
  return `<div class="diff-view"><table class="diff">${rows.join("")}</table></div>${more}`;
}
