// Package skills reads and writes skills in hermes-agent's format: a folder
// holding SKILL.md (YAML front matter with name and description, then
// Markdown instructions) and optional references/, templates/, scripts/ and
// assets/ folders. Skills live in skills roots — the user's
// ($HERMES_HOME/skills) and the project's (<workspace>/.hermes/skills) —
// and any configured external folders — either directly
// (<root>/<name>/SKILL.md) or in a category folder
// (<root>/<category>/<name>/SKILL.md). A project skill wins over a user
// skill of the same name.
//
// Every read and write goes through an [os.Root] opened on the skills root,
// so no name, path or symbolic link can reach outside it; writes are atomic
// (a temporary file in the same folder, synced, renamed over the target).
// The package knows nothing of tools or of the wire; the skill tools
// (package tools) and the system prompt's skill index use it.
package skills
