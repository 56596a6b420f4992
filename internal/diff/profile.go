package diff

// Profile caches what the similarity bounds need about one text: its code
// points and their multiset. Callers that compare many pairs against a
// threshold build one Profile per text. A Profile is not safe for
// concurrent use: [RatioAtLeast] caches a [Matcher] in it.
type Profile struct {
	runes []rune
	ascii [runeDense]int32
	other map[rune]int32
	// matcher has this text as its b sequence; built on first use by
	// RatioAtLeast and reused against every text it is compared with.
	matcher *Matcher
}

// NewProfile returns the profile of s.
func NewProfile(s string) *Profile {
	p := &Profile{runes: Runes(s)}
	for _, r := range p.runes {
		if r >= 0 && r < runeDense {
			p.ascii[r]++
			continue
		}
		if p.other == nil {
			p.other = make(map[rune]int32)
		}
		p.other[r]++
	}
	return p
}

// Runes returns the code points of the profiled text (see [Runes]); the
// caller must not modify them.
func (p *Profile) Runes() []rune { return p.runes }

// QuickRatio is difflib's quick_ratio(): an upper bound on the ratio of a
// and b computed from element counts only.
func QuickRatio(a, b *Profile) float64 {
	total := len(a.runes) + len(b.runes)
	if total == 0 {
		return 1
	}
	common := 0
	for c := range runeDense {
		common += int(min(a.ascii[c], b.ascii[c]))
	}
	small, large := a.other, b.other
	if len(small) > len(large) {
		small, large = large, small
	}
	for r, n := range small {
		common += int(min(n, large[r]))
	}
	return 2 * float64(common) / float64(total)
}

// RatioAtLeast reports whether SequenceMatcher(None, a, b).ratio() >= t,
// skipping the full computation when difflib's real_quick_ratio (from the
// lengths) or [QuickRatio] already rules it out. It caches a [Matcher] in
// b, so b must not be shared between goroutines.
func RatioAtLeast(a, b *Profile, t float64) bool {
	total := len(a.runes) + len(b.runes)
	if total > 0 && 2*float64(min(len(a.runes), len(b.runes)))/float64(total) < t {
		return false
	}
	if QuickRatio(a, b) < t {
		return false
	}
	if b.matcher == nil {
		b.matcher = NewRuneMatcher(nil, b.runes)
	}
	b.matcher.SetA(a.runes)
	return b.matcher.Ratio() >= t
}
