package main

import (
	"math"
	"slices"
)

// summary describes the samples of one metric.
type summary struct {
	N       int       `json:"n"`
	Median  float64   `json:"median"`
	P90     float64   `json:"p90"`
	Min     float64   `json:"min"`
	Max     float64   `json:"max"`
	Samples []float64 `json:"samples"`
}

// summarize returns the median (mean of the two middle samples for an even
// count), the 90th percentile (nearest rank), the minimum and maximum of
// xs. It returns a zero summary for no samples.
func summarize(xs []float64) summary {
	if len(xs) == 0 {
		return summary{}
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	n := len(s)
	med := s[n/2]
	if n%2 == 0 {
		med = (s[n/2-1] + s[n/2]) / 2
	}
	rank := int(math.Ceil(0.9 * float64(n)))
	return summary{N: n, Median: med, P90: s[rank-1], Min: s[0], Max: s[n-1], Samples: slices.Clone(xs)}
}
