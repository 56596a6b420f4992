package diff

import "sort"

// Matcher is a faithful port of Python's difflib.SequenceMatcher with
// isjunk=None and autojunk=True: the Ratcliff/Obershelp longest matching
// block recursion, where elements of b that occur more than len(b)/100+1
// times are "popular" (when len(b) >= 200) and cannot start a match, though
// matches may extend over them. So its ratios are exactly those hermes-agent's
// fuzzy thresholds are defined in.
//
// Elements are int32 symbols: code points (see [Runes]) or interned lines.
// Symbols in [0, ndense) are indexed in flat arrays, others in a map, so a
// small dense alphabet (ASCII, interned lines) costs no hashing. A Matcher
// indexes b once; [Matcher.SetA] compares another a against the same b. It
// is not safe for concurrent use.
type Matcher struct {
	a, b   []int32
	ndense int32
	start  []int32 // occurrences of dense symbol s are idx[start[s]:start[s+1]]
	idx    []int32
	junk   []bool // popular dense symbols (nil when none)
	sparse map[int32][]int32
	// scratch for findLongestMatch, reused between calls
	j2len, newj2len     []int32
	touched, newTouched []int32
}

// runeDense is the dense range used for code points: ASCII.
const runeDense = 128

// NewMatcher indexes b and returns a Matcher comparing a with b. Symbols in
// [0, ndense) are indexed densely; ndense may be 0.
func NewMatcher(a, b []int32, ndense int32) *Matcher {
	ndense = max(ndense, 0)
	m := &Matcher{a: a, b: b, ndense: ndense, start: make([]int32, ndense+2)}
	// Counting sort of the dense positions: count symbol s in start[s+2],
	// so that after the prefix sums start[s+1] is where s begins; filling
	// advances start[s+1] to where s ends, i.e. where s+1 begins.
	for _, e := range b {
		if e >= 0 && e < ndense {
			m.start[e+2]++
		}
	}
	for s := int32(2); s < ndense+2; s++ {
		m.start[s] += m.start[s-1]
	}
	m.idx = make([]int32, m.start[ndense+1])
	for j, e := range b {
		if e >= 0 && e < ndense {
			m.idx[m.start[e+1]] = int32(j)
			m.start[e+1]++
			continue
		}
		if m.sparse == nil {
			m.sparse = make(map[int32][]int32)
		}
		m.sparse[e] = append(m.sparse[e], int32(j))
	}
	m.start = m.start[:ndense+1]
	if n := len(b); n >= 200 {
		ntest := int32(n/100 + 1)
		for s := range ndense {
			if m.start[s+1]-m.start[s] > ntest {
				if m.junk == nil {
					m.junk = make([]bool, ndense)
				}
				m.junk[s] = true
			}
		}
		for e, idx := range m.sparse {
			if int32(len(idx)) > ntest {
				delete(m.sparse, e)
			}
		}
	}
	return m
}

// NewRuneMatcher is [NewMatcher] for code-point sequences (see [Runes]).
func NewRuneMatcher(a, b []rune) *Matcher { return NewMatcher(a, b, runeDense) }

// SetA is difflib's set_seq1: the Matcher compares a with its b from now on,
// keeping b's index.
func (m *Matcher) SetA(a []int32) { m.a = a }

// occurrences returns the increasing positions in b where s may start a
// match.
func (m *Matcher) occurrences(s int32) []int32 {
	if s >= 0 && s < m.ndense {
		if m.junk != nil && m.junk[s] {
			return nil
		}
		return m.idx[m.start[s]:m.start[s+1]]
	}
	return m.sparse[s]
}

// Block is one of difflib's matching blocks: a[A:A+Size] == b[B:B+Size].
type Block struct{ A, B, Size int }

// findLongestMatch is difflib's find_longest_match(alo, ahi, blo, bhi).
func (m *Matcher) findLongestMatch(alo, ahi, blo, bhi int) Block {
	besti, bestj, bestsize := alo, blo, 0
	if m.j2len == nil {
		m.j2len = make([]int32, len(m.b)+1)
		m.newj2len = make([]int32, len(m.b)+1)
	}
	// j2len[j+1] is the length of the match ending at a[i-1], b[j].
	j2len, newj2len := m.j2len, m.newj2len
	touched, newTouched := m.touched[:0], m.newTouched[:0]
	for i := alo; i < ahi; i++ {
		newTouched = newTouched[:0]
		for _, j32 := range m.occurrences(m.a[i]) {
			j := int(j32)
			if j < blo {
				continue
			}
			if j >= bhi {
				break
			}
			k := j2len[j] + 1
			newj2len[j+1] = k
			newTouched = append(newTouched, int32(j+1))
			if int(k) > bestsize {
				besti, bestj, bestsize = i-int(k)+1, j-int(k)+1, int(k)
			}
		}
		for _, t := range touched {
			j2len[t] = 0
		}
		j2len, newj2len = newj2len, j2len
		touched, newTouched = newTouched, touched
	}
	for _, t := range touched {
		j2len[t] = 0
	}
	m.j2len, m.newj2len = j2len, newj2len
	m.touched, m.newTouched = touched, newTouched
	for besti > alo && bestj > blo && m.a[besti-1] == m.b[bestj-1] {
		besti, bestj, bestsize = besti-1, bestj-1, bestsize+1
	}
	for besti+bestsize < ahi && bestj+bestsize < bhi && m.a[besti+bestsize] == m.b[bestj+bestsize] {
		bestsize++
	}
	return Block{besti, bestj, bestsize}
}

// MatchingBlocks is difflib's get_matching_blocks: the matches in order,
// adjacent ones merged, ending with the sentinel {len(a), len(b), 0}.
func (m *Matcher) MatchingBlocks() []Block {
	type task struct{ alo, ahi, blo, bhi int }
	queue := []task{{0, len(m.a), 0, len(m.b)}}
	var blocks []Block
	for len(queue) > 0 {
		t := queue[len(queue)-1]
		queue = queue[:len(queue)-1]
		x := m.findLongestMatch(t.alo, t.ahi, t.blo, t.bhi)
		if x.Size == 0 {
			continue
		}
		blocks = append(blocks, x)
		if t.alo < x.A && t.blo < x.B {
			queue = append(queue, task{t.alo, x.A, t.blo, x.B})
		}
		if x.A+x.Size < t.ahi && x.B+x.Size < t.bhi {
			queue = append(queue, task{x.A + x.Size, t.ahi, x.B + x.Size, t.bhi})
		}
	}
	sort.Slice(blocks, func(p, q int) bool {
		if blocks[p].A != blocks[q].A {
			return blocks[p].A < blocks[q].A
		}
		return blocks[p].B < blocks[q].B
	})
	var out []Block
	var cur Block
	for _, b := range blocks {
		if cur.A+cur.Size == b.A && cur.B+cur.Size == b.B {
			cur.Size += b.Size
			continue
		}
		if cur.Size > 0 {
			out = append(out, cur)
		}
		cur = b
	}
	if cur.Size > 0 {
		out = append(out, cur)
	}
	return append(out, Block{len(m.a), len(m.b), 0})
}

// Ratio is difflib's ratio(): 2*M/T, where M is the number of matched
// elements and T the total number of elements; 1.0 when both are empty.
func (m *Matcher) Ratio() float64 {
	total := len(m.a) + len(m.b)
	if total == 0 {
		return 1
	}
	matched := 0
	for _, b := range m.MatchingBlocks() {
		matched += b.Size
	}
	return 2 * float64(matched) / float64(total)
}

// Op says how a[I1:I2] relates to b[J1:J2] in an [Opcode].
type Op uint8

// The opcode tags of difflib.
const (
	Equal Op = iota
	Replace
	Delete
	Insert
)

// Opcode is one of difflib's get_opcodes entries: a[I1:I2] relates to
// b[J1:J2] as Op says.
type Opcode struct {
	Op             Op
	I1, I2, J1, J2 int
}

// Opcodes is difflib's get_opcodes: how to turn a into b.
func (m *Matcher) Opcodes() []Opcode {
	var out []Opcode
	i, j := 0, 0
	for _, b := range m.MatchingBlocks() {
		switch {
		case i < b.A && j < b.B:
			out = append(out, Opcode{Replace, i, b.A, j, b.B})
		case i < b.A:
			out = append(out, Opcode{Delete, i, b.A, j, b.B})
		case j < b.B:
			out = append(out, Opcode{Insert, i, b.A, j, b.B})
		}
		i, j = b.A+b.Size, b.B+b.Size
		if b.Size > 0 {
			out = append(out, Opcode{Equal, b.A, i, b.B, j})
		}
	}
	return out
}

// GroupedOpcodes is difflib's get_grouped_opcodes(n): the change hunks of a
// unified diff with n elements of context. Equal sequences give none.
func (m *Matcher) GroupedOpcodes(n int) [][]Opcode {
	codes := m.Opcodes()
	if len(codes) == 0 {
		codes = []Opcode{{Equal, 0, 1, 0, 1}}
	}
	if c := &codes[0]; c.Op == Equal {
		c.I1, c.J1 = max(c.I1, c.I2-n), max(c.J1, c.J2-n)
	}
	if c := &codes[len(codes)-1]; c.Op == Equal {
		c.I2, c.J2 = min(c.I2, c.I1+n), min(c.J2, c.J1+n)
	}
	var groups [][]Opcode
	var group []Opcode
	for _, c := range codes {
		if c.Op == Equal && c.I2-c.I1 > 2*n {
			group = append(group, Opcode{Equal, c.I1, min(c.I2, c.I1+n), c.J1, min(c.J2, c.J1+n)})
			groups = append(groups, group)
			group = nil
			c.I1, c.J1 = max(c.I1, c.I2-n), max(c.J1, c.J2-n)
		}
		group = append(group, c)
	}
	if len(group) > 0 && !(len(group) == 1 && group[0].Op == Equal) {
		groups = append(groups, group)
	}
	return groups
}
