package danger

import (
	"path/filepath"
	"slices"
	"testing"
)

func TestHasShellOperators(t *testing.T) {
	with := []string{"a && b", "a || b", "a; b", "a & b", "a | b", "a < f", "a > f", "echo `id`", "echo $(id)", "a\nb"}
	for _, c := range with {
		if !HasShellOperators(c) {
			t.Errorf("HasShellOperators(%q) = false", c)
		}
	}
	without := []string{"go test ./...", "git push origin main", "rm -rf build", "echo $HOME", "ls -la"}
	for _, c := range without {
		if HasShellOperators(c) {
			t.Errorf("HasShellOperators(%q) = true", c)
		}
	}
}

// TestUncovered: each allowlist entry and each session key covers only its
// own rules.
func TestUncovered(t *testing.T) {
	cases := []struct {
		name     string
		command  string
		list     []string
		approved []string
		left     []string
	}{
		{"exact entry", "rm -rf build", []string{"rm -rf build"}, nil, nil},
		{"exact entry, spaces around", "rm -rf build", []string{"  rm -rf build  "}, nil, nil},
		{"exact entry, other command", "rm -rf dist", []string{"rm -rf build"}, nil, []string{"recursive delete"}},
		{"exact compound entry", "cd x && rm -rf build", []string{"cd x && rm -rf build"}, nil, nil},
		{"key entry", "rm -rf build", []string{"recursive delete"}, nil, nil},
		{"hermes's spelling of a key", "rm build -rf", []string{"recursive delete (flags after operands)"}, nil, nil},
		{"key entry with operators", "cd x && rm -rf build", []string{"recursive delete"}, nil, nil},
		{"key covers only its rule", "rm -rf build && git push --force", []string{"recursive delete"}, nil, []string{keyForcePush}},
		{"session key covers only its rule", "rm -rf build && git push --force", nil, []string{"recursive delete"}, []string{keyForcePush}},
		{"entry and session together", "rm -rf build && git push --force", []string{"recursive delete"}, []string{keyForcePush}, nil},
		{"path prefix below", "rm -rf build/out", []string{"rm -rf build/*"}, nil, nil},
		{"path prefix, the folder itself", "rm -rf build", []string{"rm -rf build/*"}, nil, nil},
		{"path prefix, deeper", "rm -rf build/a/b", []string{"rm -rf build/*"}, nil, nil},
		{"path prefix, another folder", "rm -rf src", []string{"rm -rf build/*"}, nil, []string{"recursive delete"}},
		{"path prefix, climbing out", "rm -rf build/../src", []string{"rm -rf build/*"}, nil, []string{"recursive delete"}},
		{"path prefix, a second operand", "rm -rf build/out src", []string{"rm -rf build/*"}, nil, []string{"recursive delete"}},
		{"path prefix, an expansion", "rm -rf build/$X", []string{"rm -rf build/*"}, nil, []string{"recursive delete", KeyHidden}},
		{"path prefix, operators", "rm -rf build/out; ls", []string{"rm -rf build/*"}, nil, []string{"recursive delete"}},
		{"word prefix", "git push --force origin main", []string{"git push --force *"}, nil, nil},
		{"word prefix, more dangers", "git push --force --receive-pack=x origin", []string{"git push --force *"}, nil, []string{keyGitExec}},
		{"hermes glob covering nothing dangerous", "git push --force origin main", []string{"git push *"}, nil, []string{keyForcePush}},
		{"a bare * covers nothing", "rm -rf build", []string{"*"}, nil, []string{"recursive delete"}},
		{"blank entries", "rm -rf build", []string{"", "  "}, nil, []string{"recursive delete"}},
	}
	for _, tc := range cases {
		v := Check(tc.command)
		var left []string
		for _, r := range Uncovered(tc.command, v, tc.list, tc.approved) {
			left = append(left, r.Key)
		}
		if !slices.Equal(left, tc.left) {
			t.Errorf("%s: Uncovered(%q, %q, %q) = %q, want %q", tc.name, tc.command, tc.list, tc.approved, left, tc.left)
		}
	}
	// Nothing covers the floor.
	v := Check("rm -rf /")
	if u := Uncovered("rm -rf /", v, []string{"rm -rf /", "recursive delete of root filesystem", "rm -rf *"}, v.Keys()); len(u) == 0 {
		t.Error("the floor was covered")
	}
}

// TestPrefixEntry: "always allow" offers an entry that keeps the dangerous
// part — never the bare command name — and that covers the command.
func TestPrefixEntry(t *testing.T) {
	cases := []struct {
		command, entry string
		ok             bool
	}{
		{"rm -rf build", "rm -rf build/*", true},
		{"rm -rf build/", "rm -rf build/*", true},
		{"rm -r node_modules", "rm -r node_modules/*", true},
		{"chmod 777 shared", "chmod 777 shared/*", true},
		{"git push --force origin main", "git push --force *", true},
		{"git reset --hard HEAD~1", "git reset --hard *", true},
		{"systemctl --user restart app", "systemctl --user restart *", true},
		{"pkill -9 node", "pkill -9 *", true},
		{"docker compose down", "", false},        // every word is the danger
		{"git clean -fdx", "", false},             // likewise
		{"rm -rf /tmp/x", "", false},              // an absolute path is not widened
		{"rm -rf ../x", "", false},                // nor one that climbs out
		{"rm -rf .", "", false},                   // nor the folder itself
		{"rm -rf build && ls", "", false},         // operators
		{"rm -rf \"build dir\"", "", false},       // quotes
		{"rm -rf $DIR", "", false},                // expansions
		{"sudo rm -rf build", "", false},          // a wrapper
		{"bash -c 'rm -rf build'", "", false},     // a shell
		{"python3 -c 'print(1)'", "", false},      // an interpreter
		{"rm -rf /", "", false},                   // the floor
		{"go test ./...", "", false},              // not dangerous
		{"sed -i s/a/b/ .env", "", false},         // no shorter run is as dangerous
		{"/bin/rm -rf build", "", false},          // a path as the program
		{"git push origin +main", "", false},      // the refspec is the danger
		{"kill -9 $(pgrep node)", "", false},      // operators
		{"rm build -rf", "rm build/* -rf", false}, // the path is not last
	}
	for _, tc := range cases {
		v := Check(tc.command)
		e, ok := PrefixEntry(tc.command, v)
		if ok != tc.ok || ok && e != tc.entry {
			t.Errorf("PrefixEntry(%q) = %q, %v; want %q, %v", tc.command, e, ok, tc.entry, tc.ok)
			continue
		}
		if ok {
			if u := Uncovered(tc.command, v, []string{e}, nil); len(u) != 0 {
				t.Errorf("PrefixEntry(%q) = %q leaves %v uncovered", tc.command, e, u)
			}
		}
	}
	// The case: "always" for rm -rf build does not cover rm -rf src.
	e, _ := PrefixEntry("rm -rf build", Check("rm -rf build"))
	if u := Uncovered("rm -rf src", Check("rm -rf src"), []string{e, "rm -rf build"}, nil); len(u) == 0 {
		t.Errorf("the entries %q and the exact command cover rm -rf src", e)
	}
}

func TestCanonicalKeys(t *testing.T) {
	for legacy, canon := range aliases {
		if CanonicalKey(legacy) != canon || !IsKey(legacy) || !IsKey(canon) {
			t.Errorf("alias %q → %q is not a known key", legacy, canon)
		}
	}
	if !IsKey(KeyHidden) || IsKey("rm -rf build") {
		t.Error("IsKey mixes keys and commands")
	}
	// Spellings of one danger give one key, once.
	v := Check("git push --force -f origin +main")
	if !slices.Equal(v.Keys(), []string{keyForcePush}) {
		t.Errorf("force push spellings = %q, want one key", v.Keys())
	}
}

// TestWorkspaceOptions: shred, wipefs and truncate ask outside the
// workspace the Options name, and not inside it.
func TestWorkspaceOptions(t *testing.T) {
	root := t.TempDir()
	t.Setenv("HOME", filepath.Join(root, "home"))
	ws := filepath.Join(root, "ws")
	o := Options{Dir: filepath.Join(ws, "sub"), Roots: []string{ws}}
	for _, tc := range []struct {
		cmd  string
		asks bool
	}{
		{"shred notes.txt", false},
		{"shred ../notes.txt", false},
		{"shred ../../notes.txt", true},
		{"shred " + filepath.Join(ws, "x"), false},
		{"shred " + filepath.Join(root, "x"), true},
		{"truncate -s 0 app.log", false},
		{"truncate -s 0 ~/app.log", true},
		{"truncate -s 0 $HOME/app.log", true},
		{"truncate -s 0 /var/log/syslog", true},
		{"wipefs disk.img", false},
		{"wipefs /dev/sdb", true},
	} {
		v := o.Check(tc.cmd)
		if got := v.Has(keyWipeOutside); got != tc.asks {
			t.Errorf("Check(%q) in %s = %q, want asking %v", tc.cmd, o.Dir, v.Keys(), tc.asks)
		}
	}
	// The zero Options: relative paths that stay below are inside.
	if v := Check("shred ../x"); !v.Has(keyWipeOutside) {
		t.Errorf("shred ../x with no workspace = %q", v.Keys())
	}
	if v := Check("shred tmp/x"); v.Dangerous {
		t.Errorf("shred tmp/x with no workspace = %q", v.Keys())
	}
}
