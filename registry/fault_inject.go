//go:build faultinject

package registry

import (
	"fmt"
	"os"
	"strings"
)

// faultFromEnv is the fault-injection build's hook (go build -tags
// faultinject, for the end-to-end tests of the catch-all):
// HERMES_ACP_INJECT_PANIC=STAGE:TOOL[,STAGE:TOOL…] panics at STAGE of every
// call of TOOL ("*" for any tool). Nothing else reads the variable.
func faultFromEnv() func(stage, tool string) {
	spec := os.Getenv("HERMES_ACP_INJECT_PANIC")
	if spec == "" {
		return nil
	}
	faults := map[string]bool{}
	for _, f := range strings.Split(spec, ",") {
		faults[strings.TrimSpace(f)] = true
	}
	return func(stage, tool string) {
		if faults[stage+":"+tool] || faults[stage+":*"] {
			panic(fmt.Sprintf("injected panic at %s of %s", stage, tool))
		}
	}
}
