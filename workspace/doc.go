// Package workspace confines file access to the editor's workspace roots and
// watches them for changes.
//
// A [Workspace] is opened once per session from the session cwd and its
// additional directories. Every path that arrives from the editor or the model
// is parsed exactly once by [Workspace.Resolve] into a [Path]: an absolute
// path, a path relative to the cwd, a "~" path or a file:// URI becomes a
// location inside one root, with symbolic links followed component by
// component and refused when they lead out, and a ".." after a missing
// folder applied to the folder before it, so the result is the file the
// kernel would open. All I/O on a Path goes through the root's [os.Root],
// so a symlink swapped in after Resolve still cannot reach outside the
// root; [Files] checks the path again right before the editor is asked.
//
// On top of that the package provides hermes-agent's file-safety rules
// ([Workspace.CheckRead], [Workspace.CheckWrite], [IsSensitiveForApproval]),
// classification helpers for read_file ([IsBinaryExt], [IsImageExt],
// [LooksBinary], [IsBinary]), text encodings ([DetectEncoding]: UTF-8, UTF-16
// with BOM, windows-1252) and line endings ([KeepEndings]), atomic writes that
// keep a file's mode, encoding, BOM and line endings or refuse what would
// lose bytes ([Workspace.WriteFile], [KeepConventions]), access through the editor's unsaved
// buffers when the client offers it ([Files]), read/write bookkeeping for
// staleness warnings ([State]) and a debounced, .gitignore-aware recursive
// file watcher ([Watcher]).
//
// The safety rules are defence in depth, not a security boundary: the
// terminal tool runs as the same user. The root confinement, however, is
// enforced by the kernel through [os.Root] and is a real boundary for the file
// tools.
package workspace
