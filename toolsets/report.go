package toolsets

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/hermes-acp/hermes-acp/registry"
)

// WriteReport writes the tables of `hermes-acp tools` for reg, a registry
// of declared tools, and the tools the session's toolsets offer (see
// [Select]): every tool with its toolset, whether it is offered and its
// availability (why not, when it is unavailable); the offered names no
// tool is built for; and each toolset with the built tools it resolves to.
func WriteReport(w io.Writer, reg *registry.Registry, offered []string) error {
	snap := reg.Snapshot()
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "TOOL\tTOOLSET\tOFFERED\tSTATUS")
	for _, st := range reg.Status() {
		status := "available"
		if !st.Available {
			status = "unavailable: " + st.Reason
		}
		yes := "no"
		if slices.Contains(offered, st.Name) && st.Available {
			yes = "yes"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", st.Name, st.Toolset, yes, status)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	var absent []string
	for _, name := range offered {
		if !snap.Has(name) {
			absent = append(absent, name)
		}
	}
	if len(absent) > 0 {
		fmt.Fprintf(w, "\nNamed by the toolsets but not built into hermes-acp (not offered): %s\n", strings.Join(absent, ", "))
	}
	fmt.Fprintf(w, "\nToolsets with tools built into hermes-acp:\n")
	tw = tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	var empty []string
	for _, name := range Names() {
		resolved, _ := Resolve(name, snap)
		built := slices.DeleteFunc(resolved, func(n string) bool { return !snap.Has(n) })
		if len(built) == 0 {
			empty = append(empty, name)
			continue
		}
		fmt.Fprintf(tw, "  %s\t%s\n", name, strings.Join(built, ", "))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintf(w, "\nToolsets without built tools yet: %s\n", strings.Join(empty, ", "))
	_, err := fmt.Fprintf(w, "Legacy toolset names also accepted: %s\n", strings.Join(LegacyNames(), ", "))
	return err
}
