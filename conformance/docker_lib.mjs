// Helpers shared by the Docker terminal backend conformance scripts
// (docker.mjs, docker_remote.mjs; issue 18): the prompts the fake model
// follows and what a turn's tool call updates say.

import { agentText } from "./lib.mjs";

// prompt is the prompt that makes the model call terminal with a.
export const prompt = (id, a) => `[${id}] ${JSON.stringify(a)}`;

const callUpdates = (turn, id) => turn.updates.filter((u) => (u.sessionUpdate === "tool_call" || u.sessionUpdate === "tool_call_update") && u.toolCallId === id);

// finalOf is the tool call's last update (completed or failed).
export const finalOf = (turn, id) => callUpdates(turn, id).filter((u) => u.status === "completed" || u.status === "failed").at(-1);

// contentText is the text content of a tool call update.
export const contentText = (u) => (u?.content ?? []).filter((c) => c.type === "content" && c.content?.type === "text").map((c) => c.content.text).join("\n");

// terminalOption is the Terminal session config option.
export const terminalOption = (opts) => (opts ?? []).find((o) => o.id === "terminal_backend");

// resultOf is what the tool told the model in turn id (the fake model
// echoes it: "ID done; the tool said: …").
export function resultOf(turn, id) {
  const text = agentText(turn.updates);
  const prefix = `${id} done; the tool said: `;
  const i = text.indexOf(prefix);
  if (i < 0) return undefined;
  try {
    return JSON.parse(text.slice(i + prefix.length));
  } catch {
    return text.slice(i + prefix.length);
  }
}
