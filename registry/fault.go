//go:build !faultinject

package registry

// faultFromEnv is the fault-injection hook of the faultinject build
// (fault_inject.go); in every other build there is none.
func faultFromEnv() func(stage, tool string) { return nil }
