package lint

import "testing"

func TestLanguageFor(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		want Language
	}{
		{"config.json", LanguageJSON},
		{"/abs/path/package.json", LanguageJSON},
		{"DATA.JSON", LanguageJSON},
		{"settings.json", LanguageJSON},
		{"notvscode/settings.json", LanguageJSON},
		{".vscode/settings.json", LanguageJSONC},
		{"/w/.vscode/launch.json", LanguageJSONC},
		{`C:\w\.vscode\tasks.json`, LanguageJSONC},
		{".vscode/sub/x.json", LanguageJSON},
		{"tsconfig.json", LanguageJSONC},
		{"web/tsconfig.base.json", LanguageJSONC},
		{"TSConfig.JSON", LanguageJSONC},
		{"jsconfig.json", LanguageJSONC},
		{".devcontainer/devcontainer.json", LanguageJSONC},
		{".devcontainer.json", LanguageJSONC},
		{"x.jsonc", LanguageJSONC},
		{"a.yaml", LanguageYAML},
		{"a.YML", LanguageYAML},
		{"pyproject.toml", LanguageTOML},
		{"main.go", LanguageGo},
		{"go.mod", LanguageGoMod},
		{"/repo/sub/go.mod", LanguageGoMod},
		{"go.sum", LanguageNone},
		{"notgo.mod", LanguageNone},
		{"notes.txt", LanguageNone},
		{"App.tsx", LanguageNone},
		{"Makefile", LanguageNone},
		{".json", LanguageNone},
		{"", LanguageNone},
		{"dir.json/file", LanguageNone},
	} {
		if got := LanguageFor(tc.name); got != tc.want {
			t.Errorf("LanguageFor(%q) = %v, want %v", tc.name, got, tc.want)
		}
	}
}

func TestSkipReason(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ name, want string }{
		{"notes.txt", "No linter for .txt files"},
		{"src/App.TSX", "No linter for .tsx files"},
		{"Makefile", "No linter for Makefile files"},
		{"a/b/", "No linter for unnamed files"},
	} {
		if got := SkipReason(tc.name); got != tc.want {
			t.Errorf("SkipReason(%q) = %q, want %q", tc.name, got, tc.want)
		}
	}
}

func TestLanguageString(t *testing.T) {
	t.Parallel()
	for lang, want := range map[Language]string{
		LanguageNone: "none", LanguageJSON: "json", LanguageJSONC: "jsonc", LanguageYAML: "yaml",
		LanguageTOML: "toml", LanguageGo: "go", LanguageGoMod: "gomod", Language(99): "none", Language(-1): "none",
	} {
		if got := lang.String(); got != want {
			t.Errorf("Language(%d).String() = %q, want %q", int(lang), got, want)
		}
	}
}
