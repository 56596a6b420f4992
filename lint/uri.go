package lint

import "go.lsp.dev/protocol"

// URI converts a file:// URI string (for example workspace.Path.URI) to the
// LSP type [Result.Meta] takes, so callers need not import the protocol
// package.
func URI(s string) protocol.DocumentURI { return protocol.DocumentURI(s) }
