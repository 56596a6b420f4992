package tools

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/hermes-acp/hermes-acp/workspace"
)

// This file holds how the file tools treat binary files and text encodings:
// the editing tools refuse a file read_file refuses as binary, and work on
// the decoded text of any other file; what they write is encoded back into
// the file's own encoding (workspace.KeepConventions), or refused when that
// cannot be done without changing bytes.

// editBinaryMessage is the editing tools' refusal of a binary file.
func editBinaryMessage(raw string) string {
	return fmt.Sprintf("Cannot edit binary file '%s': it is not text, and the file tools "+
		"change only text files; the file is left as it is.", raw)
}

// editDecode decodes content, the current content of p as the session's
// files returned it, for editing. When the file is binary, cannot be
// re-encoded byte for byte, or the editor served a lossy decoding of a file
// that is not UTF-8 on disk, it returns the refusal for the model instead.
func editDecode(ctx context.Context, env fileDeps, raw string, p workspace.Path, content []byte) (workspace.FileText, string) {
	ft, err := workspace.DecodeFile(p.Base(), content)
	switch {
	case errors.Is(err, workspace.ErrBinary):
		return ft, editBinaryMessage(raw)
	case err != nil:
		return ft, fmt.Sprintf("Cannot edit '%s': it is %s text that cannot be decoded and written back byte for byte "+
			"(for example an odd number of bytes or an unpaired surrogate), so an edit would change bytes it did not "+
			"touch. Repair or convert it outside the agent first.", raw, workspace.DetectEncoding(content))
	}
	if lossy, enc := editorLossy(ctx, env, p, ft.Text); lossy {
		return ft, editLossyMessage(raw, enc)
	}
	return ft, ""
}

// editLossyMessage is the refusal of a file the editor decoded lossily
// (see editorLossy); enc is its encoding on disk.
func editLossyMessage(raw string, enc workspace.Encoding) string {
	return fmt.Sprintf("Cannot edit '%s': the editor shows this file decoded as UTF-8 with replacement "+
		"characters (\ufffd), but on disk it is %s; writing the editor's text back would destroy every character "+
		"it could not decode. Ask the user to reopen the file in the editor with its real encoding, then retry.", raw, enc)
}

// editorLossy reports whether text, served by the editor for p, is a lossy
// decoding: it holds U+FFFD while the file on disk is not valid UTF-8. It
// then also returns the disk's encoding.
func editorLossy(ctx context.Context, env fileDeps, p workspace.Path, text string) (bool, workspace.Encoding) {
	if !env.Files().ReadsFromEditor() || !strings.ContainsRune(text, '\ufffd') || ctx.Err() != nil {
		return false, workspace.Encoding{}
	}
	disk, err := env.Workspace().ReadFile(p)
	if err != nil {
		return false, workspace.Encoding{}
	}
	enc := workspace.DetectEncoding(disk)
	return enc.Kind == workspace.Legacy, enc
}

// editPlan is what an edit will write: planned, the bytes (in the file's
// encoding, with its BOM and line endings), and text, the same content
// decoded, for the lint, the diff and the approval.
type editPlan struct {
	planned []byte
	text    string
}

// editPlanFor computes the plan for writing content, UTF-8 text, over old
// (the current content of p, nil when the file does not exist). It returns
// the refusal for the model when the file's encoding cannot hold content.
func editPlanFor(raw string, p workspace.Path, old []byte, exists bool, content string) (editPlan, string) {
	if !exists {
		old = nil
	} else if old == nil {
		old = []byte{}
	}
	planned, err := workspace.KeepConventions(p.Base(), old, []byte(content))
	if err != nil {
		return editPlan{}, editEncodeMessage(raw, err)
	}
	return editPlan{planned: planned, text: editText(p, planned)}, ""
}

// editEncodeMessage renders a KeepConventions failure for the model.
func editEncodeMessage(raw string, err error) string {
	var ue *workspace.UnrepresentableError
	switch {
	case errors.As(err, &ue):
		return fmt.Sprintf("Cannot write '%s': %s. Nothing was written. Use only characters that encoding can hold "+
			"(for example an ASCII spelling, or an escape sequence the file's language supports).", raw, ue.Error())
	case errors.Is(err, workspace.ErrBinary):
		return editBinaryMessage(raw)
	}
	return fmt.Sprintf("Cannot write '%s': %v. Nothing was written.", raw, err)
}

// editText returns content, bytes of p as read or about to be written, as
// the text the user's diff and the lint see: decoded from its encoding,
// starting with U+FEFF when the file has a byte order mark (so the diff
// shows what is on disk). Content that cannot be decoded is shown as it is.
func editText(p workspace.Path, content []byte) string {
	ft, err := workspace.DecodeFile(p.Base(), content)
	switch {
	case err != nil:
		return string(content)
	case ft.Encoding.BOM || ft.Encoding.Kind == workspace.UTF16LE || ft.Encoding.Kind == workspace.UTF16BE:
		return "\ufeff" + ft.Text
	}
	return ft.Text
}

// bomless returns text without the U+FEFF editText puts first for a file
// with a byte order mark, for the diff shown to the model, which compares
// texts without it.
func bomless(text string) string {
	return strings.TrimPrefix(text, "\ufeff")
}
