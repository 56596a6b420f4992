package config

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestSaveAllowlistEntryKeepsTheFile(t *testing.T) {
	home := t.TempDir()
	path := filepath.Join(home, "config.yaml")
	orig := "# my settings\nmodel:\n  default: gpt-x # the one I pay for\ncommand_allowlist:\n  - make test\n"
	if err := os.WriteFile(path, []byte(orig), 0o640); err != nil {
		t.Fatal(err)
	}
	for _, e := range []string{"recursive delete", "git push *", "recursive delete"} {
		if err := SaveAllowlistEntry(path, e); err != nil {
			t.Fatal(err)
		}
	}
	b, _ := os.ReadFile(path)
	text := string(b)
	for _, want := range []string{"# my settings", "# the one I pay for", "default: gpt-x"} {
		if !strings.Contains(text, want) {
			t.Errorf("the file lost %q:\n%s", want, text)
		}
	}
	c := Load(envMap(map[string]string{"HERMES_HOME": home}), "", "")
	if want := []string{"make test", "recursive delete", "git push *"}; !slices.Equal(c.Allowlist, want) {
		t.Errorf("allowlist read back = %q, want %q (no duplicates)", c.Allowlist, want)
	}
	if c.Model != "gpt-x" {
		t.Errorf("model read back = %q", c.Model)
	}
	if st, _ := os.Stat(path); st.Mode().Perm() != 0o640 {
		t.Errorf("mode = %v, want the file's own 0640", st.Mode().Perm())
	}
}

func TestSaveAllowlistEntryNewFileAndRefusals(t *testing.T) {
	home := filepath.Join(t.TempDir(), "new-home")
	path := filepath.Join(home, "config.yaml")
	if err := SaveAllowlistEntry(path, "rm *"); err != nil {
		t.Fatal(err)
	}
	c := Load(envMap(map[string]string{"HERMES_HOME": home}), "", "")
	if !slices.Equal(c.Allowlist, []string{"rm *"}) {
		t.Errorf("allowlist = %q", c.Allowlist)
	}
	if st, _ := os.Stat(path); st.Mode().Perm() != 0o600 {
		t.Errorf("a new config file has mode %v, want 0600", st.Mode().Perm())
	}
	for name, content := range map[string]string{
		"broken YAML":   "model: [unclosed\n",
		"not a mapping": "- a\n- b\n",
		"not a list":    "command_allowlist: make\n",
	} {
		p := filepath.Join(t.TempDir(), "config.yaml")
		os.WriteFile(p, []byte(content), 0o600)
		err := SaveAllowlistEntry(p, "x")
		if err == nil || !strings.Contains(err.Error(), "left as it is") {
			t.Errorf("%s: err = %v, want a refusal that leaves the file", name, err)
		}
		if b, _ := os.ReadFile(p); string(b) != content {
			t.Errorf("%s: the file changed to %q", name, b)
		}
	}
}

func TestRemoveAllowlistEntry(t *testing.T) {
	home := t.TempDir()
	path := filepath.Join(home, "config.yaml")
	orig := "# mine\ncommand_allowlist:\n  - make test # keep\n  - \"rm -rf build/*\"\n  - recursive delete\n  - \"rm -rf build/*\"\n"
	if err := os.WriteFile(path, []byte(orig), 0o640); err != nil {
		t.Fatal(err)
	}
	found, err := RemoveAllowlistEntry(path, "rm -rf build/*")
	if err != nil || !found {
		t.Fatalf("RemoveAllowlistEntry = %v, %v; want found", found, err)
	}
	c := Load(envMap(map[string]string{"HERMES_HOME": home}), "", "")
	if want := []string{"make test", "recursive delete"}; !slices.Equal(c.Allowlist, want) {
		t.Errorf("allowlist after removal = %q, want %q", c.Allowlist, want)
	}
	b, _ := os.ReadFile(path)
	if !strings.Contains(string(b), "# mine") || !strings.Contains(string(b), "# keep") {
		t.Errorf("the file lost its comments:\n%s", b)
	}
	if st, _ := os.Stat(path); st.Mode().Perm() != 0o640 {
		t.Errorf("mode = %v, want 0640", st.Mode().Perm())
	}
	if found, err := RemoveAllowlistEntry(path, "not there"); found || err != nil {
		t.Errorf("removing a missing entry = %v, %v", found, err)
	}
	if found, err := RemoveAllowlistEntry(filepath.Join(home, "none.yaml"), "x"); found || err != nil {
		t.Errorf("removing from a missing file = %v, %v", found, err)
	}
	bad := filepath.Join(t.TempDir(), "config.yaml")
	os.WriteFile(bad, []byte("command_allowlist: [unclosed\n"), 0o600)
	if _, err := RemoveAllowlistEntry(bad, "x"); err == nil {
		t.Error("removing from broken YAML did not fail")
	}
	if b, _ := os.ReadFile(bad); string(b) != "command_allowlist: [unclosed\n" {
		t.Error("the broken file was changed")
	}
}
