// Questions the agent asks (elicitation/create in form mode, e.g. hermes's
// clarify tool): what the chat shows of the requested schema, the check of
// the user's answer against it, and the state machine of each question.
// A question waits for the user as long as it takes; it ends when the user
// answers or declines it in the chat, when the turn is cancelled (answered
// "cancel", as for permission requests), or when the agent stops waiting
// ($/cancel_request, or the agent exiting).
import type * as acp from "@agentclientprotocol/sdk";

/** One option of a single or multiple choice. */
export interface FieldOption {
  value: string;
  label: string;
  description?: string;
}

interface FieldBase {
  /** The property name the answer carries. */
  name: string;
  /** What the form shows: the property's title, else its name. */
  label: string;
  description?: string;
  required: boolean;
}

export type FieldPlan =
  | (FieldBase & { kind: "text"; minLength?: number; maxLength?: number; pattern?: string; format?: string; default?: string })
  | (FieldBase & { kind: "choice"; options: FieldOption[]; default?: string })
  | (FieldBase & { kind: "number"; integer: boolean; minimum?: number; maximum?: number; default?: number })
  | (FieldBase & { kind: "boolean"; default?: boolean })
  | (FieldBase & { kind: "multi"; options: FieldOption[]; minItems?: number; maxItems?: number; default?: string[] });

/** What the chat shows of a form-mode elicitation. */
export interface FormPlan {
  message: string;
  title?: string;
  description?: string;
  fields: FieldPlan[];
  /** Set when the chat cannot show the request (another mode, a required field of an unknown type): it is declined. */
  unsupported?: string;
}

/** The values the webview collects: strings of text and number inputs, booleans of checkboxes, lists of multiple choices. */
export type FormValues = Record<string, string | boolean | string[]>;

/** An answer: the content to send, or what is wrong with each field. */
export type FormCheck = { ok: true; content: Record<string, acp.ElicitationContentValue> } | { ok: false; errors: Record<string, string> };

function record(v: unknown): Record<string, unknown> | undefined {
  return v && typeof v === "object" && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
}

const str = (v: unknown): string | undefined => (typeof v === "string" && v !== "" ? v : undefined);
const num = (v: unknown): number | undefined => (typeof v === "number" && Number.isFinite(v) ? v : undefined);

function enumOptions(values: unknown, titled: unknown): FieldOption[] | undefined {
  if (Array.isArray(titled)) {
    const out: FieldOption[] = [];
    for (const o of titled) {
      const r = record(o);
      if (r && typeof r.const === "string") out.push({ value: r.const, label: str(r.title) ?? r.const, description: str(r.description) });
    }
    return out;
  }
  if (Array.isArray(values)) return values.filter((v): v is string => typeof v === "string").map((v) => ({ value: v, label: v }));
  return undefined;
}

/** planForm reads an elicitation/create request into the form the chat shows. */
export function planForm(req: acp.CreateElicitationRequest): FormPlan {
  const r = req as Record<string, unknown>;
  const message = typeof r.message === "string" ? r.message : "";
  if (r.mode !== "form") return { message, fields: [], unsupported: `the chat cannot show ${JSON.stringify(r.mode)} requests` };
  const schema = record(r.requestedSchema) ?? {};
  const required = new Set(Array.isArray(schema.required) ? schema.required.filter((x): x is string => typeof x === "string") : []);
  const fields: FieldPlan[] = [];
  let unsupported: string | undefined;
  for (const [name, raw] of Object.entries(record(schema.properties) ?? {})) {
    const p = record(raw) ?? {};
    const base: FieldBase = { name, label: str(p.title) ?? name, description: str(p.description), required: required.has(name) };
    switch (p.type) {
      case "string": {
        const options = enumOptions(p.enum, p.oneOf);
        if (options) fields.push({ ...base, kind: "choice", options, default: str(p.default) });
        else fields.push({ ...base, kind: "text", minLength: num(p.minLength), maxLength: num(p.maxLength), pattern: str(p.pattern), format: str(p.format), default: typeof p.default === "string" ? p.default : undefined });
        break;
      }
      case "number":
      case "integer":
        fields.push({ ...base, kind: "number", integer: p.type === "integer", minimum: num(p.minimum), maximum: num(p.maximum), default: num(p.default) });
        break;
      case "boolean":
        fields.push({ ...base, kind: "boolean", default: typeof p.default === "boolean" ? p.default : undefined });
        break;
      case "array": {
        const items = record(p.items) ?? {};
        const options = enumOptions(items.enum, items.anyOf) ?? [];
        fields.push({ ...base, kind: "multi", options, minItems: num(p.minItems), maxItems: num(p.maxItems), default: Array.isArray(p.default) ? p.default.filter((x): x is string => typeof x === "string") : undefined });
        break;
      }
      default:
        // An optional field the chat cannot show is left out; a required one makes the form unanswerable.
        if (base.required) unsupported ??= `the field ${JSON.stringify(name)} has a type the chat cannot show (${JSON.stringify(p.type)})`;
    }
  }
  return { message, title: str(schema.title), description: str(schema.description), fields, ...(unsupported ? { unsupported } : {}) };
}

const formats: Record<string, RegExp> = {
  email: /^[^\s@]+@[^\s@]+$/,
  uri: /^[a-z][a-z0-9+.-]*:\S+$/i,
  date: /^\d{4}-\d{2}-\d{2}$/,
  "date-time": /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/,
};

/**
 * checkForm checks the user's values against the plan: required fields,
 * lengths, patterns, formats, ranges, integers, and that choices are among
 * the options. Empty optional fields are left out of the content.
 */
export function checkForm(plan: FormPlan, values: FormValues): FormCheck {
  const content: Record<string, acp.ElicitationContentValue> = {};
  const errors: Record<string, string> = {};
  for (const f of plan.fields) {
    const v = values[f.name];
    switch (f.kind) {
      case "text": {
        const s = typeof v === "string" ? v : "";
        if (s === "") {
          if (f.required) errors[f.name] = "Required.";
          break;
        }
        const len = [...s].length;
        if (f.minLength !== undefined && len < f.minLength) errors[f.name] = `At least ${f.minLength} characters.`;
        else if (f.maxLength !== undefined && len > f.maxLength) errors[f.name] = `At most ${f.maxLength} characters.`;
        else if (f.format && formats[f.format] && !formats[f.format].test(s)) errors[f.name] = `Not a valid ${f.format}.`;
        else if (f.pattern && !safeTest(f.pattern, s)) errors[f.name] = `Does not match the pattern ${f.pattern}.`;
        else content[f.name] = s;
        break;
      }
      case "choice": {
        const s = typeof v === "string" ? v : "";
        if (s === "") {
          if (f.required) errors[f.name] = "Choose one.";
        } else if (!f.options.some((o) => o.value === s)) errors[f.name] = "Not one of the choices.";
        else content[f.name] = s;
        break;
      }
      case "number": {
        const s = typeof v === "string" ? v.trim() : "";
        if (s === "") {
          if (f.required) errors[f.name] = "Required.";
          break;
        }
        const n = Number(s);
        if (!Number.isFinite(n)) errors[f.name] = "Not a number.";
        else if (f.integer && !Number.isInteger(n)) errors[f.name] = "A whole number.";
        else if (f.minimum !== undefined && n < f.minimum) errors[f.name] = `At least ${f.minimum}.`;
        else if (f.maximum !== undefined && n > f.maximum) errors[f.name] = `At most ${f.maximum}.`;
        else content[f.name] = n;
        break;
      }
      case "boolean":
        // A checkbox always has a value.
        content[f.name] = v === true;
        break;
      case "multi": {
        const list = Array.isArray(v) ? v : [];
        if (list.length === 0 && !f.required) break; // an optional field left empty: its limits do not apply
        if (list.some((x) => !f.options.some((o) => o.value === x))) errors[f.name] = "Not one of the choices.";
        else if (list.length === 0 && !f.minItems) errors[f.name] = "Choose at least one.";
        else if (f.minItems !== undefined && list.length < f.minItems) errors[f.name] = `Choose at least ${f.minItems}.`;
        else if (f.maxItems !== undefined && list.length > f.maxItems) errors[f.name] = `Choose at most ${f.maxItems}.`;
        else content[f.name] = list;
        break;
      }
    }
  }
  return Object.keys(errors).length > 0 ? { ok: false, errors } : { ok: true, content };
}

function safeTest(pattern: string, s: string): boolean {
  try {
    return new RegExp(pattern, "u").test(s);
  } catch {
    return true; // a pattern this engine cannot read is the agent's to check
  }
}

/** describeContent words an answer for the settled card, e.g. "Which database? PostgreSQL". */
export function describeContent(plan: FormPlan, content: Record<string, acp.ElicitationContentValue>): string {
  const answered = plan.fields.filter((f) => f.name in content);
  const parts: string[] = [];
  for (const f of answered) {
    const v = content[f.name];
    const label = (x: string) => ("options" in f ? (f.options.find((o) => o.value === x)?.label ?? x) : x);
    const shown = Array.isArray(v) ? v.map(label).join(", ") : typeof v === "boolean" ? (v ? "yes" : "no") : label(String(v));
    parts.push(answered.length === 1 || isQuestion(plan, f) ? shown : `${f.label}: ${shown}`);
  }
  return parts.join(" · ") || "(no answer)";
}

/** isQuestion: the field's title is the question itself (hermes's clarify titles its answer so); the form does not repeat it. */
export function isQuestion(plan: FormPlan, f: FieldPlan): boolean {
  return f.label.trim() !== "" && f.label.trim() === plan.message.trim();
}

export type FormState = "waiting" | "accepted" | "declined" | "cancelled";

/** One question and what became of it. */
export interface FormRequest {
  readonly id: string;
  /** The session it belongs to; undefined for a request-scoped question (shown in the current chat). */
  readonly sessionId: string | undefined;
  readonly toolCallId: string | undefined;
  readonly plan: FormPlan;
  state: FormState;
  /** What the user answered, once accepted. */
  content?: Record<string, acp.ElicitationContentValue>;
  /** Why it was cancelled. */
  reason?: string;
  /** What is wrong with the last values submitted. */
  errors?: Record<string, string>;
}

type Listener = (f: FormRequest) => void;

/** FormBroker holds the questions of one window, waiting and settled. */
export class FormBroker {
  private readonly all = new Map<string, FormRequest>();
  private readonly resolvers = new Map<string, (r: acp.CreateElicitationResponse) => void>();
  private readonly listeners = new Set<Listener>();
  private seq = 0;

  /** onChange calls fn for every new question and every change; the result unsubscribes. */
  onChange(fn: Listener): () => void {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }

  private emit(f: FormRequest): void {
    for (const l of [...this.listeners]) l(f);
  }

  /**
   * request registers a question and resolves with the response once it is
   * answered, declined or cancelled. A request the chat cannot show is
   * declined at once. signal is the request's own cancellation.
   */
  request(req: acp.CreateElicitationRequest, signal?: AbortSignal): Promise<acp.CreateElicitationResponse> {
    const r = req as Record<string, unknown>;
    const plan = planForm(req);
    if (plan.unsupported) return Promise.resolve({ action: "decline" });
    const f: FormRequest = {
      id: `form_${++this.seq}`,
      sessionId: typeof r.sessionId === "string" ? r.sessionId : undefined,
      toolCallId: typeof r.toolCallId === "string" ? r.toolCallId : undefined,
      plan,
      state: "waiting",
    };
    this.all.set(f.id, f);
    const done = new Promise<acp.CreateElicitationResponse>((resolve) => this.resolvers.set(f.id, resolve));
    if (signal?.aborted) this.cancel(f.id, "The agent stopped waiting for an answer.");
    else {
      signal?.addEventListener("abort", () => this.cancel(f.id, "The agent stopped waiting for an answer."), { once: true });
      this.emit(f);
    }
    return done;
  }

  get(id: string): FormRequest | undefined {
    return this.all.get(id);
  }

  /** waiting lists the questions that wait for the user, oldest first (of one session, if given; request-scoped ones count for every session). */
  waiting(sessionId?: string): FormRequest[] {
    return [...this.all.values()].filter((f) => f.state === "waiting" && (sessionId === undefined || f.sessionId === undefined || f.sessionId === sessionId));
  }

  /** latestFor returns the newest question of a tool call. */
  latestFor(sessionId: string, toolCallId: string): FormRequest | undefined {
    let found: FormRequest | undefined;
    for (const f of this.all.values()) if (f.sessionId === sessionId && f.toolCallId === toolCallId) found = f;
    return found;
  }

  /**
   * submit answers a waiting question with the user's values. It returns
   * false when the question no longer waits; when the values do not fit the
   * schema the question keeps waiting, with the errors to show.
   */
  submit(id: string, values: FormValues): boolean {
    const f = this.all.get(id);
    if (!f || f.state !== "waiting") return false;
    const c = checkForm(f.plan, values);
    if (!c.ok) {
      f.errors = c.errors;
      this.emit(f);
      return false;
    }
    f.state = "accepted";
    f.content = c.content;
    f.errors = undefined;
    this.settle(f, { action: "accept", content: c.content });
    return true;
  }

  /** decline answers a waiting question "decline": the user chose not to answer. */
  decline(id: string): boolean {
    const f = this.all.get(id);
    if (!f || f.state !== "waiting") return false;
    f.state = "declined";
    this.settle(f, { action: "decline" });
    return true;
  }

  /** cancel ends a waiting question with "cancel" (the turn was cancelled, the agent went away). */
  cancel(id: string, reason: string): boolean {
    const f = this.all.get(id);
    if (!f || f.state !== "waiting") return false;
    f.state = "cancelled";
    f.reason = reason;
    this.settle(f, { action: "cancel" });
    return true;
  }

  /** cancelSession cancels the waiting questions of a session (and request-scoped ones). */
  cancelSession(sessionId: string, reason = "The turn was cancelled."): void {
    for (const f of this.waiting(sessionId)) this.cancel(f.id, reason);
  }

  /** cancelAll cancels every waiting question (the agent exited or the window closes). */
  cancelAll(reason: string): void {
    for (const f of this.waiting()) this.cancel(f.id, reason);
  }

  /** forget drops the settled questions of a session. */
  forget(sessionId: string): void {
    for (const [id, f] of this.all) if (f.sessionId === sessionId && f.state !== "waiting") this.all.delete(id);
  }

  private settle(f: FormRequest, r: acp.CreateElicitationResponse): void {
    const resolve = this.resolvers.get(f.id);
    this.resolvers.delete(f.id);
    resolve?.(r);
    this.emit(f);
  }
}
