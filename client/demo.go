package client

import (
	"context"
	"embed"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"time"
)

//go:embed demo/script.yaml
var demoFiles embed.FS

// demoWorkspace is the sample project the demo session works on.
var demoWorkspace = map[string]string{
	"greeting.go": "package greeting\n\n// Hello greets name.\nfunc Hello(name string) string {\n\treturn \"Hello, \" + name\n}\n",
	"config.json": "{\n  \"name\": \"greeting\",\n  \"version\": 1,\n}\n",
	"README.md":   "# greeting\n\nA tiny package the hermes-acp demo works on.\n",
}

// demoPrompts are the prompts the demo sends, in order.
var demoPrompts = []string{
	"Add a Farewell function to greeting.go and fix config.json.",
}

// demoTimeout bounds the demo's prompt.
const demoTimeout = time.Minute

// DemoOptions configure [Demo].
type DemoOptions struct {
	// Agent is the hermes-acp binary the demo runs (the caller's own).
	Agent string
	// JSON prints every JSON-RPC message instead of the transcript.
	JSON bool
	// Keep keeps the temporary folder (workspace, HERMES_HOME, script) and
	// names it on Stderr.
	Keep    bool
	Version string
	Stdout  io.Writer
	Stderr  io.Writer
}

// Demo is `hermes-acp demo`: it runs a session of Agent with the bundled
// model script (--model script:…) on a sample project in a temporary
// folder, with its own HERMES_HOME there, approving everything, and prints
// the transcript. The error is [Run]'s.
func Demo(ctx context.Context, o DemoOptions) error {
	tmp, err := os.MkdirTemp("", "hermes-acp-demo-")
	if err != nil {
		return fmt.Errorf("create the demo folder: %w", err)
	}
	if o.Keep {
		if o.Stderr != nil {
			fmt.Fprintf(o.Stderr, "demo files kept in %s\n", tmp)
		}
	} else {
		defer os.RemoveAll(tmp)
	}
	ws, home := filepath.Join(tmp, "workspace"), filepath.Join(tmp, "hermes-home")
	script := filepath.Join(tmp, "script.yaml")
	if err := writeDemo(ws, home, script); err != nil {
		return fmt.Errorf("write the demo files: %w", err)
	}
	run := Options{Cwd: ws, Prompts: demoPrompts, Approve: "allow", JSON: o.JSON, Timeout: demoTimeout,
		Env: []string{"HERMES_HOME=" + home}, Version: o.Version, Stdout: o.Stdout, Stderr: o.Stderr}
	return Run(ctx, run, []string{o.Agent, "--model", "script:" + script, "--log-level", "warn"})
}

// writeDemo writes the sample project into ws, creates home and writes the
// model script to script.
func writeDemo(ws, home, script string) error {
	for _, d := range []string{ws, home} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return err
		}
	}
	for name, content := range demoWorkspace {
		if err := os.WriteFile(filepath.Join(ws, name), []byte(content), 0o644); err != nil {
			return err
		}
	}
	data, err := fs.ReadFile(demoFiles, "demo/script.yaml")
	if err != nil {
		return err
	}
	return os.WriteFile(script, data, 0o644)
}
