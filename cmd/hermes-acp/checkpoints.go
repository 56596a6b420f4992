package main

import (
	"log/slog"
	"path/filepath"

	"github.com/hermes-acp/hermes-acp/checkpoint"
	"github.com/hermes-acp/hermes-acp/config"
)

// checkpoints is the checkpoint engine of the configuration (issue 29):
// shadow repositories under $HERMES_HOME/checkpoints; nil when
// checkpoints.enabled is false or there is no HERMES_HOME.
func checkpoints(cfg config.Config, log *slog.Logger) *checkpoint.Manager {
	if cfg.CheckpointsOff || cfg.Home == "" {
		return nil
	}
	return checkpoint.New(checkpoint.Options{
		Dir:           filepath.Join(cfg.Home, "checkpoints"),
		MaxTotalBytes: cfg.CheckpointMaxTotal,
		MaxFileBytes:  cfg.CheckpointMaxFile,
		MaxFiles:      cfg.CheckpointMaxFiles,
		Log:           log,
	})
}
