//go:build !race

package web

// raceOverhead: see race_on.go; 1 in ordinary binaries.
const raceOverhead = 1
