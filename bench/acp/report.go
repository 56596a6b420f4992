package main

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"sort"
	"strconv"
	"strings"
)

// writeJSON writes the report as indented JSON.
func writeJSON(w io.Writer, rep *report) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(rep)
}

// writeHeader writes a report's title (what it measures, the agents
// compared) and its command and machine lines.
func writeHeader(b *strings.Builder, what string, agents []string, command string, m machineInfo) {
	fmt.Fprintf(b, "### %s: %s\n\n", what, strings.Join(agents, " vs "))
	fmt.Fprintf(b, "- Command: `%s`\n", command)
	fmt.Fprintf(b, "- Machine: %s/%s, %d CPUs", m.OS, m.Arch, m.CPUs)
	if m.CPUModel != "" {
		fmt.Fprintf(b, " (%s)", m.CPUModel)
	}
	if m.LoadAvg != "" {
		fmt.Fprintf(b, ", load average %s at the start", m.LoadAvg)
	}
	fmt.Fprintf(b, "; benchmark built with %s\n", m.GoVersion)
}

// writeMarkdown writes the report as Markdown: a header naming the
// command, machine and agents, one table, and notes.
func writeMarkdown(w io.Writer, rep *report) error {
	var b strings.Builder
	names := make([]string, len(rep.Agents))
	for i, a := range rep.Agents {
		names[i] = a.Name
	}
	writeHeader(&b, "ACP agent benchmark", names, rep.Command, rep.Machine)
	for _, a := range rep.Agents {
		fmt.Fprintf(&b, "- %s: `%s`", a.Name, a.Command)
		switch {
		case a.Binary != nil:
			fmt.Fprintf(&b, " — %s, %s", a.Binary.Kind, formatBytes(a.Binary.Bytes))
			if a.Binary.GoVersion != "" {
				fmt.Fprintf(&b, ", built with %s", a.Binary.GoVersion)
			}
		case a.BinaryError != "":
			fmt.Fprintf(&b, " — %s", a.BinaryError)
		}
		if a.Auth != "" {
			fmt.Fprintf(&b, "; authenticate with `%s`", a.Auth)
		}
		b.WriteString("\n")
	}
	fmt.Fprintf(&b, "- Runs: %d measured per agent after %d warm-up", rep.Runs, rep.Warmup)
	if len(rep.Agents) > 1 {
		b.WriteString(", alternating between the agents")
	}
	b.WriteString("; each run starts a fresh process with a fresh $HERMES_HOME and workspace\n\n")

	rows := tableRows(rep.Agents)
	if len(rep.Agents) == 1 {
		a := rep.Agents[0]
		b.WriteString("| metric | target | median | p90 | min | runs |\n|---|---|---:|---:|---:|---:|\n")
		for _, m := range rows {
			s, ok := a.Metrics[m.Key]
			if !ok {
				fmt.Fprintf(&b, "| %s | %s | %s | | | 0 |\n", m.Label, targetCell(m, a), cellMissing(a, m))
				continue
			}
			fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %d |\n", m.Label, targetCell(m, a),
				formatValue(s.Median, m.Unit), formatValue(s.P90, m.Unit), formatValue(s.Min, m.Unit), s.N)
		}
	} else {
		ours, theirs := rep.Agents[0], rep.Agents[1]
		fmt.Fprintf(&b, "| metric | target | %[1]s median | %[1]s p90 | %[1]s min | %[2]s median | %[2]s p90 | %[2]s min | %[1]s / %[2]s |\n", ours.Name, theirs.Name)
		b.WriteString("|---|---|---:|---:|---:|---:|---:|---:|---:|\n")
		for _, m := range rows {
			fmt.Fprintf(&b, "| %s | %s | %s | %s | %s |\n", m.Label, targetCell(m, ours), statCells(ours, m), statCells(theirs, m), ratioCell(ours, theirs, m))
		}
	}
	b.WriteString("\nOverhead = prompt request → reply minus the time the fake model server spent serving requests in that window. ")
	b.WriteString("Targets apply to the first agent; \"met\"/\"missed\" compare its median.\n")

	var notes []string
	for _, a := range rep.Agents {
		keys := make([]string, 0, len(a.NotMeasured))
		for k := range a.NotMeasured {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, f := range a.Failures {
			notes = append(notes, fmt.Sprintf("%s: %s", a.Name, f))
		}
		if a.skip != stepNone && a.skipWhy != "" {
			notes = append(notes, fmt.Sprintf("%s: warm-up failed at %s, so it and later steps were skipped: %s", a.Name, a.skip, a.skipWhy))
		}
		seen := map[string]bool{}
		for _, r := range a.Runs {
			for _, n := range r.Notes {
				if !seen[n] {
					seen[n] = true
					notes = append(notes, fmt.Sprintf("%s: %s", a.Name, n))
				}
			}
		}
		if bad, first := badLines(a.Runs); bad > 0 {
			notes = append(notes, fmt.Sprintf("%s: %d lines on stdout were not JSON-RPC messages, first: %q", a.Name, bad, first))
		}
		if req := agentRequests(a.Runs); req != "" {
			notes = append(notes, fmt.Sprintf("%s: requests the agent sent to the client (answered cancelled / method not found): %s", a.Name, req))
		}
		if mr := modelRequests(a.Runs); mr != "" {
			notes = append(notes, fmt.Sprintf("%s: model requests per prompt (first, second): %s", a.Name, mr))
		}
	}
	if len(notes) > 0 {
		b.WriteString("\nNotes:\n")
		for _, n := range notes {
			fmt.Fprintf(&b, "- %s\n", n)
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// tableRows is the metrics with a row: authenticate only when an agent
// authenticates.
func tableRows(agents []*agentResult) []metric {
	var rows []metric
	for _, m := range metrics {
		if m.Step == stepAuth {
			used := false
			for _, a := range agents {
				used = used || a.Auth != ""
			}
			if !used {
				continue
			}
		}
		rows = append(rows, m)
	}
	return rows
}

func targetCell(m metric, a *agentResult) string {
	if m.Target == 0 {
		return ""
	}
	t := "< " + strconv.FormatFloat(m.Target, 'f', -1, 64) + " " + m.Unit
	s, ok := a.Metrics[m.Key]
	switch {
	case !ok:
		return t
	case s.Median < m.Target:
		return t + ": met"
	default:
		return t + ": **missed**"
	}
}

// cellMissing says in a table cell why a metric has no value; long reasons
// are cut there and given in full in the notes.
func cellMissing(a *agentResult, m metric) string {
	why, ok := a.NotMeasured[m.Key]
	if !ok {
		return "—"
	}
	if len(why) > maxCell {
		why = truncate(why, maxCell) + " (see notes)"
	}
	return strings.ReplaceAll(why, "|", "\\|")
}

// maxCell bounds the text of a table cell.
const maxCell = 100

// statCells is "median | p90 | min" of one agent, or why it is missing.
func statCells(a *agentResult, m metric) string {
	s, ok := a.Metrics[m.Key]
	if !ok {
		return cellMissing(a, m) + " | | "
	}
	return fmt.Sprintf("%s | %s | %s", formatValue(s.Median, m.Unit), formatValue(s.P90, m.Unit), formatValue(s.Min, m.Unit))
}

func ratioCell(ours, theirs *agentResult, m metric) string {
	a, ok1 := ours.Metrics[m.Key]
	b, ok2 := theirs.Metrics[m.Key]
	if !ok1 || !ok2 || b.Median == 0 {
		return "n/a"
	}
	return formatRatio(a.Median / b.Median)
}

// formatValue prints a value with about three significant digits.
func formatValue(v float64, unit string) string {
	switch a := math.Abs(v); {
	case a >= 100:
		return fmt.Sprintf("%.0f %s", v, unit)
	case a >= 10:
		return fmt.Sprintf("%.1f %s", v, unit)
	default:
		return fmt.Sprintf("%.2f %s", v, unit)
	}
}

// formatRatio prints a ratio with two significant digits.
func formatRatio(r float64) string {
	if math.Abs(r) >= 100 {
		return fmt.Sprintf("%.0f×", r)
	}
	return strconv.FormatFloat(r, 'g', 2, 64) + "×"
}

func formatBytes(n int64) string {
	if n < 1<<20 {
		return fmt.Sprintf("%d bytes", n)
	}
	return fmt.Sprintf("%.1f MiB (%d bytes)", float64(n)/(1<<20), n)
}

func badLines(runs []runResult) (int, string) {
	n, first := 0, ""
	for _, r := range runs {
		if r.BadLines > 0 && first == "" {
			first = r.BadLine
		}
		n += r.BadLines
	}
	return n, first
}

// agentRequests lists the methods the agent called in the measured runs,
// with counts.
func agentRequests(runs []runResult) string {
	total := map[string]int{}
	for _, r := range runs {
		for k, v := range r.Requests {
			total[k] += v
		}
	}
	keys := make([]string, 0, len(total))
	for k := range total {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%s ×%d", k, total[k])
	}
	return strings.Join(parts, ", ")
}

// modelRequests summarises the chat requests per prompt when they were not
// all exactly one each.
func modelRequests(runs []runResult) string {
	counts := map[[2]int]int{}
	for _, r := range runs {
		if _, ok := r.Values["prompt1_ms"]; ok {
			counts[r.ChatReqs]++
		}
	}
	if len(counts) == 0 || (len(counts) == 1 && counts[[2]int{1, 1}] > 0) {
		return ""
	}
	keys := make([][2]int, 0, len(counts))
	for k := range counts {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool { return counts[keys[i]] > counts[keys[j]] })
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("(%d, %d) in %d runs", k[0], k[1], counts[k])
	}
	return strings.Join(parts, ", ")
}
