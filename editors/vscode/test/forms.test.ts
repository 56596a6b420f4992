// Questions of the agent (core/forms.ts): what the chat shows of a form
// elicitation, the check of the user's answer, and the state machine that
// answers the agent exactly once — accepted, declined or cancelled.
import assert from "node:assert/strict";
import { test } from "node:test";
import type * as acp from "@agentclientprotocol/sdk";
import { checkForm, describeContent, FormBroker, planForm, type FormRequest } from "../src/core/forms";
import { renderForm } from "../src/core/render";

/** clarify's question as a form: a required choice of up to four answers and an optional free text ("other"). */
const clarify: acp.CreateElicitationRequest = {
  sessionId: "s1",
  toolCallId: "call_1",
  mode: "form",
  message: "Which database should the service use?",
  requestedSchema: {
    type: "object",
    properties: {
      choice: { type: "string", title: "Answer", oneOf: [{ const: "pg", title: "PostgreSQL", description: "the default" }, { const: "sqlite", title: "SQLite" }] },
      other: { type: "string", title: "Other", description: "your own answer", maxLength: 200 },
    },
    required: ["choice"],
  },
};

test("a form request becomes fields the chat can show, with their labels, options and limits", () => {
  const p = planForm(clarify);
  assert.equal(p.message, "Which database should the service use?");
  assert.equal(p.unsupported, undefined);
  assert.deepEqual(p.fields, [
    { name: "choice", label: "Answer", description: undefined, required: true, kind: "choice", options: [{ value: "pg", label: "PostgreSQL", description: "the default" }, { value: "sqlite", label: "SQLite", description: undefined }], default: undefined },
    { name: "other", label: "Other", description: "your own answer", required: false, kind: "text", minLength: undefined, maxLength: 200, pattern: undefined, format: undefined, default: undefined },
  ]);
  const all = planForm({
    sessionId: "s1",
    mode: "form",
    message: "Settings",
    requestedSchema: {
      properties: {
        n: { type: "integer", minimum: 1, maximum: 9, default: 3 },
        ok: { type: "boolean", default: true },
        tags: { type: "array", items: { type: "string", enum: ["a", "b"] }, maxItems: 1 },
        plain: { type: "string", enum: ["x", "y"] },
        odd: { type: "_custom" },
      },
    },
  });
  assert.deepEqual(
    all.fields.map((f) => [f.name, f.kind]),
    [
      ["n", "number"],
      ["ok", "boolean"],
      ["tags", "multi"],
      ["plain", "choice"],
    ],
    "an optional field of an unknown type is left out",
  );
  assert.equal(all.unsupported, undefined);
});

test("a request the chat cannot show is marked so: another mode, or a required field of an unknown type", () => {
  assert.match(planForm({ sessionId: "s", mode: "url", message: "Log in", elicitationId: "e", url: "https://x" }).unsupported ?? "", /url/);
  assert.match(planForm({ sessionId: "s", mode: "form", message: "m", requestedSchema: { properties: { f: { type: "_file" } }, required: ["f"] } }).unsupported ?? "", /"f"/);
});

test("answers are checked against the schema; each wrong field says what is wrong", () => {
  const p = planForm(clarify);
  assert.deepEqual(checkForm(p, { choice: "pg", other: "" }), { ok: true, content: { choice: "pg" } }, "an empty optional field is left out");
  assert.deepEqual(checkForm(p, { choice: "", other: "" }), { ok: false, errors: { choice: "Choose one." } });
  assert.deepEqual(checkForm(p, { choice: "mysql" }), { ok: false, errors: { choice: "Not one of the choices." } }, "a value not offered is refused");
  assert.deepEqual(checkForm(p, { choice: "sqlite", other: "x".repeat(201) }), { ok: false, errors: { other: "At most 200 characters." } });
  const q = planForm({
    sessionId: "s",
    mode: "form",
    message: "m",
    requestedSchema: {
      properties: {
        n: { type: "integer", minimum: 1, maximum: 9 },
        r: { type: "number" },
        mail: { type: "string", format: "email" },
        code: { type: "string", pattern: "^[A-Z]{3}$" },
        ok: { type: "boolean" },
        tags: { type: "array", items: { type: "string", enum: ["a", "b", "c"] }, minItems: 1, maxItems: 2 },
      },
      required: ["n"],
    },
  });
  assert.deepEqual(checkForm(q, { n: "4", r: "2.5", mail: "a@b.org", code: "ABC", ok: true, tags: ["a"] }), { ok: true, content: { n: 4, r: 2.5, mail: "a@b.org", code: "ABC", ok: true, tags: ["a"] } });
  assert.deepEqual(checkForm(q, { n: "4.5", r: "x", mail: "nope", code: "abc", ok: false, tags: ["a", "b", "c"] }), {
    ok: false,
    errors: { n: "A whole number.", r: "Not a number.", mail: "Not a valid email.", code: "Does not match the pattern ^[A-Z]{3}$.", tags: "Choose at most 2." },
  });
  assert.deepEqual(checkForm(q, { n: "", tags: ["z"] }), { ok: false, errors: { n: "Required.", tags: "Not one of the choices." } });
  assert.deepEqual(checkForm(q, { n: "10" }), { ok: false, errors: { n: "At most 9." } });
  assert.equal(describeContent(planForm(clarify), { choice: "pg" }), "PostgreSQL", "the answer is worded with the option's title");
  assert.equal(describeContent(planForm(clarify), { choice: "pg", other: "with WAL" }), "Answer: PostgreSQL · Other: with WAL", "with several answers each says what it answers");
});

test("the broker answers the agent once: accepted with the checked content after a wrong try", async () => {
  const b = new FormBroker();
  const seen: string[] = [];
  b.onChange((f) => seen.push(`${f.id}:${f.state}${f.errors ? ":errors" : ""}`));
  const answer = b.request(clarify);
  const [f] = b.waiting("s1");
  assert.equal(f.toolCallId, "call_1");
  assert.equal(b.latestFor("s1", "call_1"), f);
  assert.equal(b.submit(f.id, { choice: "" }), false, "a wrong answer is not sent");
  assert.deepEqual(f.errors, { choice: "Choose one." });
  assert.equal(f.state, "waiting");
  assert.equal(b.submit(f.id, { choice: "sqlite", other: "with WAL" }), true);
  assert.deepEqual(await answer, { action: "accept", content: { choice: "sqlite", other: "with WAL" } });
  assert.equal(b.submit(f.id, { choice: "pg" }), false, "a second answer is refused");
  assert.equal(b.decline(f.id), false);
  assert.deepEqual(seen, ["form_1:waiting", "form_1:waiting:errors", "form_1:accepted"]);
  assert.equal(b.waiting().length, 0);
});

test("declined, cancelled with the turn, withdrawn by the agent, or not showable: each gets its answer", async () => {
  const b = new FormBroker();
  const declined = b.request(clarify);
  b.decline(b.waiting()[0].id);
  assert.deepEqual(await declined, { action: "decline" });

  const other: acp.CreateElicitationRequest = { ...clarify, sessionId: "s2" };
  const turn = b.request(clarify);
  const elsewhere = b.request(other);
  b.cancelSession("s1");
  assert.deepEqual(await turn, { action: "cancel" });
  assert.equal(b.waiting("s2").length, 1, "another session's question still waits");
  b.cancelAll("VS Code is closing.");
  assert.deepEqual(await elsewhere, { action: "cancel" });

  const ac = new AbortController();
  const withdrawn = b.request(clarify, ac.signal);
  ac.abort();
  assert.deepEqual(await withdrawn, { action: "cancel" });
  assert.equal(b.waiting().length, 0);

  assert.deepEqual(await b.request({ sessionId: "s1", mode: "url", message: "m", elicitationId: "e", url: "https://example.org" }), { action: "decline" }, "a URL request is declined: the chat does not advertise it");

  const requestScoped = b.request({ requestId: 7, mode: "form", message: "Name?", requestedSchema: { properties: { name: { type: "string" } } } });
  assert.equal(b.waiting("any-session").length, 1, "a request-scoped question is shown in whichever chat is open");
  b.cancelSession("any-session");
  assert.deepEqual(await requestScoped, { action: "cancel" });
});

test("a waiting question renders as a form with its options, Answer and Decline; a settled one says what was answered", () => {
  const b = new FormBroker();
  void b.request(clarify);
  const f: FormRequest = b.waiting()[0];
  const html = renderForm(f);
  assert.match(html, /<form class="elicitation waiting" data-form="form_1"/);
  assert.match(html, /Which database should the service use\?/);
  assert.match(html, /<input type="radio" name="choice" value="pg"><span>PostgreSQL<\/span><span class="option-detail">the default<\/span>/);
  assert.match(html, /<input type="text" name="other" aria-label="Other" maxlength="200">/);
  assert.match(html, /<button type="submit" class="primary" data-form="form_1">Answer<\/button>/);
  assert.match(html, /data-action="declineForm" data-form="form_1">Decline<\/button>/);
  b.submit(f.id, { choice: "" });
  assert.match(renderForm(f), /<div class="field invalid" data-field="choice" data-kind="choice">.*Choose one\./s);
  b.submit(f.id, { choice: "pg" });
  assert.match(renderForm(f), /class="elicitation settled accepted".*Which database should the service use\?.*<span class="elicitation-a">PostgreSQL<\/span>/s);
  void b.request({ ...clarify, message: "<b>x</b>" });
  assert.doesNotMatch(renderForm(b.waiting()[0]), /<b>x<\/b>/, "the agent's message is escaped");
});

test("hermes's clarify form: the question once, its choices with the recommended one selected, Other with its free text", () => {
  const q = "Which database should the service use?";
  const b = new FormBroker();
  void b.request({
    sessionId: "s1",
    toolCallId: "call_9",
    mode: "form",
    message: q,
    requestedSchema: {
      type: "object",
      properties: {
        answer: { type: "string", title: q, enum: ["PostgreSQL (Recommended)", "SQLite", "Other (type your answer)"], default: "PostgreSQL (Recommended)" },
        other_answer: { type: "string", title: "Other answer", description: "Fill this only if you selected Other." },
      },
      required: ["answer"],
    },
  });
  const f = b.waiting()[0];
  const html = renderForm(f);
  assert.equal(html.split(q).length - 1, 1, `the question is shown once: ${html}`);
  assert.match(html, /<input type="radio" name="answer" value="PostgreSQL \(Recommended\)" checked>/);
  assert.match(html, /<input type="radio" name="answer" value="Other \(type your answer\)">/);
  assert.match(html, /<span class="field-label">Other answer<\/span><span class="field-detail">Fill this only if you selected Other\.<\/span>/);
  b.submit(f.id, { answer: "Other (type your answer)", other_answer: "DuckDB" });
  assert.deepEqual(f.content, { answer: "Other (type your answer)", other_answer: "DuckDB" });
  assert.equal(describeContent(f.plan, f.content!), "Other (type your answer) · Other answer: DuckDB");
});
