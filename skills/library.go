package skills

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/hermes-acp/hermes-acp/internal/pyfmt"
	"github.com/hermes-acp/hermes-acp/internal/threat"
	"github.com/hermes-acp/hermes-acp/workspace"
)

// Source says which skills root a skill comes from.
type Source string

// The skills roots, in order of precedence.
const (
	SourceProject  Source = "project"  // <workspace>/.hermes/skills
	SourceUser     Source = "user"     // $HERMES_HOME/skills
	SourceExternal Source = "external" // config skills.external_dirs
)

// ProjectDir is where a workspace keeps its skills, relative to its root.
const ProjectDir = ".hermes/skills"

// Discovery bounds: a skills root is walked at most this deep, and at most
// this many entries are looked at, so a huge folder cannot stall a session.
const (
	maxDepth   = 6
	maxEntries = 20_000
	// maxHeadBytes is how much of a SKILL.md discovery reads (hermes reads
	// the first 4 000 characters): front matter longer than that is not
	// seen as closed.
	maxHeadBytes = 4 << 10
)

// Options configures a [Library].
type Options struct {
	// UserDir is the user's skills root ($HERMES_HOME/skills); new skills are
	// created there. It need not exist yet. "" means none.
	UserDir string
	// ProjectDirs are the project's skills roots (<root>/.hermes/skills of
	// the session's workspace roots); their skills win over the user's.
	// Missing folders are skipped.
	ProjectDirs []string
	// ExternalDirs are more skills roots (config skills.external_dirs),
	// after the user's; missing folders are skipped.
	ExternalDirs []string
	// Disabled names skills to leave out (config skills.disabled).
	Disabled []string
	// Workspace is used to open the workspace.Path of a file a change
	// proposes (Home and HermesHome matter; tests point them at temporary
	// folders).
	Workspace workspace.Options
}

// Library is the skills a session can see. It keeps no open files and no
// cache: every call looks at the disk, so a skill written by one session is
// seen by the next call of any other. It is safe for concurrent use.
type Library struct {
	roots    []Root
	user     string
	disabled map[string]bool
	wsOpts   workspace.Options
}

// Root is one skills root.
type Root struct {
	Dir    string // absolute, as configured
	Source Source
}

// New returns the library of o's roots.
func New(o Options) *Library {
	l := &Library{disabled: map[string]bool{}, wsOpts: o.Workspace}
	for _, d := range o.ProjectDirs {
		if d != "" && !slices.ContainsFunc(l.roots, func(r Root) bool { return r.Dir == filepath.Clean(d) }) {
			l.roots = append(l.roots, Root{Dir: filepath.Clean(d), Source: SourceProject})
		}
	}
	if o.UserDir != "" {
		l.user = filepath.Clean(o.UserDir)
		if !slices.ContainsFunc(l.roots, func(r Root) bool { return r.Dir == l.user }) {
			l.roots = append(l.roots, Root{Dir: l.user, Source: SourceUser})
		}
	}
	for _, d := range o.ExternalDirs {
		if d != "" && !slices.ContainsFunc(l.roots, func(r Root) bool { return r.Dir == filepath.Clean(d) }) {
			l.roots = append(l.roots, Root{Dir: filepath.Clean(d), Source: SourceExternal})
		}
	}
	for _, n := range o.Disabled {
		l.disabled[n] = true
	}
	return l
}

// Roots returns the library's roots, project roots first.
func (l *Library) Roots() []Root { return slices.Clone(l.roots) }

// UserDir returns the user's skills root, where new skills are created.
func (l *Library) UserDir() string { return l.user }

// Skill is one skill found on disk.
type Skill struct {
	// Name is the front matter's name, else the folder's name.
	Name string
	// Description is the front matter's description, else the first line
	// of the body that is not a heading; cut to MaxDescriptionLength.
	Description string
	// Category is the category folder the skill is in, else the front
	// matter's category, else "".
	Category string
	// Path is the skill's folder relative to its skills root,
	// slash-separated ("devops/deploy").
	Path string
	// Root is the folder the skill's files are read and written through:
	// its skills root, or the symbolic link to a folder it was found
	// below.
	Root Root
	// Rel is the skill's folder relative to Root.Dir, slash-separated ("."
	// when Root.Dir is the skill's folder itself, linked in).
	Rel string
	// Problem says what was wrong with the front matter, or "".
	Problem string
	// Blocked holds what the threat scan found in the skill's name,
	// description or SKILL.md (hermes's pattern ids, hidden characters);
	// non-nil means the skill is left out of listings and the prompt and
	// cannot be viewed.
	Blocked []string
}

// BlockedError is a skill the threat scan left out.
type BlockedError struct {
	Name     string
	Path     string // its SKILL.md, absolute
	Findings []string
}

func (e *BlockedError) Error() string {
	return fmt.Sprintf("Skill '%s' is not loaded: %s contained potential prompt injection (%s). Inspect and fix the file on disk.",
		e.Name, e.Path, strings.Join(e.Findings, ", "))
}

// blocked returns the BlockedError of a skill the scan left out, or nil.
func (s Skill) blocked() *BlockedError {
	if s.Blocked == nil {
		return nil
	}
	return &BlockedError{Name: s.Name, Path: filepath.Join(s.Dir(), FileName), Findings: s.Blocked}
}

// Dir returns the skill's folder, absolute.
func (s Skill) Dir() string { return filepath.Join(s.Root.Dir, filepath.FromSlash(s.Rel)) }

// FolderName returns the name of the skill's folder.
func (s Skill) FolderName() string { return path.Base(s.Path) }

// Problem is a SKILL.md that discovery had to leave out.
type Problem struct {
	Path string // absolute
	Err  error
}

func (p Problem) Error() string { return p.Path + ": " + p.Err.Error() }

// List returns every skill of the library, the first of each name winning
// (project roots come first), disabled ones left out, sorted by category
// then name; and the SKILL.md files it could not read or that the threat
// scan left out (a *BlockedError: that skill still takes its name, so a
// poisoned project skill does not make way for another of the same name).
func (l *Library) List() ([]Skill, []Problem) {
	var out []Skill
	var problems []Problem
	seen := map[string]bool{}
	for _, r := range l.roots {
		found, probs := scan(r)
		problems = append(problems, probs...)
		for _, s := range found {
			if seen[s.Name] || l.disabled[s.Name] {
				continue
			}
			seen[s.Name] = true
			if b := s.blocked(); b != nil {
				problems = append(problems, Problem{Path: b.Path, Err: b})
				continue
			}
			out = append(out, s)
		}
	}
	sortSkills(out)
	return out, problems
}

// sortSkills orders skills by category ("" first) then name, as hermes's
// _sort_skills does.
func sortSkills(s []Skill) {
	slices.SortStableFunc(s, func(a, b Skill) int {
		if c := strings.Compare(a.Category, b.Category); c != 0 {
			return c
		}
		return strings.Compare(a.Name, b.Name)
	})
}

// scan walks one root for SKILL.md files. A missing root has no skills.
func scan(r Root) ([]Skill, []Problem) {
	sc := &scanner{seen: map[string]bool{}}
	if _, err := os.Stat(r.Dir); errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	sc.walk(r, r.Dir, "")
	return sc.out, sc.problems
}

// scanner is one discovery walk: what it found, and the folders it has
// been in (by real path), so a symbolic link loop ends.
type scanner struct {
	entries  int
	seen     map[string]bool
	out      []Skill
	problems []Problem
}

// walk scans dir, which is prefix (slash path) below r.Dir, through an
// os.Root on dir. A symbolic link to a folder outside a skill is followed
// as hermes does (skills linked in from elsewhere are found); the skills
// below it are then read and written through an os.Root on the link, so
// nothing below a link can reach outside the folder it names.
func (sc *scanner) walk(r Root, dir, prefix string) {
	real, err := filepath.EvalSymlinks(dir)
	if err != nil {
		sc.problems = append(sc.problems, Problem{Path: dir, Err: unwrap(err)})
		return
	}
	if sc.seen[real] {
		return
	}
	sc.seen[real] = true
	root, err := os.OpenRoot(dir)
	if err != nil {
		sc.problems = append(sc.problems, Problem{Path: dir, Err: unwrap(err)})
		return
	}
	defer root.Close()
	ioRoot := Root{Dir: dir, Source: r.Source}
	err = fs.WalkDir(root.FS(), ".", func(p string, d fs.DirEntry, err error) error {
		sc.entries++
		if sc.entries > maxEntries {
			return fs.SkipAll
		}
		full := path.Join(prefix, p)
		if err != nil {
			if p != "." {
				sc.problems = append(sc.problems, Problem{Path: filepath.Join(dir, filepath.FromSlash(p)), Err: unwrap(err)})
			}
			if d != nil && d.IsDir() {
				return fs.SkipDir
			}
			return nil
		}
		switch {
		case p == ".":
			return nil
		case d.IsDir():
			if excludedDir(d.Name()) || strings.Count(full, "/") >= maxDepth {
				return fs.SkipDir
			}
			// A skill's supporting folders hold no skills.
			if isSupportDir(d.Name()) && fileExists(root, path.Join(path.Dir(p), FileName)) {
				return fs.SkipDir
			}
			return nil
		case d.Type()&fs.ModeSymlink != 0:
			if excludedDir(d.Name()) || strings.Count(full, "/") >= maxDepth || fileExists(root, path.Join(path.Dir(p), FileName)) {
				return nil // nothing inside a skill is followed
			}
			target := filepath.Join(dir, filepath.FromSlash(p))
			if fi, err := os.Stat(target); err == nil && fi.IsDir() {
				sc.walk(r, target, full)
			}
			return nil
		case d.Name() != FileName || !d.Type().IsRegular() || full == FileName:
			return nil
		}
		s, perr := readSkill(root, ioRoot, path.Dir(p), path.Dir(full))
		if perr != nil {
			sc.problems = append(sc.problems, Problem{Path: filepath.Join(dir, filepath.FromSlash(p)), Err: perr})
			return nil
		}
		sc.out = append(sc.out, s)
		return nil
	})
	if err != nil {
		sc.problems = append(sc.problems, Problem{Path: dir, Err: unwrap(err)})
	}
}

// excludedDir reports folders discovery never enters: hidden ones (.git,
// .hub, .archive) and dependency caches.
func excludedDir(name string) bool {
	return strings.HasPrefix(name, ".") || name == "node_modules" || name == "__pycache__" || name == "venv"
}

func fileExists(root *os.Root, rel string) bool {
	fi, err := root.Lstat(rel)
	return err == nil && fi.Mode().IsRegular()
}

// readSkill reads the head of rel/SKILL.md below root (whose folder is
// r.Dir); full is the skill folder's path below its skills root.
func readSkill(root *os.Root, r Root, rel, full string) (Skill, error) {
	f, err := root.Open(path.Join(rel, FileName))
	if err != nil {
		return Skill{}, unwrap(err)
	}
	defer f.Close()
	buf := make([]byte, maxHeadBytes)
	n, err := readFull(f, buf)
	if err != nil {
		return Skill{}, unwrap(err)
	}
	head := toValidUTF8(buf[:n])
	whole := head
	if n == len(buf) {
		// The rest of the file, for the threat scan only (up to what
		// skill_view would show).
		rest, err := io.ReadAll(io.LimitReader(f, MaxFileBytes-maxHeadBytes))
		if err != nil {
			return Skill{}, unwrap(err)
		}
		whole = toValidUTF8(append(buf[:n:n], rest...))
	}
	doc, perr := Parse(head)
	s := Skill{Root: r, Rel: rel, Path: full, Name: path.Base(full)}
	if perr != nil {
		s.Problem = perr.Error()
	}
	if n := doc.String("name"); n != "" {
		s.Name = clipRunes(n, MaxNameLength)
	}
	s.Description = doc.String("description")
	if s.Description == "" {
		for _, line := range strings.Split(strings.TrimSpace(doc.Body), "\n") {
			line = strings.TrimSpace(line)
			if line != "" && !strings.HasPrefix(line, "#") {
				s.Description = line
				break
			}
		}
	}
	s.Description = truncateDescription(s.Description)
	s.Blocked = threat.Scan(s.Name+"\n"+s.Description+"\n"+strings.TrimPrefix(whole, "\ufeff"), threat.Context)
	if parts := strings.Split(full, "/"); len(parts) >= 2 {
		s.Category = parts[0]
	} else {
		s.Category = doc.String("category")
	}
	return s, nil
}

// readFull reads up to len(buf) bytes; a short file is not an error.
func readFull(r io.Reader, buf []byte) (int, error) {
	n, err := io.ReadFull(r, buf)
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		err = nil
	}
	return n, err
}

// toValidUTF8 decodes b as UTF-8, replacing invalid bytes (hermes reads
// skills with errors="replace"); a character cut at the end of a head read
// is dropped.
func toValidUTF8(b []byte) string {
	for i := 0; i < 3 && len(b) > 0 && !utf8.Valid(b); i++ {
		if r, _ := utf8.DecodeLastRune(b); r == utf8.RuneError {
			b = b[:len(b)-1]
			continue
		}
		break
	}
	return strings.ToValidUTF8(string(b), "\uFFFD")
}

// truncateDescription is hermes's _truncate_description.
func truncateDescription(d string) string {
	if utf8.RuneCountInString(d) <= MaxDescriptionLength {
		return d
	}
	return string([]rune(d)[:MaxDescriptionLength-3]) + "..."
}

func clipRunes(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	return string([]rune(s)[:n])
}

// LookupError is a skill name that cannot be looked up, with hermes's
// message.
type LookupError struct{ Msg string }

func (e *LookupError) Error() string { return e.Msg }

// ErrNotFound is wrapped by Find's error for a name no skill has.
var ErrNotFound = errors.New("skill not found")

// AmbiguousError is a name several skills of the same precedence have.
type AmbiguousError struct {
	Name  string
	Paths []string // their SKILL.md files
}

func (e *AmbiguousError) Error() string {
	return fmt.Sprintf("Ambiguous skill name '%s': %d skills match across your skills directories. Refusing to guess — load one explicitly by its categorized path.", e.Name, len(e.Paths))
}

// CheckLookup returns hermes's message when name could escape the roots it
// is joined onto (an absolute path, a drive, a ".." component), else "".
func CheckLookup(name string) string {
	name = strings.TrimSpace(name)
	if isAbsolute(name) {
		return "Skill name must be a relative path within the skills directory."
	}
	if hasTraversal(name) {
		return "Skill name cannot contain '..' path traversal components."
	}
	return ""
}

// Find returns the skill called name: a skill whose folder or front matter
// name is name, or whose folder is name as a path below a root
// ("category/name"). Disabled skills are found too (the caller decides).
// A project skill wins over user and external skills; two matches in the
// same tier are ambiguous (*AmbiguousError). The error wraps ErrNotFound when none
// matches, and is a *LookupError for a name that could escape the roots.
func (l *Library) Find(name string) (Skill, error) {
	if msg := CheckLookup(name); msg != "" {
		return Skill{}, &LookupError{Msg: msg}
	}
	name = strings.TrimSpace(name)
	want := strings.Join(splitPath(name), "/")
	if want == "" {
		return Skill{}, fmt.Errorf("find skill %q: %w", name, ErrNotFound)
	}
	var tiers [2][]Skill
	for _, r := range l.roots {
		found, _ := scan(r)
		for _, s := range found {
			if s.Path == want || s.FolderName() == want || s.Name == name {
				tier := 1
				if r.Source == SourceProject {
					tier = 0
				}
				tiers[tier] = append(tiers[tier], s)
			}
		}
	}
	for _, t := range tiers {
		switch len(t) {
		case 0:
			continue
		case 1:
			if b := t[0].blocked(); b != nil {
				return Skill{}, b
			}
			return t[0], nil
		}
		// An exact path match beats name matches.
		var exact []Skill
		for _, s := range t {
			if s.Path == want {
				exact = append(exact, s)
			}
		}
		if len(exact) == 1 {
			if b := exact[0].blocked(); b != nil {
				return Skill{}, b
			}
			return exact[0], nil
		}
		e := &AmbiguousError{Name: name}
		for _, s := range t {
			e.Paths = append(e.Paths, filepath.Join(s.Dir(), FileName))
		}
		return Skill{}, e
	}
	return Skill{}, fmt.Errorf("find skill %q: %w", name, ErrNotFound)
}

// ReadFile reads rel (slash-separated, relative to the skill's folder) of
// skill s, at most limit bytes. Larger files fail with *TooLargeError.
func (l *Library) ReadFile(s Skill, rel string, limit int64) ([]byte, error) {
	root, err := os.OpenRoot(s.Root.Dir)
	if err != nil {
		return nil, fmt.Errorf("read skill file: %w", unwrap(err))
	}
	defer root.Close()
	name := path.Join(s.Rel, rel)
	f, err := root.Open(name)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", rel, unwrap(err))
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", rel, unwrap(err))
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("read %s: %w", rel, fs.ErrNotExist)
	}
	if fi.Size() > limit {
		return nil, &TooLargeError{Size: fi.Size(), Limit: limit}
	}
	b := make([]byte, fi.Size())
	n, err := readFull(f, b)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", rel, unwrap(err))
	}
	return b[:n], nil
}

// TooLargeError is a file over the read limit.
type TooLargeError struct{ Size, Limit int64 }

func (e *TooLargeError) Error() string {
	return fmt.Sprintf("file is %s bytes (limit: %s bytes)", pyfmt.Commas(int64(int(e.Size))), pyfmt.Commas(int64(int(e.Limit))))
}

// Files lists the supporting files of skill s by folder (references,
// templates, assets, scripts, in hermes's order), with paths relative to
// the skill's folder; folders without files are left out. Files in hidden
// folders are not listed.
func (l *Library) Files(s Skill) map[string][]string {
	out := map[string][]string{}
	root, err := os.OpenRoot(s.Root.Dir)
	if err != nil {
		return out
	}
	defer root.Close()
	fsys := root.FS()
	for _, sub := range []string{"references", "templates", "assets", "scripts"} {
		base := path.Join(s.Rel, sub)
		count := 0
		_ = fs.WalkDir(fsys, base, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return nil
			}
			count++
			if count > 1000 {
				return fs.SkipAll
			}
			if d.IsDir() {
				if p != base && strings.HasPrefix(d.Name(), ".") {
					return fs.SkipDir
				}
				return nil
			}
			if d.Type().IsRegular() && !strings.HasPrefix(d.Name(), ".") {
				out[sub] = append(out[sub], strings.TrimPrefix(p, s.Rel+"/"))
			}
			return nil
		})
	}
	return out
}

// unwrap drops the *PathError around err: our messages name the path.
func unwrap(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	var le *os.LinkError
	if errors.As(err, &le) {
		return le.Err
	}
	return err
}

// Disabled reports whether name is disabled (config skills.disabled).
func (l *Library) Disabled(name string) bool { return l.disabled[name] }
