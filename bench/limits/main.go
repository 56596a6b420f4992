// Command limits times the worst cases of the CPU-heavy steps that issue 9
// item 5 bounds: fuzzy matching of a large old_string in a large file (the
// patch tool) and the lint of deeply nested TOML, JSON, YAML and Go. It runs
// one case once in this process and prints one line, "case=… bytes=…
// elapsed=… result=…", so that run.sh can run each case in a fresh process
// under /usr/bin/time -v and take its peak RSS too.
//
//	go run ./bench/limits -case fuzzy -lines 10000 -old 1000
//	go run ./bench/limits -case toml-header -depth 24000
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/hermes-acp/hermes-acp/lint"
)

func main() {
	name := flag.String("case", "fuzzy", "fuzzy, fuzzy-cancel, toml-header, toml-dotted, toml-inline, json, yaml, go")
	lines := flag.Int("lines", 10000, "fuzzy: lines of the file")
	old := flag.Int("old", 1000, "fuzzy: lines of old_string")
	depth := flag.Int("depth", 24000, "lint: nesting depth (or key components)")
	flag.Parse()

	ctx := context.Background()
	var (
		size    int
		outcome string
	)
	start := time.Now()
	switch *name {
	case "fuzzy":
		content, oldString := fuzzyCase(*lines, *old)
		size = len(content) + len(oldString)
		start = time.Now()
		outcome = fuzzy(ctx, content, oldString)
	case "toml-header", "toml-dotted", "toml-inline", "json", "yaml", "go":
		lang, content := lintCase(*name, *depth)
		size = len(content)
		start = time.Now()
		outcome = lintOnce(ctx, lang, content)
	default:
		fmt.Fprintf(os.Stderr, "limits: unknown case %q\n", *name)
		os.Exit(2)
	}
	elapsed := time.Since(start)
	if len(outcome) > 160 {
		outcome = outcome[:160] + "…"
	}
	fmt.Printf("case=%s bytes=%d elapsed=%s result=%q\n", *name, size, elapsed, outcome)
}

// fuzzyCase is the hostile patch: a file of lines alike enough that every
// line pair needs a full similarity ratio, and an old_string of old lines
// that resembles them but appears nowhere.
func fuzzyCase(lines, old int) (content, oldString string) {
	var b strings.Builder
	for i := range lines {
		fmt.Fprintf(&b, "\tx%d := compute(a, b, %d) // step\n", i, i%7)
	}
	var o strings.Builder
	for i := range old {
		fmt.Fprintf(&o, "\ty%d := compute(a, c, %d) // step\n", i, i%5)
	}
	return b.String(), o.String()
}

// lintCase builds a document nested depth deep.
func lintCase(name string, depth int) (lint.Language, []byte) {
	switch name {
	case "toml-header":
		return lint.LanguageTOML, []byte("[" + strings.Repeat("a.", depth) + "b]\nx = 1\n")
	case "toml-dotted":
		return lint.LanguageTOML, []byte(strings.Repeat("a.", depth) + "b = 1\n")
	case "toml-inline":
		return lint.LanguageTOML, []byte("a = " + strings.Repeat("{b=", depth) + "1" + strings.Repeat("}", depth) + "\n")
	case "json":
		return lint.LanguageJSON, []byte(strings.Repeat(`{"a":`, depth) + "1" + strings.Repeat("}", depth))
	case "yaml":
		return lint.LanguageYAML, []byte(strings.Repeat("[", depth) + strings.Repeat("]", depth) + "\n")
	}
	return lint.LanguageGo, []byte("package p\n\nvar x = " + strings.Repeat("(", depth) + "1" + strings.Repeat(")", depth) + "\n")
}
