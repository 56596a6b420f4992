package checkpoint

import (
	"bytes"
	"context"
	"encoding/gob"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"

	"github.com/hermes-acp/hermes-acp/internal/atomicfile"
	"github.com/hermes-acp/hermes-acp/workspace"
)

// The paths a checkpoint leaves out whatever the folder's .gitignore
// files say (hermes-agent's checkpoint exclusions, matched by name at any
// depth): dependency and build outputs, caches, virtual environments,
// other version-control folders, compiled binaries, media and archives,
// secrets, OS junk and logs. They are tested by name, not as gitignore
// patterns: a regular-expression match of each of them on every file was
// most of a snapshot's time.
var (
	excludedDirs = set("node_modules", "dist", "build", "target", "out", ".next", ".nuxt",
		"__pycache__", ".cache", ".pytest_cache", ".mypy_cache", ".ruff_cache", "coverage",
		".venv", "venv", "env", ".git", ".hg", ".svn", ".worktrees")
	excludedFiles    = set(".coverage", ".env", ".DS_Store", "Thumbs.db")
	excludedSuffixes = []string{".pyc", ".pyo", ".so", ".dylib", ".dll", ".o", ".a", ".jar", ".class", ".exe", ".obj",
		".mp4", ".mov", ".mkv", ".webm", ".zip", ".tar", ".tgz", ".7z", ".rar", ".iso", ".log"}
)

func set(names ...string) map[string]bool {
	m := make(map[string]bool, len(names))
	for _, n := range names {
		m[n] = true
	}
	return m
}

// excluded reports whether the checkpoint exclusions leave out the file or
// folder called name.
func excluded(name string, isDir bool) bool {
	if isDir {
		return excludedDirs[name]
	}
	if excludedFiles[name] || strings.HasPrefix(name, ".env.") {
		return true
	}
	for _, s := range excludedSuffixes {
		if strings.HasSuffix(name, s) {
			return true
		}
	}
	return false
}

// File is one file of a recorded state.
type File struct {
	// ID is the git blob id of the content (hex).
	ID string
	// Mode is 0o644, or 0o755 for an executable file.
	Mode fs.FileMode
}

// State is the recorded (or current) content of a folder.
type State struct {
	// Tree is the git tree id (hex).
	Tree string
	// Files are the recorded files by slash path relative to the folder.
	Files map[string]File
	// Skipped are the files left out for their size (bytes by path); only
	// a snapshot of the folder has them, not a state read back.
	Skipped map[string]int64
}

// statCache remembers, from the last snapshot, each file's size,
// modification time and mode with its blob id, so that unchanged files are
// not read again. It is stored next to the repository.
type statCache struct {
	Files map[string]statEntry
}

type statEntry struct {
	Size  int64
	MTime int64 // nanoseconds
	Mode  fs.FileMode
	ID    plumbing.Hash
}

const statFile = "hermes-statcache"

// racyWindow: a file modified this close to its snapshot may change again
// within the same modification time; it is read again next time (git's
// "racy" entries).
const racyWindow = 2 * time.Second

func (r *Repo) loadStats() {
	if r.stats != nil {
		return
	}
	r.stats = &statCache{Files: map[string]statEntry{}}
	data, err := os.ReadFile(filepath.Join(r.dir, statFile))
	if err != nil {
		return
	}
	var c statCache
	if gob.NewDecoder(bytes.NewReader(data)).Decode(&c) == nil && c.Files != nil {
		r.stats = &c
	}
}

func (r *Repo) saveStats() {
	var buf bytes.Buffer
	if err := gob.NewEncoder(&buf).Encode(r.stats); err != nil {
		return
	}
	if err := atomicfile.Write(filepath.Join(r.dir, statFile), buf.Bytes(), 0o600); err != nil {
		r.m.log.Debug("save checkpoint stat cache", "dir", r.dir, "error", err)
	}
}

// dropStats forgets the stat cache (after objects were pruned: the blobs
// it names may be gone).
func (r *Repo) dropStats() {
	r.stats = &statCache{Files: map[string]statEntry{}}
	r.trees = map[plumbing.Hash]bool{}
	_ = os.Remove(filepath.Join(r.dir, statFile))
}

// snapshot records the folder's files as they are now: their blobs and
// trees are stored; no commit is made. The caller holds the repository.
func (r *Repo) snapshot(ctx context.Context) (*State, error) {
	r.loadStats()
	st := &State{Files: map[string]File{}, Skipped: map[string]int64{}}
	start := time.Now()
	next := make(map[string]statEntry, len(r.stats.Files))
	ign := workspace.NewIgnoreMatcher()
	count, reread := 0, 0
	var walk func(dir string) error
	walk = func(dir string) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		abs := filepath.Join(r.root, filepath.FromSlash(dir))
		entries, err := os.ReadDir(abs)
		if err != nil {
			if dir != "." && (errors.Is(err, fs.ErrNotExist) || errors.Is(err, fs.ErrPermission)) {
				return nil // removed meanwhile, or unreadable: not recorded
			}
			return fmt.Errorf("checkpoint: read %s: %w", abs, err)
		}
		var gi []byte
		for _, e := range entries {
			if e.Name() == ".gitignore" && e.Type().IsRegular() {
				gi, _ = os.ReadFile(filepath.Join(abs, ".gitignore"))
			}
		}
		if len(gi) > 0 {
			ign.Set(dir, gi)
		}
		for _, e := range entries {
			name := e.Name()
			if name == ".git" || strings.HasPrefix(name, atomicfile.Prefix) {
				continue
			}
			rel := name
			if dir != "." {
				rel = dir + "/" + name
			}
			switch t := e.Type(); {
			case t.IsDir():
				if excluded(name, true) || ign.Excluded(rel, true) {
					continue
				}
				if err := walk(rel); err != nil {
					return err
				}
			case t.IsRegular():
				if excluded(name, false) || ign.Excluded(rel, false) {
					continue
				}
				fi, err := e.Info()
				if err != nil {
					continue // removed meanwhile
				}
				if max := r.m.opts.MaxFileBytes; max >= 0 && fi.Size() > max {
					st.Skipped[rel] = fi.Size()
					continue
				}
				if count++; count > r.m.opts.MaxFiles {
					return fmt.Errorf("%w: %s has more than %d files (checkpoints.max_files)", ErrTooManyFiles, r.root, r.m.opts.MaxFiles)
				}
				mode := fs.FileMode(0o644)
				if fi.Mode().Perm()&0o111 != 0 {
					mode = 0o755
				}
				se := statEntry{Size: fi.Size(), MTime: fi.ModTime().UnixNano(), Mode: mode}
				if c, ok := r.stats.Files[rel]; ok && c.Size == se.Size && c.MTime == se.MTime && c.Mode == se.Mode {
					se.ID = c.ID
				} else {
					id, err := r.storeFile(filepath.Join(abs, name))
					if errors.Is(err, fs.ErrNotExist) {
						continue
					}
					if err != nil {
						return err
					}
					se.ID = id
					reread++
				}
				st.Files[rel] = File{ID: se.ID.String(), Mode: mode}
				if start.Sub(fi.ModTime()) > racyWindow {
					next[rel] = se
				}
			}
			// Symbolic links, devices, pipes and sockets are not recorded.
		}
		return nil
	}
	if err := walk("."); err != nil {
		return nil, err
	}
	tree, err := r.writeTree(st.Files)
	if err != nil {
		return nil, err
	}
	st.Tree = tree.String()
	if reread > 0 || len(next) != len(r.stats.Files) {
		r.stats.Files = next
		r.saveStats() // unchanged otherwise: no need to write it again
	}
	return st, nil
}

// storeFile stores the content of the file at abs as a blob.
func (r *Repo) storeFile(abs string) (plumbing.Hash, error) {
	data, err := os.ReadFile(abs)
	if err != nil {
		return plumbing.ZeroHash, err
	}
	return r.storeBlob(data)
}

// storeBlob stores data as a blob unless the repository has it.
func (r *Repo) storeBlob(data []byte) (plumbing.Hash, error) {
	id := plumbing.ComputeHash(plumbing.BlobObject, data)
	if r.st.HasEncodedObject(id) == nil {
		return id, nil
	}
	obj := r.st.NewEncodedObject()
	obj.SetType(plumbing.BlobObject)
	obj.SetSize(int64(len(data)))
	w, err := obj.Writer()
	if err != nil {
		return plumbing.ZeroHash, err
	}
	if _, err := w.Write(data); err != nil {
		return plumbing.ZeroHash, err
	}
	if err := w.Close(); err != nil {
		return plumbing.ZeroHash, err
	}
	if _, err := r.st.SetEncodedObject(obj); err != nil {
		return plumbing.ZeroHash, fmt.Errorf("checkpoint: store a blob: %w", err)
	}
	return id, nil
}

// dirNode is a folder of a state while its trees are built.
type dirNode struct {
	files map[string]File
	dirs  map[string]*dirNode
}

// writeTree stores the trees of files and returns the top one's id.
func (r *Repo) writeTree(files map[string]File) (plumbing.Hash, error) {
	top := &dirNode{files: map[string]File{}, dirs: map[string]*dirNode{}}
	for rel, f := range files {
		n := top
		dir, name := path.Split(rel)
		if dir != "" {
			for _, c := range strings.Split(strings.TrimSuffix(dir, "/"), "/") {
				sub := n.dirs[c]
				if sub == nil {
					sub = &dirNode{files: map[string]File{}, dirs: map[string]*dirNode{}}
					n.dirs[c] = sub
				}
				n = sub
			}
		}
		n.files[name] = f
	}
	return r.storeTree(top)
}

func (r *Repo) storeTree(n *dirNode) (plumbing.Hash, error) {
	entries := make([]object.TreeEntry, 0, len(n.files)+len(n.dirs))
	for name, f := range n.files {
		m := filemode.Regular
		if f.Mode&0o111 != 0 {
			m = filemode.Executable
		}
		entries = append(entries, object.TreeEntry{Name: name, Mode: m, Hash: plumbing.NewHash(f.ID)})
	}
	for name, d := range n.dirs {
		id, err := r.storeTree(d)
		if err != nil {
			return plumbing.ZeroHash, err
		}
		entries = append(entries, object.TreeEntry{Name: name, Mode: filemode.Dir, Hash: id})
	}
	// git's order: names compared as if folders ended with "/".
	key := func(e object.TreeEntry) string {
		if e.Mode == filemode.Dir {
			return e.Name + "/"
		}
		return e.Name
	}
	sort.Slice(entries, func(i, j int) bool { return key(entries[i]) < key(entries[j]) })
	obj := r.st.NewEncodedObject()
	if err := (&object.Tree{Entries: entries}).Encode(obj); err != nil {
		return plumbing.ZeroHash, err
	}
	id := obj.Hash()
	if r.trees[id] {
		return id, nil
	}
	if r.st.HasEncodedObject(id) != nil {
		if _, err := r.st.SetEncodedObject(obj); err != nil {
			return plumbing.ZeroHash, fmt.Errorf("checkpoint: store a tree: %w", err)
		}
	}
	r.trees[id] = true
	return id, nil
}

// readState reads the recorded state of the tree id back.
func (r *Repo) readState(id plumbing.Hash) (*State, error) {
	st := &State{Tree: id.String(), Files: map[string]File{}}
	var read func(prefix string, id plumbing.Hash) error
	read = func(prefix string, id plumbing.Hash) error {
		t, err := object.GetTree(r.st, id)
		if err != nil {
			return damage(fmt.Errorf("read tree %s: %w", id, err))
		}
		for _, e := range t.Entries {
			rel := prefix + e.Name
			switch e.Mode {
			case filemode.Dir:
				if err := read(rel+"/", e.Hash); err != nil {
					return err
				}
			case filemode.Executable:
				st.Files[rel] = File{ID: e.Hash.String(), Mode: 0o755}
			default:
				st.Files[rel] = File{ID: e.Hash.String(), Mode: 0o644}
			}
		}
		return nil
	}
	if err := read("", id); err != nil {
		return nil, err
	}
	return st, nil
}

// blob returns the content of the blob id.
func (r *Repo) blob(id string) ([]byte, error) {
	b, err := object.GetBlob(r.st, plumbing.NewHash(id))
	if err != nil {
		return nil, damage(fmt.Errorf("read blob %s: %w", id, err))
	}
	rd, err := b.Reader()
	if err != nil {
		return nil, damage(fmt.Errorf("read blob %s: %w", id, err))
	}
	defer rd.Close()
	var buf bytes.Buffer
	buf.Grow(int(b.Size))
	if _, err := buf.ReadFrom(rd); err != nil {
		return nil, damage(fmt.Errorf("read blob %s: %w", id, err))
	}
	return buf.Bytes(), nil
}
