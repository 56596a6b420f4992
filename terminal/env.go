package terminal

import (
	"context"
	"io"
)

// Environment starts commands. Implementations: [Local] (this machine, in
// the session's sandbox), terminal/docker and terminal/ssh. An Environment
// is safe for concurrent use.
type Environment interface {
	// Start starts s and returns its handle. ctx bounds the start only:
	// the command runs until it exits or the handle kills it. The caller
	// must read the handle's Output to its end (or Kill it) and call Wait.
	Start(ctx context.Context, s Spec) (Process, error)
}

// Spec is a command to start.
type Spec struct {
	// Command is a shell command line, run by the environment's shell.
	Command string
	// Dir is the absolute working directory.
	Dir string
	// Env is added to the environment's variables (KEY → value).
	Env map[string]string
	// PTY runs the command on a pseudo-terminal (interactive programs);
	// its output is then one stream and its input the terminal.
	PTY bool
	// Stdin keeps the command's standard input open for Process.Write
	// and Process.CloseStdin; otherwise it reads /dev/null (or, with PTY,
	// the terminal, which nobody writes to).
	Stdin bool
	// Network and Credentials are the user's grants for this command on
	// this machine (Local): the machine's network, and the credential
	// places (~/.ssh, ~/.aws, …). The Docker and SSH environments ignore
	// them: their network and files are their own.
	Network, Credentials bool
}

// Process is a started command. Its methods are safe for concurrent use.
type Process interface {
	// PID is the process id of the command's shell (its process group
	// id for a local command); 0 when the environment has none.
	PID() int
	// Output is the command's standard output and standard error merged,
	// in order; it ends (io.EOF) when the command and everything it
	// started have closed them. Read it from one goroutine.
	Output() io.Reader
	// Write writes to the command's standard input (Spec.Stdin or PTY).
	Write(p []byte) (int, error)
	// CloseStdin closes the command's standard input (EOF); with a PTY
	// it sends the terminal's end-of-file character.
	CloseStdin() error
	// Kill ends the whole command: everything it started included. It
	// returns at once; Wait reports the end. Calling it again, or after
	// the command exited, does nothing.
	Kill()
	// Wait waits for the command to exit and returns how. After it
	// returns, nothing the command started is left running.
	Wait() Exit
}

// Exit is how a command ended.
type Exit struct {
	// Code is the exit status, or 128 + the signal number when a signal
	// ended it (as shells report it).
	Code int
	// Signal names the signal that ended the command ("killed",
	// "terminated"); "" when it exited.
	Signal string
}
