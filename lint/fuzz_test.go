package lint

import (
	"bytes"
	"strings"
	"testing"
)

// addFixtureSeeds seeds f with the before and after contents of the fixtures
// of lang, plus extra seeds.
func addFixtureSeeds(f *testing.F, lang Language, extra ...string) {
	for _, fx := range readFixtures(f) {
		if fx.lang != lang {
			continue
		}
		f.Add(fx.after)
		if fx.before != nil {
			f.Add(fx.before)
		}
	}
	for _, s := range extra {
		f.Add([]byte(s))
	}
}

// fuzzCheck checks the invariants of Check on any content: it does not panic,
// no parser panicked inside it, every range lies inside the content with its
// start before its end, and each range end maps to an offset and back.
func fuzzCheck(t *testing.T, lang Language, content []byte) {
	ds := Check(lang, content)
	m := NewMapper(content)
	for _, d := range ds {
		if strings.HasPrefix(d.Message, "internal error in the") {
			t.Fatalf("Check(%s, %q): parser panicked: %s", lang, content, d.Message)
		}
		if d.Source != Source || d.Code != syntaxCode(lang) && d.Code != CodeYAMLDuplicateKey && d.Code != CodeLintLimit {
			t.Fatalf("Check(%s, %q): diagnostic %+v has the wrong source or code", lang, content, d)
		}
		start, err := m.Offset(d.Range.Start)
		if err != nil {
			t.Fatalf("Check(%s, %q): range %v starts outside the content: %v", lang, content, d.Range, err)
		}
		end, err := m.Offset(d.Range.End)
		if err != nil {
			t.Fatalf("Check(%s, %q): range %v ends outside the content: %v", lang, content, d.Range, err)
		}
		if start > end {
			t.Fatalf("Check(%s, %q): range %v is reversed", lang, content, d.Range)
		}
		for _, p := range []struct {
			off  int
			name string
		}{{start, "start"}, {end, "end"}} {
			back, err := m.Position(p.off)
			if err != nil {
				t.Fatalf("Check(%s, %q): %s offset %d does not map back: %v", lang, content, p.name, p.off, err)
			}
			if (p.name == "start" && back != d.Range.Start) || (p.name == "end" && back != d.Range.End) {
				t.Fatalf("Check(%s, %q): range %v %s maps to %d and back to %v", lang, content, d.Range, p.name, p.off, back)
			}
		}
	}
}

func FuzzCheckJSON(f *testing.F) {
	addFixtureSeeds(f, LanguageJSON, `{"a": [1, 2.5, "é😀"]}`, `{"a": 1,}`, "\xef\xbb\xbf[", `"\u00`)
	addFixtureSeeds(f, LanguageJSONC, "// x\n{/* y */ \"a\": [1,],}", "{ /* open")
	f.Fuzz(func(t *testing.T, content []byte) {
		fuzzCheck(t, LanguageJSON, content)
		fuzzCheck(t, LanguageJSONC, content)
	})
}

func FuzzCheckYAML(f *testing.F) {
	addFixtureSeeds(f, LanguageYAML, "a: &x {b: *x}\n", "? [a, b]\n: c\n", "%YAML 1.2\n---\na: !!str 1\n", "- 'it''s'\n- \"\\t\"\n")
	f.Fuzz(func(t *testing.T, content []byte) {
		fuzzCheck(t, LanguageYAML, content)
	})
}

func FuzzCheckTOML(f *testing.F) {
	addFixtureSeeds(f, LanguageTOML, "a.b.c = 1\n[[x]]\ny = '''\nz'''\n", "t = 07:32:00\n")
	f.Fuzz(func(t *testing.T, content []byte) {
		fuzzCheck(t, LanguageTOML, content)
	})
}

func FuzzCheckGo(f *testing.F) {
	addFixtureSeeds(f, LanguageGo, "package p\nfunc f[T any](x T) { _ = `raw\n` }\n", "package p\n/* open")
	f.Fuzz(func(t *testing.T, content []byte) {
		fuzzCheck(t, LanguageGo, content)
	})
}

// FuzzCheckDeep checks Check on content nested depth deep, of every
// language: it never panics, keeps the invariants of fuzzCheck, and content
// over a depth limit gets exactly the one lint-limit finding.
func FuzzCheckDeep(f *testing.F) {
	for _, s := range []struct {
		lang             Language
		open, mid, close string
	}{
		{LanguageTOML, "a.", "b = 1\n", ""},
		{LanguageTOML, "[", "a", "]"},
		{LanguageTOML, "x = {a=", "1", "}"},
		{LanguageTOML, "[a.", "b]\n", ""},
		{LanguageJSON, "[", "1", "]"},
		{LanguageJSONC, `{"a":`, "1", "}"},
		{LanguageYAML, "[", "a", "]"},
		{LanguageYAML, "- ", "a\n", ""},
		{LanguageGo, "(", "1", ")"},
		{LanguageGo, "{", "", "}"},
		{LanguageGoMod, "(", "", ")"},
	} {
		for _, depth := range []uint16{10, 70, 1200, 11000} {
			f.Add(uint8(s.lang), depth, []byte(s.open), []byte(s.mid), []byte(s.close))
		}
	}
	f.Fuzz(func(t *testing.T, langByte uint8, depth uint16, open, mid, close []byte) {
		lang := Language(int(langByte) % len(languageNames))
		// Keep inputs small enough for fuzzCheck, which maps every
		// diagnostic on its own (go/parser reports up to one per token):
		// JSON and YAML stop at their first error, so they go deeper,
		// past their parsers' own limit of 10 000.
		maxDepth := 3000
		if lang == LanguageJSON || lang == LanguageJSONC || lang == LanguageYAML {
			maxDepth = 12000
		}
		depth %= uint16(maxDepth)
		if len(open)+len(close) > 8 || len(mid) > 64 {
			return
		}
		var b bytes.Buffer
		if lang == LanguageGo || lang == LanguageGoMod {
			b.WriteString("package p\nvar x = ")
		}
		b.Write(bytes.Repeat(open, int(depth)))
		b.Write(mid)
		b.Write(bytes.Repeat(close, int(depth)))
		content := b.Bytes()
		fuzzCheck(t, lang, content)
		if _, over := overLimit(lang, content); over {
			ds := Check(lang, content)
			if len(ds) != 1 || ds[0].Code != CodeLintLimit {
				t.Fatalf("Check(%s, %d deep) = %+v, want one %s finding", lang, depth, ds, CodeLintLimit)
			}
		}
	})
}

func FuzzCheckGoMod(f *testing.F) {
	addFixtureSeeds(f, LanguageGoMod, "module m\ngodebug (\n\tpanicnil=1\n)\nretract [v1.0.0, v1.1.0]\n")
	f.Fuzz(func(t *testing.T, content []byte) {
		fuzzCheck(t, LanguageGoMod, content)
	})
}

// FuzzDelta checks that Delta never panics and that its diagnostics are
// exactly the after content's, split without loss.
func FuzzDelta(f *testing.F) {
	for _, fx := range readFixtures(f) {
		f.Add(uint8(fx.lang), fx.before, fx.after)
	}
	f.Fuzz(func(t *testing.T, langByte uint8, before, after []byte) {
		lang := Language(int(langByte) % len(languageNames))
		r := Delta(lang, before, after)
		if r.Skipped != (lang == LanguageNone) {
			t.Fatalf("Delta(%s).Skipped = %v", lang, r.Skipped)
		}
		all := Check(lang, after)
		got := r.current()
		if len(got) != len(all) {
			t.Fatalf("Delta(%s) has %d diagnostics, Check(after) has %d", lang, len(got), len(all))
		}
		for i := range all {
			if got[i].Range != all[i].Range || got[i].Message != all[i].Message {
				t.Fatalf("Delta(%s) diagnostic %d = %+v, Check(after) has %+v", lang, i, got[i], all[i])
			}
		}
		if before == nil && len(r.Preexisting) > 0 {
			t.Fatalf("Delta(%s) of a new file has pre-existing diagnostics", lang)
		}
		_ = r.ModelLint()
		_ = r.Summary()
	})
}
