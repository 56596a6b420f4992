package lint

// checkGo checks Go source with go/parser in AllErrors mode, so that every
// syntax error is reported, not only the first ten. Type errors are not
// checked: the file is parsed alone. A large file is parsed in pieces on
// several goroutines (see gopieces.go); its diagnostics are always a
// whole-file parse's.
func checkGo(content []byte) []finding {
	return newGoChecker(nil).check(content)
}
