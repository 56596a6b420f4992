package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/hermes-acp/hermes-acp/skills"
)

// TestSkillsConfig checks the skills section of config.yaml (issue #14):
// skills.disabled hides skills, skills.project_discovery: false leaves the
// workspace's .hermes/skills out, skills.external_dirs adds folders (with ~
// expanded; a relative one is a problem, not fatal).
func TestSkillsConfig(t *testing.T) {
	t.Parallel()
	ext := t.TempDir()
	home := writeHome(t, map[string]string{"config.yaml": "skills:\n  disabled: [noisy]\n  project_discovery: false\n" +
		"  external_dirs: [" + ext + ", ~/team-skills, relative/dir]\n"})
	c := Load(envMap(map[string]string{"HERMES_HOME": home}), "", "")
	userHome, _ := os.UserHomeDir()
	if d := cmp.Diff([]string{"noisy"}, c.SkillsDisabled); d != "" {
		t.Errorf("SkillsDisabled: %s", d)
	}
	if !c.SkillsProjectOff {
		t.Error("skills.project_discovery: false was not read")
	}
	if d := cmp.Diff([]string{ext, filepath.Join(userHome, "team-skills")}, c.SkillsExternal); d != "" {
		t.Errorf("SkillsExternal: %s", d)
	}
	if c.FileErr == nil || !strings.Contains(c.FileErr.Error(), `skills.external_dirs: "relative/dir" is not an absolute folder`) {
		t.Errorf("FileErr = %v, want the relative external dir named", c.FileErr)
	}
	if note := IgnoredNote(c.File, c.Ignored); strings.Contains(note, "skills") {
		t.Errorf("the skills keys are reported as ignored: %s", note)
	}

	ws := t.TempDir()
	for dir, name := range map[string]string{
		filepath.Join(ws, ".hermes", "skills", "proj"): "proj",
		filepath.Join(home, "skills", "mine"):          "mine",
		filepath.Join(home, "skills", "noisy"):         "noisy",
		filepath.Join(ext, "shared"):                   "shared",
	} {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "SKILL.md"), []byte("---\nname: "+name+"\ndescription: d\n---\nbody\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	list := func(c Config) []string {
		all, _ := skills.New(c.Skills([]string{ws})).List()
		var names []string
		for _, s := range all {
			names = append(names, s.Name+"@"+string(s.Root.Source))
		}
		return names
	}
	if d := cmp.Diff([]string{"mine@user", "shared@external"}, list(c)); d != "" {
		t.Errorf("skills with the config (-want +got):\n%s", d)
	}
	plain := Load(envMap(map[string]string{"HERMES_HOME": home}), "", "")
	plain.SkillsDisabled, plain.SkillsProjectOff, plain.SkillsExternal = nil, false, nil
	if d := cmp.Diff([]string{"mine@user", "noisy@user", "proj@project"}, list(plain)); d != "" {
		t.Errorf("skills by default (-want +got):\n%s", d)
	}
}
