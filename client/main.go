package client

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"
)

const usage = `Usage: hermes-acp client [flags] -- AGENT [ARGS...]

Starts AGENT as an ACP agent, opens a session, sends the prompts in order and
prints a readable transcript (or, with --json, every JSON-RPC message as a JSON
line {"from": "client"|"agent", "message": {...}}). Permission requests are
answered by --approve; fs/read_text_file and fs/write_text_file are served from
disk. Exit status: 0 when every prompt ended, 1 on errors, 2 for usage errors.

Flags:
`

type stringList []string

func (s *stringList) String() string     { return strings.Join(*s, ", ") }
func (s *stringList) Set(v string) error { *s = append(*s, v); return nil }

// Main is `hermes-acp client [flags] -- AGENT [ARGS...]`: it parses args,
// runs the session ([Run]) and returns the exit status: 0 when every prompt
// ended, 1 on errors, 2 for usage errors. version is the client's version.
func Main(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer, version string) int {
	fs := flag.NewFlagSet("hermes-acp client", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprint(stderr, usage)
		fs.PrintDefaults()
	}
	o := Options{Version: version, Stdout: stdout, Stderr: stderr}
	var prompts stringList
	var promptFile string
	wd, _ := os.Getwd()
	fs.StringVar(&o.Cwd, "cwd", wd, "workspace directory for the session")
	fs.Var(&prompts, "prompt", "a prompt to send (repeatable; sent in order)")
	fs.StringVar(&promptFile, "prompt-file", "", "read prompts from FILE (- for stdin), separated by lines containing only ---")
	fs.StringVar(&o.Approve, "approve", "allow", "answer permission requests: allow, reject or ask")
	fs.BoolVar(&o.JSON, "json", false, "print every JSON-RPC message instead of a transcript")
	fs.BoolVar(&o.NoFS, "no-fs", false, "do not offer fs/read_text_file and fs/write_text_file")
	fs.StringVar(&o.Mode, "mode", "", "switch the session to this mode before prompting")
	fs.DurationVar(&o.Timeout, "timeout", 10*time.Minute, "give up on a prompt after this long")
	fs.DurationVar(&o.CancelAfter, "cancel-after", 0, "send session/cancel this long after each prompt starts (for tests)")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	cmdline := fs.Args()
	if len(cmdline) == 0 {
		fmt.Fprintln(stderr, "hermes-acp client: missing AGENT command (put it after --)")
		fs.Usage()
		return 2
	}
	switch o.Approve {
	case "allow", "reject", "ask":
	default:
		fmt.Fprintf(stderr, "hermes-acp client: --approve %q: want allow, reject or ask\n", o.Approve)
		return 2
	}
	o.Prompts = prompts
	if promptFile != "" {
		ps, err := ReadPrompts(promptFile, stdin)
		if err != nil {
			fmt.Fprintf(stderr, "hermes-acp client: %v\n", err)
			return 2
		}
		o.Prompts = append(o.Prompts, ps...)
	}
	abs, err := filepath.Abs(o.Cwd)
	if err != nil {
		fmt.Fprintf(stderr, "hermes-acp client: --cwd: %v\n", err)
		return 2
	}
	o.Cwd = abs
	return status("hermes-acp client", Run(ctx, o, cmdline), stderr)
}

// DemoMain is `hermes-acp demo [--json] [--keep]`: it runs agent (this
// binary) on the bundled sample session ([Demo]) and returns the exit
// status: 0 when the session ended, 1 on errors, 2 for usage errors.
func DemoMain(ctx context.Context, args []string, agent string, stdout, stderr io.Writer, version string) int {
	fs := flag.NewFlagSet("hermes-acp demo", flag.ContinueOnError)
	fs.SetOutput(stderr)
	jsonOut := fs.Bool("json", false, "print every JSON-RPC message instead of the transcript")
	keep := fs.Bool("keep", false, "keep the temporary workspace and print its path")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	err := Demo(ctx, DemoOptions{Agent: agent, JSON: *jsonOut, Keep: *keep,
		Version: version, Stdout: stdout, Stderr: stderr})
	return status("hermes-acp demo", err, stderr)
}

// status turns a session's outcome into the exit status, printing what the
// transcript has not shown.
func status(cmd string, err error, stderr io.Writer) int {
	if err != nil {
		if !errors.Is(err, ErrReported) {
			fmt.Fprintf(stderr, "%s: %v\n", cmd, err)
		}
		return 1
	}
	return 0
}
