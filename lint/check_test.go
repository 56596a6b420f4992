package lint

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"go.lsp.dev/protocol"
)

// TestCheckEndToEndCases pins the cases the end-to-end tests rely on, in
// exact positions rather than goldens.
func TestCheckEndToEndCases(t *testing.T) {
	t.Parallel()
	rng := func(sl, sc, el, ec uint32) protocol.Range {
		return protocol.Range{Start: protocol.Position{Line: sl, Character: sc}, End: protocol.Position{Line: el, Character: ec}}
	}
	for _, tc := range []struct {
		name    string
		file    string
		content string
		want    []protocol.Range
		code    string
	}{
		{"config.json trailing comma", "config.json", "{\n  \"name\": \"demo\",\n  \"port\": 8080,\n}\n",
			[]protocol.Range{rng(3, 0, 3, 1)}, CodeJSONSyntax},
		{"json error after emoji", "a.json", "{\"k\": \"😀\",}", []protocol.Range{rng(0, 11, 0, 12)}, CodeJSONSyntax},
		{"yaml bad indentation", "config.yaml", "server:\n  port: 8080\n   host: localhost\n",
			[]protocol.Range{rng(2, 3, 2, 18)}, CodeYAMLSyntax},
		{"go two syntax errors", "main.go", "package main\n\nimport \"fmt\"\n\nfunc main() {\n\tfmt.Println(\"a\";)\n\tfmt.Println(\"b\" \"c\")\n}\n",
			[]protocol.Range{rng(5, 16, 5, 17), rng(6, 17, 6, 20)}, CodeGoSyntax},
		{"crlf json", "a.json", "{\r\n  \"a\": 1,\r\n}\r\n", []protocol.Range{rng(2, 0, 2, 1)}, CodeJSONSyntax},
		{"crlf yaml", "a.yaml", "a:\r\n  b: 1\r\n   c: 2\r\n", []protocol.Range{rng(2, 3, 2, 7)}, CodeYAMLSyntax},
		{"crlf go", "a.go", "package p\r\n\r\nvar x = f(1 2)\r\n", []protocol.Range{rng(2, 12, 2, 13)}, CodeGoSyntax},
		{"toml duplicate key", "a.toml", "a = 1\na = 2\n", []protocol.Range{rng(1, 0, 1, 1)}, CodeTOMLSyntax},
		{"go.mod unknown directive", "go.mod", "module m\nfoo bar\n", []protocol.Range{rng(1, 0, 1, 3)}, CodeGoModSyntax},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ds := Check(LanguageFor(tc.file), []byte(tc.content))
			var got []protocol.Range
			for _, d := range ds {
				got = append(got, d.Range)
				if d.Code != tc.code || d.Source != Source || d.Severity != protocol.DiagnosticSeverityError || d.Message == "" {
					t.Errorf("Check(%s) diagnostic = %+v, want code %s, source %s, severity error and a message",
						tc.file, d, tc.code, Source)
				}
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("Check(%s, %q) ranges (-want +got):\n%s", tc.file, tc.content, diff)
			}
		})
	}
}

func TestCheckCleanIsEmptyNotNil(t *testing.T) {
	t.Parallel()
	for lang, content := range map[Language]string{
		LanguageNone:  "anything {",
		LanguageJSON:  `{"a": [1, 2]}`,
		LanguageJSONC: "// only a comment\n",
		LanguageYAML:  "",
		LanguageTOML:  "",
		LanguageGo:    "package p\n",
		LanguageGoMod: "module m\n",
	} {
		ds := Check(lang, []byte(content))
		if ds == nil || len(ds) != 0 {
			t.Errorf("Check(%s, %q) = %#v, want an empty non-nil slice", lang, content, ds)
		}
		if data, _ := json.Marshal(ds); string(data) != "[]" {
			t.Errorf("json.Marshal(Check(%s, %q)) = %s, want []", lang, content, data)
		}
	}
}

func TestCheckMessages(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		lang    Language
		content string
		want    string
	}{
		// The rune is quoted whole, not its first byte as Latin-1.
		{LanguageJSON, `{"a": é}`, "invalid character 'é' looking for beginning of value"},
		// go.mod messages lose the "go.mod:line:col:" prefix and fold lines.
		{LanguageGoMod, "module m\nreplace a =>\n", "usage: replace module/path [v1.2.3] => other/module v1.4 or replace module/path [v1.2.3] => ../local/directory"},
		{LanguageYAML, "a: *nowhere\n", "unknown anchor 'nowhere' referenced"},
		{LanguageYAML, "a: 1\n\x01", "control characters are not allowed"},
		{LanguageTOML, "a = 1979-13-27\n", `invalid datetime: "1979-13-27"`},
	} {
		ds := Check(tc.lang, []byte(tc.content))
		if len(ds) != 1 || ds[0].Message != tc.want {
			t.Errorf("Check(%s, %q) = %v, want one diagnostic %q", tc.lang, tc.content, ds, tc.want)
		}
	}
}

func TestCheckRangeCoversToken(t *testing.T) {
	t.Parallel()
	// Each range covers the offending token. yaml.v3 gives no line for
	// reader errors and unknown aliases; the linter finds that text itself.
	for _, tc := range []struct {
		lang    Language
		content string
		want    string // the text the range covers
	}{
		{LanguageYAML, "a: 1\nb: *missing\n", "*missing"},
		{LanguageYAML, "a: &x1 1\nb: *x1\nc: *x\n", "*x"},
		{LanguageYAML, "a: 1\nb: \x01\n", "\x01"},
		{LanguageYAML, "a: 1\nb: \"\xff\"\n", "\xff"},
		{LanguageYAML, "note: it's\nt: 'open\n", "'open"},
		{LanguageYAML, "&k a: 1\n*k : 2\n", "*k"},
		{LanguageYAML, "'a b': 1\n\"a b\": 2\n", `"a b"`},
		{LanguageJSON, "{\"a\": 1 \"b\": 2}", `"b"`},
		{LanguageTOML, "[server]\n[server]\n", "server"},
		{LanguageTOML, "a = 1\nb = 2\x16\n", "\x16"}, // BurntSushi/toml reports the byte before
		{LanguageTOML, "\x16", "\x16"},
		{LanguageGoMod, "module m\nrequire \"unterminated\n", "\n"}, // modfile points at the line break
	} {
		ds := Check(tc.lang, []byte(tc.content))
		if len(ds) != 1 {
			t.Errorf("Check(%s, %q) = %v, want one diagnostic", tc.lang, tc.content, ds)
			continue
		}
		m := NewMapper([]byte(tc.content))
		start, _ := m.Offset(ds[0].Range.Start)
		end, _ := m.Offset(ds[0].Range.End)
		if got := tc.content[start:end]; got != tc.want {
			t.Errorf("Check(%s, %q) covers %q, want %q", tc.lang, tc.content, got, tc.want)
		}
	}
}

func TestCheckOrder(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	b.WriteString("package p\nfunc f() {\n")
	for range 30 {
		b.WriteString("\tg(1 2)\n")
	}
	b.WriteString("}\n")
	ds := Check(LanguageGo, []byte(b.String()))
	if len(ds) != 30 {
		t.Fatalf("Check(30 bad calls) = %d diagnostics, want 30", len(ds))
	}
	for i := 1; i < len(ds); i++ {
		if compareDiagnostics(ds[i-1], ds[i]) > 0 {
			t.Errorf("diagnostics %d and %d are out of order: %v, %v", i-1, i, ds[i-1].Range, ds[i].Range)
		}
	}
}

func TestRunParserRecoversFromPanics(t *testing.T) {
	t.Parallel()
	fs := runParser(LanguageYAML, []byte("x: 1\n"), func([]byte) []finding { panic("index out of range") })
	want := []finding{{
		severity: protocol.DiagnosticSeverityError,
		code:     CodeYAMLSyntax,
		message:  "internal error in the yaml parser: index out of range",
	}}
	if diff := cmp.Diff(want, fs, cmp.AllowUnexported(finding{})); diff != "" {
		t.Errorf("runParser(panicking parser) (-want +got):\n%s", diff)
	}
	if fs := check(Language(42), []byte("x")); len(fs) != 0 {
		t.Errorf("check(unknown language) = %v, want nothing", fs)
	}
}

func TestCheckYAMLDuplicateKeys(t *testing.T) {
	t.Parallel()
	var big strings.Builder
	for i := range 30 {
		fmt.Fprintf(&big, "key%d: %d\n", i, i)
	}
	big.WriteString("key5: again\nkey25: again\nkey5: thrice\n")
	for _, tc := range []struct {
		name    string
		content string
		want    []string // "line:char message"
	}{
		{"large mapping", big.String(), []string{
			`30:0 mapping key "key5" already defined at line 6`,
			`31:0 mapping key "key25" already defined at line 26`,
			`32:0 mapping key "key5" already defined at line 6`,
		}},
		{"alias key repeats its anchor", "&k a: 1\n*k : 2\n", []string{`1:0 mapping key "a" already defined at line 1`}},
		{"flow mapping", "{a: 1, b: 2, a: 3}\n", []string{`0:13 mapping key "a" already defined at line 1`}},
		{"quoted key", "'a b': 1\n\"a b\": 2\n", []string{`1:0 mapping key "a b" already defined at line 1`}},
		{"same text, different tags", "1: int\n\"1\": str\n!!str 1: str again\n", []string{`2:0 mapping key "1" already defined at line 2`}},
		{"sequence of mappings are separate", "- a: 1\n- a: 2\n", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ds := Check(LanguageYAML, []byte(tc.content))
			if diff := cmp.Diff(tc.want, briefs(ds)); diff != "" {
				t.Errorf("Check(yaml, %q) (-want +got):\n%s", tc.content, diff)
			}
			for _, d := range ds {
				if d.Severity != protocol.DiagnosticSeverityWarning || d.Code != CodeYAMLDuplicateKey {
					t.Errorf("duplicate key diagnostic %+v, want a yaml-duplicate-key warning", d)
				}
			}
		})
	}
}
