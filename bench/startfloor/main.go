// Command startfloor measures how long a program takes from process start to
// answering one line on stdin — the start-up floor that the libraries a
// binary links impose, independent of what main does. bench/startfloor/run.sh
// builds programs that only import a given set of packages and times them,
// next to hermes-acp answering initialize.
//
// Usage: go run ./bench/startfloor [-runs N] BINARY [ARGS...]
package main

import (
	"bufio"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"time"
)

func main() {
	runs := flag.Int("runs", 20, "number of starts to time")
	flag.Parse()
	if flag.NArg() == 0 {
		fmt.Fprintln(os.Stderr, "usage: startfloor [-runs N] BINARY [ARGS...]")
		os.Exit(2)
	}
	var ds []time.Duration
	for range *runs {
		d, err := once(flag.Args())
		if err != nil {
			fmt.Fprintf(os.Stderr, "startfloor: %v\n", err)
			os.Exit(1)
		}
		ds = append(ds, d)
	}
	slices.Sort(ds)
	fmt.Printf("median %.2f ms, min %.2f ms (%d runs)\n", ms(ds[len(ds)/2]), ms(ds[0]), len(ds))
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// once starts the program, sends one initialize line and times the first
// line of the answer.
func once(argv []string) (time.Duration, error) {
	home, err := os.MkdirTemp("", "startfloor-")
	if err != nil {
		return 0, err
	}
	defer os.RemoveAll(home)
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env = append(os.Environ(), "HERMES_HOME="+home)
	in, err := cmd.StdinPipe()
	if err != nil {
		return 0, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return 0, err
	}
	start := time.Now()
	if err := cmd.Start(); err != nil {
		return 0, err
	}
	if _, err := in.Write([]byte(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":1}}` + "\n")); err != nil {
		return 0, err
	}
	if _, err := bufio.NewReader(out).ReadString('\n'); err != nil {
		return 0, fmt.Errorf("%s: no answer: %w", argv[0], err)
	}
	d := time.Since(start)
	in.Close()
	return d, cmd.Wait()
}
