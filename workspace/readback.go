package workspace

import (
	"context"
	"fmt"
)

// ReadBack reads the file a [Files.Write] wrote from where that write went,
// for post-write verification: from the disk when the write went to the
// disk (info.ViaEditor false), even when the editor can read — its buffer
// may not have reloaded the file yet —, and from the editor when the editor
// wrote it, without [Files.Read]'s fall-back to the disk, which the editor
// may not have saved to. ok is false when the write went through an editor
// that cannot read (no fs.readTextFile): there is then nothing to read the
// result back from, and the caller should trust the editor's success.
func (f *Files) ReadBack(ctx context.Context, info WriteInfo) (data []byte, ok bool, err error) {
	p := info.Path
	if !info.ViaEditor {
		data, err = f.w.ReadFile(p)
		return data, err == nil, err
	}
	if !f.canRead {
		return nil, false, nil
	}
	if err := f.w.check(p); err != nil {
		return nil, false, err
	}
	text, err := f.ed.ReadTextFile(ctx, p.abs)
	if err != nil {
		return nil, false, fmt.Errorf("read back %s: editor: %w", p.abs, err)
	}
	return []byte(text), true, nil
}
