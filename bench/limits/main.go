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
	name := flag.String("case", "fuzzy", "fuzzy, fuzzy-anchor, toml-header, toml-dotted, toml-inline, toml-many, json, yaml, yaml-big, go, go-many")
	lines := flag.Int("lines", 10000, "fuzzy: lines of the file")
	old := flag.Int("old", 1000, "fuzzy: lines of old_string")
	long := flag.Bool("long", false, "fuzzy: lines of 90 bytes instead of 36 (each similarity ratio costs more)")
	depth := flag.Int("depth", 24000, "lint: nesting depth (or key components)")
	approx := flag.Int("size", 4<<20, "toml-many, yaml-big, go-many: bytes of content (about)")
	flag.Parse()

	ctx := context.Background()
	var (
		size    int
		outcome string
	)
	start := time.Now()
	switch *name {
	case "fuzzy":
		content, oldString := fuzzyCase(*lines, *old, *long)
		size = len(content) + len(oldString)
		start = time.Now()
		outcome = fuzzy(ctx, content, oldString)
	case "fuzzy-anchor":
		content, oldString := anchorCase(*lines, *old)
		size = len(content) + len(oldString)
		start = time.Now()
		outcome = fuzzy(ctx, content, oldString)
	case "toml-header", "toml-dotted", "toml-inline", "toml-many", "json", "yaml", "yaml-big", "go", "go-many":
		lang, content := lintCase(*name, *depth, *approx)
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
func fuzzyCase(lines, old int, long bool) (content, oldString string) {
	format := "\t%s%d := compute(a, b, %d) // step\n"
	if long {
		format = "\t%s%d := compute(alpha, beta, gamma, delta, %d) // one step of the long computation\n"
	}
	var b strings.Builder
	for i := range lines {
		fmt.Fprintf(&b, format, "x", i, i%7)
	}
	var o strings.Builder
	for i := range old {
		fmt.Fprintf(&o, format, "y", i, i%5)
	}
	return b.String(), o.String()
}

// anchorCase is the hostile patch for block_anchor: a file of lines
// alternating between "{" and one constant line, so that every window of
// the old_string's (even) length from an even line starts and ends like it,
// and an old_string of old lines whose middle lines resemble the constant
// one, so that each similarity ratio is expensive.
func anchorCase(lines, old int) (content, oldString string) {
	const last = "\tz := compute(alpha, beta, gamma, delta, 1) // one step of the computation }"
	var b strings.Builder
	for i := range lines {
		if i%2 == 0 {
			b.WriteString("{\n")
		} else {
			b.WriteString(last + "\n")
		}
	}
	var o strings.Builder
	o.WriteString("{\n")
	for i := range old - 2 {
		fmt.Fprintf(&o, "\ty%d := compute(alpha, beta, gamma, delta, %d) // one step of the computation }\n", i, i%5)
	}
	o.WriteString(last)
	return b.String(), o.String()
}

// lintCase builds a document nested depth deep (the -many and -big cases:
// about size bytes of content each nested depth deep).
func lintCase(name string, depth, size int) (lint.Language, []byte) {
	var b strings.Builder
	switch name {
	case "toml-many":
		for i := 0; b.Len() < size; i++ {
			fmt.Fprintf(&b, "[%sb%d]\nx = 1\n", strings.Repeat("a.", depth-1), i)
		}
		return lint.LanguageTOML, []byte(b.String())
	case "yaml-big":
		for i := 0; b.Len() < size; i++ {
			fmt.Fprintf(&b, "key%d:\n  - {a: [1, 2, 3], b: \"text %d\"}\n", i, i)
		}
		return lint.LanguageYAML, []byte(b.String())
	case "go-many":
		b.WriteString("package p\n\n")
		for i := 0; b.Len() < size; i++ {
			fmt.Fprintf(&b, "var x%d = %s1%s\n", i, strings.Repeat("(", depth), strings.Repeat(")", depth))
		}
		return lint.LanguageGo, []byte(b.String())
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
