//go:build race

package web

// raceOverhead multiplies a decoder's memory budget in binaries built with
// the race detector, whose shadow memory and metadata grow with every
// allocation (the Go documentation puts the cost at 5 to 10 times the
// memory): the same document then gets the same room for its own data.
const raceOverhead = 8
