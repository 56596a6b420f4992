// Helpers shared by the Docker terminal backend conformance scripts
// (docker.mjs, docker_remote.mjs; issue 18): the prompts the fake model
// follows and what a turn's tool call updates say.

export { finalOf, resultOf } from "./lib.mjs";

// prompt is the prompt that makes the model call terminal with a.
export const prompt = (id, a) => `[${id}] ${JSON.stringify(a)}`;

// contentText is the text content of a tool call update.
export const contentText = (u) => (u?.content ?? []).filter((c) => c.type === "content" && c.content?.type === "text").map((c) => c.content.text).join("\n");

// terminalOption is the Terminal session config option.
export const terminalOption = (opts) => (opts ?? []).find((o) => o.id === "terminal_backend");

