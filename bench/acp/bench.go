package main

import (
	"context"
	"fmt"
	"io"
	"strings"
)

// agentResult is everything measured for one agent.
type agentResult struct {
	Name        string             `json:"name"`
	Command     string             `json:"command"`
	Auth        string             `json:"auth,omitempty"`
	NoPrompt    bool               `json:"no_prompt,omitempty"`
	Binary      *binaryInfo        `json:"binary,omitempty"`
	BinaryError string             `json:"binary_error,omitempty"`
	Warmup      []runResult        `json:"warmup"`
	Runs        []runResult        `json:"runs"`
	Metrics     map[string]summary `json:"metrics"`
	NotMeasured map[string]string  `json:"not_measured,omitempty"` // metric key → reason
	Failures    []string           `json:"failures,omitempty"`     // failed measured runs, summarised

	spec    agentSpec
	skip    step   // first step not run in measured runs
	skipWhy string // the warm-up failure that set skip
}

// report is the whole benchmark result.
type report struct {
	Command string         `json:"command"`
	Machine machineInfo    `json:"machine"`
	Runs    int            `json:"runs"`
	Warmup  int            `json:"warmup"`
	Agents  []*agentResult `json:"agents"`
}

// measureAll runs the warm-ups, then the measured runs, alternating between
// the agents, and summarises them. Progress goes to progress.
func measureAll(ctx context.Context, cfg config, r *runner, progress io.Writer) (*report, error) {
	specs := []agentSpec{cfg.Ours}
	if cfg.Other != nil {
		specs = append(specs, *cfg.Other)
	}
	rep := &report{Machine: readMachine(), Runs: cfg.Runs, Warmup: cfg.Warmup}
	for _, s := range specs {
		a := &agentResult{Name: s.Name, Command: quoteCommand(s.Argv), Auth: s.Auth, NoPrompt: s.NoPrompt, spec: s, skip: stepNone}
		if bi, err := readBinary(s.Argv[0]); err != nil {
			a.BinaryError = err.Error()
		} else {
			a.Binary = &bi
		}
		rep.Agents = append(rep.Agents, a)
	}

	for w := range cfg.Warmup {
		for _, a := range rep.Agents {
			if a.skip == stepInit {
				continue
			}
			if err := ctx.Err(); err != nil {
				return nil, fmt.Errorf("interrupted: %w", context.Cause(ctx))
			}
			res := r.runOnce(ctx, a.spec, a.skip)
			a.Warmup = append(a.Warmup, res)
			fmt.Fprintf(progress, "[%s warm-up %d/%d] %s\n", a.Name, w+1, cfg.Warmup, progressLine(res))
			if res.FailStep < a.skip && res.FailStep != stepExit {
				a.skip, a.skipWhy = res.FailStep, res.Failure
			}
		}
	}
	for n := range cfg.Runs {
		for _, a := range rep.Agents {
			if a.skip == stepInit {
				continue
			}
			if err := ctx.Err(); err != nil {
				return nil, fmt.Errorf("interrupted: %w", context.Cause(ctx))
			}
			res := r.runOnce(ctx, a.spec, a.skip)
			a.Runs = append(a.Runs, res)
			fmt.Fprintf(progress, "[%s %d/%d] %s\n", a.Name, n+1, cfg.Runs, progressLine(res))
		}
	}
	for _, a := range rep.Agents {
		a.summarize()
	}
	return rep, nil
}

// summarize fills Metrics, NotMeasured and Failures from the runs.
func (a *agentResult) summarize() {
	a.Metrics = map[string]summary{}
	a.NotMeasured = map[string]string{}
	failed := map[step][]string{}
	var order []step
	for _, r := range a.Runs {
		if r.FailStep != stepNone {
			if failed[r.FailStep] == nil {
				order = append(order, r.FailStep)
			}
			failed[r.FailStep] = append(failed[r.FailStep], r.Failure)
		}
	}
	for _, s := range order {
		a.Failures = append(a.Failures, fmt.Sprintf("%d of %d runs failed at %s; first error: %s", len(failed[s]), len(a.Runs), s, failed[s][0]))
	}
	for _, m := range metrics {
		var xs []float64
		for _, r := range a.Runs {
			if v, ok := r.Values[m.Key]; ok {
				xs = append(xs, v)
			}
		}
		if len(xs) > 0 {
			a.Metrics[m.Key] = summarize(xs)
			continue
		}
		if why := a.whyNotMeasured(m, failed); why != "" {
			a.NotMeasured[m.Key] = why
		}
	}
}

// whyNotMeasured explains a metric without samples; "" means not
// applicable (authenticate without --auth).
func (a *agentResult) whyNotMeasured(m metric, failed map[step][]string) string {
	switch {
	case m.Step == stepAuth && a.spec.Auth == "":
		return ""
	case (m.Step == stepPrompt1 || m.Step == stepPrompt2) && a.spec.NoPrompt:
		return "not measured (--no-prompt)"
	case a.skip <= m.Step && m.Step != stepExit:
		if a.skip == m.Step {
			return "failed in the warm-up run: " + a.skipWhy
		}
		return fmt.Sprintf("not measured: %s failed in the warm-up run", a.skip)
	case len(a.Runs) == 0:
		return "no measured runs"
	}
	for s := stepInit; s <= m.Step; s++ {
		if len(failed[s]) == len(a.Runs) {
			if s == m.Step {
				return "failed in every run: " + failed[s][0]
			}
			return fmt.Sprintf("not measured: %s failed in every run", s)
		}
	}
	for _, r := range a.Runs {
		for _, n := range r.Notes {
			if strings.HasPrefix(n, m.Step.String()+":") {
				return "not measured: " + strings.TrimPrefix(n, m.Step.String()+": ")
			}
		}
	}
	return "not measured"
}

// progressLine is a one-line account of a run.
func progressLine(r runResult) string {
	var parts []string
	for _, m := range metrics {
		if v, ok := r.Values[m.Key]; ok {
			parts = append(parts, fmt.Sprintf("%s %s", m.Key, formatValue(v, m.Unit)))
		}
	}
	line := strings.Join(parts, ", ")
	if r.Failure != "" {
		line += "; FAILED at " + r.FailStep.String() + ": " + truncate(r.Failure, 300)
	}
	return line
}
