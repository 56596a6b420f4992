package fuzzy

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/hermes-acp/hermes-acp/internal/diff"
)

// This file is the Go port of hermes-agent's tools/fuzzy_match.py: the
// nine-strategy find-and-replace chain. All offsets are byte offsets into the
// content; where hermes works on Python code points (similarity ratios, the
// unicode expansion map) the port decodes runes so that results agree.

// Match strategy names, reported in [Result.Strategy] in the order they are
// tried.
const (
	strategyExact                = "exact"
	strategyLineTrimmed          = "line_trimmed"
	strategyWhitespaceNormalized = "whitespace_normalized"
	strategyIndentationFlexible  = "indentation_flexible"
	strategyEscapeNormalized     = "escape_normalized"
	strategyTrimmedBoundary      = "trimmed_boundary"
	strategyUnicodeNormalized    = "unicode_normalized"
	strategyBlockAnchor          = "block_anchor"
	strategyContextAware         = "context_aware"
)

// Messages the model reads verbatim; the wording is hermes-agent's.
const (
	msgEmptyOld     = "old_string cannot be empty"
	msgIdentical    = "old_string and new_string are identical"
	msgNotFound     = "Could not find a match for old_string in the file"
	msgAmbiguousFmt = "Found %d matches for old_string. Provide more context to make it unique, or use replace_all=True."
	didYouMeanIntro = "\n\nDid you mean one of these sections?\n"
	escapeDriftFmt  = "Escape-drift detected: old_string and new_string contain the literal sequence %s but the matched region of the file does not. This is almost always a tool-call serialization artifact where an apostrophe or quote got prefixed with a spurious backslash. Re-read the file with read_file and pass old_string/new_string without backslash-escaping %s characters."
)

// Thresholds, all hermes-agent's (similarities are difflib ratios).
const (
	closestMinRatio  = 0.3  // a line must beat this to be offered as "did you mean"
	closestMaxShown  = 3    // at most this many sections are offered
	closestContext   = 2    // lines of context before each offered section
	blockAnchorOne   = 0.50 // block_anchor middle similarity, one candidate
	blockAnchorMany  = 0.70 // block_anchor middle similarity, several candidates
	contextLineRatio = 0.80 // context_aware per-line similarity (half the lines must reach it)
)

// Limits of the two similarity strategies (block_anchor, context_aware) and
// of the "did you mean" hint: their cost grows with the product of the sizes
// of old_string and the file (a 2 000-line old_string against a 20 000-line
// file took minutes), so above these limits they are skipped and a failed
// match says why. The seven other strategies are linear scans and always run.
// Not hermes-agent's: it has no limits.
const (
	// maxOldLines and maxOldBytes bound old_string.
	maxOldLines = 400
	maxOldBytes = 32 << 10
	// maxFileBytes bounds the file (also for the hint).
	maxFileBytes = 2 << 20
	// maxLinePairs bounds file lines × old_string lines.
	maxLinePairs = 500_000
	// maxAnchorBytes bounds the line the hint compares every file line
	// with.
	maxAnchorBytes = 2 << 10
	// maxAnchorWork bounds block_anchor's candidate windows × the
	// characters of old_string's middle lines: each candidate costs a
	// similarity ratio of two texts that long.
	maxAnchorWork = 1 << 18
	// checkEvery is how many windows the linear strategies scan between
	// two looks at the context (the similarity ones look at every window).
	checkEvery = 256
)

// msgLimitedFmt explains, after msgNotFound, that the similarity strategies
// were skipped: what was too large, the limits, and what to do instead.
const msgLimitedFmt = "%s; fuzzy matching by similarity (block_anchor, context_aware) is limited to " +
	"old_string of %d lines and %d KiB, files of %d MiB and %d line pairs (file lines × old_string lines), " +
	"so only exact and whitespace-tolerant matching was tried. Use a smaller unique snippet of the text " +
	"as old_string (a few lines around the change), or a V4A patch (mode='patch') with small hunks."

// msgAnchorLimitFmt explains, after msgNotFound, that block_anchor compared
// nothing.
const msgAnchorLimitFmt = "%d places in the file start and end with the first and last lines of " +
	"old_string, and its middle is %d characters; block_anchor matching is limited to %d characters " +
	"(places × middle), so it was skipped. Use a smaller unique snippet of the text as old_string, " +
	"or a V4A patch (mode='patch') with small hunks."

// similarityLimit returns why the similarity strategies may not run on this
// pair, or "" when they may.
func similarityLimit(content, oldString string) string {
	oldLines := strings.Count(oldString, "\n") + 1
	fileLines := strings.Count(content, "\n") + 1
	var why string
	switch {
	case oldLines > maxOldLines || len(oldString) > maxOldBytes:
		why = fmt.Sprintf("old_string is %d lines (%s)", oldLines, byteSize(len(oldString)))
	case len(content) > maxFileBytes:
		why = fmt.Sprintf("the file is %s", byteSize(len(content)))
	case oldLines*fileLines > maxLinePairs:
		why = fmt.Sprintf("old_string is %d lines and the file %d lines (%d line pairs)", oldLines, fileLines, oldLines*fileLines)
	default:
		return ""
	}
	return fmt.Sprintf(msgLimitedFmt, why, maxOldLines, maxOldBytes>>10, maxFileBytes>>20, maxLinePairs)
}

// byteSize renders n bytes for a message: "812 bytes", "45.2 KiB", "3.1 MiB".
func byteSize(n int) string {
	switch {
	case n < 1<<10:
		return fmt.Sprintf("%d bytes", n)
	case n < 1<<20:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
}

// stopped reports, every checkEvery calls (i counts them), whether ctx
// is done.
func stopped(ctx context.Context, i int) bool {
	return i%checkEvery == 0 && ctx.Err() != nil
}

// Result is the outcome of a successful [Replace].
type Result struct {
	// Content is the whole content after the replacement.
	Content string
	// Count is the number of regions replaced: 1 without replaceAll. (Under
	// replaceAll, a region overlapping an earlier one is not replaced.)
	Count int
	// Strategy names the matching strategy that found the regions: exact,
	// line_trimmed, whitespace_normalized, indentation_flexible,
	// escape_normalized, trimmed_boundary, unicode_normalized, block_anchor or
	// context_aware.
	Strategy string
}

// Error is a patch failure the model can act on. Its text is meant to be
// returned to the model verbatim (in the tool result's "error" field).
type Error struct {
	// Msg is the error in hermes-agent's wording, without any hint.
	Msg string
	// Hint is the "\n\nDid you mean one of these sections?\n…" suffix with
	// numbered nearby lines. It is set only for plain not-found errors, and
	// only when some line of the content resembles the first line of
	// old_string.
	Hint string
	// NotFound reports a plain not-found failure (no strategy matched), with
	// or without a Hint; ambiguity, escape-drift and argument errors leave it
	// false.
	NotFound bool
}

// Error returns Msg followed by Hint.
func (e *Error) Error() string { return e.Msg + e.Hint }

// span is a half-open byte range [start, end) of the content.
type span struct{ start, end int }

// Replace is hermes-agent's fuzzy_find_and_replace: it replaces
// oldString by newString in content, trying nine matching strategies in order
// (exact, line_trimmed, whitespace_normalized, indentation_flexible,
// escape_normalized, trimmed_boundary, unicode_normalized, block_anchor,
// context_aware) and using the first that finds at least one region. Without
// replaceAll the region must be unique.
//
// Matches found by a strategy other than exact are guarded and adjusted: an
// old/new pair that both carry a \' or \" escape missing from the matched
// region is refused as escape drift; newString is re-indented to the file's
// indentation; the unicode strategy keeps the file's typographic characters
// in the parts of the region the edit does not touch. For every strategy the
// two-character sequences \t and \r in newString become a real tab or CR when
// the matched region contains one.
//
// The two similarity strategies and the "did you mean" hint are bounded:
// they are skipped for an old_string over 400 lines or 32 KiB, a file over
// 2 MiB, or more than 500 000 line pairs (file lines × old_string lines),
// and a failure then says so and what to do instead. Every strategy stops
// when ctx is done; Replace then returns ctx's error, wrapped.
//
// Failures are returned as a *[Error]; content is never modified in
// place. Replace keeps no state and is safe for concurrent use.
func Replace(ctx context.Context, content, oldString, newString string, replaceAll bool) (Result, error) {
	if oldString == "" {
		return Result{}, &Error{Msg: msgEmptyOld}
	}
	if oldString == newString {
		return Result{}, &Error{Msg: msgIdentical}
	}
	limited := similarityLimit(content, oldString)
	for _, s := range strategies {
		if s.similarity && limited != "" {
			continue
		}
		matches := s.find(ctx, content, oldString)
		if err := ctx.Err(); err != nil {
			return Result{}, fmt.Errorf("fuzzy match: %w", err)
		}
		if len(matches) == 0 {
			continue
		}
		if len(matches) > 1 && !replaceAll {
			return Result{}, &Error{Msg: fmt.Sprintf(msgAmbiguousFmt, len(matches))}
		}
		matches = cleanSpans(matches, len(content))
		exact := s.name == strategyExact
		if !exact {
			if msg := escapeDrift(content, matches, oldString, newString); msg != "" {
				return Result{}, &Error{Msg: msg}
			}
		}
		effective := unescapeControls(newString, content, matches)
		var b strings.Builder
		b.Grow(len(content) + len(matches)*len(effective))
		prev := 0
		for _, m := range matches {
			region := content[m.start:m.end]
			repl := effective
			if s.name == strategyUnicodeNormalized {
				repl = preserveUnicode(region, oldString, repl)
			}
			if !exact {
				repl = reindent(region, oldString, repl)
			}
			b.WriteString(content[prev:m.start])
			b.WriteString(repl)
			prev = m.end
		}
		b.WriteString(content[prev:])
		return Result{Content: b.String(), Count: len(matches), Strategy: s.name}, nil
	}
	err := &Error{Msg: msgNotFound, NotFound: true}
	// Over a limit, the hint would show three sections as long as
	// old_string: the limit and what to do instead say more.
	if limited != "" {
		err.Msg += ". " + limited
		return Result{}, err
	}
	if why := blockAnchorLimit(ctx, content, oldString); why != "" {
		err.Msg += ". " + why
		return Result{}, err
	}
	h := closestLines(ctx, oldString, content)
	if cerr := ctx.Err(); cerr != nil {
		return Result{}, fmt.Errorf("fuzzy match: %w", cerr)
	}
	if h != "" {
		err.Hint = didYouMeanIntro + h
	}
	return Result{}, err
}

// strategies is the strategy chain in hermes-agent's order.
// A strategy returns early, with whatever it found, when ctx is done; the
// caller then discards that. similarity marks the strategies under
// [similarityLimit].
var strategies = [...]struct {
	name       string
	find       func(ctx context.Context, content, pattern string) []span
	similarity bool
}{
	{strategyExact, matchExactCtx, false},
	{strategyLineTrimmed, matchLineTrimmed, false},
	{strategyWhitespaceNormalized, matchWhitespaceNormalized, false},
	{strategyIndentationFlexible, matchIndentationFlexible, false},
	{strategyEscapeNormalized, matchEscapeNormalized, false},
	{strategyTrimmedBoundary, matchTrimmedBoundary, false},
	{strategyUnicodeNormalized, matchUnicodeNormalized, false},
	{strategyBlockAnchor, matchBlockAnchor, true},
	{strategyContextAware, matchContextAware, true},
}

// cleanSpans sorts spans, clamps them to the content and drops any span that
// overlaps an earlier one, so that replacements can be applied in one pass.
// (Line-window strategies can report overlapping windows under replace_all;
// hermes would apply them over each other and corrupt the file.)
func cleanSpans(spans []span, n int) []span {
	out := make([]span, 0, len(spans))
	for _, s := range spans {
		s.start = min(max(s.start, 0), n)
		s.end = min(max(s.end, s.start), n)
		out = append(out, s)
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].start < out[j].start })
	kept := out[:0]
	for _, s := range out {
		if len(kept) > 0 && s.start < kept[len(kept)-1].end {
			continue
		}
		kept = append(kept, s)
	}
	return kept
}

// ---------------------------------------------------------------------------
// Strategies
// ---------------------------------------------------------------------------

// matchExactCtx is matchExact as a strategy: one linear scan, which needs no
// look at ctx.
func matchExactCtx(_ context.Context, content, pattern string) []span {
	return matchExact(content, pattern)
}

// matchExact is strategy 1: plain substring search, non-overlapping (the scan
// resumes after each whole match, like strings.Replace).
func matchExact(content, pattern string) []span {
	if pattern == "" {
		return nil
	}
	var out []span
	for start := 0; start <= len(content); {
		i := strings.Index(content[start:], pattern)
		if i < 0 {
			break
		}
		out = append(out, span{start + i, start + i + len(pattern)})
		start += i + len(pattern)
	}
	return out
}

// matchLineTrimmed is strategy 2: every line of pattern and content is
// stripped of surrounding whitespace before comparing whole-line windows.
func matchLineTrimmed(ctx context.Context, content, pattern string) []span {
	return matchLineWindows(ctx, content, pattern, Strip)
}

// matchIndentationFlexible is strategy 4: leading whitespace of every line is
// ignored.
func matchIndentationFlexible(ctx context.Context, content, pattern string) []span {
	return matchLineWindows(ctx, content, pattern, LStrip)
}

// matchLineWindows finds every window of whole content lines equal, line by
// line after norm, to the lines of pattern.
func matchLineWindows(ctx context.Context, content, pattern string, norm func(string) string) []span {
	pat := strings.Split(pattern, "\n")
	for i := range pat {
		pat[i] = norm(pat[i])
	}
	lines := strings.Split(content, "\n")
	if len(pat) > len(lines) {
		return nil
	}
	normLines := make([]string, len(lines))
	for i, l := range lines {
		normLines[i] = norm(l)
	}
	offs := lineStarts(lines)
	var out []span
	for _, i := range lineOccurrences(ctx, normLines, pat) {
		out = append(out, lineSpan(offs, i, i+len(pat), len(content)))
	}
	return out
}

// lineOccurrences returns, in increasing order, every i at which
// text[i:i+len(pat)] equals pat, overlapping occurrences included. It is
// Knuth–Morris–Pratt over lines, so its time is linear in the lines and
// their bytes however they repeat (comparing each window would be
// quadratic on a file of identical lines). It returns early when ctx is
// done.
func lineOccurrences(ctx context.Context, text, pat []string) []int {
	n := len(pat)
	if n == 0 || n > len(text) {
		return nil
	}
	var ids diff.Interner[string] // the pattern's distinct lines
	p := ids.IDs(pat)
	fail := make([]int, n) // fail[i]: longest proper border of p[:i+1]
	for i, k := 1, 0; i < n; i++ {
		for k > 0 && p[i] != p[k] {
			k = fail[k-1]
		}
		if p[i] == p[k] {
			k++
		}
		fail[i] = k
	}
	var out []int
	k := 0
	for j, l := range text {
		if stopped(ctx, j) {
			return out
		}
		id, ok := ids.Lookup(l)
		if !ok {
			k = 0 // no occurrence spans a line the pattern lacks
			continue
		}
		for k > 0 && id != p[k] {
			k = fail[k-1]
		}
		if id == p[k] {
			k++
		}
		if k == n {
			out = append(out, j-n+1)
			k = fail[k-1]
		}
	}
	return out
}

// lineStarts returns, for lines obtained by splitting on "\n", the byte
// offset at which each line starts, plus one final entry one past the end
// (as if the last line were followed by a newline).
func lineStarts(lines []string) []int {
	offs := make([]int, len(lines)+1)
	for i, l := range lines {
		offs[i+1] = offs[i] + len(l) + 1
	}
	return offs
}

// lineSpan is hermes's _calculate_line_positions: lines [from, to) without
// the newline that ends the last of them.
func lineSpan(offs []int, from, to, n int) span {
	return span{offs[from], min(offs[to]-1, n)}
}

// matchWhitespaceNormalized is strategy 3: runs of spaces and tabs collapse to
// one space in both pattern and content; matches are mapped back to the
// original content.
func matchWhitespaceNormalized(_ context.Context, content, pattern string) []span {
	normPattern := collapseBlanks(pattern)
	normContent := collapseBlanks(content)
	found := matchExact(normContent, normPattern)
	if len(found) == 0 {
		return nil
	}
	return mapCollapsedSpans(content, normContent, found)
}

// collapseBlanks replaces every run of spaces and tabs by one space.
func collapseBlanks(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	inRun := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == ' ' || c == '\t' {
			if !inRun {
				b.WriteByte(' ')
			}
			inRun = true
			continue
		}
		inRun = false
		b.WriteByte(c)
	}
	return b.String()
}

// mapCollapsedSpans maps spans of normalized (from collapseBlanks) back to
// original, porting hermes's _map_normalized_positions. A span that ended in
// a non-space character does not swallow the whitespace after it (hermes
// issue 52491); a span that ended in a collapsed space takes the whole
// original run. One deliberate fix over hermes: a span starting at a
// non-space character starts at that character, not at the surplus
// whitespace before it, so the replacement does not eat the file's spacing
// in front of the match.
func mapCollapsedSpans(original, normalized string, found []span) []span {
	isBlank := func(c byte) bool { return c == ' ' || c == '\t' }
	origToNorm := make([]int, 0, len(original))
	oi, ni := 0, 0
	for oi < len(original) && ni < len(normalized) {
		switch {
		case original[oi] == normalized[ni]:
			origToNorm = append(origToNorm, ni)
			oi++
			ni++
		case isBlank(original[oi]) && normalized[ni] == ' ':
			origToNorm = append(origToNorm, ni)
			oi++
			if oi < len(original) && !isBlank(original[oi]) {
				ni++
			}
		default:
			// Surplus whitespace (or an impossible mismatch) maps to the
			// current normalized position.
			origToNorm = append(origToNorm, ni)
			oi++
		}
	}
	for oi < len(original) {
		origToNorm = append(origToNorm, len(normalized))
		oi++
	}
	first := make([]int, len(normalized)+1)
	last := make([]int, len(normalized)+1)
	for i := range first {
		first[i], last[i] = -1, -1
	}
	for o, n := range origToNorm {
		if first[n] < 0 {
			first[n] = o
		}
		last[n] = o
	}
	var out []span
	for _, m := range found {
		ns, ne := m.start, m.end
		start := first[ns]
		if start < 0 {
			start = -1
			for o, n := range origToNorm {
				if n >= ns {
					start = o
					break
				}
			}
			if start < 0 {
				continue // hermes would raise here; there is nothing to map
			}
		} else if ns < len(normalized) && normalized[ns] != ' ' {
			if l := last[ns]; l >= 0 && original[l] == normalized[ns] {
				start = l
			}
		}
		var end int
		if ne > 0 && last[ne-1] >= 0 {
			end = last[ne-1] + 1
		} else {
			end = start + (ne - ns)
		}
		if ne < len(normalized) && ne > 0 && normalized[ne-1] == ' ' {
			for end < len(original) && isBlank(original[end]) {
				end++
			}
		}
		out = append(out, span{start, min(end, len(original))})
	}
	return out
}

// matchEscapeNormalized is strategy 5: when the pattern contains the literal
// two-character sequences \n, \t or \r, they are turned into the real
// characters and the result is searched exactly.
func matchEscapeNormalized(_ context.Context, content, pattern string) []span {
	unescaped := strings.ReplaceAll(pattern, `\n`, "\n")
	unescaped = strings.ReplaceAll(unescaped, `\t`, "\t")
	unescaped = strings.ReplaceAll(unescaped, `\r`, "\r")
	if unescaped == pattern {
		return nil
	}
	return matchExact(content, unescaped)
}

// matchTrimmedBoundary is strategy 6: only the first and the last line of the
// pattern (and of each window) are stripped; inner lines must be identical.
func matchTrimmedBoundary(ctx context.Context, content, pattern string) []span {
	pat := strings.Split(pattern, "\n")
	pat[0] = Strip(pat[0])
	if len(pat) > 1 {
		pat[len(pat)-1] = Strip(pat[len(pat)-1])
	}
	lines := strings.Split(content, "\n")
	if len(pat) > len(lines) {
		return nil
	}
	offs := lineStarts(lines)
	n := len(pat)
	var out []span
	boundaries := func(i int) bool {
		return Strip(lines[i]) == pat[0] && (n == 1 || Strip(lines[i+n-1]) == pat[n-1])
	}
	if n <= 2 {
		for i := 0; i+n <= len(lines); i++ {
			if stopped(ctx, i) {
				return out
			}
			if boundaries(i) {
				out = append(out, lineSpan(offs, i, i+n, len(content)))
			}
		}
		return out
	}
	// The inner lines must be identical: find them first, in linear time.
	for _, j := range lineOccurrences(ctx, lines, pat[1:n-1]) {
		if i := j - 1; i >= 0 && i+n <= len(lines) && boundaries(i) {
			out = append(out, lineSpan(offs, i, i+n, len(content)))
		}
	}
	return out
}

// unicodeFold maps the typographic characters models type as ASCII to their
// ASCII spelling (hermes's UNICODE_MAP).
func unicodeFold(r rune) (string, bool) {
	switch r {
	case '\u201c', '\u201d':
		return `"`, true
	case '\u2018', '\u2019':
		return "'", true
	case '\u2014':
		return "--", true
	case '\u2013':
		return "-", true
	case '\u2026':
		return "...", true
	case '\u00a0':
		return " ", true
	}
	return "", false
}

// foldUnicode returns s with every unicodeFold character replaced.
func foldUnicode(s string) string {
	var b strings.Builder
	changed := false
	for i, r := range s {
		if repl, ok := unicodeFold(r); ok {
			if !changed {
				b.Grow(len(s) + 8)
				b.WriteString(s[:i])
				changed = true
			}
			b.WriteString(repl)
			continue
		}
		if changed {
			// Copy the bytes as they are (keeps invalid UTF-8 intact).
			_, w := utf8.DecodeRuneInString(s[i:])
			b.WriteString(s[i : i+w])
		}
	}
	if !changed {
		return s
	}
	return b.String()
}

// foldMap returns, for every byte offset of s and one past its end, the
// offset in foldUnicode(s) where that byte lands. All bytes of a folded rune
// map to the start of its replacement.
func foldMap(s string) []int {
	m := make([]int, len(s)+1)
	np := 0
	for i := 0; i < len(s); {
		r, w := utf8.DecodeRuneInString(s[i:])
		if repl, ok := unicodeFold(r); ok && r != utf8.RuneError {
			for k := range w {
				m[i+k] = np
			}
			np += len(repl)
		} else {
			for k := range w {
				m[i+k] = np + k
			}
			np += w
		}
		i += w
	}
	m[len(s)] = np
	return m
}

// mapFoldedSpans maps spans of foldUnicode(original) back to original
// (hermes's _map_positions_norm_to_orig). A span starting inside a
// multi-character expansion cannot be mapped and is dropped, as hermes does.
func mapFoldedSpans(origToNorm []int, found []span) []span {
	n := len(origToNorm) - 1
	startOf := make([]int, origToNorm[n]+1)
	for i := range startOf {
		startOf[i] = -1
	}
	for o := n - 1; o >= 0; o-- {
		startOf[origToNorm[o]] = o // iterating backwards leaves the first
	}
	var out []span
	for _, m := range found {
		if m.start < 0 || m.start >= len(startOf) || startOf[m.start] < 0 {
			continue
		}
		start := startOf[m.start]
		end := start
		for end < n && origToNorm[end] < m.end {
			end++
		}
		out = append(out, span{start, end})
	}
	return out
}

// matchUnicodeNormalized is strategy 7: smart quotes, dashes, the ellipsis
// and NBSP are folded to ASCII in pattern and content, then exact and
// line_trimmed matching run on the folded text.
func matchUnicodeNormalized(ctx context.Context, content, pattern string) []span {
	normPattern := foldUnicode(pattern)
	normContent := foldUnicode(content)
	if normContent == content && normPattern == pattern {
		return nil
	}
	found := matchExact(normContent, normPattern)
	if len(found) == 0 {
		found = matchLineTrimmed(ctx, normContent, normPattern)
	}
	if len(found) == 0 {
		return nil
	}
	return mapFoldedSpans(foldMap(content), found)
}

// matchBlockAnchor is strategy 8: a window whose first and last lines equal
// the pattern's (stripped, unicode-folded) is accepted when its middle is
// similar enough: ratio >= 0.50 when it is the only such window, >= 0.70 when
// there are several. Two-line patterns need only the anchors. When comparing
// every candidate window would exceed maxAnchorWork, nothing is compared
// (see [blockAnchorLimit]).
func matchBlockAnchor(ctx context.Context, content, pattern string) []span {
	a := planBlockAnchor(ctx, content, pattern)
	if a == nil || a.work() > maxAnchorWork {
		return nil
	}
	n := len(a.pat)
	threshold := blockAnchorMany
	if len(a.candidates) == 1 {
		threshold = blockAnchorOne
	}
	var patMiddle []rune
	if n > 2 {
		patMiddle = diff.Runes(strings.Join(a.pat[1:n-1], "\n"))
	}
	offs := lineStarts(a.origLines)
	var out []span
	for _, i := range a.candidates {
		if ctx.Err() != nil {
			return nil
		}
		similarity := 1.0
		if n > 2 {
			contentMiddle := diff.Runes(strings.Join(a.normLines[i+1:i+n-1], "\n"))
			similarity = diff.NewRuneMatcher(contentMiddle, patMiddle).Ratio()
		}
		if similarity >= threshold {
			out = append(out, lineSpan(offs, i, i+n, len(content)))
		}
	}
	return out
}

// blockAnchorPlan is what block_anchor compares: the folded pattern lines,
// the content's folded and original lines, and the windows whose first and
// last lines match the pattern's.
type blockAnchorPlan struct {
	pat, normLines, origLines []string
	candidates                []int
}

// planBlockAnchor finds block_anchor's candidate windows; nil when there are
// none (or ctx is done).
func planBlockAnchor(ctx context.Context, content, pattern string) *blockAnchorPlan {
	pat := strings.Split(foldUnicode(pattern), "\n")
	if len(pat) < 2 {
		return nil
	}
	first, last := Strip(pat[0]), Strip(pat[len(pat)-1])
	normLines := strings.Split(foldUnicode(content), "\n")
	origLines := strings.Split(content, "\n")
	n := len(pat)
	if n > len(normLines) || len(normLines) != len(origLines) {
		return nil
	}
	var candidates []int
	for i := 0; i+n <= len(normLines); i++ {
		if stopped(ctx, i) {
			return nil
		}
		if Strip(normLines[i]) == first && Strip(normLines[i+n-1]) == last {
			candidates = append(candidates, i)
		}
	}
	if len(candidates) == 0 {
		return nil
	}
	return &blockAnchorPlan{pat: pat, normLines: normLines, origLines: origLines, candidates: candidates}
}

// middleRunes returns the code points of the pattern's middle lines (with
// the line breaks between them).
func (a *blockAnchorPlan) middleRunes() int {
	n := len(a.pat)
	if n <= 2 {
		return 0
	}
	r := n - 3
	for _, l := range a.pat[1 : n-1] {
		r += utf8.RuneCountInString(l)
	}
	return r
}

// work is the cost of comparing every candidate: candidates × middle.
func (a *blockAnchorPlan) work() int { return len(a.candidates) * a.middleRunes() }

// blockAnchorLimit returns why block_anchor compared nothing for this pair,
// or "" when it did (or had nothing to compare).
func blockAnchorLimit(ctx context.Context, content, oldString string) string {
	a := planBlockAnchor(ctx, content, oldString)
	if a == nil || a.work() <= maxAnchorWork {
		return ""
	}
	return fmt.Sprintf(msgAnchorLimitFmt, len(a.candidates), a.middleRunes(), maxAnchorWork)
}

// matchContextAware is strategy 9, the last resort: a window of as many
// lines as the pattern is accepted when at least half of its lines have a
// similarity of at least 0.80 to the aligned (stripped) pattern line.
//
// Exact upper bounds of the similarity (difflib's real_quick_ratio and
// quick_ratio) skip most comparisons, and a window is abandoned as soon as it
// can no longer reach the required share, so a miss on a large file stays
// cheap; results are those of the plain scan. Only the profiles of the
// current window's lines are kept, so memory grows with the pattern, not
// the file.
func matchContextAware(ctx context.Context, content, pattern string) []span {
	pat := strings.Split(pattern, "\n")
	lines := strings.Split(content, "\n")
	n := len(pat)
	if n > len(lines) {
		return nil
	}
	need := (n + 1) / 2 // the least count with count >= n*0.5
	patProfiles := make([]*diff.Profile, n)
	for i, p := range pat {
		patProfiles[i] = diff.NewProfile(Strip(p))
	}
	// ring[j%n] holds the profile of line held[j%n]: a window [i, i+n)
	// needs lines i..i+n-1, and line j is last needed by window j.
	ring := make([]*diff.Profile, n)
	held := make([]int, n)
	for k := range held {
		held[k] = -1
	}
	profile := func(j int) *diff.Profile {
		k := j % n
		if held[k] != j {
			ring[k], held[k] = diff.NewProfile(Strip(lines[j])), j
		}
		return ring[k]
	}
	offs := lineStarts(lines)
	var out []span
	for i := 0; i+n <= len(lines); i++ {
		if ctx.Err() != nil {
			return nil
		}
		good, bad := 0, 0
		for k := 0; k < n && good < need && bad <= n-need; k++ {
			if diff.RatioAtLeast(patProfiles[k], profile(i+k), contextLineRatio) {
				good++
			} else {
				bad++
			}
		}
		if good >= need {
			out = append(out, lineSpan(offs, i, i+n, len(content)))
		}
	}
	return out
}

// ---------------------------------------------------------------------------
// Safety rules and replacement adjustments
// ---------------------------------------------------------------------------

// joinedRegions concatenates the matched regions, as hermes inspects them.
func joinedRegions(content string, spans []span) string {
	if len(spans) == 1 {
		return content[spans[0].start:spans[0].end]
	}
	var b strings.Builder
	for _, s := range spans {
		b.WriteString(content[s.start:s.end])
	}
	return b.String()
}

// escapeDrift returns hermes's escape-drift refusal when oldString and
// newString both contain \' (or \") but the matched regions do not: the
// transport added a backslash the file never had.
func escapeDrift(content string, spans []span, oldString, newString string) string {
	if !strings.Contains(newString, `\'`) && !strings.Contains(newString, `\"`) {
		return ""
	}
	regions := joinedRegions(content, spans)
	for _, s := range [...]struct{ seq, seqRepr, plainRepr string }{
		{`\'`, `"\\'"`, `"'"`},
		{`\"`, `'\\"'`, `'"'`},
	} {
		if strings.Contains(newString, s.seq) && strings.Contains(oldString, s.seq) && !strings.Contains(regions, s.seq) {
			return fmt.Sprintf(escapeDriftFmt, s.seqRepr, s.plainRepr)
		}
	}
	return ""
}

// unescapeControls turns the two-character sequences \t and \r of newString
// into a real tab or CR when the matched regions contain that real character
// (hermes issue 33733: models double-escape tabs in JSON arguments). \n is
// never unescaped. Refinement over hermes: when the regions also contain the
// literal sequence (a tab-indented file with "\t" string literals, common in
// Go), only \t sequences in a line's leading indentation are converted, so
// escape sequences inside string literals survive; a literal \r present in
// the regions likewise keeps \r as written.
func unescapeControls(newString, content string, spans []span) string {
	hasT := strings.Contains(newString, `\t`)
	hasR := strings.Contains(newString, `\r`)
	if !hasT && !hasR {
		return newString
	}
	regions := joinedRegions(content, spans)
	out := newString
	if hasT && strings.Contains(regions, "\t") {
		if strings.Contains(regions, `\t`) {
			out = unescapeLeadingTabs(out)
		} else {
			out = strings.ReplaceAll(out, `\t`, "\t")
		}
	}
	if hasR && strings.Contains(regions, "\r") && !strings.Contains(regions, `\r`) {
		out = strings.ReplaceAll(out, `\r`, "\r")
	}
	return out
}

// unescapeLeadingTabs converts \t sequences that form (part of) a line's
// leading indentation into real tabs.
func unescapeLeadingTabs(s string) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		var b strings.Builder
		j := 0
		for j < len(l) {
			switch {
			case l[j] == ' ' || l[j] == '\t':
				b.WriteByte(l[j])
				j++
				continue
			case strings.HasPrefix(l[j:], `\t`):
				b.WriteByte('\t')
				j += 2
				continue
			}
			break
		}
		if j > 0 {
			lines[i] = b.String() + l[j:]
		}
	}
	return strings.Join(lines, "\n")
}

// preserveUnicode is hermes's _preserve_unicode_in_replacement for one
// matched region: it diffs the unicode-folded old string against the new
// string and re-applies only those edits onto the region, so smart quotes,
// dashes and ellipses the model typed as ASCII survive where the model did not
// change them. Unlike hermes, an unchanged span that begins or ends inside a
// multi-character expansion (half of an em dash's "--") is written in its
// ASCII form instead of copying from the wrong offset, and every region of a
// replace_all is handled on its own.
func preserveUnicode(region, oldString, newString string) string {
	normOld := foldUnicode(oldString)
	if normOld != foldUnicode(region) {
		return newString
	}
	// units[k] describes the k-th rune of region: its bytes and the range of
	// runes it occupies in the folded text.
	type unit struct{ ob, oe, ns, ne int }
	var units []unit
	nr := 0
	for i := 0; i < len(region); {
		r, w := utf8.DecodeRuneInString(region[i:])
		width := 1
		if repl, ok := unicodeFold(r); ok && r != utf8.RuneError {
			width = utf8.RuneCountInString(repl)
		}
		units = append(units, unit{i, i + w, nr, nr + width})
		nr += width
		i += w
	}
	oldRunes := diff.Runes(normOld)
	newUnits, newOffs := diff.RuneOffsets(newString)
	var b strings.Builder
	for _, op := range diff.NewRuneMatcher(oldRunes, newUnits).Opcodes() {
		switch op.Op {
		case diff.Equal:
			k := sort.Search(len(units), func(k int) bool { return units[k].ne > op.I1 })
			for ; k < len(units) && units[k].ns < op.I2; k++ {
				u := units[k]
				if u.ns >= op.I1 && u.ne <= op.I2 {
					b.WriteString(region[u.ob:u.oe])
					continue
				}
				// Partial overlap with an expansion: write the folded ASCII.
				from, to := max(u.ns, op.I1), min(u.ne, op.I2)
				b.WriteString(string(oldRunes[from:to]))
			}
		case diff.Replace, diff.Insert:
			b.WriteString(newString[newOffs[op.J1]:newOffs[op.J2]])
		}
	}
	return b.String()
}

// ---------------------------------------------------------------------------
// "Did you mean" hint
// ---------------------------------------------------------------------------

// closestLines is hermes's find_closest_lines: the (up to) three content
// lines most similar to the first non-blank line of oldString, each shown with
// two lines of context before and len(old lines)+2 lines from it, numbered
// "%4d| " and separated by "---". It returns "" when no line has a similarity
// above 0.3.
//
// The hint is bounded like the similarity strategies: it is "" for a file
// over maxFileBytes or an anchor line over maxAnchorBytes, and
// when ctx is done.
func closestLines(ctx context.Context, oldString, content string) string {
	if oldString == "" || content == "" || len(content) > maxFileBytes {
		return ""
	}
	oldLines := SplitLines(oldString)
	contentLines := SplitLines(content)
	if len(oldLines) == 0 || len(contentLines) == 0 {
		return ""
	}
	anchor := Strip(oldLines[0])
	if anchor == "" {
		for _, l := range oldLines {
			if s := Strip(l); s != "" {
				anchor = s
				break
			}
		}
		if anchor == "" {
			return ""
		}
	}
	if len(anchor) > maxAnchorBytes {
		return ""
	}
	type scored struct {
		ratio float64
		line  int
	}
	var hits []scored
	anchorProfile := diff.NewProfile(anchor)
	for i, l := range contentLines {
		if stopped(ctx, i) {
			return ""
		}
		s := Strip(l)
		if s == "" {
			continue
		}
		p := diff.NewProfile(s)
		if diff.QuickRatio(anchorProfile, p) <= closestMinRatio {
			continue
		}
		if r := diff.NewRuneMatcher(anchorProfile.Runes(), p.Runes()).Ratio(); r > closestMinRatio {
			hits = append(hits, scored{r, i})
		}
	}
	if len(hits) == 0 {
		return ""
	}
	sort.SliceStable(hits, func(i, j int) bool { return hits[i].ratio > hits[j].ratio })
	hits = hits[:min(len(hits), closestMaxShown)]
	var parts []string
	seen := map[[2]int]bool{}
	for _, h := range hits {
		start := max(0, h.line-closestContext)
		end := min(len(contentLines), h.line+len(oldLines)+closestContext)
		if seen[[2]int{start, end}] {
			continue
		}
		seen[[2]int{start, end}] = true
		rows := make([]string, 0, end-start)
		for j := start; j < end; j++ {
			rows = append(rows, fmt.Sprintf("%4d| %s", j+1, contentLines[j]))
		}
		parts = append(parts, strings.Join(rows, "\n"))
	}
	return strings.Join(parts, "\n---\n")
}
