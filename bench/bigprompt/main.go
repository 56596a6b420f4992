// Command bigprompt measures what a huge prompt costs hermes-acp in memory:
// it starts the agent as an editor does (stdio, a scripted model that
// answers "ok"), sends one prompt of -mib MiB of text, and after the reply
// reports the process's peak RSS (VmHWM) and its RSS once the turn is over
// (VmRSS, read again after -settle). Linux only (/proc).
//
//	go build -o /tmp/hermes-acp ./cmd/hermes-acp
//	go run ./bench/bigprompt -agent /tmp/hermes-acp -mib 50
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

func main() {
	agent := flag.String("agent", "", "the hermes-acp binary")
	mib := flag.Int("mib", 50, "prompt size in MiB")
	settle := flag.Duration("settle", 5*time.Second, "wait after the reply before reading RSS again")
	flag.Parse()
	if *agent == "" {
		log.Fatal("usage: bigprompt -agent BINARY [-mib N]")
	}
	dir, err := os.MkdirTemp("", "bigprompt-")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	script := filepath.Join(dir, "script.yaml")
	if err := os.WriteFile(script, []byte("replies:\n  - text: ok\n"), 0o644); err != nil {
		log.Fatal(err)
	}
	ws := filepath.Join(dir, "ws")
	if err := os.Mkdir(ws, 0o755); err != nil {
		log.Fatal(err)
	}
	cmd := exec.Command(*agent, "--model", "script:"+script)
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + dir, "HERMES_HOME=" + filepath.Join(dir, "home")}
	cmd.Stderr = io.Discard
	if os.Getenv("BIGPROMPT_GODEBUG") != "" {
		cmd.Env = append(cmd.Env, "GODEBUG="+os.Getenv("BIGPROMPT_GODEBUG"))
		cmd.Stderr = os.Stderr
	}
	in, _ := cmd.StdinPipe()
	outPipe, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		log.Fatal(err)
	}
	out := bufio.NewReaderSize(outPipe, 1<<20)
	call := func(id int, method string, params any) {
		b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params})
		if _, err := in.Write(append(b, '\n')); err != nil {
			log.Fatal(err)
		}
		for {
			line, err := out.ReadString('\n')
			if err != nil {
				log.Fatal(err)
			}
			var m struct {
				ID     *int            `json:"id"`
				Method string          `json:"method"`
				Result json.RawMessage `json:"result"`
				Error  json.RawMessage `json:"error"`
			}
			if json.Unmarshal([]byte(line), &m) == nil && m.Method == "" && m.ID != nil && *m.ID == id {
				if m.Error != nil {
					log.Fatalf("%s: %s", method, m.Error)
				}
				if id == 2 {
					var r struct{ SessionID string }
					_ = json.Unmarshal(m.Result, &r)
					sessionID = r.SessionID
				}
				return
			}
		}
	}
	call(1, "initialize", map[string]any{"protocolVersion": 1})
	call(2, "session/new", map[string]any{"cwd": ws, "mcpServers": []any{}})
	base := status(cmd.Process.Pid)
	text := strings.Repeat("a", *mib<<20)
	start := time.Now()
	call(3, "session/prompt", map[string]any{"sessionId": sessionID, "prompt": []any{map[string]any{"type": "text", "text": text}}})
	took := time.Since(start)
	text = ""
	after := status(cmd.Process.Pid)
	time.Sleep(*settle)
	settled := status(cmd.Process.Pid)
	_ = in.Close()
	_ = cmd.Wait()
	fmt.Printf("prompt %d MiB: turn %.2f s; RSS before %d MiB; peak RSS %d MiB; RSS at the reply %d MiB; RSS %s later %d MiB\n",
		*mib, took.Seconds(), base["VmRSS"]>>10, settled["VmHWM"]>>10, after["VmRSS"]>>10, *settle, settled["VmRSS"]>>10)
}

var sessionID string

// status returns the kB fields of /proc/PID/status.
func status(pid int) map[string]int {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		log.Fatal(err)
	}
	out := map[string]int{}
	for line := range strings.SplitSeq(string(data), "\n") {
		k, v, ok := strings.Cut(line, ":")
		if !ok {
			continue
		}
		var n int
		if _, err := fmt.Sscanf(strings.TrimSpace(v), "%d kB", &n); err == nil {
			out[k] = n
		}
	}
	return out
}
