package lint

// Shorthands the tests use: the package-level forms of a nil *Linter's
// methods, and test-only views of internal values.

// Delta is (*Linter)(nil).Delta: the delta lint of an edit, remembering
// nothing.
func Delta(lang Language, before, after []byte) Result {
	return (*Linter)(nil).Delta(lang, before, after)
}

// DeltaFile is Delta with the language picked by [LanguageFor] from the
// file's name, which also names the extension in the skip reason. The file is
// never opened.
func DeltaFile(name string, before, after []byte) Result {
	return (*Linter)(nil).DeltaFile(name, before, after)
}

// line returns line i with its "\n".
func (t textLines) line(i int) []byte {
	return t.content[t.start(i):t.start(i+1)]
}

// delta is Delta of Go with g's checks.
func (g goChecker) delta(before, after []byte) Result {
	return delta(func(lang Language, content []byte) []finding {
		return runParser(lang, content, g.check)
	}, LanguageGo, before, after)
}
