package registry

import (
	"context"
	"errors"
	"fmt"
	"reflect"
)

// Spec is what a tool file declares about its tool besides its handler:
// the facts of its [Entry] (whose Handler stays nil) and its parameters.
type Spec struct {
	Entry
	// Params is a value of the tool's parameters struct (its zero value):
	// when Entry.Schema is nil, the schema is derived from it by
	// [SchemaOf]. Nil Params and nil Schema: the tool takes no arguments.
	Params any
}

// Tool is a tool declared with its constructor. D is the tool's
// dependencies, declared by the tool itself: usually a small interface of
// the session services it uses. New receives exactly those and returns
// the handler of one session; the registry's user binds a session by
// calling it (see [Declared.Bind]).
type Tool[D any] struct {
	Spec
	// New makes the tool's handler for a session whose services are d.
	New func(d D) Handler
	// Available says why a session with services d cannot run the tool,
	// nil when it can; a nil Available means every session can. It is the
	// tool's one availability rule: the bound entry's Check runs it at
	// each pass (so it may depend on what changes, like the environment),
	// and the tool is not offered while it fails.
	Available func(d D) error
	// SharedCheck, instead of Available, is the rule as a check the
	// session's services hold (nil: the tool is available), the same
	// *Check for every tool that shares the rule (the browser tools: a
	// browser can be found), so a pass over the registry runs it once
	// for all of them (entries sharing a *Check share one run per pass).
	SharedCheck func(d D) *Check
}

// Declared is a tool declared with [Declare]: its spec and its
// constructor, whatever its dependency type. It is immutable.
type Declared interface {
	// Declaration returns the tool's entry as declared: every fact, the
	// schema, no handler.
	Declaration() Entry
	// Bind returns the tool's entry bound to services, the session's
	// services: they must provide the tool's dependencies (be, or
	// implement, its D), else Bind fails naming what is missing.
	Bind(services any) (Entry, error)
	// Unavailable reports why a session with services cannot run the
	// tool (its Available rule, or services lacking its dependencies);
	// nil when it can.
	Unavailable(services any) error
	// Check returns the availability check of the tool bound to
	// services, as Bind's entry has it: nil when no rule (or the
	// SharedCheck rule) says it can be unavailable, the shared check of
	// a SharedCheck rule.
	Check(services any) *Check
}

// Declare returns t as a [Declared] tool, its schema derived from
// Spec.Params once (when Spec.Schema is nil). A spec whose schema cannot
// be derived, or a tool without New, panics: tools are declared at
// initialisation, and the mistake is the program's.
func Declare[D any](t Tool[D]) Declared {
	if t.New == nil {
		panic("registry: tool " + t.Name + " declared without New")
	}
	if t.Handler != nil {
		panic("registry: tool " + t.Name + " declared with a Handler; New makes it")
	}
	if t.Available != nil && t.SharedCheck != nil {
		panic("registry: tool " + t.Name + " declared with both Available and SharedCheck; it has one availability rule")
	}
	if t.Schema == nil && t.Params != nil {
		s, err := SchemaOf(t.Params)
		if err != nil {
			panic(fmt.Sprintf("registry: tool %s: %v", t.Name, err))
		}
		t.Schema = s
	}
	return &declared[D]{t: t}
}

// declared is a Tool[D] behind Declared.
type declared[D any] struct{ t Tool[D] }

func (d *declared[D]) Declaration() Entry { return d.t.Entry }

func (d *declared[D]) deps(services any) (D, error) {
	deps, ok := services.(D)
	if !ok {
		var zero D
		return zero, fmt.Errorf("bind %s: the session's services (%T) do not provide its dependencies (%v)",
			d.t.Name, services, reflect.TypeFor[D]())
	}
	return deps, nil
}

func (d *declared[D]) Bind(services any) (Entry, error) {
	deps, err := d.deps(services)
	if err != nil {
		return Entry{}, err
	}
	e := d.t.Entry
	e.Handler = d.t.New(deps)
	if c := d.check(deps); c != nil {
		e.Check = c
	}
	return e, nil
}

// check is the tool's availability check for a session with services
// deps; nil when it has no rule.
func (d *declared[D]) check(deps D) *Check {
	switch {
	case d.t.SharedCheck != nil:
		return d.t.SharedCheck(deps)
	case d.t.Available != nil:
		avail := d.t.Available
		return NewCheck(func() error { return avail(deps) })
	}
	return nil
}

func (d *declared[D]) Check(services any) *Check {
	deps, err := d.deps(services)
	if err != nil {
		return NewCheck(func() error { return err })
	}
	return d.check(deps)
}

func (d *declared[D]) Unavailable(services any) error {
	deps, err := d.deps(services)
	if err != nil {
		return err
	}
	return d.check(deps).Err()
}

// Typed returns the handler that decodes a call's arguments once into the
// tool's parameters P and calls run with them: an argument of the wrong
// type is an error result naming it ("read_file: 'offset' must be an
// integer, got str."), never a call of run.
func Typed[P any](run func(ctx context.Context, call *Call, p *P) (Result, error)) Handler {
	return func(ctx context.Context, call *Call) (Result, error) {
		var p P
		if err := DecodeArgs(call, &p); err != nil {
			var ae *ArgError
			if errors.As(err, &ae) {
				return Error(ae.Error()), nil
			}
			return Result{}, err
		}
		return run(ctx, call, &p)
	}
}
