package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/hermes-acp/hermes-acp/config"
	"github.com/hermes-acp/hermes-acp/terminal/backend"
	"github.com/hermes-acp/hermes-acp/tools"
	"github.com/hermes-acp/hermes-acp/toolsets"
)

// runToolsCmd is `hermes-acp tools`: the toolsets and every built-in tool
// with its availability (and why a tool is unavailable).
func runToolsCmd(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("hermes-acp tools", flag.ContinueOnError)
	fs.SetOutput(stderr)
	if err := fs.Parse(args); err != nil {
		return 2
	}
	cfg := config.Load(os.Getenv, "", "")
	reg, err := declaredTools(nil, cfg.BrowserExecutable)
	if err != nil {
		fmt.Fprintf(stderr, "hermes-acp tools: %v\n", err)
		return 1
	}
	// web: the web tools' availability depends on the configuration
	// (web_search needs a search backend): list them bound to it.
	web, _ := tools.Bind(tools.Deps{Web: webTools(cfg.Web, nil, nil, nil)})
	for _, e := range web {
		if e.Toolset == "web" {
			if err := reg.Register(e); err != nil {
				fmt.Fprintf(stderr, "hermes-acp tools: %v\n", err)
				return 1
			}
		}
	}
	if err := markVisionUnavailable(reg, cfg.VisionReason()); err != nil { // cmd/hermes-acp/vision.go
		fmt.Fprintf(stderr, "hermes-acp tools: %v\n", err)
		return 1
	}
	enabled := cfg.Toolsets
	if len(enabled) == 0 {
		enabled = []string{"hermes-acp"}
	}
	offered, warnings := toolsets.Select(enabled, cfg.Disabled, reg.Snapshot())
	for _, w := range warnings {
		fmt.Fprintf(stderr, "warning: %s\n", w)
	}
	fmt.Fprintf(stdout, "Session toolsets: %s", strings.Join(enabled, ", "))
	if len(cfg.Disabled) > 0 {
		fmt.Fprintf(stdout, " (disabled: %s)", strings.Join(cfg.Disabled, ", "))
	}
	fmt.Fprintf(stdout, "\nTools offered to the model: %d\n", len(reg.Definitions(offered)))
	tb := backend.New(cfg.Backends()) // terminal backends (issue 18)
	fmt.Fprintf(stdout, "%s\n", tb.Status(context.Background()))
	tb.Close()
	tc, _ := terminalSettings(cfg, os.Executable)
	fmt.Fprintf(stdout, "Sandbox (commands on this machine): %s\n\n", tc.Sandbox.Confinement().Summary())
	if err := toolsets.WriteReport(stdout, reg, offered); err != nil {
		fmt.Fprintf(stderr, "hermes-acp tools: %v\n", err)
		return 1
	}
	return 0
}
