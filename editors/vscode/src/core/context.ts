// Context in: the content blocks of a prompt from what the user typed and
// attached (files, the active selection, images), as the agent can take
// them (promptCapabilities).
import type * as acp from "@agentclientprotocol/sdk";
import type { AttachmentChip } from "./chat";
import type { Attachment, SelectionInfo } from "./protocol";

export interface PromptCapabilities {
  image?: boolean;
  embeddedContext?: boolean;
}

/** The blocks of one prompt, and what could not be sent with the reason. */
export interface BuiltPrompt {
  blocks: acp.ContentBlock[];
  chips: AttachmentChip[];
  skipped: string[];
}

const langByExt: Record<string, string> = {
  ts: "typescript", tsx: "typescript", js: "javascript", jsx: "javascript", mjs: "javascript", go: "go", py: "python", rs: "rust",
  json: "json", yaml: "yaml", yml: "yaml", md: "markdown", sh: "bash", c: "c", h: "c", cpp: "cpp", java: "java", css: "css", html: "html",
};

/** selectionUri names the selected lines: file:///a/b.ts#L3-L7 (as GitHub does; the agent shows the URI to the model). */
export function selectionUri(s: SelectionInfo): string {
  return `${s.uri.split("#")[0]}#L${s.startLine}${s.endLine !== s.startLine ? `-L${s.endLine}` : ""}`;
}

/**
 * buildPrompt turns the composer's content into ACP content blocks: the
 * text; each attached file as a resource_link (the agent reads it through
 * the editor, unsaved changes included); the selection as an embedded
 * resource of its lines when the agent takes embedded context, else as
 * text; images as image blocks only when the agent takes images.
 */
export function buildPrompt(text: string, attachments: Attachment[], selection: SelectionInfo | null, caps: PromptCapabilities): BuiltPrompt {
  const blocks: acp.ContentBlock[] = [];
  const chips: AttachmentChip[] = [];
  const skipped: string[] = [];
  if (text.trim() !== "") blocks.push({ type: "text", text });
  const seen = new Set<string>();
  for (const a of attachments) {
    if (a.kind === "file") {
      if (seen.has(a.uri)) continue;
      seen.add(a.uri);
      blocks.push({ type: "resource_link", uri: a.uri, name: a.name });
      chips.push({ kind: "file", name: a.name });
    } else if (caps.image) {
      blocks.push({ type: "image", data: a.data, mimeType: a.mimeType });
      chips.push({ kind: "image", name: a.name });
    } else {
      skipped.push(`${a.name}: hermes-acp's model does not take images, so it was not sent.`);
    }
  }
  if (selection && selection.text !== "") {
    const uri = selectionUri(selection);
    const lines = selection.startLine === selection.endLine ? `line ${selection.startLine}` : `lines ${selection.startLine}–${selection.endLine}`;
    if (caps.embeddedContext) {
      const ext = selection.name.split(".").pop()?.toLowerCase() ?? "";
      const mimeType = langByExt[ext] ? `text/x-${langByExt[ext]}` : "text/plain";
      blocks.push({ type: "resource", resource: { uri, text: selection.text, mimeType } });
    } else {
      blocks.push({ type: "text", text: `Selected ${lines} of ${selection.uri}:\n\n\`\`\`\n${selection.text}\n\`\`\`` });
    }
    chips.push({ kind: "selection", name: selection.name, detail: lines });
  }
  return { blocks, chips, skipped };
}
