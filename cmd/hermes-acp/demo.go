package main

import (
	"context"
	"embed"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/hermes-acp/hermes-acp/client"
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

// runDemo is `hermes-acp demo`: it runs the headless client against this
// binary with a bundled model script in a temporary workspace and prints the
// transcript.
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
	tmp, err := os.MkdirTemp("", "hermes-acp-demo-")
	if err != nil {
		fmt.Fprintf(stderr, "hermes-acp demo: %v\n", err)
		return 1
	}
	if *keep {
		fmt.Fprintf(stderr, "demo files kept in %s\n", tmp)
	} else {
		defer os.RemoveAll(tmp)
	}
	ws, home := filepath.Join(tmp, "workspace"), filepath.Join(tmp, "hermes-home")
	script := filepath.Join(tmp, "script.yaml")
	if err := writeDemo(ws, home, script); err != nil {
		fmt.Fprintf(stderr, "hermes-acp demo: %v\n", err)
		return 1
	}
	o := client.Options{Cwd: ws, Prompts: demoPrompts, Approve: "allow", JSON: *jsonOut, Timeout: defaultDemoTimeout,
		Env: []string{"HERMES_HOME=" + home}, Version: buildVersion(), Stdout: stdout, Stderr: stderr}
	return runClientWith(context.Background(), o, []string{self, "--model", "script:" + script, "--log-level", "warn"}, stderr)
}

const defaultDemoTimeout = time.Minute

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
