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
	if avail := d.t.Available; avail != nil {
		e.Check = NewCheck(func() error { return avail(deps) })
	}
	return e, nil
}

func (d *declared[D]) Unavailable(services any) error {
	deps, err := d.deps(services)
	if err != nil {
		return err
	}
	if d.t.Available == nil {
		return nil
	}
	if reason := runCheck(func() error { return d.t.Available(deps) }); reason != "" {
		return errors.New(reason)
	}
	return nil
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
