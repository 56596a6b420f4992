package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/hermes-acp/hermes-acp/client"
)

// runDemo is `hermes-acp demo`: the headless client runs this binary on
// the bundled sample session (client.Demo).
func runDemo(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("hermes-acp demo", flag.ContinueOnError)
	fs.SetOutput(stderr)
	jsonOut := fs.Bool("json", false, "print every JSON-RPC message instead of the transcript")
	keep := fs.Bool("keep", false, "keep the temporary workspace and print its path")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	self, err := os.Executable()
	if err != nil {
		fmt.Fprintf(stderr, "hermes-acp demo: %v\n", err)
		return 1
	}
	err = client.Demo(context.Background(), client.DemoOptions{Agent: self, JSON: *jsonOut, Keep: *keep,
		Version: buildVersion(), Stdout: stdout, Stderr: stderr})
	return clientStatus("hermes-acp demo", err, stderr)
}
