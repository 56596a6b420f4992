package diff

// Interner numbers distinct values densely from 0, in order of first
// sight, so that lines can be compared as int32 tokens by [Match] and
// [NewMatcher]. The zero value is ready to use; it is not safe for
// concurrent use.
type Interner[K comparable] struct {
	ids map[K]int32
}

// ID returns k's number, giving it the next one on first sight.
func (in *Interner[K]) ID(k K) int32 {
	if in.ids == nil {
		in.ids = make(map[K]int32)
	}
	id, ok := in.ids[k]
	if !ok {
		id = int32(len(in.ids))
		in.ids[k] = id
	}
	return id
}

// IDs returns the numbers of keys, in order.
func (in *Interner[K]) IDs(keys []K) []int32 {
	out := make([]int32, len(keys))
	for i, k := range keys {
		out[i] = in.ID(k)
	}
	return out
}

// Lookup returns k's number without numbering it when it is new.
func (in *Interner[K]) Lookup(k K) (int32, bool) {
	id, ok := in.ids[k]
	return id, ok
}

// Len returns how many distinct values have been numbered.
func (in *Interner[K]) Len() int32 { return int32(len(in.ids)) }
