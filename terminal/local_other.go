//go:build !unix

package terminal

import "context"

// Start refuses: commands need process groups, which only Unix systems
// have here.
func (l *Local) Start(ctx context.Context, s Spec) (Process, error) { return nil, errNoCommands }

// EditorArgv refuses, as Start does.
func (l *Local) EditorArgv(s Spec) ([]string, func(), error) { return nil, nil, errNoCommands }
