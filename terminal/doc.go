// Package terminal runs shell commands for the agent's terminal and process
// tools: each command in its own process group (a timeout or a cancel kills
// everything it started), optionally on a pseudo-terminal, with its output
// captured in bounded memory (a head and a tail, whatever the command
// prints), cleaned for the model (ANSI sequences stripped, secrets
// redacted), and background commands kept in a per-session [Table].
//
// Commands run in an [Environment]: [Local] runs them on this machine,
// optionally under a Landlock sandbox applied by a re-exec helper
// ([Sandbox], [SandboxMain]) so they can write only inside the workspace
// and the toolchains' caches. Other environments (docker, ssh) implement
// the same interface.
package terminal
