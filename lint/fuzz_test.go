package lint

import (
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
		if d.Source != Source || d.Code != syntaxCode(lang) && d.Code != CodeYAMLDuplicateKey {
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
