package lint

import "strings"

// Language is a file format the linter knows how to check. The zero value is
// [LanguageNone].
type Language int

// The languages [Check] supports.
const (
	// LanguageNone marks an unsupported file: its lint is skipped.
	LanguageNone Language = iota
	// LanguageJSON is strict JSON (RFC 8259), checked with encoding/json.
	LanguageJSON
	// LanguageJSONC is JSON with // and /* */ comments and trailing commas,
	// as used by tsconfig.json and VS Code settings.
	LanguageJSONC
	// LanguageYAML is a YAML stream of one or more documents.
	LanguageYAML
	// LanguageTOML is a TOML document.
	LanguageTOML
	// LanguageGo is a Go source file.
	LanguageGo
	// LanguageGoMod is a go.mod file.
	LanguageGoMod
)

// languageNames is indexed by Language; it is an immutable table.
var languageNames = [...]string{
	LanguageNone:  "none",
	LanguageJSON:  "json",
	LanguageJSONC: "jsonc",
	LanguageYAML:  "yaml",
	LanguageTOML:  "toml",
	LanguageGo:    "go",
	LanguageGoMod: "gomod",
}

// String returns the language's short lower-case name ("json", "jsonc",
// "yaml", "toml", "go", "gomod" or "none").
func (l Language) String() string {
	if l < 0 || int(l) >= len(languageNames) {
		return "none"
	}
	return languageNames[l]
}

// LanguageFor returns the language of the file called name, judged by its name
// alone (the file is never opened). Both / and \ separate folders. Extensions
// are matched case-insensitively; go.mod must be spelled exactly.
//
//   - *.jsonc, tsconfig*.json, jsconfig*.json, devcontainer.json,
//     .devcontainer.json and any .json file directly inside a .vscode folder
//     are [LanguageJSONC];
//   - other *.json files are [LanguageJSON];
//   - *.yaml and *.yml are [LanguageYAML]; *.toml is [LanguageTOML];
//   - *.go is [LanguageGo]; a file named go.mod is [LanguageGoMod];
//   - anything else is [LanguageNone].
func LanguageFor(name string) Language {
	dir, base := splitName(name)
	if base == "go.mod" {
		return LanguageGoMod
	}
	lower := strings.ToLower(base)
	switch extension(lower) {
	case ".jsonc":
		return LanguageJSONC
	case ".json":
		if isJSONCByConvention(lower, dir) {
			return LanguageJSONC
		}
		return LanguageJSON
	case ".yaml", ".yml":
		return LanguageYAML
	case ".toml":
		return LanguageTOML
	case ".go":
		return LanguageGo
	}
	return LanguageNone
}

// isJSONCByConvention reports whether a .json file (lower-cased base name and
// its parent folder's name) is JSONC by the convention of the tools that read it.
func isJSONCByConvention(lowerBase, dir string) bool {
	switch {
	case strings.HasPrefix(lowerBase, "tsconfig"), strings.HasPrefix(lowerBase, "jsconfig"):
		return true
	case lowerBase == "devcontainer.json", lowerBase == ".devcontainer.json":
		return true
	case strings.EqualFold(dir, ".vscode"):
		return true
	}
	return false
}

// SkipReason returns hermes-agent's message for a file without a linter,
// "No linter for <ext> files", where ext is the lower-cased extension of name
// with its dot (".txt"), or the base name when it has no extension.
func SkipReason(name string) string {
	return "No linter for " + extensionOrBase(name) + " files"
}

// extensionOrBase returns the lower-cased extension of name with its dot, or
// its base name when there is no extension.
func extensionOrBase(name string) string {
	_, base := splitName(name)
	if ext := extension(strings.ToLower(base)); ext != "" {
		return ext
	}
	if base == "" {
		return "unnamed"
	}
	return base
}

// splitName returns the name of the folder directly holding the file and the
// file's base name.
func splitName(name string) (dir, base string) {
	i := strings.LastIndexAny(name, `/\`)
	if i < 0 {
		return "", name
	}
	base = name[i+1:]
	rest := name[:i]
	if j := strings.LastIndexAny(rest, `/\`); j >= 0 {
		rest = rest[j+1:]
	}
	return rest, base
}

// extension returns the extension of a base name including its dot, like
// path.Ext; a leading dot alone (".profile") is not an extension.
func extension(base string) string {
	i := strings.LastIndexByte(base, '.')
	if i <= 0 {
		return ""
	}
	return base[i:]
}
