//go:build !unix

package terminal

import (
	"context"
	"errors"
)

// Start refuses: commands need process groups, which only Unix systems
// have here.
func (l *Local) Start(ctx context.Context, s Spec) (Process, error) {
	return nil, errors.New("running commands is supported on Linux and macOS only")
}
