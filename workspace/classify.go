package workspace

import (
	"bytes"
	"path/filepath"
	"slices"
	"strings"
)

// binaryExts are hermes's binary extensions (tools/binary_extensions.py):
// files read_file refuses to show as text. .pdf is deliberately absent.
var binaryExts = []string{
	// images
	".png", ".jpg", ".jpeg", ".gif", ".bmp", ".ico", ".webp", ".tiff", ".tif",
	// video
	".mp4", ".mov", ".avi", ".mkv", ".webm", ".wmv", ".flv", ".m4v", ".mpeg", ".mpg",
	// audio
	".mp3", ".wav", ".ogg", ".flac", ".aac", ".m4a", ".wma", ".aiff", ".opus",
	// archives
	".zip", ".tar", ".gz", ".bz2", ".7z", ".rar", ".xz", ".z", ".tgz", ".iso",
	// executables and libraries
	".exe", ".dll", ".so", ".dylib", ".bin", ".o", ".a", ".obj", ".lib",
	".app", ".msi", ".deb", ".rpm",
	// office documents
	".doc", ".docx", ".xls", ".xlsx", ".ppt", ".pptx", ".odt", ".ods", ".odp",
	// fonts
	".ttf", ".otf", ".woff", ".woff2", ".eot",
	// bytecode and VM artefacts
	".pyc", ".pyo", ".class", ".jar", ".war", ".ear", ".node", ".wasm", ".rlib",
	// databases
	".sqlite", ".sqlite3", ".db", ".mdb", ".idx",
	// design and 3D
	".psd", ".ai", ".eps", ".sketch", ".fig", ".xd", ".blend", ".3ds", ".max",
	// flash
	".swf", ".fla",
	// lock and profiling data
	".lockb", ".dat", ".data",
}

// imageExts are the image extensions read_file reports as images (hermes's
// IMAGE_EXTENSIONS), a subset of binaryExts.
var imageExts = []string{".png", ".jpg", ".jpeg", ".gif", ".webp", ".bmp", ".ico"}

// IsBinaryExt reports whether name has one of hermes's binary extensions
// (images, media, archives, executables, office documents, fonts, bytecode,
// databases, design files, .lockb/.dat/.data), ignoring case. PDF is not
// binary. It does no I/O.
func IsBinaryExt(name string) bool {
	return slices.Contains(binaryExts, strings.ToLower(filepath.Ext(name)))
}

// IsImageExt reports whether name has an image extension read_file should
// describe as an image (png, jpg, jpeg, gif, webp, bmp, ico), ignoring case.
func IsImageExt(name string) bool {
	return slices.Contains(imageExts, strings.ToLower(filepath.Ext(name)))
}

// binarySample is how many leading bytes LooksBinary inspects.
const binarySample = 1000

// LooksBinary reports whether content whose first bytes are first looks
// binary, as hermes judges it: more than 30% of the first 1000 bytes are
// control characters other than \n, \r and \t. Empty input is text, and so
// is content that starts with a UTF-16 byte order mark.
func LooksBinary(first []byte) bool {
	if len(first) > binarySample {
		first = first[:binarySample]
	}
	if len(first) == 0 || bytes.HasPrefix(first, []byte(bomUTF16LE)) || bytes.HasPrefix(first, []byte(bomUTF16BE)) {
		return false // empty, or UTF-16 text (its NUL bytes are half of every ASCII character)
	}
	ctrl := 0
	for _, b := range first {
		if b < 32 && b != '\n' && b != '\r' && b != '\t' {
			ctrl++
		}
	}
	return ctrl*10 > len(first)*3
}
