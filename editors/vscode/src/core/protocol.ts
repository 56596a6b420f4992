// The messages between the extension host and the chat webview, in both
// directions. The host validates every message the webview posts
// (parseWebviewMessage) before acting on it; the webview imports only the
// types (media/chat.js carries no validator).
import * as z from "zod/v4";

/** A file or image the user attached to a prompt. */
const attachment = z.discriminatedUnion("kind", [
  z.object({ kind: z.literal("file"), uri: z.string().min(1), name: z.string().min(1) }),
  z.object({
    kind: z.literal("image"),
    name: z.string().min(1),
    mimeType: z.string().regex(/^image\/[\w.+-]+$/),
    /** base64, without a data: prefix */
    data: z.string().min(1),
  }),
]);
export type Attachment = z.infer<typeof attachment>;

/** The buttons of the chat's empty state and of notices. */
export const actionIds = ["openSettings", "configureModel", "retry", "showLog", "installHelp", "newSession", "history"] as const;
export type ActionId = (typeof actionIds)[number];

const webviewMessage = z.discriminatedUnion("type", [
  z.object({ type: z.literal("ready") }),
  z.object({ type: z.literal("prompt"), text: z.string(), attachments: z.array(attachment).max(50), includeSelection: z.boolean() }),
  z.object({ type: z.literal("cancel") }),
  z.object({ type: z.literal("newSession") }),
  z.object({ type: z.literal("history") }),
  z.object({ type: z.literal("setOption"), configId: z.string().min(1), value: z.union([z.string(), z.boolean()]) }),
  z.object({ type: z.literal("answer"), approvalId: z.string().min(1), optionId: z.string().min(1) }),
  z.object({ type: z.literal("findFiles"), query: z.string().max(500) }),
  z.object({ type: z.literal("pickFiles") }),
  z.object({ type: z.literal("dropped"), uris: z.array(z.string().min(1)).max(50) }),
  z.object({ type: z.literal("action"), action: z.enum(actionIds) }),
  // The diff of a tool call's index-th diff, or of a waiting edit approval.
  z.object({ type: z.literal("openDiff"), toolCallId: z.string().min(1).optional(), index: z.number().int().min(0).optional(), approvalId: z.string().min(1).optional() }),
  z.object({ type: z.literal("openLink"), href: z.string().min(1).max(4000) }),
  z.object({ type: z.literal("copy"), text: z.string().max(10_000_000) }),
  z.object({ type: z.literal("showTerminal"), terminalId: z.string().min(1) }),
  // The user's answer to a question of the agent (elicitation/create): the values of its fields, checked against its schema by the host.
  z.object({ type: z.literal("formAnswer"), formId: z.string().min(1), values: z.record(z.string(), z.union([z.string().max(100_000), z.boolean(), z.array(z.string().max(10_000)).max(200)])) }),
  z.object({ type: z.literal("formDecline"), formId: z.string().min(1) }),
  z.object({ type: z.literal("dismissBanner"), key: z.string().min(1) }),
  // session/fork at an agent message (its messageId).
  z.object({ type: z.literal("fork"), messageId: z.string().min(1) }),
  // Restore the workspace to before a turn (1-based, the user's n-th message): _hermes/rewind.
  z.object({ type: z.literal("restore"), turn: z.number().int().min(1) }),
]);

/** A message the webview posts to the host. */
export type WebviewMessage = z.infer<typeof webviewMessage>;

/**
 * parseWebviewMessage checks a message from the webview: it returns the
 * message, or an Error that says what is wrong with it.
 */
export function parseWebviewMessage(raw: unknown): WebviewMessage | Error {
  const r = webviewMessage.safeParse(raw);
  if (r.success) return r.data;
  const issue = r.error.issues[0];
  const where = issue?.path.length ? issue.path.join(".") + ": " : "";
  return new Error(`bad message from the chat view: ${where}${issue?.message ?? "invalid"}`);
}

/** One transcript item as the webview shows it: key stays the same while the item changes. */
export interface RenderedItem {
  key: string;
  html: string;
}

/** A picker of the composer: a session config option. */
export type Picker =
  | { kind: "select"; id: string; name: string; category: string; value: string; options: { value: string; name: string; description?: string; group?: string }[] }
  | { kind: "boolean"; id: string; name: string; category: string; value: boolean };

/** What the chat shows when it has no messages yet. */
export interface EmptyState {
  kind: "welcome" | "missing-binary" | "too-old" | "failed" | "no-model" | "starting";
  title: string;
  detail: string;
  actions: { id: ActionId; label: string; primary?: boolean }[];
}

/** The state of the view besides the transcript. */
export interface ViewState {
  phase: "idle" | "starting" | "ready" | "working" | "restarting" | "stopped";
  busy: boolean;
  empty: EmptyState | null;
  pickers: Picker[];
  usage: { used: number; size: number; cost?: { amount: number; currency: string } } | null;
  commands: { name: string; description: string; hint?: string }[];
  /** The agent takes images in prompts (promptCapabilities.image). */
  images: boolean;
  /** How many permission requests and questions wait for the user. */
  waiting: number;
  /** The session's notices, as banners above the conversation. */
  banners: RenderedItem[];
  /** The session is in plan mode: the agent only reads until the user approves a plan. */
  planMode: boolean;
}

/** A workspace file offered by @ completion. */
export interface FileMatch {
  uri: string;
  name: string;
  /** The path relative to its workspace folder. */
  relative: string;
}

/** The active editor's selection, offered as context. */
export interface SelectionInfo {
  uri: string;
  name: string;
  startLine: number; // 1-based
  endLine: number;
  text: string;
}

/** A message the host posts to the webview. */
export type HostMessage =
  | { type: "reset"; items: RenderedItem[] }
  | { type: "item"; index: number; item: RenderedItem }
  | { type: "state"; state: ViewState }
  | { type: "fileMatches"; query: string; files: FileMatch[] }
  | { type: "attach"; attachments: Attachment[] }
  | { type: "selection"; selection: SelectionInfo | null }
  | { type: "focus"; toolCallKey?: string };
