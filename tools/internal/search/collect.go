package search

import (
	"container/heap"
	"slices"
	"sync"
)

// Hit is one file with results.
type Hit struct {
	// Path is the file as the caller's [Tree.Show] shows it.
	Path string
	// Units is the number of result rows the file contributes: its entries
	// in [Lines] mode, else 1.
	Units int
	// Count is the number of matching lines ([Counts] mode).
	Count int
	// Entries are the matching lines and their context lines, in order
	// ([Lines] mode).
	Entries []Entry
	mod     int64 // modification time, Unix ns ([Query.Names])
}

// collector gathers hits from the workers. It counts every hit but,
// unless keepAll, keeps only the files needed for the first keep rows in
// path order, so a search with a million matches holds one page of them.
// It is safe for concurrent use.
type collector struct {
	keep    int
	keepAll bool // target=files: the order is by time, so every name is kept

	mu       sync.Mutex // guards the fields below
	files    hitHeap    // kept files, largest path on top
	kept     int        // units in files
	total    int        // units of every admitted file
	countSum int        // matching lines of every admitted file (count mode)
	omitted  int        // units refused by the read-deny list
}

func newCollector(keep int, keepAll bool) *collector {
	return &collector{keep: keep, keepAll: keepAll}
}

// addFile records a hit; admitted false means it was refused and already
// counted as omitted.
func (c *collector) addFile(admitted bool, h Hit) {
	if !admitted {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.total += h.Units
	c.countSum += h.Count
	heap.Push(&c.files, h)
	c.kept += h.Units
	if c.keepAll {
		return
	}
	for len(c.files) > 1 && c.kept-c.files[0].Units >= c.keep {
		top := heap.Pop(&c.files).(Hit)
		c.kept -= top.Units
	}
}

func (c *collector) omit(units int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.omitted += units
}

// totals are the counts of a finished search.
type totals struct {
	units    int // rows of every admitted file
	countSum int // matching lines (count mode)
	omitted  int // rows refused by the read-deny list
}

// finish returns the kept files (unordered) and the totals.
func (c *collector) finish() ([]Hit, totals) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Clone(c.files), totals{units: c.total, countSum: c.countSum, omitted: c.omitted}
}

// hitHeap is a max-heap of hits by path.
type hitHeap []Hit

func (h hitHeap) Len() int           { return len(h) }
func (h hitHeap) Less(i, j int) bool { return h[i].Path > h[j].Path }
func (h hitHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *hitHeap) Push(x any)        { *h = append(*h, x.(Hit)) }
func (h *hitHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}
