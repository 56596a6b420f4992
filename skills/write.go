package skills

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/hermes-acp/hermes-acp/internal/atomicfile"
	"github.com/hermes-acp/hermes-acp/workspace"
)

// Target is a file in a skills root that a change writes or removes.
type Target struct {
	Root Root
	Rel  string // slash-separated, relative to Root.Dir; never "..", never absolute
}

// Abs returns the target's absolute path.
func (t Target) Abs() string { return filepath.Join(t.Root.Dir, filepath.FromSlash(t.Rel)) }

// In returns the target rel (slash-separated, relative to the skill's
// folder) of skill s.
func (s Skill) In(rel string) Target { return Target{Root: s.Root, Rel: path.Join(s.Rel, rel)} }

// NewSkillTarget returns where a new skill called name, in category ("" for
// none), keeps its SKILL.md: in the user's root. It fails when the library
// has no user root.
func (l *Library) NewSkillTarget(name, category string) (Target, error) {
	if l.user == "" {
		return Target{}, errors.New("no user skills folder is configured (HERMES_HOME)")
	}
	rel := path.Join(name, FileName)
	if category != "" {
		rel = path.Join(category, rel)
	}
	return Target{Root: Root{Dir: l.user, Source: SourceUser}, Rel: rel}, nil
}

// checkRel refuses a target path that is not a clean relative path.
func checkRel(rel string) error {
	if rel == "" || rel == "." || isAbsolute(rel) || hasTraversal(rel) || path.Clean(rel) != rel || strings.Contains(rel, `\`) {
		return fmt.Errorf("skill path %q is not a clean path inside the skills folder", rel)
	}
	return nil
}

// openRoot opens t's root, creating the user's root when it is missing.
func openRoot(r Root, create bool) (*os.Root, error) {
	if create {
		if err := os.MkdirAll(r.Dir, 0o755); err != nil {
			return nil, fmt.Errorf("create skills folder %s: %w", r.Dir, unwrap(err))
		}
	}
	root, err := os.OpenRoot(r.Dir)
	if err != nil {
		return nil, fmt.Errorf("open skills folder %s: %w", r.Dir, unwrap(err))
	}
	return root, nil
}

// Path returns the workspace.Path of t, to show a proposed change of it for
// approval. The skills root is created when missing (Resolve needs an
// existing root); nothing else is.
func (l *Library) Path(t Target) (workspace.Path, error) {
	if err := checkRel(t.Rel); err != nil {
		return workspace.Path{}, err
	}
	if err := os.MkdirAll(t.Root.Dir, 0o755); err != nil {
		return workspace.Path{}, fmt.Errorf("create skills folder %s: %w", t.Root.Dir, unwrap(err))
	}
	ws, err := workspace.Open(t.Root.Dir, nil, l.wsOpts)
	if err != nil {
		return workspace.Path{}, err
	}
	// The Path is used for display and approval only (no I/O), so the
	// workspace can be closed at once.
	defer ws.Close()
	p, err := ws.Resolve(t.Abs())
	if err != nil {
		return workspace.Path{}, err
	}
	if p.Root() != t.Root.Dir {
		return workspace.Path{}, fmt.Errorf("skill path %s resolves outside its skills folder", t.Abs())
	}
	return p, nil
}

// Read returns the content of t, and whether it exists.
func (l *Library) Read(t Target) ([]byte, bool, error) {
	if err := checkRel(t.Rel); err != nil {
		return nil, false, err
	}
	root, err := os.OpenRoot(t.Root.Dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, fmt.Errorf("read %s: %w", t.Abs(), unwrap(err))
	}
	defer root.Close()
	fi, err := root.Stat(t.Rel) // follows links that stay inside the root
	if errors.Is(err, fs.ErrNotExist) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, fmt.Errorf("read %s: %w", t.Abs(), unwrap(err))
	}
	if !fi.Mode().IsRegular() {
		return nil, false, fmt.Errorf("read %s: not a regular file", t.Abs())
	}
	if fi.Size() > MaxFileBytes*4 {
		return nil, true, fmt.Errorf("read %s: %w", t.Abs(), &TooLargeError{Size: fi.Size(), Limit: MaxFileBytes * 4})
	}
	b, err := root.ReadFile(t.Rel)
	if err != nil {
		return nil, false, fmt.Errorf("read %s: %w", t.Abs(), unwrap(err))
	}
	return b, true, nil
}

// Write atomically replaces (or creates) t with content: missing folders
// are created, the content goes to a temporary file in the same folder,
// which is synced and renamed over t (an existing file keeps its
// permission bits; a symbolic link at t is replaced, never followed), and
// the folder is synced. On failure t is unchanged, and the temporary file
// and any folder this call created are removed.
func (l *Library) Write(t Target, content []byte) (err error) {
	if err := checkRel(t.Rel); err != nil {
		return err
	}
	root, err := openRoot(t.Root, t.Root.Source == SourceUser)
	if err != nil {
		return err
	}
	defer root.Close()
	created, err := mkdirs(root, path.Dir(t.Rel))
	if err != nil {
		return fmt.Errorf("write %s: %w", t.Abs(), err)
	}
	defer func() {
		if err != nil {
			for i := len(created) - 1; i >= 0; i-- {
				_ = root.Remove(created[i])
			}
		}
	}()
	mode := fs.FileMode(0o644)
	if fi, err := root.Lstat(t.Rel); err == nil {
		if fi.IsDir() {
			return fmt.Errorf("write %s: is a directory", t.Abs())
		}
		if fi.Mode().IsRegular() {
			mode = fi.Mode().Perm()
		}
	}
	if err := atomicfile.WriteIn(root, filepath.FromSlash(t.Rel), content, mode, atomicfile.Options{}); err != nil {
		return fmt.Errorf("write %s: %w", t.Abs(), unwrap(err))
	}
	return nil
}

// mkdirs creates dir (slash path below root) and its missing parents,
// returning the folders it created, outermost first.
func mkdirs(root *os.Root, dir string) ([]string, error) {
	if dir == "." || dir == "" {
		return nil, nil
	}
	var missing []string
	for d := dir; d != "." && d != "/"; d = path.Dir(d) {
		fi, err := root.Lstat(d)
		if err == nil {
			if !fi.IsDir() {
				return nil, fmt.Errorf("%s is not a folder", d)
			}
			break
		}
		if !errors.Is(err, fs.ErrNotExist) {
			return nil, unwrap(err)
		}
		missing = append(missing, d)
	}
	var created []string
	for i := len(missing) - 1; i >= 0; i-- {
		if err := root.Mkdir(missing[i], 0o755); err != nil && !errors.Is(err, fs.ErrExist) {
			for j := len(created) - 1; j >= 0; j-- {
				_ = root.Remove(created[j])
			}
			return nil, unwrap(err)
		}
		created = append(created, missing[i])
	}
	return created, nil
}

// syncDir syncs a folder so a rename in it survives a crash; failures are
// ignored (some file systems cannot).
func syncDir(root *os.Root, dir string) {
	if f, err := root.Open(dir); err == nil {
		_ = f.Sync()
		_ = f.Close()
	}
}

// RemoveFile removes the file rel (relative to the skill's folder) of skill
// s, then its folder when that is left empty and is not the skill's own.
func (l *Library) RemoveFile(s Skill, rel string) error {
	t := s.In(rel)
	if err := checkRel(t.Rel); err != nil {
		return err
	}
	root, err := openRoot(s.Root, false)
	if err != nil {
		return err
	}
	defer root.Close()
	fi, err := root.Lstat(t.Rel)
	if err != nil {
		return fmt.Errorf("remove %s: %w", t.Abs(), unwrap(err))
	}
	if fi.IsDir() {
		return fmt.Errorf("remove %s: is a directory", t.Abs())
	}
	if err := root.Remove(t.Rel); err != nil {
		return fmt.Errorf("remove %s: %w", t.Abs(), unwrap(err))
	}
	if parent := path.Dir(t.Rel); parent != s.Rel {
		_ = root.Remove(parent) // fails, harmlessly, unless empty
	}
	syncDir(root, path.Dir(t.Rel))
	return nil
}

// AllFiles lists every regular file of skill s (slash paths relative to its
// folder), SKILL.md first, at most limit of them.
func (l *Library) AllFiles(s Skill, limit int) ([]string, error) {
	root, err := openRoot(s.Root, false)
	if err != nil {
		return nil, err
	}
	defer root.Close()
	out := []string{FileName}
	err = fs.WalkDir(root.FS(), s.Rel, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.Type().IsRegular() && p != path.Join(s.Rel, FileName) {
			if len(out) >= limit {
				return fs.SkipAll
			}
			out = append(out, strings.TrimPrefix(p, s.Rel+"/"))
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("list skill %s: %w", s.Name, unwrap(err))
	}
	return out, nil
}

// RemoveSkill deletes skill s's folder with everything in it, then its
// category folder when that is left empty. It refuses a skill folder that
// is a symbolic link, or the skills root itself (hermes's
// _validate_delete_target).
func (l *Library) RemoveSkill(s Skill) error {
	if s.Rel == "." && s.Path != "." && s.Path != "" {
		return fmt.Errorf("Refusing to delete '%s': the skill directory is a symlink/junction. Remove the link target manually if intended", s.Dir())
	}
	if err := checkRel(s.Rel); err != nil {
		return fmt.Errorf("Refusing to delete '%s': resolves to the skills root itself, which would remove every installed skill", s.Dir())
	}
	root, err := openRoot(s.Root, false)
	if err != nil {
		return err
	}
	defer root.Close()
	fi, err := root.Lstat(s.Rel)
	if err != nil {
		return fmt.Errorf("delete %s: %w", s.Dir(), unwrap(err))
	}
	if fi.Mode()&fs.ModeSymlink != 0 || !fi.IsDir() {
		return fmt.Errorf("Refusing to delete '%s': the skill directory is a symlink/junction. Remove the link target manually if intended", s.Dir())
	}
	if err := root.RemoveAll(s.Rel); err != nil {
		return fmt.Errorf("delete %s: %w", s.Dir(), unwrap(err))
	}
	if parent := path.Dir(s.Rel); parent != "." {
		_ = root.Remove(parent) // fails, harmlessly, unless empty
	}
	syncDir(root, path.Dir(s.Rel))
	return nil
}
