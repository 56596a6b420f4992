package terminal

import (
	"context"
	"fmt"
	"io"
	"time"
)

// Exit codes of commands the runner ended, as hermes reports them.
const (
	ExitTimedOut    = 124
	ExitInterrupted = 130
)

// RunOptions configures Run.
type RunOptions struct {
	// Timeout kills the command after this long (0: never).
	Timeout time.Duration
	// MaxChars is the characters of output the result keeps (0:
	// DefaultMaxChars); the rest is only passed to Sink.
	MaxChars int
	// Sink, when set, receives every piece of output as it arrives, in
	// order, from one goroutine. It owns the slice.
	Sink func(chunk []byte)
}

// Result is a foreground command's end.
type Result struct {
	// Output is the output kept (see Capture), followed by hermes's
	// "[Command timed out after Ns]" or "[Command interrupted]" line when
	// the runner ended the command.
	Output string
	// ExitCode is the command's exit code; ExitTimedOut or
	// ExitInterrupted when the runner ended it.
	ExitCode int
	Exit     Exit // how the process itself ended
	// TotalChars is the number of characters the command printed.
	TotalChars int
	Truncated  bool
	TimedOut   bool
	Cancelled  bool // ctx ended first
}

// Run runs s in env to its end: the command is killed (everything it
// started included) when o.Timeout passes or ctx ends. Memory stays
// bounded whatever the command prints. The error is for a command that
// could not start.
func Run(ctx context.Context, env Environment, s Spec, o RunOptions) (Result, error) {
	p, err := env.Start(ctx, s)
	if err != nil {
		return Result{}, err
	}
	c := NewCapture(o.MaxChars)
	outDone := make(chan struct{})
	go func() {
		defer close(outDone)
		copyOutput(p.Output(), c, o.Sink)
	}()
	exited := make(chan Exit, 1)
	go func() { exited <- p.Wait() }()
	var timer <-chan time.Time
	if o.Timeout > 0 {
		t := time.NewTimer(o.Timeout)
		defer t.Stop()
		timer = t.C
	}
	var res Result
	select {
	case res.Exit = <-exited:
	case <-timer:
		res.TimedOut = true
		p.Kill()
		res.Exit = <-exited
	case <-ctx.Done():
		res.Cancelled = true
		p.Kill()
		res.Exit = <-exited
	}
	<-outDone
	res.Output, res.ExitCode = Interrupted(c.String(), res.Exit.Code, res.TimedOut, res.Cancelled, o.Timeout)
	res.TotalChars, res.Truncated = c.Total(), c.Truncated()
	return res, nil
}

// copyOutput reads r to its end into c and sink.
func copyOutput(r io.Reader, c *Capture, sink func([]byte)) {
	buf := make([]byte, 32<<10)
	for {
		n, err := r.Read(buf)
		if n > 0 {
			c.Write(buf[:n])
			if sink != nil {
				sink(append([]byte(nil), buf[:n]...))
			}
		}
		if err != nil {
			return
		}
	}
}

// Interrupted returns the output and exit code hermes reports for a
// command ended by a timeout ("[Command timed out after Ns]", 124) or a
// cancel ("[Command interrupted]", 130); output and code otherwise.
func Interrupted(output string, code int, timedOut, cancelled bool, timeout time.Duration) (string, int) {
	var suffix string
	switch {
	case timedOut:
		suffix, code = fmt.Sprintf("[Command timed out after %ds]", int(timeout.Round(time.Second)/time.Second)), ExitTimedOut
	case cancelled:
		suffix, code = "[Command interrupted]", ExitInterrupted
	default:
		return output, code
	}
	if output == "" {
		return suffix, code
	}
	return output + "\n" + suffix, code
}
