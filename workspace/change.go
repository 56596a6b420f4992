package workspace

// ChangeKind says what a [Change] does to its file.
type ChangeKind string

// The kinds of change an edit can make.
const (
	ChangeEdit   ChangeKind = "edit"   // replace the text of an existing file
	ChangeCreate ChangeKind = "create" // create a new file
	ChangeDelete ChangeKind = "delete" // remove the file
	ChangeMove   ChangeKind = "move"   // rename the file (and maybe edit it)
)

// Change describes one proposed change to a workspace file, as shown to the
// user before it is made: the agent turns it into an ACP diff and asks for
// approval. Old is nil for a new file; New is the complete new text (empty
// for a deletion); MoveTo is set for a move.
type Change struct {
	Kind   ChangeKind
	Path   Path
	MoveTo Path
	Old    *string
	New    string
}

// Denial says why an edit was not approved.
type Denial int

// The reasons an edit approval can deny.
const (
	DenyNothing         Denial = iota // approved
	DenyNoChange                      // the edit changes no file
	DenyRejected                      // the user rejected it
	DenyTimeout                       // the user did not answer in time (Detail: the timeout)
	DenyTurnCancelled                 // the user cancelled the turn before answering
	DenyEditorCancelled               // the editor cancelled the request
	DenyRequestFailed                 // the permission request failed (Detail: why)
	DenyUnknownOption                 // the editor answered an option it was not offered (Detail: the option)
)

// Decision is the outcome of asking to make some changes. The tool that
// asked turns a denial into the message its model reads.
type Decision struct {
	Approved bool
	Denial   Denial // why not, when !Approved
	Detail   string // the timeout, the request's error or the unknown option
}
