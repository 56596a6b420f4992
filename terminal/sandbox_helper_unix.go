//go:build unix

package terminal

import (
	"encoding/base64"
	"fmt"
	"io"
	"net"
	"os"
	"os/signal"
	"strings"
	"syscall"
)

// helperMain is `<exe> sandbox-exec TICKET [COMMAND]`, the command line of
// an editor terminal (SandboxSession.EditorCommand): it passes its
// standard files to the agent with the ticket, which runs the registered
// command with them in the session's sandbox; it forwards SIGTERM, SIGINT,
// SIGHUP and SIGQUIT as a kill, and ends as the command ended (its exit
// code, or the signal that killed it). COMMAND is the model's command as
// the editor shows it, checked against the registered one. The helper
// prints only its own errors, on stderr.
func helperMain(args []string, stderr io.Writer) int {
	fail := func(format string, a ...any) int {
		fmt.Fprintf(stderr, "hermes-acp %s: "+format+"\n", append([]any{SandboxCommand}, a...)...)
		return 126
	}
	if len(args) < 1 || len(args) > 2 {
		fmt.Fprintf(stderr, "usage: hermes-acp %s TICKET [COMMAND] (the agent writes this line for editor terminals)\n", SandboxCommand)
		return 2
	}
	enc, id, ok := strings.Cut(args[0], ".")
	sock, err := base64.RawURLEncoding.DecodeString(enc)
	if !ok || err != nil || id == "" {
		return fail("malformed ticket %q", args[0])
	}
	shown := ""
	if len(args) == 2 {
		shown = args[1]
	}
	c, err := net.DialUnix("unix", nil, &net.UnixAddr{Name: string(sock), Net: "unix"})
	if err != nil {
		return fail("cannot reach the agent (%v); the agent runs each editor-terminal command once, while its session is open", err)
	}
	w := newWire(c)
	defer w.Close()
	std := []*os.File{os.Stdin, os.Stdout, os.Stderr}
	for i, f := range std {
		var st syscall.Stat_t
		if syscall.Fstat(int(f.Fd()), &st) != nil {
			null, err := os.OpenFile(os.DevNull, os.O_RDWR, 0)
			if err != nil {
				return fail("%v", err)
			}
			defer null.Close()
			std[i] = null
		}
	}
	if err := w.send(wireMsg{Op: opStart, Ticket: id, Shown: shown}, std...); err != nil {
		return fail("%v", err)
	}
	m, _, err := w.recv()
	if err != nil {
		return fail("the agent did not answer: %v", err)
	}
	if m.Error != "" {
		return fail("%s", m.Error)
	}
	sigs := make(chan os.Signal, 4)
	signal.Notify(sigs, syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP, syscall.SIGQUIT)
	go func() {
		for range sigs {
			_ = w.send(wireMsg{Op: opKill})
		}
	}()
	for {
		m, files, err := w.recv()
		for _, f := range files {
			f.Close()
		}
		if err != nil {
			return fail("lost the agent: %v", err)
		}
		if m.Op != opExit {
			continue
		}
		if m.Signal != "" && m.Code > 128 {
			sig := syscall.Signal(m.Code - 128)
			signal.Reset(sig)
			_ = syscall.Kill(os.Getpid(), sig)
		}
		return m.Code
	}
}
