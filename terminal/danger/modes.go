package danger

import (
	"strconv"
	"strings"
)

// grant is what a permission change may let others do: write for the
// file's group, write for everyone.
type grant struct{ group, world bool }

// modeGrant reads a chmod-style mode, octal (0777, 775, 2775) or symbolic
// (a=rwx, go+w, +w, o=u), and says whether it may make a file group- or
// world-writable. A mode that copies another class's bits (g=u) counts as
// granting; one without a class (+w) reaches as far as the umask lets it,
// which is the group under the common 002.
func modeGrant(mode string) grant {
	if mode == "" {
		return grant{}
	}
	if n, err := strconv.ParseUint(mode, 8, 32); err == nil && len(mode) <= 5 {
		return grant{group: n&0o020 != 0, world: n&0o002 != 0}
	}
	var g grant
	for _, clause := range strings.Split(mode, ",") {
		i := 0
		who := ""
		for i < len(clause) && strings.IndexByte("ugoa", clause[i]) >= 0 {
			who += string(clause[i])
			i++
		}
		switch {
		case strings.Contains(who, "a"):
			who = "ugo"
		case who == "":
			// The umask limits it: 022 leaves u, the common 002 ug.
			who = "ug"
		}
		for i < len(clause) {
			op := clause[i]
			if op != '+' && op != '-' && op != '=' {
				break
			}
			i++
			perms := ""
			for i < len(clause) && strings.IndexByte("rwxXstugo", clause[i]) >= 0 {
				perms += string(clause[i])
				i++
			}
			if op == '-' {
				continue
			}
			writes := strings.Contains(perms, "w") || strings.ContainsAny(perms, "ugo")
			if writes {
				g.group = g.group || strings.Contains(who, "g")
				g.world = g.world || strings.Contains(who, "o")
			}
		}
	}
	return g
}

// modeOf returns the mode a permission-changing command sets: chmod's
// first operand, install/mkdir/mknod -m, umask's mask turned into the
// permissions it leaves (umask 000 is a=rwx).
func modeOf(v *view) (string, bool) {
	args := v.words[1:]
	switch v.name() {
	case "chmod":
		for i := 0; i < len(args); i++ {
			a := args[i]
			switch {
			case a == "--":
				if i+1 < len(args) {
					return args[i+1], true
				}
				return "", false
			case strings.HasPrefix(a, "--reference"):
				return "", false
			case strings.HasPrefix(a, "--"):
			case strings.HasPrefix(a, "-") && len(a) > 1 && strings.Trim(a[1:], "RvcfhHLP") == "":
			default:
				return a, true // a mode such as -w or +x looks like an option but is not one
			}
		}
	case "install", "mkdir", "mknod", "mkfifo":
		for _, m := range optionValues(args, "-m") {
			return m, true
		}
		for _, m := range optionValues(args, "--mode") {
			return m, true
		}
	case "umask":
		op := skipOptions(args, "", nil)
		if len(op) == 0 {
			return "", false
		}
		if n, err := strconv.ParseUint(op[0], 8, 32); err == nil {
			return strconv.FormatUint(0o777&^n, 8), true
		}
		// a symbolic umask says what is allowed: u=rwx,g=rwx,o=rx
		return op[0], true
	}
	return "", false
}

// worldWritable is the rule for permissions that let anyone write.
func worldWritable(v *view) bool {
	m, ok := modeOf(v)
	return ok && modeGrant(m).world
}

// groupWritable is the rule for permissions that let the file's group
// write (and not everyone: that is worldWritable's).
func groupWritable(v *view) bool {
	m, ok := modeOf(v)
	if !ok {
		return false
	}
	g := modeGrant(m)
	return g.group && !g.world
}
