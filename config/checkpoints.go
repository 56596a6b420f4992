package config

import "fmt"

// resolveCheckpoints reads the checkpoints section (issue 29): negative
// limits are refused with a problem and the default applies.
func resolveCheckpoints(c *Config, fc *fileConfig) {
	ck := fc.Checkpoints
	c.CheckpointsOff = ck.Enabled != nil && !*ck.Enabled
	for _, l := range []struct {
		key string
		v   int
	}{{"max_total_size_mb", ck.MaxTotalSizeMB}, {"max_file_size_mb", ck.MaxFileSizeMB}, {"max_files", ck.MaxFiles}} {
		if l.v < 0 {
			c.problem(fmt.Sprintf("checkpoints.%s: %d is negative; using the default", l.key, l.v))
		}
	}
	if ck.MaxTotalSizeMB > 0 {
		c.CheckpointMaxTotal = int64(ck.MaxTotalSizeMB) << 20
	}
	if ck.MaxFileSizeMB > 0 {
		c.CheckpointMaxFile = int64(ck.MaxFileSizeMB) << 20
	}
	if ck.MaxFiles > 0 {
		c.CheckpointMaxFiles = ck.MaxFiles
	}
}
