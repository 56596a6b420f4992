package main

import (
	"errors"
	"fmt"
	"io"
	"path/filepath"

	"github.com/hermes-acp/hermes-acp/agent"
	"github.com/hermes-acp/hermes-acp/config"
)

// runSetup is `hermes-acp --setup` (config.Setup), with its exit status.
func runSetup(stdin io.Reader, stdout, stderr io.Writer, getenv func(string) string) int {
	err := config.Setup(stdin, stdout, getenv)
	if err == nil {
		return 0
	}
	if errors.Is(err, config.ErrAborted) {
		fmt.Fprintln(stderr) // the question is still on its line
	}
	fmt.Fprintf(stderr, "hermes-acp: %v\n", err)
	return 1
}

// setupCommand is how an editor that runs terminal authentication starts
// this executable's --setup (agent.SetupCommand): its absolute path, and
// HERMES_HOME (absolute) when it is set, so that the setup writes the
// configuration this process reads even from a terminal that does not have
// the editor's environment for the agent.
func setupCommand(getenv func(string) string, executable func() (string, error)) agent.SetupCommand {
	var c agent.SetupCommand
	if exe, err := executable(); err == nil {
		c.Path = exe
	}
	if h := getenv("HERMES_HOME"); h != "" {
		if abs, err := filepath.Abs(h); err == nil {
			h = abs
		}
		c.Env = map[string]string{"HERMES_HOME": h}
	}
	return c
}
