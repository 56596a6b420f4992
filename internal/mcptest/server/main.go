// Command server is the mcptest MCP server on stdio: the tools of
// [mcptest.NewServer], with events appended to the file named by the
// environment variable MCPTEST_EVENTS (when set). It exits when its input
// ends (or, with MCPTEST_LINGER set, never: it must be killed). Nothing
// but protocol messages is written to stdout.
package main

import (
	"context"
	"fmt"
	"io"
	"os"

	"github.com/hermes-acp/hermes-acp/internal/mcptest"
)

func main() {
	os.Exit(run())
}

func run() int {
	var events io.Writer
	if path := os.Getenv(mcptest.EventsEnv); path != "" {
		f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
		if err != nil {
			fmt.Fprintf(os.Stderr, "mcptest server: %v\n", err)
			return 1
		}
		defer f.Close()
		events = f
	}
	mcptest.Log(events, "%s %d", mcptest.EventStart, os.Getpid())
	fmt.Fprintln(os.Stderr, "mcptest server: serving on stdio")
	err := mcptest.RunStdio(context.Background(), mcptest.Options{Events: events, Exit: os.Exit})
	mcptest.Log(events, "%s", mcptest.EventExit)
	if os.Getenv(mcptest.LingerEnv) != "" {
		// A server that ignores the end of its input, as some do: only a
		// signal ends it.
		select {}
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "mcptest server: %v\n", err)
		return 1
	}
	return 0
}
