package workspace

import (
	"errors"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
)

// realTempDir returns a fresh temporary directory with symlinks resolved.
func realTempDir(t testing.TB) string {
	t.Helper()
	d, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// openWS opens a workspace on cwd (and extra) with a fake home, a Hermes
// home inside it and the given options otherwise.
func openWS(t testing.TB, cwd string, extra []string, opts Options) *Workspace {
	t.Helper()
	if opts.Home == "" {
		opts.Home = filepath.Join(realTempDir(t), "home")
		if err := os.MkdirAll(opts.Home, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if opts.HermesHome == "" {
		opts.HermesHome = filepath.Join(opts.Home, ".hermes")
	}
	w, err := Open(cwd, extra, opts)
	if err != nil {
		t.Fatalf("Open(%q, %q) = %v", cwd, extra, err)
	}
	t.Cleanup(func() { w.Close() })
	return w
}

func mustWrite(t testing.TB, p, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func mustSymlink(t testing.TB, target, link string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(link), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
}

// resolveFixture builds:
//
//	base/ws/            cwd root
//	  src/main.go
//	  link-in -> src               (relative, inside)
//	  abs-in -> base/ws/src        (absolute, inside)
//	  to-extra -> base/extra       (absolute, into the other root)
//	  out -> ../outside            (relative, escapes)
//	  abs-out -> base/outside      (absolute, escapes)
//	  zero -> /dev/zero
//	  loop1 -> loop2, loop2 -> loop1
//	  dotdot -> src/..             (resolves to ws itself)
//	  sub/up -> ../src             (relative with ..)
//	  sneaky -> nope/../out        (through a missing folder, escapes)
//	  file.txt
//	  my file%.txt
//	base/extra/         additional root
//	  notes.md
//	base/outside/secret
//	base/alias -> base/ws          (the editor's spelling of the cwd)
type resolveFixture struct {
	base, ws, extra, outside, alias string
	w                               *Workspace
}

func newResolveFixture(t testing.TB) resolveFixture {
	t.Helper()
	base := realTempDir(t)
	f := resolveFixture{
		base:    base,
		ws:      filepath.Join(base, "ws"),
		extra:   filepath.Join(base, "extra"),
		outside: filepath.Join(base, "outside"),
		alias:   filepath.Join(base, "alias"),
	}
	mustWrite(t, filepath.Join(f.ws, "src", "main.go"), "package main\n")
	mustWrite(t, filepath.Join(f.ws, "file.txt"), "x")
	mustWrite(t, filepath.Join(f.ws, "my file%.txt"), "x")
	mustWrite(t, filepath.Join(f.extra, "notes.md"), "# notes\n")
	mustWrite(t, filepath.Join(f.outside, "secret"), "s3cret")
	mustSymlink(t, "src", filepath.Join(f.ws, "link-in"))
	mustSymlink(t, filepath.Join(f.ws, "src"), filepath.Join(f.ws, "abs-in"))
	mustSymlink(t, f.extra, filepath.Join(f.ws, "to-extra"))
	mustSymlink(t, "../outside", filepath.Join(f.ws, "out"))
	mustSymlink(t, f.outside, filepath.Join(f.ws, "abs-out"))
	mustSymlink(t, "/dev/zero", filepath.Join(f.ws, "zero"))
	mustSymlink(t, "loop2", filepath.Join(f.ws, "loop1"))
	mustSymlink(t, "loop1", filepath.Join(f.ws, "loop2"))
	mustSymlink(t, "src/..", filepath.Join(f.ws, "dotdot"))
	mustSymlink(t, "../src", filepath.Join(f.ws, "sub", "up"))
	mustSymlink(t, "nope/../out", filepath.Join(f.ws, "sneaky"))
	mustSymlink(t, f.ws, f.alias)
	f.w = openWS(t, f.alias, []string{f.extra}, Options{})
	return f
}

func TestResolve(t *testing.T) {
	f := newResolveFixture(t)
	for _, tc := range []struct {
		name     string
		in       string
		wantRoot string // "" when an error is expected
		wantRel  string
		wantErr  error
	}{
		{"relative", "src/main.go", f.alias, "src/main.go", nil},
		{"dot relative", "./src/../src/main.go", f.alias, "src/main.go", nil},
		{"cwd itself", ".", f.alias, ".", nil},
		{"absolute via alias", filepath.Join(f.alias, "src/main.go"), f.alias, "src/main.go", nil},
		{"absolute via real dir", filepath.Join(f.ws, "src/main.go"), f.alias, "src/main.go", nil},
		{"extra root", filepath.Join(f.extra, "notes.md"), f.extra, "notes.md", nil},
		{"new file", "src/new/deeper/x.go", f.alias, "src/new/deeper/x.go", nil},
		{"new file with dotdot after missing dir", "src/nope/../ok.go", f.alias, "src/ok.go", nil},
		{"file uri", "file://" + filepath.Join(f.alias, "src/main.go"), f.alias, "src/main.go", nil},
		{"file uri localhost", "file://localhost" + filepath.Join(f.ws, "file.txt"), f.alias, "file.txt", nil},
		{"file uri percent", "file://" + filepath.Join(f.alias, "my%20file%25.txt"), f.alias, "my file%.txt", nil},
		{"file uri fragment dropped", "FILE://" + filepath.Join(f.alias, "file.txt") + "#L10", f.alias, "file.txt", nil},
		{"symlink inside relative", "link-in/main.go", f.alias, "src/main.go", nil},
		{"symlink inside absolute", "abs-in/main.go", f.alias, "src/main.go", nil},
		{"symlink into other root", "to-extra/notes.md", f.extra, "notes.md", nil},
		{"symlink then dotdot", "link-in/../file.txt", f.alias, "file.txt", nil},
		{"symlink to dir with dotdot", "dotdot/file.txt", f.alias, "file.txt", nil},
		{"relative symlink with dotdot", "sub/up/main.go", f.alias, "src/main.go", nil},
		{"tilde home outside", "~/x", "", "", ErrOutsideWorkspace},
		{"tilde user is a name", "~user", f.alias, "~user", nil},
		{"empty", "", "", "", ErrEmptyPath},
		{"blank", "  \t", "", "", ErrEmptyPath},
		{"nul", "src/\x00main.go", "", "", ErrInvalidPath},
		{"dotdot escape", "../outside/secret", "", "", ErrOutsideWorkspace},
		{"dotdot deep escape", "src/../../outside/secret", "", "", ErrOutsideWorkspace},
		{"absolute elsewhere", "/etc/passwd", "", "", ErrOutsideWorkspace},
		{"absolute sibling of root", filepath.Join(f.base, "outside", "secret"), "", "", ErrOutsideWorkspace},
		{"parent of root", f.base, "", "", ErrOutsideWorkspace},
		{"new path escaping after missing dir", "nope/../../outside/x", "", "", ErrOutsideWorkspace},
		// A ".." after a missing folder returns to the resolved folder
		// before it, and the walk goes on through the file system: the
		// symlink after it is followed as the kernel (and an editor) would.
		{"missing dir then symlink out", "nope/../out/secret", "", "", ErrOutsideWorkspace},
		{"missing dir then symlink out, new file", "nope/../abs-out/new.txt", "", "", ErrOutsideWorkspace},
		{"deep missing dirs then symlink out", "nope/a/b/../../../out", "", "", ErrOutsideWorkspace},
		{"missing dir inside symlink target", "sneaky/secret", "", "", ErrOutsideWorkspace},
		{"missing dir then symlink inside", "nope/../link-in/main.go", f.alias, "src/main.go", nil},
		{"missing dirs then symlink into other root", "src/x/y/../../../to-extra/notes.md", f.extra, "notes.md", nil},
		{"missing dir then dotdot twice stays missing-free", "nope/x/../../src/new.go", f.alias, "src/new.go", nil},
		{"below a file then dotdot", "file.txt/x/../../link-in/main.go", f.alias, "src/main.go", nil},
		{"missing dir then symlink to dev zero", "nope/../zero", "", "", ErrSpecialFile},
		{"symlink out relative", "out/secret", "", "", ErrOutsideWorkspace},
		{"symlink out absolute", "abs-out/secret", "", "", ErrOutsideWorkspace},
		{"symlink out itself", "out", "", "", ErrOutsideWorkspace},
		{"proc self root", "/proc/self/root" + filepath.Join(f.ws, "file.txt"), "", "", ErrOutsideWorkspace},
		{"proc self cwd", "/proc/self/cwd/file.txt", "", "", ErrOutsideWorkspace},
		{"dev fd", "/dev/fd/3", "", "", ErrOutsideWorkspace},
		{"dev zero literal", "/dev/zero", "", "", ErrSpecialFile},
		{"dev stdin literal", "/dev/stdin", "", "", ErrSpecialFile},
		{"proc environ literal", "/proc/self/environ", "", "", ErrSpecialFile},
		{"proc task maps literal", "/proc/1/task/1/maps", "", "", ErrSpecialFile},
		{"symlink to dev zero", "zero", "", "", ErrSpecialFile},
		{"symlink loop", "loop1/x", "", "", ErrInvalidPath},
		{"http scheme", "http://example.com/a", "", "", ErrUnsupportedScheme},
		{"ssh scheme", "ssh://host/etc/passwd", "", "", ErrUnsupportedScheme},
		{"file uri remote host", "file://server/share/x", "", "", ErrInvalidPath},
		{"file uri relative", "file:src/main.go", "", "", ErrInvalidPath},
		{"file uri bad escape", "file:///a/%zz", "", "", ErrInvalidPath},
		{"file uri nul", "file://" + f.alias + "/a%00b", "", "", ErrInvalidPath},
		{"file uri query", "file://" + f.alias + "/a?b", "", "", ErrInvalidPath},
		{"file uri outside", "file:///etc/passwd", "", "", ErrOutsideWorkspace},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, err := f.w.Resolve(tc.in)
			if tc.wantErr != nil {
				if !errors.Is(err, tc.wantErr) {
					t.Fatalf("Resolve(%q) = %v, %v; want error %v", tc.in, p, err, tc.wantErr)
				}
				var pe *Error
				if !errors.As(err, &pe) || pe.Msg == "" {
					t.Errorf("Resolve(%q) error %v is not a *Error with a message", tc.in, err)
				}
				return
			}
			if err != nil {
				t.Fatalf("Resolve(%q) error = %v", tc.in, err)
			}
			if p.Root() != tc.wantRoot || p.Rel() != tc.wantRel {
				t.Errorf("Resolve(%q) = root %q rel %q, want root %q rel %q", tc.in, p.Root(), p.Rel(), tc.wantRoot, tc.wantRel)
			}
			wantAbs := filepath.Join(tc.wantRoot, filepath.FromSlash(tc.wantRel))
			if p.Abs() != wantAbs {
				t.Errorf("Resolve(%q).Abs() = %q, want %q", tc.in, p.Abs(), wantAbs)
			}
		})
	}
}

func TestResolveMessages(t *testing.T) {
	f := newResolveFixture(t)
	for _, tc := range []struct {
		in   string
		want []string
	}{
		{"/etc/passwd", []string{"path '/etc/passwd' is outside the workspace (roots: " + f.alias + ", " + f.extra + ")"}},
		{"../outside/secret", []string{"path '../outside/secret' resolves to '" + filepath.Join(f.base, "outside", "secret") + "'", "outside the workspace"}},
		{"out/secret", []string{"symbolic link '" + filepath.Join(f.alias, "out") + "'", "outside the workspace"}},
		{"/dev/zero", []string{"Cannot read '/dev/zero': this is a device file that would block or produce infinite output."}},
		{"", []string{"path is empty"}},
		{"http://x/y", []string{"unsupported URI scheme \"http\""}},
	} {
		_, err := f.w.Resolve(tc.in)
		if err == nil {
			t.Errorf("Resolve(%q) succeeded, want an error", tc.in)
			continue
		}
		for _, w := range tc.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("Resolve(%q) error = %q, want it to contain %q", tc.in, err, w)
			}
		}
	}
}

func TestResolveTilde(t *testing.T) {
	home := realTempDir(t)
	mustWrite(t, filepath.Join(home, "proj", "a.txt"), "a")
	w := openWS(t, home, nil, Options{Home: home})
	for _, in := range []string{"~/proj/a.txt", "proj/a.txt", home + "/proj/a.txt"} {
		p, err := w.Resolve(in)
		if err != nil {
			t.Fatalf("Resolve(%q) error = %v", in, err)
		}
		if p.Rel() != "proj/a.txt" {
			t.Errorf("Resolve(%q).Rel() = %q, want proj/a.txt", in, p.Rel())
		}
	}
	p, err := w.Resolve("~")
	if err != nil || !p.IsRoot() {
		t.Errorf("Resolve(~) = %v, %v; want the root", p, err)
	}
}

func TestResolveSpecialFiles(t *testing.T) {
	dir := realTempDir(t)
	fifo := filepath.Join(dir, "pipe")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skipf("mkfifo unavailable: %v", err)
	}
	sock := filepath.Join(dir, "s.sock")
	l, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatalf("listen unix: %v", err)
	}
	defer l.Close()
	w := openWS(t, dir, nil, Options{})
	for _, tc := range []struct{ in, kind string }{{"pipe", "named pipe"}, {"s.sock", "socket"}} {
		_, err := w.Resolve(tc.in)
		if !errors.Is(err, ErrSpecialFile) || !strings.Contains(err.Error(), tc.kind) {
			t.Errorf("Resolve(%q) = %v, want ErrSpecialFile mentioning %q", tc.in, err, tc.kind)
		}
	}
}

func TestResolveRootSlash(t *testing.T) {
	// A workspace may be "/" (or $HOME): absolute system paths then resolve,
	// and the device guard still applies to the literal path.
	w := openWS(t, "/", nil, Options{})
	p, err := w.Resolve("/etc/hostname-does-not-matter")
	if err != nil || p.Rel() != "etc/hostname-does-not-matter" {
		t.Errorf("Resolve = %v, %v; want etc/hostname-does-not-matter", p, err)
	}
	if _, err := w.Resolve("/dev/urandom"); !errors.Is(err, ErrSpecialFile) {
		t.Errorf("Resolve(/dev/urandom) = %v, want ErrSpecialFile", err)
	}
	if _, err := w.Resolve("/dev/null"); !errors.Is(err, ErrSpecialFile) {
		t.Errorf("Resolve(/dev/null) = %v, want ErrSpecialFile (a device file)", err)
	}
}

func TestPathAccessors(t *testing.T) {
	f := newResolveFixture(t)
	p, err := f.w.Resolve("my file%.txt")
	if err != nil {
		t.Fatal(err)
	}
	if got, want := p.URI(), "file://"+f.alias+"/my%20file%25.txt"; got != want {
		t.Errorf("URI() = %q, want %q", got, want)
	}
	if got, want := p.Real(), filepath.Join(f.ws, "my file%.txt"); got != want {
		t.Errorf("Real() = %q, want %q", got, want)
	}
	if p.Base() != "my file%.txt" || p.String() != p.Abs() || p.IsZero() || p.IsRoot() {
		t.Errorf("accessors of %v wrong: Base %q String %q IsZero %v IsRoot %v", p, p.Base(), p.String(), p.IsZero(), p.IsRoot())
	}
	back, err := f.w.Resolve(p.URI())
	if err != nil || back != p {
		t.Errorf("Resolve(URI()) = %v, %v; want %v", back, err, p)
	}
	if !(Path{}).IsZero() {
		t.Error("zero Path is not IsZero")
	}
}

// TestRootBlocksSymlinkSwap races writes against a goroutine that keeps
// replacing a directory in the workspace with a symlink to a directory
// outside it. Resolve ran while the directory was real; os.Root must keep
// every write inside the root.
func TestRootBlocksSymlinkSwap(t *testing.T) {
	base := realTempDir(t)
	ws := filepath.Join(base, "ws")
	outside := filepath.Join(base, "outside")
	for _, d := range []string{filepath.Join(ws, "sub"), outside} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	w := openWS(t, ws, nil, Options{})
	p, err := w.Resolve("sub/file.txt")
	if err != nil {
		t.Fatal(err)
	}
	sub := filepath.Join(ws, "sub")
	stash := filepath.Join(ws, "stash")
	links := []string{filepath.Join(ws, "abs-link"), filepath.Join(ws, "rel-link")}
	mustSymlink(t, outside, links[0])
	mustSymlink(t, "../outside", links[1])

	var stop atomic.Bool
	var wg sync.WaitGroup
	wg.Go(func() {
		for i := 0; !stop.Load(); i++ {
			link := links[i%2]
			tmp := link + ".tmp"
			os.Remove(tmp)
			target, _ := os.Readlink(link)
			os.Symlink(target, tmp)
			os.RemoveAll(stash)
			if os.Rename(sub, stash) != nil {
				continue
			}
			os.Rename(tmp, sub) // sub is now a symlink out
			os.Remove(sub)
			os.Rename(stash, sub) // and a directory again
		}
	})
	for i := 0; i < 300; i++ {
		w.WriteFile(p, []byte("data")) // failures are fine; escapes are not
		w.ReadFile(p)
	}
	stop.Store(true)
	wg.Wait()
	entries, err := os.ReadDir(outside)
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 0 {
		names := make([]string, len(entries))
		for i, e := range entries {
			names[i] = e.Name()
		}
		t.Fatalf("files written outside the workspace: %v", names)
	}
}

func BenchmarkResolve(b *testing.B) {
	fx := newResolveFixture(b)
	for _, in := range []string{"src/main.go", "link-in/main.go", "src/new/deeper/x.go"} {
		b.Run(in, func(b *testing.B) {
			for b.Loop() {
				if _, err := fx.w.Resolve(in); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func TestRelWithin(t *testing.T) {
	for _, tc := range []struct {
		p, dir, want string
		ok           bool
	}{
		{"/a/b", "/a", "b", true},
		{"/a", "/a", ".", true},
		{"/a/b/c", "/a", "b/c", true},
		{"/ab", "/a", "", false},
		{"/a", "/a/b", "", false},
		{"/a/", "/a", "", false}, // not clean
		{"/x", "/", "x", true},
		{"/", "/", ".", true},
		{"/a/b", "/a/", "b", true},
	} {
		if got, ok := relWithin(tc.p, tc.dir); got != tc.want || ok != tc.ok {
			t.Errorf("relWithin(%q, %q) = %q, %v; want %q, %v", tc.p, tc.dir, got, ok, tc.want, tc.ok)
		}
	}
}
