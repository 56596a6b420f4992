package danger

import (
	"os"
	"path"
	"path/filepath"
	"strings"
)

// commandWrites records the files a command writes through its arguments
// (tee, cp, mv, install, ln, rsync, dd of=, curl -o, wget -O, compilers'
// -o, sed -i), the ones it unpacks or clones (names not known), and checks
// destroying contents outside the workspace (shred, wipefs, truncate).
func (w *walker) commandWrites(v *view, bodies []string, stdin string) {
	name := v.name()
	raw := v.raw[1:]
	switch name {
	case "tee":
		content := unknownContent
		if stdin == "heredoc" && len(bodies) == 1 && isStatic(bodies[0]) {
			content = bodies[0]
		}
		for _, a := range skipOptions(raw, "", nil) {
			if strings.HasPrefix(clean(a), ">(") {
				continue // tee >(cmd): cmd's input
			}
			w.write(a, content)
		}
	case "cp", "mv", "install", "ln", "rsync", "scp":
		ops := operands(raw, map[string]string{"cp": "tS", "mv": "tS", "install": "tmogS", "ln": "tS", "rsync": "efT", "scp": "cFiloPS"}[name])
		dest := ""
		for _, t := range append(optionValues(raw, "-t"), optionValues(raw, "--target-directory")...) {
			dest = t
		}
		if dest == "" && len(ops) >= 2 {
			dest, ops = ops[len(ops)-1], ops[:len(ops)-1]
		} else if dest == "" {
			return
		}
		if name == "install" && (hasFlag(raw, 'd') || indexOf(cleanAll(raw), "--directory") >= 0) {
			return
		}
		w.write(dest, unknownContent)
		if isStatic(dest) && path.Base(path.Clean(clean(dest))) == ".git" {
			w.c.found(keyGitMeta) // a copy into .git itself (hooks/, config)
		}
		for _, src := range ops {
			// the copy keeps the source's name inside a destination folder
			w.record(path.Base(clean(src)), unknownContent)
		}
	case "dd":
		for _, a := range raw {
			if t, ok := strings.CutPrefix(a, "of="); ok {
				w.write(t, unknownContent)
			}
		}
	case "curl":
		for _, t := range append(optionValues(raw, "-o"), optionValues(raw, "--output")...) {
			w.write(t, unknownContent)
		}
		if hasFlag(raw, 'O') || indexOf(cleanAll(raw), "--remote-name") >= 0 || indexOf(cleanAll(raw), "--remote-name-all") >= 0 {
			for _, a := range operands(raw, "oXHdumeAbcCEKrTwYyzQ") {
				if u := urlBase(a); u != "" {
					w.write(u, unknownContent)
				} else {
					w.c.writesAny = true
				}
			}
		}
	case "wget":
		outs := append(optionValues(raw, "-O"), optionValues(raw, "--output-document")...)
		for _, t := range outs {
			w.write(t, unknownContent)
		}
		if len(outs) == 0 {
			for _, a := range operands(raw, "oaOPeTtwlUDQ") {
				if u := urlBase(a); u != "" {
					w.write(u, unknownContent)
				} else {
					w.c.writesAny = true
				}
			}
		}
	case "gcc", "cc", "clang", "g++", "c++", "clang++", "rustc", "tcc", "zig", "nasm", "ld":
		for _, t := range optionValues(raw, "-o") {
			w.write(t, unknownContent)
		}
	case "go":
		if op := skipOptions(v.words[1:], "", nil); len(op) > 0 && (op[0] == "build" || op[0] == "install") {
			for _, t := range optionValues(raw, "-o") {
				w.write(t, unknownContent)
			}
		}
	case "tar", "bsdtar":
		if len(raw) > 0 && (strings.ContainsAny(strings.TrimPrefix(clean(raw[0]), "-"), "x") && !strings.HasPrefix(clean(raw[0]), "--") || hasFlag(raw, 'x') || indexOf(cleanAll(raw), "--extract") >= 0 || indexOf(cleanAll(raw), "--get") >= 0) {
			w.unpacked(append(optionValues(raw, "-C"), optionValues(raw, "--directory")...))
		}
	case "unzip", "7z", "7za", "cpio", "ar", "bunzip2", "gunzip", "unxz", "unrar", "pax":
		w.unpacked(optionValues(raw, "-d"))
	case "git":
		if sub, _ := gitArgs(v.raw); sub > 0 {
			switch strings.ToLower(v.words[sub]) {
			case "clone", "worktree", "submodule", "apply", "am":
				// code from elsewhere, or from a patch
				w.c.writesAny = true
			}
		}
	case "shred", "wipefs", "truncate":
		withArg := map[string]string{"shred": "ns", "wipefs": "otOb", "truncate": "sr"}[name]
		for _, t := range operands(raw, withArg) {
			if !w.inside(t) {
				w.c.found(keyWipeOutside)
			}
			w.write(t, unknownContent)
		}
	case "chmod", "chown", "touch":
		for _, t := range operands(raw, "") {
			if isStatic(t) && gitMetaPath(clean(t)) {
				w.c.found(keyGitMeta)
			}
		}
	}
}

// unpacked records an archive unpacked (into dirs, when given): the names
// it writes are not known.
func (w *walker) unpacked(dirs []string) {
	w.c.writesAny = true
	for _, d := range dirs {
		if !isStatic(d) {
			w.c.found(keyHiddenTarget)
		} else if gitMetaPath(clean(d)) {
			w.c.found(keyGitMeta)
		}
	}
}

// editTargets records the files sed -i, perl -i and ruby -i edit in place
// (they change; what they hold is no longer known).
func (w *walker) editTargets(v *view) {
	files, ok := inPlaceFiles(v)
	if !ok {
		return
	}
	for _, f := range files {
		w.write(f, unknownContent)
	}
}

// inPlaceFiles returns the files an in-place edit (sed -i, perl -i, ruby
// -i) changes; ok is false when the command does not edit in place.
func inPlaceFiles(v *view) ([]string, bool) {
	args := v.raw[1:]
	switch v.name() {
	case "sed":
		inPlace := false
		explicit := false
		var ops []string
		for i := 0; i < len(args); i++ {
			a := clean(args[i])
			switch {
			case a == "--in-place" || strings.HasPrefix(a, "--in-place="):
				inPlace = true
			case a == "-e" || a == "--expression" || a == "-f" || a == "--file" || a == "-l" || a == "--line-length":
				explicit = explicit || a != "-l" && a != "--line-length"
				i++
			case strings.HasPrefix(a, "--expression=") || strings.HasPrefix(a, "--file="):
				explicit = true
			case strings.HasPrefix(a, "--"):
			case strings.HasPrefix(a, "-") && len(a) > 1:
				for j := 1; j < len(a); j++ {
					if a[j] == 'i' {
						inPlace = true
						break // -i.bak: the rest is the suffix
					}
					if a[j] == 'e' || a[j] == 'f' {
						explicit = true
						if j == len(a)-1 {
							i++
						}
						break
					}
				}
			default:
				ops = append(ops, args[i])
			}
		}
		if !inPlace {
			return nil, false
		}
		if !explicit && len(ops) > 0 {
			ops = ops[1:] // the script
		}
		return ops, true
	case "perl", "ruby":
		inPlace := false
		var ops []string
		for i := 0; i < len(args); i++ {
			a := clean(args[i])
			switch {
			case a == "--":
				ops = append(ops, args[i+1:]...)
				i = len(args)
			case strings.HasPrefix(a, "-") && len(a) > 1 && !strings.HasPrefix(a, "--"):
				for j := 1; j < len(a); j++ {
					if a[j] == 'i' {
						inPlace = true
						break
					}
					if a[j] == 'e' || a[j] == 'E' {
						if j == len(a)-1 {
							i++ // the code
						}
						break
					}
					if strings.IndexByte("IMmx0Fl", a[j]) >= 0 {
						break // takes the rest of the word
					}
				}
			case strings.HasPrefix(a, "-"):
			default:
				ops = append(ops, args[i])
			}
		}
		if !inPlace {
			return nil, false
		}
		if !hasFlag(v.words[1:], 'e') && !hasFlag(v.words[1:], 'E') && len(ops) > 0 {
			ops = ops[1:] // the script file
		}
		return ops, true
	}
	return nil, false
}

// secretInPlace is the rule for in-place edits of secret files.
func secretInPlace(v *view) bool {
	files, ok := inPlaceFiles(v)
	if !ok {
		return false
	}
	for _, f := range files {
		if secretFile(path.Base(clean(f))) {
			return true
		}
	}
	return false
}

// secretFile reports a file name that holds secrets: environment files,
// private keys, credential stores.
func secretFile(base string) bool {
	b := strings.ToLower(base)
	switch b {
	case ".env", ".netrc", ".npmrc", ".pypirc", ".pgpass", ".git-credentials", "credentials", "credentials.json",
		".htpasswd", "authorized_keys", ".dockercfg", "secrets.yaml", "secrets.yml", "secrets.json", "_netrc":
		return true
	}
	switch {
	case strings.HasPrefix(b, ".env.") || strings.HasSuffix(b, ".env"):
		return true
	case strings.HasPrefix(b, "id_rsa") || strings.HasPrefix(b, "id_ed25519") || strings.HasPrefix(b, "id_ecdsa") || strings.HasPrefix(b, "id_dsa"):
		return true
	}
	for _, ext := range []string{".pem", ".key", ".p12", ".pfx", ".keystore", ".jks", ".gpg", ".asc"} {
		if strings.HasSuffix(b, ext) {
			return true
		}
	}
	return false
}

// operands returns the words of args that are not options (nor the values
// of the short options in withArg); "--" ends the options.
func operands(args []string, withArg string) []string {
	var out []string
	for i := 0; i < len(args); i++ {
		a := clean(args[i])
		switch {
		case a == "--":
			return append(out, args[i+1:]...)
		case strings.HasPrefix(a, "--"):
		case strings.HasPrefix(a, "-") && len(a) > 1:
			for j := 1; j < len(a); j++ {
				if strings.IndexByte(withArg, a[j]) >= 0 {
					if j == len(a)-1 {
						i++
					}
					break
				}
			}
		default:
			out = append(out, args[i])
		}
	}
	return out
}

// hasFlag reports the short option c, alone or in a bundle.
func hasFlag(args []string, c byte) bool {
	for _, a := range args {
		a = clean(a)
		if a == "--" {
			return false
		}
		if len(a) > 1 && a[0] == '-' && a[1] != '-' && strings.IndexByte(a[1:], c) >= 0 {
			return true
		}
	}
	return false
}

// urlBase is the file name curl -O and wget save a URL as.
func urlBase(u string) string {
	u = clean(u)
	if !strings.Contains(u, "://") {
		return ""
	}
	u, _, _ = strings.Cut(u, "?")
	u, _, _ = strings.Cut(u, "#")
	b := path.Base(u)
	if b == "" || b == "/" || b == "." || strings.Contains(b, ":") {
		return ""
	}
	return b
}

// inside reports whether a path the command names is inside the
// workspace: below one of Options.Roots (relative paths from
// Options.Dir); without roots, a relative path that does not climb out
// with "..". A computed path, a device and the home folder are outside.
func (w *walker) inside(p string) bool {
	if !isStatic(p) {
		return false
	}
	p = clean(p)
	home := os.Getenv("HOME")
	switch {
	case p == "~" || strings.HasPrefix(p, "~/"):
		if home == "" {
			return false
		}
		p = home + p[1:]
	case strings.HasPrefix(p, "$HOME") || strings.HasPrefix(p, "${HOME}"):
		if home == "" {
			return false
		}
		p = home + strings.TrimPrefix(strings.TrimPrefix(p, "${HOME}"), "$HOME")
	case strings.HasPrefix(p, "~") || strings.HasPrefix(p, "$"):
		return false
	}
	o := w.c.opts
	if !filepath.IsAbs(p) {
		if o.Dir == "" {
			c := path.Clean(p)
			return c != ".." && !strings.HasPrefix(c, "../")
		}
		p = filepath.Join(o.Dir, p)
	}
	p = filepath.Clean(p)
	if strings.HasPrefix(p, "/dev/") || strings.HasPrefix(p, "/proc/") || strings.HasPrefix(p, "/sys/") {
		return false
	}
	for _, r := range o.Roots {
		r = filepath.Clean(r)
		if p == r || strings.HasPrefix(p, r+string(filepath.Separator)) {
			return true
		}
	}
	return false
}
