// Command checkpoints measures the checkpoint engine (package checkpoint,
// issue 29) on a generated workspace and compares it with the git binary
// doing the same work with a separate GIT_DIR, and prints a Markdown
// table of medians. It is run by bench/checkpoints/run.sh.
//
// Usage:
//
//	go run ./bench/checkpoints [-files 10000] [-runs 7] [-restore 100]
//
// Rows:
//   - first checkpoint: a fresh shadow repository records the whole
//     workspace (every file hashed and stored);
//   - one file changed: the next turn's checkpoint after one file changed
//     (the stat cache: only that file is read again);
//   - no change: a checkpoint of the unchanged workspace;
//   - restore of N files: N changed files read back from the checkpoint
//     and written byte for byte (workspace.Files.WriteExact, on disk).
//
// The git side runs, with GIT_DIR, GIT_WORK_TREE and GIT_INDEX_FILE set
// and the user's configuration ignored (hermes-agent's way): git add -A,
// git write-tree, git commit-tree, git update-ref — four processes per
// checkpoint. RSS is the process's resident set (VmRSS) before the first
// checkpoint, after it, and after every run.
package main

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"log"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/hermes-acp/hermes-acp/checkpoint"
	"github.com/hermes-acp/hermes-acp/workspace"
)

func main() {
	files := flag.Int("files", 10_000, "files in the generated workspace")
	runs := flag.Int("runs", 7, "runs per row (median reported)")
	restore := flag.Int("restore", 100, "files changed and restored")
	flag.Parse()
	log.SetFlags(0)
	ctx := context.Background()
	tmp, err := os.MkdirTemp("", "bench-checkpoints-")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(tmp)
	ws := filepath.Join(tmp, "ws")
	generate(ws, *files)

	rss0 := rssKB()
	var first, change, same, rest []time.Duration
	var rssFirst int64
	for i := range *runs {
		m := checkpoint.New(checkpoint.Options{Dir: filepath.Join(tmp, fmt.Sprintf("home%d", i))})
		r, err := m.Repo(ws)
		if err != nil {
			log.Fatal(err)
		}
		first = append(first, timed(func() { record(ctx, r, i, 1) }))
		if i == 0 {
			rssFirst = rssKB()
		}
		touch(ws, i)
		change = append(change, timed(func() { record(ctx, r, i, 2) }))
		same = append(same, timed(func() { record(ctx, r, i, 3) }))
		rest = append(rest, restoreRun(ctx, r, ws, *restore, i))
	}
	rssEnd := rssKB()

	gfirst, gchange, gsame := gitRuns(tmp, ws, *runs)

	load, _ := os.ReadFile("/proc/loadavg")
	fmt.Printf("Workspace: %d files in %d folders; %d runs per row, medians; %s, %d CPUs; load average %s\n\n",
		*files, *files/50, *runs, runtime.Version(), runtime.NumCPU(), strings.Join(strings.Fields(string(load))[:3], " "))
	fmt.Println("| row | go-git engine (package checkpoint) | git binary, separate GIT_DIR |")
	fmt.Println("|---|---|---|")
	fmt.Printf("| first checkpoint | %s | %s |\n", median(first), median(gfirst))
	fmt.Printf("| one file changed | %s | %s |\n", median(change), median(gchange))
	fmt.Printf("| no change | %s | %s |\n", median(same), median(gsame))
	fmt.Printf("| restore of %d files | %s | — |\n", *restore, median(rest))
	fmt.Printf("\nRSS: %d KB before, %d KB after the first checkpoint (+%d KB), %d KB after %d runs of every row (+%d KB).\n",
		rss0, rssFirst, rssFirst-rss0, rssEnd, *runs, rssEnd-rss0)
}

// generate writes n small source-like files, 50 per folder.
func generate(root string, n int) {
	for i := range n {
		dir := filepath.Join(root, fmt.Sprintf("pkg%03d", i/50))
		if i%50 == 0 {
			if err := os.MkdirAll(dir, 0o755); err != nil {
				log.Fatal(err)
			}
		}
		var b bytes.Buffer
		for l := range 40 {
			fmt.Fprintf(&b, "func f%d_%d() int { return %d } // line %d of a generated file\n", i, l, i*l, l)
		}
		write(filepath.Join(dir, fmt.Sprintf("file%05d.go", i)), b.Bytes())
	}
}

// write writes a file dated a minute ago (outside the stat cache's racy
// window, as a workspace's files mostly are).
func write(p string, data []byte) {
	if err := os.WriteFile(p, data, 0o644); err != nil {
		log.Fatal(err)
	}
	old := time.Now().Add(-time.Minute)
	if err := os.Chtimes(p, old, old); err != nil {
		log.Fatal(err)
	}
}

// touch changes one file of the workspace (a different one each run).
func touch(root string, i int) {
	p := filepath.Join(root, "pkg000", "file00000.go")
	data, err := os.ReadFile(p)
	if err != nil {
		log.Fatal(err)
	}
	write(p, append(data, []byte(fmt.Sprintf("// changed in run %d\n", i))...))
}

func record(ctx context.Context, r *checkpoint.Repo, run, turn int) {
	m := checkpoint.Mark{Session: fmt.Sprintf("sess_bench%d", run), Turn: turn, Phase: checkpoint.Before, At: time.Now()}
	if _, err := r.Record(ctx, m); err != nil {
		log.Fatal(err)
	}
}

// restoreRun changes n files, then times reading them back from the last
// checkpoint and writing them byte for byte.
func restoreRun(ctx context.Context, r *checkpoint.Repo, root string, n, run int) time.Duration {
	turns, err := r.Turns(ctx, fmt.Sprintf("sess_bench%d", run))
	if err != nil || len(turns) == 0 {
		log.Fatalf("turns: %v", err)
	}
	target, err := r.State(ctx, turns[len(turns)-1].Before)
	if err != nil {
		log.Fatal(err)
	}
	var rels []string
	for rel := range target.Files {
		rels = append(rels, rel)
	}
	sort.Strings(rels)
	rels = rels[:n]
	for _, rel := range rels {
		write(filepath.Join(root, filepath.FromSlash(rel)), []byte("overwritten by the turn\n"))
	}
	w, err := workspace.Open(root, nil, workspace.Options{})
	if err != nil {
		log.Fatal(err)
	}
	defer w.Close()
	files := workspace.NewFiles(w, nil, false, false)
	return timed(func() {
		for _, rel := range rels {
			data, err := r.Content(ctx, target.Files[rel])
			if err != nil {
				log.Fatal(err)
			}
			p, err := w.Resolve(filepath.Join(root, filepath.FromSlash(rel)))
			if err != nil {
				log.Fatal(err)
			}
			if _, err := files.WriteExact(ctx, p, data, target.Files[rel].Mode); err != nil {
				log.Fatal(err)
			}
		}
	})
}

// gitRuns times the git binary doing the same checkpoints.
func gitRuns(tmp, ws string, runs int) (first, change, same []time.Duration) {
	if _, err := exec.LookPath("git"); err != nil {
		return nil, nil, nil
	}
	for i := range runs {
		dir := filepath.Join(tmp, fmt.Sprintf("git%d", i))
		run(dir, ws, "", "init", "--bare", "-q", dir)
		checkpointGit := func() {
			run(dir, ws, "", "add", "-A")
			tree := run(dir, ws, "", "write-tree")
			args := []string{"commit-tree", tree, "-m", "checkpoint"}
			if parent := run(dir, ws, "", "rev-parse", "-q", "--verify", "refs/hermes/bench"); parent != "" {
				args = append(args, "-p", parent)
			}
			commit := run(dir, ws, "", args...)
			run(dir, ws, "", "update-ref", "refs/hermes/bench", commit)
		}
		first = append(first, timed(checkpointGit))
		touch(ws, 100+i)
		change = append(change, timed(checkpointGit))
		same = append(same, timed(checkpointGit))
	}
	return first, change, same
}

// run runs git against the shadow repository dir for the work tree ws and
// returns its trimmed output; a failure that is not a "not found" ends the
// benchmark.
func run(dir, ws, _ string, args ...string) string {
	cmd := exec.Command("git", args...)
	cmd.Dir = ws
	cmd.Env = append(os.Environ(), "GIT_DIR="+dir, "GIT_WORK_TREE="+ws, "GIT_INDEX_FILE="+dir+"/index",
		"GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_SYSTEM=/dev/null", "GIT_CONFIG_NOSYSTEM=1",
		"GIT_AUTHOR_NAME=Hermes Checkpoint", "GIT_AUTHOR_EMAIL=hermes@local", "GIT_COMMITTER_NAME=Hermes Checkpoint", "GIT_COMMITTER_EMAIL=hermes@local")
	if args[0] == "init" {
		cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_SYSTEM=/dev/null")
	}
	out, err := cmd.Output()
	if err != nil {
		if args[0] == "rev-parse" {
			return ""
		}
		log.Fatalf("git %v: %v", args, err)
	}
	return strings.TrimSpace(string(out))
}

func timed(f func()) time.Duration {
	start := time.Now()
	f()
	return time.Since(start)
}

func median(ds []time.Duration) string {
	if len(ds) == 0 {
		return "n/a"
	}
	s := append([]time.Duration(nil), ds...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	d := s[len(s)/2]
	if d < 10*time.Millisecond {
		return fmt.Sprintf("%.2f ms", float64(d.Microseconds())/1000)
	}
	return fmt.Sprintf("%.0f ms", float64(d.Microseconds())/1000)
}

// rssKB is the process's resident set in KB (Linux), 0 elsewhere.
func rssKB() int64 {
	data, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(data), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			n, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			return n
		}
	}
	return 0
}
