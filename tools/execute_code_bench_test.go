package tools

import (
	"context"
	"encoding/json"
	"strconv"
	"strings"
	"testing"
)

// benchScript reads f.txt 50 times through hermes_tools and prints the
// microseconds the 50 calls took, timed inside the script.
const benchScript = `
import time
from hermes_tools import read_file
t = time.perf_counter()
for i in range(50):
    read_file("f%d.txt" % i)
print(int((time.perf_counter() - t) * 1e6))
`

// runBench runs benchScript once per op in e and reports, besides the
// time per op, the calls' own time per call as the script measured it.
func runBench(b *testing.B, e *codeEnv) {
	var inside float64
	for b.Loop() {
		r, m := e.run(b, b.Context(), benchScript)
		if r.IsError || m["tool_calls_made"] != 50.0 {
			b.Fatalf("script = %s", r.Encode())
		}
		us, err := strconv.Atoi(strings.TrimSpace(m["output"].(string)))
		if err != nil {
			b.Fatal(err)
		}
		inside += float64(us)
	}
	b.ReportMetric(inside/float64(b.N)/50, "µs/call")
}

func benchFiles() map[string]string {
	files := map[string]string{}
	for i := range 50 {
		files["f"+strconv.Itoa(i)+".txt"] = strings.Repeat("some line of the file\n", 40)
	}
	return files
}

// BenchmarkExecuteCodeReadFile50 is one execute_code call whose script
// reads 50 files through hermes_tools: the whole call (python start-up
// included) per op, and the time per read_file call seen by the script
// (socket round trip, JSON both ways, the read itself).
func BenchmarkExecuteCodeReadFile50(b *testing.B) {
	e := newCodeEnv(b, codeEnvOptions{Files: benchFiles()})
	runBench(b, e)
}

// BenchmarkExecuteCodeSocket50 is the same script with a CallTool that
// answers at once: what the socket and the stubs alone cost per call.
func BenchmarkExecuteCodeSocket50(b *testing.B) {
	e := newCodeEnv(b, codeEnvOptions{})
	d := e.sess.Deps
	d.CallTool = func(context.Context, string, string, json.RawMessage) (string, error) {
		return `{"content":"1|x","total_lines":1}`, nil
	}
	e.sess = newSession(d)
	runBench(b, e)
}
