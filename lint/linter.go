package lint

import (
	"context"
	"fmt"
	"hash/maphash"
	"sync"

	"go.lsp.dev/protocol"
)

// A Linter lints like [Check] and does the delta lint of an edit
// ([Linter.Delta]), and also remembers the Go
// declarations it has parsed clean, so that linting a file again after an
// edit parses only the declarations the edit changed: the lint of a one-line
// edit of a large Go file the Linter has seen costs a parse of one
// declaration, not of the file. Results are always exactly those of [Check]
// and of a nil *Linter; what is remembered only saves work.
//
// A Linter remembers a bounded number of declarations (at most 32 768 keys,
// about 2.5 MiB of heap; a 5 000-line file of small functions takes 700 of
// them), forgetting those unused longest. It keeps only keys made of the
// length and two independent 64-bit seeded hashes of their text, never the
// text: two different declarations share a key with a chance of about
// 2^-128. The zero Linter is ready to use, and a Linter is
// safe for concurrent use. A nil *Linter remembers nothing: its methods are
// then the package's functions.
type Linter struct {
	once sync.Once
	segs *segCache
}

// linterEntries is how many clean Go segments a [Linter] remembers in each of
// its two generations: a 5 000-line file of small functions has about 700.
const linterEntries = 16 << 10

// cache returns l's segment cache, nil for a nil Linter.
func (l *Linter) cache() *segCache {
	if l == nil {
		return nil
	}
	l.once.Do(func() { l.segs = newSegCache(linterEntries) })
	return l.segs
}

// Check is [Check], remembering what it parses clean.
func (l *Linter) Check(lang Language, content []byte) []protocol.Diagnostic {
	return toDiagnostics(content, l.check(lang, content))
}

// check is Check before position mapping.
func (l *Linter) check(lang Language, content []byte) []finding {
	if lang == LanguageGo {
		return runParser(lang, content, newGoChecker(l.cache()).check)
	}
	return check(lang, content)
}

// Delta is the delta lint of an edit of a file of language lang from
// before (nil for a new file) to after: see delta for how each diagnostic
// is classified as introduced or pre-existing. It remembers what it parses
// clean and uses what it remembers. When l is nil, the two contents of a Go edit still share what
// one of them shows clean.
func (l *Linter) Delta(lang Language, before, after []byte) Result {
	r, _ := l.DeltaContext(context.Background(), lang, before, after)
	return r
}

// DeltaContext is [Linter.Delta] that stops when ctx is done, returning
// ctx's error, wrapped, and no Result. It looks at ctx before each of the
// (at most two) parses, each bounded by the limits of limits.go, so it
// returns within one parse of a cancel.
func (l *Linter) DeltaContext(ctx context.Context, lang Language, before, after []byte) (Result, error) {
	parse := check
	if lang == LanguageGo {
		c := l.cache()
		if c == nil {
			c = newSegCache(0)
		}
		g := newGoChecker(c)
		parse = func(lang Language, content []byte) []finding {
			return runParser(lang, content, g.check)
		}
	}
	r := delta(func(lang Language, content []byte) []finding {
		if ctx.Err() != nil {
			return nil
		}
		return parse(lang, content)
	}, lang, before, after)
	if err := ctx.Err(); err != nil {
		return Result{}, fmt.Errorf("lint: %w", err)
	}
	return r, nil
}

// DeltaFile is [Linter.Delta] with the language picked by [LanguageFor]
// from the file's name (the file is never opened), which also names the
// extension in the skip reason; it remembers what it parses clean and uses what
// it remembers.
func (l *Linter) DeltaFile(name string, before, after []byte) Result {
	r, _ := l.DeltaFileContext(context.Background(), name, before, after)
	return r
}

// DeltaFileContext is [Linter.DeltaFile] that stops when ctx is done, as
// [Linter.DeltaContext] does.
func (l *Linter) DeltaFileContext(ctx context.Context, name string, before, after []byte) (Result, error) {
	r, err := l.DeltaContext(ctx, LanguageFor(name), before, after)
	if err != nil {
		return Result{}, err
	}
	if r.Skipped {
		r.SkipReason = SkipReason(name)
	}
	return r, nil
}

// Learn lints content, the text of the file name, only so that l remembers
// it: a later lint of an edit of that text then parses only what the edit
// changed. It does nothing for a nil Linter, for a file that is not Go (the
// only language whose lint remembering speeds up) and for a Go file too
// small to be parsed in pieces.
func (l *Linter) Learn(name string, content []byte) {
	if l == nil || !Learns(name, len(content)) {
		return
	}
	l.check(LanguageGo, content)
}

// Learns reports whether [Linter.Learn] does anything with a file called
// name of size bytes: it is Go and big enough to be parsed in pieces.
// Callers that would copy the content or start a goroutine to learn it can
// ask first.
func Learns(name string, size int) bool {
	return LanguageFor(name) == LanguageGo && size >= goSplitMin
}

// Remembered returns how many Go declarations l remembers (0 for a nil
// Linter): for tests and diagnostics.
func (l *Linter) Remembered() int {
	if l == nil {
		return 0
	}
	return l.cache().len()
}

// segKey identifies the text of a Go segment: its length, two independent
// 64-bit hashes of it, and whether it was parsed as the start of a file.
type segKey struct {
	h1, h2 uint64
	n      uint32
	head   bool
}

// segCache is a set of the keys of Go segments known to parse clean, in two
// generations: keys are added to the current one, a key found in the old one
// moves to the current one, and when the current one holds limit keys it
// becomes the old one and the old one is dropped. limit 0 means no bound. It
// is safe for concurrent use.
type segCache struct {
	seed1, seed2 maphash.Seed
	limit        int

	mu       sync.Mutex // guards cur and old
	cur, old map[segKey]struct{}
}

// newSegCache returns an empty segCache of up to limit keys a generation.
func newSegCache(limit int) *segCache {
	return &segCache{seed1: maphash.MakeSeed(), seed2: maphash.MakeSeed(), limit: limit}
}

// key returns the key of segment b; head says it starts the file.
func (c *segCache) key(b []byte, head bool) segKey {
	return segKey{h1: maphash.Bytes(c.seed1, b), h2: maphash.Bytes(c.seed2, b), n: uint32(len(b)), head: head}
}

// lookup sets hit[i] for each keys[i] in the set.
func (c *segCache) lookup(keys []segKey, hit []bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for i, k := range keys {
		if _, ok := c.cur[k]; ok {
			hit[i] = true
		} else if _, ok := c.old[k]; ok {
			hit[i] = true
			c.put(k)
		}
	}
}

// add puts keys in the set.
func (c *segCache) add(keys []segKey) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, k := range keys {
		c.put(k)
	}
}

// put adds k to the current generation, starting a new one when it is full.
// c.mu must be held.
func (c *segCache) put(k segKey) {
	if c.cur == nil {
		c.cur = make(map[segKey]struct{})
	}
	c.cur[k] = struct{}{}
	if c.limit > 0 && len(c.cur) >= c.limit {
		c.old, c.cur = c.cur, nil
	}
}

// len returns how many keys the set holds, counting a key in both
// generations twice.
func (c *segCache) len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.cur) + len(c.old)
}
