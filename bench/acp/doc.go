// Command acp measures how fast an ACP agent starts, opens a session and
// runs a prompt turn, and how much memory it holds, and compares two agents.
//
// Usage:
//
//	go run ./bench/acp [flags] -- AGENT [ARGS...]
//	go run ./bench/acp [flags] --other 'OTHER [ARGS...]' -- AGENT [ARGS...]
//	go run ./bench/acp [flags] --compare -- AGENT [ARGS...] -- OTHER [ARGS...]
//
// Flags without a prefix configure the measured agent (AGENT, "ours");
// flags starting with --other- configure the comparison agent (OTHER,
// "theirs"). --other takes the comparison command as one shell-quoted
// string; --compare instead splits the arguments after the first "--" at
// the next "--".
//
// Each run starts the agent with a fresh temporary $HERMES_HOME and a fresh
// temporary workspace as its working directory, and measures:
//
//   - initialize: process start (just before fork/exec) to the initialize
//     reply;
//   - authenticate (with --auth ID): request to reply;
//   - session/new: request to reply;
//   - VmRSS and VmHWM of the agent process right after the session/new
//     reply, and the VmRSS summed over the agent's process tree (agents
//     started through node wrappers live in child processes);
//   - two session/prompt turns against an in-process fake OpenAI-compatible
//     model server (package model/modeltest, replying at once with a short
//     text): request to reply, and the agent overhead, which is that time
//     minus the time the fake server spent serving requests inside it. The
//     first turn includes lazy initialisation; the second is the steady
//     state;
//   - exit: closing the agent's stdin to the process exiting (within
//     --exit-timeout; the agent's process group is killed after every run).
//
// The agent sees OPENAI_BASE_URL (the fake server), OPENAI_API_KEY and
// HERMES_MODEL. In --env values and in the command's arguments, {home},
// {workspace} and {base_url} are replaced by the run's home folder,
// workspace folder and the fake server's base URL, so other agents can be
// pointed at them too (for example --other-env CODEX_HOME={home}).
//
// The benchmark client advertises no fs or terminal capability; it answers
// session/request_permission with "cancelled" and any other agent request
// with a method-not-found error.
//
// The terminal subcommand (go run ./bench/acp terminal -h; driven by
// bench/terminal/run.sh) measures instead one prompt turn in which the agent
// runs a shell command itself and sends its output as session/update
// notifications: wall time, the notifications and their JSON bytes, and the
// RSS of the agent's process tree sampled during the turn. hermes-acp gets a
// fake Chat Completions model that calls its "terminal" tool; codex-acp a
// loopback fake of OpenAI's Responses API (responses.go) configured through
// a per-run CODEX_HOME/config.toml.
//
// One warm-up run per agent (--warmup) is not counted; a step that fails in
// the warm-up is skipped in the measured runs and reported with its error.
// With two agents the runs alternate. The report is a Markdown table of the
// median, p90 and minimum of each metric (and ours/theirs for the medians)
// on stdout, or JSON with --json; progress goes to stderr.
package main
