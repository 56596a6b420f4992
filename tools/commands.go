package tools

import (
	"context"
	"time"
)

// The seams between the command tools (terminal, process) and the session
// they run in. The agent implements them over ACP; tests use fakes.

// CommandApprover decides whether a command may run: the dangerous-command
// check (hardline floor and patterns), the session's and the user's
// standing approvals, the approval mode, and, when needed, the user's
// answer to a permission request shown on tool call callID.
type CommandApprover interface {
	ApproveCommand(ctx context.Context, callID string, req CommandRequest) CommandDecision
}

// CommandRequest is a command the model wants to run.
type CommandRequest struct {
	Command string
	// Workdir is the resolved directory it runs in (an absolute path
	// inside the workspace).
	Workdir    string
	Background bool
	// Network and Credentials: the model asks to run it with the
	// machine's network and the credential places (the sandbox's grants).
	Network, Credentials bool
	// Confines says which of those grants mean something where the
	// command runs: the sandbox keeps it from the network, and hides the
	// credentials. Both false on a Docker or SSH backend (their own
	// network and files) and with the sandbox off: nothing is asked then.
	Confines Confines
}

// Confines are what the sandbox a command runs in withholds unless granted.
type Confines struct {
	Network, Credentials bool
}

// CommandDecision is the answer of a CommandApprover.
type CommandDecision struct {
	// Allowed: the command may run.
	Allowed bool
	// Message, when the command may not run, is what the model reads
	// (hermes's "BLOCKED: User denied this command…", or the hardline
	// floor's "BLOCKED (hardline): …").
	Message string
	// Hardline: refused by the unconditional floor (nothing can approve it).
	Hardline bool
	// Approval, when a dangerous command was approved, says how: "once",
	// "session", "always", "allowlist" or "approvals off"; "" when the
	// command was not dangerous. It goes in the result's approval field.
	Approval string
	// Description names the danger found ("recursive delete"); "" if none.
	Description string
	// Network and Credentials are the sandbox grants the command runs
	// with on this machine (the Docker and SSH backends have their own
	// network and files); Asked says the user was asked for them, and
	// GrantNote is what the model must know of a grant it wanted and does
	// not have.
	Network, Credentials bool
	Asked                bool
	GrantNote            string
}

// EditorTerminals runs commands in terminals of the editor (ACP
// terminal/*). Deps.Terminals is nil when the client does not advertise
// the terminal capability; the tools then run commands themselves.
type EditorTerminals interface {
	// Run runs cmd in a new editor terminal embedded in tool call callID
	// (terminal/create, then the tool call's content shows the terminal),
	// waits for it to exit, racing cmd.Timeout and ctx, kills it
	// (terminal/kill) when either ends first, reads its output
	// (terminal/output) and always releases it (terminal/release), on
	// every path. The error is for an editor that fails or does not
	// answer; a timeout or cancel is reported in the outcome.
	Run(ctx context.Context, callID string, cmd TerminalCommand) (TerminalOutcome, error)
}

// TerminalCommand is what an editor terminal runs.
type TerminalCommand struct {
	// Argv is the program and its arguments (for example a sandbox helper
	// wrapping "bash -c <command>").
	Argv []string
	// Dir is the absolute working directory.
	Dir string
	// Env is added to the editor's environment.
	Env map[string]string
	// OutputByteLimit is terminal/create's outputByteLimit (0: none).
	OutputByteLimit int
	// Timeout ends the command (0: none).
	Timeout time.Duration
}

// TerminalOutcome is how an editor terminal's command ended.
type TerminalOutcome struct {
	Output    string
	Truncated bool // the editor cut the output at OutputByteLimit
	// ExitCode is nil when the command was killed by a signal.
	ExitCode *int
	Signal   string
	TimedOut bool // killed because Timeout passed
	// Cancelled: killed because ctx ended (the user cancelled the turn).
	Cancelled bool
}

// OutputSink shows a running command's output in the editor as it comes
// (for commands the agent runs itself). It throttles and caps what it
// sends; Output may be called often and with any amount of text.
type OutputSink interface {
	// Output is called with each new piece of output of tool call callID,
	// in order.
	Output(callID string, chunk []byte)
}
