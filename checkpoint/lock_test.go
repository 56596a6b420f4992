package checkpoint_test

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/hermes-acp/hermes-acp/checkpoint"
)

// The tests below start this test binary again as a second hermes process
// working on the same shadow repository: HERMES_CHECKPOINT_HELPER names
// what it does, HERMES_CHECKPOINT_DIR and HERMES_CHECKPOINT_ROOT where.
func TestMain(m *testing.M) {
	if what := os.Getenv("HERMES_CHECKPOINT_HELPER"); what != "" {
		if err := helper(what, os.Getenv("HERMES_CHECKPOINT_DIR"), os.Getenv("HERMES_CHECKPOINT_ROOT")); err != nil {
			fmt.Fprintln(os.Stderr, "helper:", err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

func helper(what, dir, root string) error {
	ctx := context.Background()
	r, err := checkpoint.New(checkpoint.Options{Dir: dir}).Repo(root)
	if err != nil {
		return err
	}
	switch what {
	case "hold": // take the repository, say so, keep it until stdin closes
		release, err := r.Hold(ctx)
		if err != nil {
			return err
		}
		fmt.Println("held")
		io.Copy(io.Discard, os.Stdin)
		release()
		return nil
	case "delete":
		return r.DeleteSession(ctx, os.Getenv("HERMES_CHECKPOINT_SESSION"))
	case "record": // write <session>.txt = "<session> <turn>", record the turn; 25 turns
		s := os.Getenv("HERMES_CHECKPOINT_SESSION")
		for turn := 1; turn <= 25; turn++ {
			p := filepath.Join(root, s+".txt")
			if err := os.WriteFile(p, []byte(s+" "+strconv.Itoa(turn)), 0o644); err != nil {
				return err
			}
			if _, err := r.Record(ctx, checkpoint.Mark{Session: s, Turn: turn, Phase: checkpoint.Before, At: time.Now()}); err != nil {
				return err
			}
		}
		return nil
	}
	return fmt.Errorf("unknown helper %q", what)
}

// second starts the helper what as another process on the repository of
// root under dir.
func second(t *testing.T, what, dir, root string, env ...string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), append(env, "HERMES_CHECKPOINT_HELPER="+what, "HERMES_CHECKPOINT_DIR="+dir, "HERMES_CHECKPOINT_ROOT="+root)...)
	cmd.Stderr = os.Stderr
	return cmd
}

func TestAnotherProcessHoldingTheRepositoryIsWaitedFor(t *testing.T) {
	root := folder(t, map[string]string{"a.txt": "a\n"})
	dir := filepath.Join(t.TempDir(), "checkpoints")
	r := repo(t, checkpoint.New(checkpoint.Options{Dir: dir}), root)
	if _, err := r.Record(context.Background(), checkpoint.Mark{Session: "sess_1", Turn: 1, Phase: checkpoint.Before}); err != nil {
		t.Fatal(err)
	}

	other := second(t, "hold", dir, root)
	stdin, err := other.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := other.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := other.Start(); err != nil {
		t.Fatal(err)
	}
	defer other.Process.Kill()
	if line, err := bufio.NewReader(stdout).ReadString('\n'); line != "held\n" {
		t.Fatalf("the other process said %q, %v; want held", line, err)
	}

	// While the other process holds the repository, a record waits (here
	// until its context ends) instead of writing beside it.
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	if _, err := r.Record(ctx, checkpoint.Mark{Session: "sess_1", Turn: 2, Phase: checkpoint.Before}); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Record while another process holds the repository = %v, want it to wait until the deadline", err)
	}

	// Once it lets go, the same record goes through.
	done := make(chan error, 1)
	go func() {
		_, err := r.Record(context.Background(), checkpoint.Mark{Session: "sess_1", Turn: 2, Phase: checkpoint.Before})
		done <- err
	}()
	stdin.Close()
	if err := other.Wait(); err != nil {
		t.Fatalf("the other process: %v", err)
	}
	if err := <-done; err != nil {
		t.Fatalf("Record after the other process let go: %v", err)
	}
	turns, err := r.Turns(context.Background(), "sess_1")
	if err != nil || len(turns) != 2 {
		t.Fatalf("Turns = %d turns, %v; want 2", len(turns), err)
	}
}

func TestTwoProcessesRecordTheSameFolder(t *testing.T) {
	root := t.TempDir()
	dir := filepath.Join(t.TempDir(), "checkpoints")
	a := second(t, "record", dir, root, "HERMES_CHECKPOINT_SESSION=sess_a")
	b := second(t, "record", dir, root, "HERMES_CHECKPOINT_SESSION=sess_b")
	if err := a.Start(); err != nil {
		t.Fatal(err)
	}
	if err := b.Start(); err != nil {
		t.Fatal(err)
	}
	errA, errB := a.Wait(), b.Wait()
	if errA != nil || errB != nil {
		t.Fatalf("the recording processes: %v, %v", errA, errB)
	}

	// Every turn of both is recorded, with its own file as it was written.
	ctx := context.Background()
	r := repo(t, checkpoint.New(checkpoint.Options{Dir: dir}), root)
	for _, s := range []string{"sess_a", "sess_b"} {
		turns, err := r.Turns(ctx, s)
		if err != nil || len(turns) != 25 {
			t.Fatalf("Turns(%s) = %d turns, %v; want 25", s, len(turns), err)
		}
		for _, turn := range turns {
			st, err := r.State(ctx, turn.Before)
			if err != nil {
				t.Fatalf("State(%s turn %d): %v", s, turn.Turn, err)
			}
			data, err := r.Content(ctx, st.Files[s+".txt"])
			if want := fmt.Sprintf("%s %d", s, turn.Turn); err != nil || string(data) != want {
				t.Fatalf("%s turn %d: %s.txt = %q, %v; want %q", s, turn.Turn, s, data, err, want)
			}
		}
	}
	// And git itself finds the repository whole.
	if out, err := exec.Command("git", "--git-dir", dir+"/"+filepath.Base(r.Dir()), "fsck", "--full", "--no-dangling").CombinedOutput(); err != nil {
		t.Fatalf("git fsck: %v\n%s", err, out)
	}
}

func TestOtherProcessPruneIsNoticed(t *testing.T) {
	// This process remembers the blobs and trees of its last snapshot; when
	// another process deletes the session that held them, the next record
	// must store them again instead of naming objects that are gone.
	root := folder(t, map[string]string{"a.txt": "a\n", "sub/b.txt": "b\n"})
	dir := filepath.Join(t.TempDir(), "checkpoints")
	ctx := context.Background()
	r := repo(t, checkpoint.New(checkpoint.Options{Dir: dir}), root)
	if _, err := r.Record(ctx, checkpoint.Mark{Session: "sess_old", Turn: 1, Phase: checkpoint.Before}); err != nil {
		t.Fatal(err)
	}
	if err := second(t, "delete", dir, root, "HERMES_CHECKPOINT_SESSION=sess_old").Run(); err != nil {
		t.Fatalf("the deleting process: %v", err)
	}
	if _, err := r.Record(ctx, checkpoint.Mark{Session: "sess_new", Turn: 1, Phase: checkpoint.Before}); err != nil {
		t.Fatal(err)
	}
	turns, err := r.Turns(ctx, "sess_new")
	if err != nil || len(turns) != 1 {
		t.Fatalf("Turns = %d, %v", len(turns), err)
	}
	st, err := r.State(ctx, turns[0].Before)
	if err != nil {
		t.Fatalf("State of the new record: %v", err)
	}
	for rel, want := range map[string]string{"a.txt": "a\n", "sub/b.txt": "b\n"} {
		if data, err := r.Content(ctx, st.Files[rel]); err != nil || string(data) != want {
			t.Errorf("%s = %q, %v; want %q", rel, data, err, want)
		}
	}
}
