// Command mkdist builds the release archives of hermes-acp and writes the
// editor manifests that name them, and checks that the two agree.
//
//	go run ./editors/zed/mkdist build -version 0.1.0 -out dist -manifests editors/zed
//	go run ./editors/zed/mkdist check -out dist -manifests editors/zed
//
// build cross-compiles a static binary (CGO_ENABLED=0, -trimpath, no VCS
// stamp, so the same source and Go version give the same bytes) for each of
// the six targets of the Zed extension and the ACP registry, packs it into a
// reproducible archive (tar.gz; zip for Windows), writes dist/SHA256SUMS and
// regenerates editors/zed/extension.toml and editors/zed/agent.json with the
// archive URLs (and, in extension.toml, their SHA-256 checksums).
//
// check reads the manifests back and, for every target, checks that the
// archive the manifests name is in dist with the checksum extension.toml carries, that
// it holds the manifest's cmd as an executable for that operating system and
// architecture, and that both manifests say the same; the archive for the
// machine running check is unpacked and its cmd, started with the manifest's
// args, must answer an ACP initialize. Every archive carries LICENSE and
// NOTICE next to the binary, and check also holds the manifests to the ACP
// registry's rules: an MIT licence with its URL and a website in agent.json,
// and an icon.svg beside it that passes the registry's icon check (icon.go).
package main

import (
	"archive/tar"
	"archive/zip"
	"bufio"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"debug/elf"
	"debug/macho"
	"debug/pe"
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"runtime"
	"sort"
	"strings"
	"time"
)

// target is one platform the manifests name.
type target struct {
	Name   string // the Zed and ACP registry name, e.g. "linux-x86_64"
	GOOS   string
	GOARCH string
}

// targets are the six platforms, in the order the manifests list them.
var targets = []target{
	{"darwin-aarch64", "darwin", "arm64"},
	{"darwin-x86_64", "darwin", "amd64"},
	{"linux-aarch64", "linux", "arm64"},
	{"linux-x86_64", "linux", "amd64"},
	{"windows-aarch64", "windows", "arm64"},
	{"windows-x86_64", "windows", "amd64"},
}

// defaultBaseURL is where a release's archives are published: the archive
// of version V is BASE/vV/NAME.
const defaultBaseURL = "https://github.com/hermes-acp/hermes-acp/releases/download"

// archiveTime is the modification time recorded in every archive entry, so
// that archives are byte-for-byte reproducible.
var archiveTime = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

func (t target) exe() string {
	if t.GOOS == "windows" {
		return "hermes-acp.exe"
	}
	return "hermes-acp"
}

// cmd is the command the manifests run, relative to the unpacked archive.
func (t target) cmd() string { return "./" + t.exe() }

func (t target) archive(version string) string {
	ext := ".tar.gz"
	if t.GOOS == "windows" {
		ext = ".zip"
	}
	return fmt.Sprintf("hermes-acp-%s-%s%s", version, t.Name, ext)
}

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: mkdist build|check [flags]")
		os.Exit(2)
	}
	var err error
	switch os.Args[1] {
	case "build":
		err = runBuild(os.Args[2:])
	case "check":
		err = runCheck(os.Args[2:])
	default:
		fmt.Fprintf(os.Stderr, "mkdist: unknown command %q (want build or check)\n", os.Args[1])
		os.Exit(2)
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "mkdist: %v\n", err)
		os.Exit(1)
	}
}

func runBuild(args []string) error {
	fs := flag.NewFlagSet("build", flag.ExitOnError)
	version := fs.String("version", "", "the release version, e.g. 0.1.0")
	out := fs.String("out", "dist", "folder for the archives")
	manifests := fs.String("manifests", "editors/zed", "folder of extension.toml and agent.json")
	baseURL := fs.String("base-url", defaultBaseURL, "where the archives are published")
	pkg := fs.String("pkg", "./cmd/hermes-acp", "the package to build")
	root := fs.String("root", ".", "the folder of LICENSE and NOTICE, packed into every archive")
	fs.Parse(args)
	if *version == "" {
		return errors.New("build: -version is required")
	}
	docs, err := readLicenceFiles(*root)
	if err != nil {
		return fmt.Errorf("build: %w", err)
	}
	if err := os.MkdirAll(*out, 0o755); err != nil {
		return err
	}
	tmp, err := os.MkdirTemp("", "mkdist-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	sums := map[string]string{}
	for _, t := range targets {
		bin := filepath.Join(tmp, t.Name, t.exe())
		start := time.Now()
		cmd := exec.Command("go", "build", "-trimpath", "-buildvcs=false",
			"-ldflags", "-s -w -X main.version="+*version, "-o", bin, *pkg)
		cmd.Env = append(os.Environ(), "CGO_ENABLED=0", "GOOS="+t.GOOS, "GOARCH="+t.GOARCH)
		cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
		if err := cmd.Run(); err != nil {
			return fmt.Errorf("build %s: %w", t.Name, err)
		}
		data, err := os.ReadFile(bin)
		if err != nil {
			return err
		}
		name := t.archive(*version)
		sum, err := writeArchive(filepath.Join(*out, name), t, data, docs)
		if err != nil {
			return err
		}
		sums[name] = sum
		fmt.Fprintf(os.Stderr, "%s  %s  (%s)\n", sum, name, time.Since(start).Round(time.Second))
	}
	return writeRelease(*out, *manifests, *version, *baseURL, sums)
}

// writeRelease writes SHA256SUMS into out and the two manifests into
// manifests for the archives whose checksums are sums.
func writeRelease(out, manifests, version, baseURL string, sums map[string]string) error {
	var b strings.Builder
	names := make([]string, 0, len(sums))
	for n := range sums {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(&b, "%s  %s\n", sums[n], n)
	}
	if err := os.WriteFile(filepath.Join(out, "SHA256SUMS"), []byte(b.String()), 0o644); err != nil {
		return err
	}
	rel := release{Version: version, BaseURL: baseURL, Sums: sums}
	if err := os.WriteFile(filepath.Join(manifests, "extension.toml"), []byte(rel.extensionTOML()), 0o644); err != nil {
		return err
	}
	aj, err := rel.agentJSON()
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(manifests, "agent.json"), aj, 0o644)
}

// licenceFiles are the files of the repository root every archive carries
// next to the binary (MIT asks that the notices travel with the copies).
var licenceFiles = []string{"LICENSE", "NOTICE"}

// archiveFile is one entry of an archive.
type archiveFile struct {
	name string
	mode int64
	data []byte
}

// writeArchive packs the binary data for t and the licence files docs
// (name → content, licenceFiles) into path and returns the archive's
// SHA-256 in hex.
func writeArchive(path string, t target, data []byte, docs map[string][]byte) (string, error) {
	files := []archiveFile{{t.exe(), 0o755, data}}
	for _, n := range licenceFiles {
		d, ok := docs[n]
		if !ok {
			return "", fmt.Errorf("archive %s: no %s", filepath.Base(path), n)
		}
		files = append(files, archiveFile{n, 0o644, d})
	}
	var buf bytes.Buffer
	if t.GOOS == "windows" {
		zw := zip.NewWriter(&buf)
		for _, f := range files {
			h := &zip.FileHeader{Name: f.name, Method: zip.Deflate, Modified: archiveTime}
			h.SetMode(os.FileMode(f.mode))
			w, err := zw.CreateHeader(h)
			if err != nil {
				return "", err
			}
			if _, err := w.Write(f.data); err != nil {
				return "", err
			}
		}
		if err := zw.Close(); err != nil {
			return "", err
		}
	} else {
		gz, _ := gzip.NewWriterLevel(&buf, gzip.BestCompression)
		gz.ModTime = archiveTime
		tw := tar.NewWriter(gz)
		for _, f := range files {
			h := &tar.Header{Name: f.name, Mode: f.mode, Size: int64(len(f.data)), ModTime: archiveTime,
				Typeflag: tar.TypeReg, Format: tar.FormatPAX, Uname: "root", Gname: "root"}
			if err := tw.WriteHeader(h); err != nil {
				return "", err
			}
			if _, err := tw.Write(f.data); err != nil {
				return "", err
			}
		}
		if err := tw.Close(); err != nil {
			return "", err
		}
		if err := gz.Close(); err != nil {
			return "", err
		}
	}
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		return "", err
	}
	sum := sha256.Sum256(buf.Bytes())
	return hex.EncodeToString(sum[:]), nil
}

// readLicenceFiles reads licenceFiles from the folder root.
func readLicenceFiles(root string) (map[string][]byte, error) {
	docs := map[string][]byte{}
	for _, n := range licenceFiles {
		d, err := os.ReadFile(filepath.Join(root, n))
		if err != nil {
			return nil, err
		}
		docs[n] = d
	}
	return docs, nil
}

// release is what both manifests describe.
type release struct {
	Version string
	BaseURL string
	Sums    map[string]string // archive name → SHA-256
}

func (r release) url(t target) string {
	return fmt.Sprintf("%s/v%s/%s", strings.TrimSuffix(r.BaseURL, "/"), r.Version, t.archive(r.Version))
}

const description = "A coding agent for your editor over the Agent Client Protocol: edits approved inline, lint findings as diagnostics."

// extensionTOML renders editors/zed/extension.toml.
func (r release) extensionTOML() string {
	var b strings.Builder
	b.WriteString("# Generated by `make dist` (editors/zed/mkdist): do not edit by hand.\n")
	b.WriteString("id = \"hermes-acp\"\n")
	b.WriteString("name = \"Hermes\"\n")
	fmt.Fprintf(&b, "version = %q\n", r.Version)
	b.WriteString("schema_version = 1\n")
	b.WriteString("authors = [\"hermes-acp contributors\"]\n")
	fmt.Fprintf(&b, "description = %q\n", description)
	b.WriteString("repository = \"https://github.com/hermes-acp/hermes-acp\"\n")
	b.WriteString("\n[agent_servers.hermes]\nname = \"Hermes\"\nicon = \"icon.svg\"\n")
	for _, t := range targets {
		fmt.Fprintf(&b, "\n[agent_servers.hermes.targets.%s]\n", t.Name)
		fmt.Fprintf(&b, "archive = %q\n", r.url(t))
		fmt.Fprintf(&b, "cmd = %q\n", t.cmd())
		b.WriteString("args = []\n")
		fmt.Fprintf(&b, "sha256 = %q\n", r.Sums[t.archive(r.Version)])
	}
	return b.String()
}

// registryTarget is one entry of agent.json's distribution.binary. The
// registry's schema allows no checksum there (binaryTarget has
// additionalProperties: false): the SHA-256 is only in extension.toml (Zed
// checks it) and SHA256SUMS.
type registryTarget struct {
	Archive string   `json:"archive"`
	Cmd     string   `json:"cmd"`
	Args    []string `json:"args"`
}

// zedTarget is one [agent_servers.hermes.targets.NAME] of extension.toml.
type zedTarget struct {
	Archive string   `json:"archive"`
	Cmd     string   `json:"cmd"`
	Args    []string `json:"args"`
	SHA256  string   `json:"sha256"`
}

// registryAgent is the ACP registry's agent.json.
type registryAgent struct {
	ID           string   `json:"id"`
	Name         string   `json:"name"`
	Version      string   `json:"version"`
	Description  string   `json:"description"`
	Repository   string   `json:"repository"`
	Authors      []string `json:"authors"`
	License      string   `json:"license"`
	LicenseURL   string   `json:"license_url"`
	Website      string   `json:"website"`
	Distribution struct {
		Binary map[string]registryTarget `json:"binary"`
	} `json:"distribution"`
}

// agentJSON renders editors/zed/agent.json.
func (r release) agentJSON() ([]byte, error) {
	a := registryAgent{
		ID: "hermes-acp", Name: "Hermes", Version: r.Version, Description: description,
		Repository: "https://github.com/hermes-acp/hermes-acp",
		Authors:    []string{"hermes-acp contributors"},
		License:    "MIT",
		LicenseURL: "https://github.com/hermes-acp/hermes-acp/blob/main/LICENSE",
		Website:    "https://github.com/hermes-acp/hermes-acp",
	}
	a.Distribution.Binary = map[string]registryTarget{}
	for _, t := range targets {
		a.Distribution.Binary[t.Name] = registryTarget{Archive: r.url(t), Cmd: t.cmd(), Args: []string{}}
	}
	b, err := json.MarshalIndent(a, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}

func runCheck(args []string) error {
	fs := flag.NewFlagSet("check", flag.ExitOnError)
	out := fs.String("out", "dist", "folder of the archives")
	manifests := fs.String("manifests", "editors/zed", "folder of extension.toml and agent.json")
	fs.Parse(args)
	return check(*out, *manifests, checkOptions{binaries: true, handshake: true})
}

// checkOptions selects the checks beyond checksums (the unit tests pack
// placeholder binaries).
type checkOptions struct {
	binaries  bool // the archived cmd is an executable for the target
	handshake bool // the host's archive answers an ACP initialize
}

// check verifies that the manifests in manifests and the archives in out
// agree; the error lists every disagreement.
func check(out, manifests string, opts checkOptions) error {
	var problems []string
	bad := func(format string, a ...any) { problems = append(problems, fmt.Sprintf(format, a...)) }

	raw, err := os.ReadFile(filepath.Join(manifests, "agent.json"))
	if err != nil {
		return err
	}
	var a registryAgent
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&a); err != nil {
		return fmt.Errorf("check agent.json: %w", err)
	}
	toml, err := os.ReadFile(filepath.Join(manifests, "extension.toml"))
	if err != nil {
		return err
	}
	ext, err := parseExtension(string(toml))
	if err != nil {
		return fmt.Errorf("check extension.toml: %w", err)
	}
	if a.License != "MIT" || a.LicenseURL == "" || a.Website == "" {
		bad("agent.json: license %q, license_url %q, website %q; want MIT and both URLs", a.License, a.LicenseURL, a.Website)
	}
	if svg, err := os.ReadFile(filepath.Join(manifests, "icon.svg")); err != nil {
		bad("the registry's icon: %v", err)
	} else if p := checkIcon(string(svg)); len(p) > 0 {
		bad("icon.svg: %s", strings.Join(p, "; "))
	}
	if ext.version != a.Version {
		bad("extension.toml has version %q, agent.json %q", ext.version, a.Version)
	}
	if len(a.Distribution.Binary) != len(targets) {
		bad("agent.json names %d targets, want %d", len(a.Distribution.Binary), len(targets))
	}
	if len(ext.targets) != len(targets) {
		bad("extension.toml names %d targets, want %d", len(ext.targets), len(targets))
	}
	sums, err := readSums(filepath.Join(out, "SHA256SUMS"))
	if err != nil {
		bad("%v", err)
	}
	for _, t := range targets {
		reg, ok := a.Distribution.Binary[t.Name]
		if !ok {
			bad("agent.json: no target %s", t.Name)
			continue
		}
		zt, ok := ext.targets[t.Name]
		if !ok {
			bad("extension.toml: no target %s", t.Name)
			continue
		}
		if !reflect.DeepEqual(registryTarget{zt.Archive, zt.Cmd, zt.Args}, reg) {
			bad("%s: extension.toml says %+v, agent.json %+v", t.Name, zt, reg)
		}
		name := reg.Archive[strings.LastIndex(reg.Archive, "/")+1:]
		if name != t.archive(a.Version) {
			bad("%s: the archive is %q, want %q", t.Name, name, t.archive(a.Version))
		}
		data, err := os.ReadFile(filepath.Join(out, name))
		if err != nil {
			bad("%s: %v (run make dist)", t.Name, err)
			continue
		}
		sum := sha256.Sum256(data)
		if got := hex.EncodeToString(sum[:]); got != zt.SHA256 {
			bad("%s: %s has sha256 %s, extension.toml carries %s", t.Name, name, got, zt.SHA256)
		}
		if sums != nil && sums[name] != zt.SHA256 {
			bad("%s: SHA256SUMS has %q for %s, extension.toml carries %s", t.Name, sums[name], name, zt.SHA256)
		}
		bin, mode, err := unpack(data, t, strings.TrimPrefix(reg.Cmd, "./"))
		if err != nil {
			bad("%s: %s: %v", t.Name, name, err)
			continue
		}
		if t.GOOS != "windows" && mode&0o111 == 0 {
			bad("%s: %s in %s is not executable (mode %v)", t.Name, reg.Cmd, name, mode)
		}
		for _, n := range licenceFiles {
			if d, _, err := unpack(data, t, n); err != nil || len(d) == 0 {
				bad("%s: %s has no %s (%v)", t.Name, name, n, err)
			}
		}
		if opts.binaries {
			if err := checkBinary(bin, t); err != nil {
				bad("%s: %s in %s: %v", t.Name, reg.Cmd, name, err)
			}
		}
		if opts.handshake && t.GOOS == runtime.GOOS && t.GOARCH == runtime.GOARCH {
			if err := handshake(bin, t, reg.Cmd, reg.Args, a.Version); err != nil {
				bad("%s: %s %v: %v", t.Name, reg.Cmd, reg.Args, err)
			}
		}
	}
	if len(problems) > 0 {
		return fmt.Errorf("the manifests in %s and the archives in %s disagree:\n  %s", manifests, out, strings.Join(problems, "\n  "))
	}
	fmt.Fprintf(os.Stderr, "mkdist: %s/extension.toml and agent.json agree with the %d archives in %s (version %s)\n", manifests, len(targets), out, a.Version)
	return nil
}

// extension is what check reads from extension.toml.
type extension struct {
	version string
	targets map[string]zedTarget
}

// parseExtension reads the subset of TOML that extensionTOML writes: top
// level keys, [agent_servers.hermes.targets.NAME] tables and string or
// empty-array values.
func parseExtension(s string) (extension, error) {
	e := extension{targets: map[string]zedTarget{}}
	cur := ""
	sc := bufio.NewScanner(strings.NewReader(s))
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		if strings.HasPrefix(line, "[") {
			table := strings.Trim(line, "[]")
			cur = strings.TrimPrefix(table, "agent_servers.hermes.targets.")
			if cur == table {
				cur = ""
			}
			continue
		}
		key, val, ok := strings.Cut(line, " = ")
		if !ok {
			return e, fmt.Errorf("line %d: %q is not key = value", n, line)
		}
		if cur == "" {
			if key == "version" {
				if err := json.Unmarshal([]byte(val), &e.version); err != nil {
					return e, fmt.Errorf("line %d: %w", n, err)
				}
			}
			continue
		}
		t := e.targets[cur]
		var err error
		switch key {
		case "archive":
			err = json.Unmarshal([]byte(val), &t.Archive)
		case "cmd":
			err = json.Unmarshal([]byte(val), &t.Cmd)
		case "sha256":
			err = json.Unmarshal([]byte(val), &t.SHA256)
		case "args":
			err = json.Unmarshal([]byte(val), &t.Args)
		default:
			err = fmt.Errorf("unknown key %q", key)
		}
		if err != nil {
			return e, fmt.Errorf("line %d: %w", n, err)
		}
		e.targets[cur] = t
	}
	return e, sc.Err()
}

// readSums reads a SHA256SUMS file.
func readSums(path string) (map[string]string, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	sums := map[string]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		sum, name, ok := strings.Cut(line, "  ")
		if !ok {
			return nil, fmt.Errorf("%s: bad line %q", path, line)
		}
		sums[name] = sum
	}
	return sums, nil
}

// unpack returns the contents and mode of the file name in the archive.
func unpack(data []byte, t target, name string) ([]byte, os.FileMode, error) {
	if t.GOOS == "windows" {
		zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
		if err != nil {
			return nil, 0, err
		}
		for _, f := range zr.File {
			if f.Name == name {
				rc, err := f.Open()
				if err != nil {
					return nil, 0, err
				}
				defer rc.Close()
				b, err := io.ReadAll(rc)
				return b, f.Mode(), err
			}
		}
		return nil, 0, fmt.Errorf("no %s in the archive", name)
	}
	gz, err := gzip.NewReader(bytes.NewReader(data))
	if err != nil {
		return nil, 0, err
	}
	tr := tar.NewReader(gz)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return nil, 0, fmt.Errorf("no %s in the archive", name)
		}
		if err != nil {
			return nil, 0, err
		}
		if h.Name == name {
			b, err := io.ReadAll(tr)
			return b, h.FileInfo().Mode(), err
		}
	}
}

// checkBinary checks that bin is an executable for t's OS and architecture.
func checkBinary(bin []byte, t target) error {
	r := bytes.NewReader(bin)
	switch t.GOOS {
	case "linux":
		f, err := elf.NewFile(r)
		if err != nil {
			return fmt.Errorf("not an ELF executable: %w", err)
		}
		want := map[string]elf.Machine{"amd64": elf.EM_X86_64, "arm64": elf.EM_AARCH64}[t.GOARCH]
		if f.Machine != want {
			return fmt.Errorf("ELF for %v, want %v", f.Machine, want)
		}
		if f.Type != elf.ET_EXEC {
			return fmt.Errorf("ELF type %v, want a static executable", f.Type)
		}
	case "darwin":
		f, err := macho.NewFile(r)
		if err != nil {
			return fmt.Errorf("not a Mach-O executable: %w", err)
		}
		want := map[string]macho.Cpu{"amd64": macho.CpuAmd64, "arm64": macho.CpuArm64}[t.GOARCH]
		if f.Cpu != want {
			return fmt.Errorf("Mach-O for %v, want %v", f.Cpu, want)
		}
	case "windows":
		f, err := pe.NewFile(r)
		if err != nil {
			return fmt.Errorf("not a PE executable: %w", err)
		}
		want := map[string]uint16{"amd64": pe.IMAGE_FILE_MACHINE_AMD64, "arm64": pe.IMAGE_FILE_MACHINE_ARM64}[t.GOARCH]
		if f.Machine != want {
			return fmt.Errorf("PE for machine %#x, want %#x", f.Machine, want)
		}
	}
	return nil
}

// handshake unpacks bin as cmd into a temporary folder, starts it with args
// (as an editor following the manifest would) and checks that it answers
// --version with version and an ACP initialize with protocol version 1.
func handshake(bin []byte, t target, cmd string, args []string, version string) error {
	dir, err := os.MkdirTemp("", "mkdist-run-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, filepath.FromSlash(cmd))
	if err := os.WriteFile(path, bin, 0o755); err != nil {
		return err
	}
	v, err := exec.Command(path, "--version").Output()
	if err != nil {
		return fmt.Errorf("--version: %w", err)
	}
	if want := "hermes-acp " + version; strings.TrimSpace(string(v)) != want {
		return fmt.Errorf("--version says %q, want %q", strings.TrimSpace(string(v)), want)
	}
	c := exec.Command(path, args...)
	c.Dir = dir
	c.Env = append(os.Environ(), "HOME="+dir, "HERMES_HOME="+filepath.Join(dir, "hermes"))
	c.Stdin = strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1,"clientCapabilities":{}}}` + "\n")
	var stderr bytes.Buffer
	c.Stderr = &stderr
	c.WaitDelay = 10 * time.Second
	outb, err := c.Output()
	if err != nil {
		return fmt.Errorf("initialize: %w\n%s", err, stderr.String())
	}
	var res struct {
		ID     int `json:"id"`
		Result struct {
			ProtocolVersion int `json:"protocolVersion"`
			AgentInfo       struct {
				Version string `json:"version"`
			} `json:"agentInfo"`
		} `json:"result"`
	}
	line, _, _ := strings.Cut(string(outb), "\n")
	if err := json.Unmarshal([]byte(line), &res); err != nil {
		return fmt.Errorf("initialize answer %q: %w", line, err)
	}
	if res.ID != 1 || res.Result.ProtocolVersion != 1 {
		return fmt.Errorf("initialize answered %s", line)
	}
	return nil
}
