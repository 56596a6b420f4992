//go:build linux

package workspace

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"

	"golang.org/x/sys/unix"
)

// This file checks Resolve against the kernel: over generated trees of
// folders, files and symbolic links (inside, outside, absolute, dangling,
// through missing folders, looping) and paths with missing components and
// ".." in every position, the agent's resolution of every path must be what
// openat2(RESOLVE_BENEATH) opens, or a refusal; and no route (the disk, or
// an editor that follows symbolic links after normalising the path as
// Node's path.resolve does) may read or write outside the root.

// kernelResolve opens s below the directory rootfd as the kernel resolves
// it, refusing to leave it (RESOLVE_BENEATH), and returns the real path of
// what it opened.
//
// With RESOLVE_BENEATH, openat2 fails with EAGAIN when a rename (or a
// mount) anywhere on the system raced with its resolution of a ".." and it
// could not prove the path stayed beneath the root; openat2(2) says to
// retry, which this does. That is no answer about s, so it is never
// returned as one.
func kernelResolve(rootfd int, s string, beneath bool) (string, error) {
	how := unix.OpenHow{Flags: unix.O_PATH | unix.O_CLOEXEC}
	if beneath {
		how.Resolve = unix.RESOLVE_BENEATH | unix.RESOLVE_NO_MAGICLINKS
	}
	fd, err := unix.Openat2(rootfd, s, &how)
	for try := 1; errors.Is(err, unix.EAGAIN); try++ {
		if try == maxOpenat2Tries {
			return "", fmt.Errorf("openat2 %q: still EAGAIN after %d tries (renames racing with it): %w", s, try, err)
		}
		fd, err = unix.Openat2(rootfd, s, &how)
	}
	if err != nil {
		return "", err
	}
	defer unix.Close(fd)
	return os.Readlink(fmt.Sprintf("/proc/self/fd/%d", fd))
}

// maxOpenat2Tries bounds kernelResolve's retries on EAGAIN: enough to
// outlast any real burst of renames, finite so a kernel that always says
// EAGAIN fails the test instead of hanging it.
const maxOpenat2Tries = 10000

// followingEditor serves fs/read_text_file and fs/write_text_file the way a
// real editor does: it normalises the path lexically (Node's path.resolve)
// and then lets the kernel follow every symbolic link, creating missing
// parent folders on write. It records the real path of every file it
// touched.
type followingEditor struct {
	mu      sync.Mutex
	touched []string
}

func (e *followingEditor) record(p string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.touched = append(e.touched, realpath(p))
}

func (e *followingEditor) ReadTextFile(ctx context.Context, abs string) (string, error) {
	p := filepath.Clean(abs)
	e.record(p)
	b, err := os.ReadFile(p)
	if err != nil {
		return "", err // *PathError wraps fs.ErrNotExist for a missing file
	}
	return string(b), nil
}

func (e *followingEditor) WriteTextFile(ctx context.Context, abs, content string) error {
	p := filepath.Clean(abs)
	e.record(p)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return err
	}
	return os.WriteFile(p, []byte(content), 0o644)
}

// genTree builds, under base, a workspace ws with random folders, files and
// symbolic links, and a folder out beside it. It returns the names used, to
// build paths from.
func genTree(t testing.TB, rng *rand.Rand, base string) (ws, out string, names []string) {
	t.Helper()
	ws = filepath.Join(base, "ws")
	out = filepath.Join(base, "out")
	mustWrite(t, filepath.Join(out, "secret"), "outside secret\n")
	mustWrite(t, filepath.Join(out, "sub", "f"), "outside f\n")
	mustWrite(t, filepath.Join(ws, ".git", "config"), "[core]\n")
	mustWrite(t, filepath.Join(ws, ".env"), "KEY=1\n")
	dirs := []string{"."}
	for i := range 1 + rng.IntN(4) {
		d := filepath.Join(dirs[rng.IntN(len(dirs))], fmt.Sprintf("d%d", i))
		if err := os.MkdirAll(filepath.Join(ws, d), 0o755); err != nil {
			t.Fatal(err)
		}
		dirs = append(dirs, d)
	}
	var files []string
	for i := range 1 + rng.IntN(3) {
		f := filepath.Join(dirs[rng.IntN(len(dirs))], fmt.Sprintf("f%d", i))
		mustWrite(t, filepath.Join(ws, f), "inside "+f+"\n")
		files = append(files, f)
	}
	names = []string{"missing", "..", "..", ".", ".git", "config", ".env", "secret", "sub", "new.txt"}
	for i := range len(dirs) - 1 {
		names = append(names, fmt.Sprintf("d%d", i))
	}
	for i := range files {
		names = append(names, fmt.Sprintf("f%d", i))
	}
	for i := range 2 + rng.IntN(5) {
		dir := dirs[rng.IntN(len(dirs))]
		name := fmt.Sprintf("l%d", i)
		up := strings.Repeat("../", strings.Count(dir, string(filepath.Separator))+1)
		if dir == "." {
			up = ""
		}
		inside := append(slices.Clone(dirs), files...)
		var target string
		switch rng.IntN(10) {
		case 0: // relative, inside
			target = filepath.Join(up, inside[rng.IntN(len(inside))])
		case 1: // relative through a missing folder
			target = "missing/../" + filepath.Join(up, inside[rng.IntN(len(inside))])
		case 2: // relative, escaping
			target = up + "../out"
		case 3: // relative, escaping through a missing folder
			target = "missing/../" + up + "../out/secret"
		case 4: // absolute, outside
			target = out
		case 5: // absolute, inside
			target = filepath.Join(ws, inside[rng.IntN(len(inside))])
		case 6: // dangling
			target = "nope/x"
		case 7:
			target = filepath.Join(up, ".git")
		case 8: // a loop
			target = name
		default: // to another link, existing or not
			target = fmt.Sprintf("l%d", rng.IntN(6))
		}
		mustSymlink(t, target, filepath.Join(ws, dir, name))
		names = append(names, name)
	}
	return ws, out, names
}

// genPath joins one to seven random names; often it puts a missing folder
// and ".." (or a folder below a file and "..") somewhere in it.
func genPath(rng *rand.Rand, names []string) string {
	n := 1 + rng.IntN(7)
	parts := make([]string, n)
	for i := range parts {
		parts[i] = names[rng.IntN(len(names))]
	}
	if rng.IntN(2) == 0 {
		at := rng.IntN(n + 1)
		detour := []string{"missing", ".."}
		if rng.IntN(3) == 0 {
			detour = []string{"missing", "deeper", "..", ".."}
		}
		parts = slices.Insert(parts, at, detour...)
	}
	return strings.Join(parts, "/")
}

// treeSum hashes every name, link target and file content below dir.
func treeSum(t testing.TB, dir string) string {
	t.Helper()
	h := sha256.New()
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		fmt.Fprintf(h, "%s %v\n", p, d.Type())
		switch {
		case d.Type()&fs.ModeSymlink != 0:
			target, err := os.Readlink(p)
			if err != nil {
				return err
			}
			fmt.Fprintf(h, "-> %s\n", target)
		case d.Type().IsRegular():
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			h.Write(b)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return fmt.Sprintf("%x", h.Sum(nil))
}

// checkAgainstKernel compares Resolve(s) in the workspace w, whose cwd is
// roots[0] (open as rootfd) and whose real roots are roots, with the
// kernel's resolution of s below rootfd.
func checkAgainstKernel(t testing.TB, w *Workspace, rootfd int, roots []string, s string) (Path, bool) {
	t.Helper()
	p, err := w.Resolve(s)
	kreal, kerr := kernelResolve(rootfd, s, true)
	switch {
	case kerr == nil:
		// The kernel opened s without leaving the root: Resolve must name
		// the same file.
		if err != nil {
			t.Errorf("Resolve(%q) = %v; the kernel opens %s beneath the root", s, err, kreal)
			return Path{}, false
		}
		if p.Real() != kreal {
			t.Errorf("Resolve(%q) = %s; the kernel opens %s", s, p.Real(), kreal)
			return Path{}, false
		}
		return p, true
	case err != nil:
		return Path{}, false // both refuse (or the kernel finds nothing and Resolve refuses)
	case errors.Is(kerr, unix.EXDEV) || errors.Is(kerr, unix.ELOOP):
		// RESOLVE_BENEATH refuses absolute links even when they lead back
		// inside; without it, the kernel must open what Resolve named.
		plain, perr := kernelResolve(rootfd, s, false)
		if perr == nil {
			if plain != p.Real() {
				t.Errorf("Resolve(%q) = %s; the kernel (following absolute links) opens %s", s, p.Real(), plain)
				return Path{}, false
			}
			break
		}
		if !errors.Is(perr, unix.ENOENT) && !errors.Is(perr, unix.ENOTDIR) {
			t.Errorf("Resolve(%q) = %s; the kernel refuses it: %v", s, p.Real(), perr)
			return Path{}, false
		}
		fallthrough
	case errors.Is(kerr, unix.ENOENT) || errors.Is(kerr, unix.ENOTDIR):
		// Something on the way does not exist yet. What exists of Resolve's
		// answer must be free of symbolic links, so that whoever follows
		// it (the kernel, an editor) lands there, and it must be inside.
		if !filepath.IsLocal(filepath.FromSlash(p.Rel())) && p.Rel() != "." {
			t.Errorf("Resolve(%q).Rel() = %q is not local", s, p.Rel())
		}
		probe := p.Real()
		for {
			if _, err := os.Lstat(probe); err == nil {
				break
			}
			probe = filepath.Dir(probe)
		}
		if real, err := filepath.EvalSymlinks(probe); err != nil || real != probe {
			t.Errorf("Resolve(%q) = %s, whose existing part %s leads to %s (%v)", s, p.Real(), probe, real, err)
			return Path{}, false
		}
	default:
		t.Errorf("Resolve(%q) = %s; the kernel: %v", s, p.Real(), kerr)
		return Path{}, false
	}
	if !slices.ContainsFunc(roots, func(r string) bool { return isWithin(p.Real(), r) }) {
		t.Errorf("Resolve(%q) = %s, outside the roots %q", s, p.Real(), roots)
		return Path{}, false
	}
	return p, true
}

func TestResolveAgreesWithKernel(t *testing.T) {
	trees := 80
	if testing.Short() {
		trees = 20
	}
	for seed := range trees {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			t.Parallel()
			rng := rand.New(rand.NewPCG(uint64(seed), 9))
			base := realTempDir(t)
			ws, out, names := genTree(t, rng, base)
			outBefore := treeSum(t, out)
			w := openWS(t, ws, nil, Options{})
			rootfd, err := unix.Open(ws, unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
			if err != nil {
				t.Fatal(err)
			}
			defer unix.Close(rootfd)
			ed := &followingEditor{}
			files := NewFiles(w, ed, true, true)
			ctx := t.Context()
			for i := range 60 {
				s := genPath(rng, names)
				p, ok := checkAgainstKernel(t, w, rootfd, []string{ws}, s)
				if !ok {
					continue
				}
				// Every route uses the resolved Path: the editor (which
				// follows links) and the disk (os.Root).
				files.Read(ctx, p)
				w.ReadFile(p)
				if i%2 == 0 {
					files.Write(ctx, p, []byte("written by "+s+"\n"))
				} else {
					w.WriteFile(p, []byte("written by "+s+"\n"))
				}
			}
			if got := treeSum(t, out); got != outBefore {
				t.Errorf("the folder outside the workspace changed")
			}
			for _, p := range ed.touched {
				if !isWithin(p, ws) {
					t.Errorf("the editor was sent a path that leads to %s, outside %s", p, ws)
				}
			}
		})
	}
}

// TestFilesRecheckBeforeEditor swaps a folder of a resolved path for a
// symbolic link (out of the workspace, or to .git) after Resolve and before
// the editor is asked: Files refuses, and the editor, which would follow the
// link, is never sent the path.
func TestFilesRecheckBeforeEditor(t *testing.T) {
	for _, tc := range []struct {
		name   string
		target func(base string) string
	}{
		{"outside", func(base string) string { return filepath.Join(base, "out") }},
		{"relative outside", func(string) string { return "../out" }},
		{"into .git", func(string) string { return ".git" }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			base := realTempDir(t)
			ws := filepath.Join(base, "ws")
			mustWrite(t, filepath.Join(ws, "sub", "file.txt"), "inside\n")
			mustWrite(t, filepath.Join(ws, ".git", "file.txt"), "git\n")
			mustWrite(t, filepath.Join(base, "out", "file.txt"), "outside\n")
			w := openWS(t, ws, nil, Options{})
			ed := &followingEditor{}
			files := NewFiles(w, ed, true, true)
			p := mustResolve(t, w, "sub/file.txt")
			if err := os.Rename(filepath.Join(ws, "sub"), filepath.Join(ws, "stash")); err != nil {
				t.Fatal(err)
			}
			mustSymlink(t, tc.target(base), filepath.Join(ws, "sub"))

			if _, err := files.Write(t.Context(), p, []byte("pwned\n")); !errors.Is(err, ErrPathChanged) ||
				!strings.Contains(err.Error(), filepath.Join(ws, "sub")+" became a symbolic link since the path was checked") {
				t.Errorf("Files.Write after the swap = %v, want ErrPathChanged naming %s", err, filepath.Join(ws, "sub"))
			}
			if _, err := files.Read(t.Context(), p); !errors.Is(err, ErrPathChanged) {
				t.Errorf("Files.Read after the swap = %v, want ErrPathChanged", err)
			}
			if len(ed.touched) != 0 {
				t.Errorf("the editor was sent %q after the swap", ed.touched)
			}
			for _, f := range []string{filepath.Join(base, "out", "file.txt"), filepath.Join(ws, ".git", "file.txt")} {
				if b, _ := os.ReadFile(f); strings.Contains(string(b), "pwned") {
					t.Errorf("%s was written through the swapped link", f)
				}
			}
		})
	}
}

// The root as the editor names it (a symlink to the real folder) is
// checked too: when it is pointed elsewhere after Open, the editor is not
// asked.
func TestFilesRecheckRootAlias(t *testing.T) {
	base := realTempDir(t)
	real := filepath.Join(base, "real")
	other := filepath.Join(base, "other")
	alias := filepath.Join(base, "alias")
	mustWrite(t, filepath.Join(real, "a.txt"), "a\n")
	mustWrite(t, filepath.Join(other, "a.txt"), "other\n")
	mustSymlink(t, real, alias)
	w := openWS(t, alias, nil, Options{})
	ed := &followingEditor{}
	files := NewFiles(w, ed, true, true)
	p := mustResolve(t, w, "a.txt")
	if _, err := files.Write(t.Context(), p, []byte("ok\n")); err != nil {
		t.Fatalf("Files.Write before the swap = %v", err)
	}
	if err := os.Remove(alias); err != nil {
		t.Fatal(err)
	}
	mustSymlink(t, other, alias)
	if _, err := files.Write(t.Context(), p, []byte("pwned\n")); !errors.Is(err, ErrPathChanged) {
		t.Errorf("Files.Write after the root was swapped = %v, want ErrPathChanged", err)
	}
	if b, _ := os.ReadFile(filepath.Join(other, "a.txt")); string(b) != "other\n" {
		t.Errorf("%s = %q after the refused write, want it untouched", filepath.Join(other, "a.txt"), b)
	}
}

func FuzzResolve(f *testing.F) {
	fx := newResolveFixture(f)
	for _, s := range []string{
		"a/../../b", "../outside/secret", "out/secret", "abs-out", "link-in/../../outside",
		"/proc/self/root/etc", "/dev/fd/0", "file:///etc/passwd", "file://" + fx.alias + "/src",
		"~/x", "to-extra/../../outside/secret", "dotdot/../outside", "sub/up/../../..", "loop1",
		"src/nope/../../../outside", "zero", "%2e%2e/x", "file:///" + fx.alias + "/%2e%2e/outside",
		"nope/../out/secret", "nope/a/../../abs-out/x", "sneaky/secret", "file.txt/../out", "src/x/y/../../../to-extra/notes.md",
		"nope/../link-in/../out",
	} {
		f.Add(s)
	}
	rootsReal := []string{fx.ws, fx.extra}
	rootfd, err := unix.Open(fx.ws, unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(func() { unix.Close(rootfd) })
	f.Fuzz(func(t *testing.T, s string) {
		// A plain relative path is resolved by the kernel too, and the
		// answers must agree (see checkAgainstKernel).
		if s != "" && !strings.ContainsAny(s, "\x00:~") && !filepath.IsAbs(s) && strings.TrimSpace(s) == s {
			checkAgainstKernel(t, fx.w, rootfd, rootsReal, s)
		}
		p, err := fx.w.Resolve(s)
		if err != nil {
			return
		}
		if !filepath.IsLocal(filepath.FromSlash(p.Rel())) && p.Rel() != "." {
			t.Fatalf("Resolve(%q).Rel() = %q is not local", s, p.Rel())
		}
		inside := false
		for _, r := range rootsReal {
			if isWithin(p.Real(), r) {
				inside = true
			}
		}
		if !inside {
			t.Fatalf("Resolve(%q) = %q escapes the roots", s, p.Real())
		}
		// The deepest existing ancestor, with every symlink resolved by the
		// kernel, must still be inside a root.
		probe := p.Real()
		for {
			_, err := os.Lstat(probe)
			if err == nil {
				break
			}
			if !errors.Is(err, fs.ErrNotExist) && !errors.Is(err, syscall.ENOTDIR) {
				return
			}
			probe = filepath.Dir(probe)
		}
		real, err := filepath.EvalSymlinks(probe)
		if err != nil {
			return
		}
		for _, r := range rootsReal {
			if isWithin(real, r) {
				return
			}
		}
		t.Fatalf("Resolve(%q) = %q, whose existing part %q leads to %q outside the roots", s, p.Real(), probe, real)
	})
}
