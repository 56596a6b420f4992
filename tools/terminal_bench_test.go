package tools

import (
	"os"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
)

// countingSink counts the Output calls and bytes of a command.
type countingSink struct{ calls, bytes atomic.Int64 }

func (c *countingSink) Output(_ string, b []byte) {
	c.calls.Add(1)
	c.bytes.Add(int64(len(b)))
}

// procStatusKB reads a field of /proc/self/status in kB (0 if absent).
func procStatusKB(field string) int64 {
	data, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(data), "\n") {
		if rest, ok := strings.CutPrefix(line, field+":"); ok {
			n, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			return n
		}
	}
	return 0
}

// BenchmarkTerminalLocalOutput runs commands with large outputs through
// the terminal tool's local path (approval, run, stream to the sink,
// capped result): wall time per command, Output calls per command, and
// the agent's peak RSS growth over the run (VmHWM after, with the peak
// reset before, minus VmRSS before).
func BenchmarkTerminalLocalOutput(b *testing.B) {
	for _, bc := range []struct{ name, cmd string }{
		{"seq35000", "seq 1 35000"},
		{"5MB", "head -c 5000000 /dev/zero | tr '\\0' 'a'"},
	} {
		b.Run(bc.name, func(b *testing.B) {
			e := newTermEnv(b, termEnvOptions{})
			sink := &countingSink{}
			e.sess.Output = sink
			_ = os.WriteFile("/proc/self/clear_refs", []byte("5"), 0) // reset VmHWM
			before := procStatusKB("VmRSS")
			b.ResetTimer()
			for b.Loop() {
				r, _ := e.call(b, "terminal", map[string]any{"command": bc.cmd})
				if r.IsError {
					b.Fatalf("%s failed: %s", bc.cmd, r.Encode())
				}
			}
			b.StopTimer()
			b.ReportMetric(float64(sink.calls.Load())/float64(b.N), "outputs/op")
			b.ReportMetric(float64(sink.bytes.Load())/float64(b.N), "streamed-B/op")
			if hwm := procStatusKB("VmHWM"); hwm > 0 {
				b.ReportMetric(float64(hwm-before)/1024, "peak-RSS-growth-MiB")
			}
		})
	}
}
