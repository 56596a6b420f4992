package tools

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/hermes-acp/hermes-acp/browser"
	"github.com/hermes-acp/hermes-acp/workspace"
)

// File access through browser_cdp (issue 26): the DevTools methods that
// hand files of the machine to the page (file inputs, drops) or let the
// browser write files (downloads) always need the user's approval, and
// what they name must pass the file tools' rules: a file the page gets is
// one read_file may read (inside the workspace, CheckRead; outside it,
// the same deny rules, and the approval names it as outside), and
// downloads land in the workspace (where writes are allowed) or in the
// browser's own download folder, nowhere else. The checks run before the
// approval is asked, so a refused file is never offered to the user, and
// a file is never read when the user rejects.

// cdpFileMethods need the approval whatever their parameters.
var cdpFileMethods = []string{
	"DOM.setFileInputFiles", "Input.dispatchDragEvent", "Input.setInterceptDrags",
	"Page.setInterceptFileChooserDialog", "DOM.getFileInfo",
}

// cdpFiles checks the files or folders a file method's params name and
// rewrites them to what was checked (real paths; the browser's download
// folder for a download without one). It returns the lines the approval
// shows, or a problem: why the call is refused.
func cdpFiles(ws *workspace.Workspace, method string, params map[string]any, b *browser.Browser) (detail []string, problem string) {
	switch method {
	case "DOM.setFileInputFiles":
		return cdpReadFiles(ws, params, "files", "The page's file input would get")
	case "Input.dispatchDragEvent":
		data, _ := params["data"].(map[string]any)
		if data == nil {
			return nil, ""
		}
		return cdpReadFiles(ws, data, "files", "The page would get these dropped files")
	case "Browser.setDownloadBehavior", "Page.setDownloadBehavior":
		return cdpDownloads(ws, params, b)
	}
	return nil, ""
}

// cdpReadFiles checks params[key], a list of paths.
func cdpReadFiles(ws *workspace.Workspace, params map[string]any, key, intro string) ([]string, string) {
	raw, ok := params[key].([]any)
	if !ok {
		if _, present := params[key]; present {
			return nil, fmt.Sprintf("'%s' must be a list of file paths", key)
		}
		return nil, ""
	}
	lines := []string{intro + ":"}
	real := make([]any, 0, len(raw))
	for _, v := range raw {
		f, _ := v.(string)
		if strings.TrimSpace(f) == "" {
			return nil, fmt.Sprintf("'%s' must be a list of file paths", key)
		}
		path, outside, err := browserReadable(ws, f)
		if err != nil {
			return nil, err.Error()
		}
		line := "  " + path
		if outside {
			line += " (outside the workspace)"
		}
		lines = append(lines, line)
		real = append(real, path)
	}
	params[key] = real
	return lines, ""
}

// browserReadable checks a file the page would get with the file tools'
// read rules and returns its real path, and whether it lies outside the
// workspace.
func browserReadable(ws *workspace.Workspace, f string) (string, bool, error) {
	p, err := ws.Resolve(f)
	var real string
	outside := false
	switch {
	case err == nil:
		if err := ws.CheckRead(p); err != nil {
			return "", false, err
		}
		real = p.Real()
	case errors.Is(err, workspace.ErrOutsideWorkspace):
		abs := f
		if u, ok := strings.CutPrefix(f, "file://"); ok {
			abs = u
		}
		if real, err = ws.CheckReadOutside(abs); err != nil {
			return "", false, err
		}
		outside = true
	default:
		return "", false, err
	}
	fi, err := os.Stat(real)
	if err != nil {
		return "", false, fmt.Errorf("file %s: %w", f, err)
	}
	if !fi.Mode().IsRegular() {
		return "", false, fmt.Errorf("file %s is not a regular file", f)
	}
	return real, outside, nil
}

// cdpDownloads checks a download behaviour: allowing downloads needs a
// folder in the workspace the file tools may write in, or the browser's
// download folder (the default).
func cdpDownloads(ws *workspace.Workspace, params map[string]any, b *browser.Browser) ([]string, string) {
	behavior, _ := params["behavior"].(string)
	switch behavior {
	case "deny":
		return []string{"Downloads would be refused."}, ""
	case "allow", "allowAndName":
	default:
		dir, _ := b.DownloadDir()
		return nil, fmt.Sprintf("behavior %q is not allowed: downloads land only in the workspace or in the browser's download folder (%s); "+
			"use \"allow\" or \"allowAndName\" with a downloadPath inside the workspace, or without one for that folder", behavior, dir)
	}
	dl, _ := params["downloadPath"].(string)
	if strings.TrimSpace(dl) == "" {
		dir, err := b.DownloadDir()
		if err != nil {
			return nil, err.Error()
		}
		params["downloadPath"] = dir
		return []string{"Downloads would be saved in the browser's download folder " + dir + " (removed when the session ends)."}, ""
	}
	if dir, err := b.DownloadDir(); err == nil && filepath.Clean(dl) == dir {
		return []string{"Downloads would be saved in the browser's download folder " + dir + " (removed when the session ends)."}, ""
	}
	p, err := ws.Resolve(dl)
	if err != nil {
		return nil, fmt.Sprintf("downloadPath: %v; downloads land only in the workspace or in the browser's download folder (omit downloadPath for it)", err)
	}
	if err := ws.CheckWrite(p, "Download"); err != nil {
		return nil, err.Error()
	}
	if err := os.MkdirAll(p.Real(), 0o755); err != nil {
		return nil, fmt.Sprintf("downloadPath: %v", err)
	}
	params["downloadPath"] = p.Real()
	return []string{"Downloads would be saved in " + p.Abs() + " (in the workspace)."}, ""
}

// encodeParams is params as the JSON object browser.CDP takes.
func encodeParams(params map[string]any) json.RawMessage {
	raw, err := json.Marshal(params)
	if err != nil {
		return nil
	}
	return raw
}
