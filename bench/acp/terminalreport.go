package main

import (
	"fmt"
	"io"
	"strconv"
	"strings"
)

// formatTerm formats a value of the terminal benchmark in its unit.
func formatTerm(v float64, unit string) string {
	switch unit {
	case "":
		return strconv.FormatFloat(v, 'f', -1, 64)
	case "B":
		switch {
		case v < 1<<10:
			return fmt.Sprintf("%.0f B", v)
		case v < 1<<20:
			return formatValue(v/(1<<10), "KiB")
		default:
			return formatValue(v/(1<<20), "MiB")
		}
	case "s":
		if v < 10 {
			return fmt.Sprintf("%.2f s", v)
		}
		return fmt.Sprintf("%.1f s", v)
	default:
		return formatValue(v, unit)
	}
}

// writeTermMarkdown writes one table per scenario: each agent's median
// (with the run count) and the ratio of the first agent to each other one.
func writeTermMarkdown(w io.Writer, rep *termReport) error {
	var b strings.Builder
	names := make([]string, len(rep.Agents))
	for i, a := range rep.Agents {
		names[i] = a.Name
	}
	writeHeader(&b, "Terminal output through the agent", names, rep.Command, rep.Machine)
	for _, a := range rep.Agents {
		fmt.Fprintf(&b, "- %s: `%s`", a.Name, quoteCommand(a.Argv))
		if a.ZedMeta {
			b.WriteString(" (the client advertises `_meta.terminal_output`, as Zed does)")
		}
		b.WriteString("\n")
	}
	fmt.Fprintf(&b, "- Runs: median of up to %d per agent and scenario (no new run after %s spent on one), alternating between the agents; each run is a fresh process, workspace and home\n", rep.Runs, rep.Budget)
	b.WriteString("- The client advertises no `terminal` capability, so the agent runs the command itself and sends its output in `session/update` notifications\n")

	for _, sc := range rep.Scenarios {
		cells := make([]*termCell, len(rep.Agents))
		for _, c := range rep.Cells {
			for i, a := range rep.Agents {
				if c.Agent == a.Name && c.Scenario == sc.Key {
					cells[i] = c
				}
			}
		}
		fmt.Fprintf(&b, "\n#### %s\n\n", sc.Label)
		b.WriteString("| metric |")
		if sc.Key != "echo" {
			b.WriteString(" target |")
		}
		for _, c := range cells {
			fmt.Fprintf(&b, " %s |", c.Agent)
		}
		for _, c := range cells[1:] {
			fmt.Fprintf(&b, " %s / %s |", cells[0].Agent, c.Agent)
		}
		b.WriteString("\n|---|")
		if sc.Key != "echo" {
			b.WriteString("---|")
		}
		b.WriteString(strings.Repeat("---:|", 2*len(cells)-1))
		b.WriteString("\n")
		for _, mt := range termMetrics {
			fmt.Fprintf(&b, "| %s |", mt.Label)
			if sc.Key != "echo" {
				fmt.Fprintf(&b, " %s |", termTarget(mt, cells[0]))
			}
			for _, c := range cells {
				fmt.Fprintf(&b, " %s |", termValueCell(c, mt))
			}
			for _, c := range cells[1:] {
				fmt.Fprintf(&b, " %s |", termRatio(cells[0], c, mt))
			}
			b.WriteString("\n")
		}
		b.WriteString("| runs (measured / started) |")
		if sc.Key != "echo" {
			b.WriteString(" |")
		}
		for _, c := range cells {
			ok := 0
			for _, r := range c.Runs {
				if r.Failure == "" {
					ok++
				}
			}
			capped := ""
			if c.Capped {
				capped = " (capped by the budget)"
			}
			fmt.Fprintf(&b, " %d / %d%s |", ok, len(c.Runs), capped)
		}
		b.WriteString(strings.Repeat(" |", len(cells)-1))
		b.WriteString("\n")
		var notes []string
		for _, c := range cells {
			for _, f := range c.Failures {
				notes = append(notes, fmt.Sprintf("%s: %s", c.Agent, truncate(f, 600)))
			}
			seen := map[string]bool{}
			for _, r := range c.Runs {
				for _, n := range r.Notes {
					if !seen[n] && !strings.HasPrefix(n, pendingTool) {
						seen[n] = true
						notes = append(notes, fmt.Sprintf("%s: %s", c.Agent, truncate(n, 300)))
					}
				}
			}
		}
		if len(notes) > 0 {
			b.WriteString("\n")
			for _, n := range notes {
				fmt.Fprintf(&b, "- %s\n", n)
			}
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// termValueCell is a median, or why there is none.
func termValueCell(c *termCell, m termMetric) string {
	if s, ok := c.Metrics[m.Key]; ok {
		return formatTerm(s.Median, m.Unit)
	}
	for _, f := range c.Failures {
		if strings.HasPrefix(f, pendingTool) {
			return pendingTool
		}
	}
	if len(c.Runs) == 0 {
		return "not run"
	}
	return "failed"
}

func termTarget(m termMetric, c *termCell) string {
	if m.Target == 0 {
		return ""
	}
	t := m.TargetText
	s, ok := c.Metrics[m.Key]
	switch {
	case !ok:
		return t
	case s.Median < m.Target:
		return t + ": met"
	default:
		return t + ": **missed**"
	}
}

func termRatio(a, b *termCell, m termMetric) string {
	x, ok1 := a.Metrics[m.Key]
	y, ok2 := b.Metrics[m.Key]
	if !ok1 || !ok2 || y.Median == 0 {
		return "n/a"
	}
	r := x.Median / y.Median
	switch {
	case r >= 10:
		return fmt.Sprintf("%.0f×", r)
	case r >= 0.1:
		return fmt.Sprintf("%.2f×", r)
	default:
		return fmt.Sprintf("%.2g×", r)
	}
}
