// Command dist makes ctxhook's release archives: for each target, the two
// binaries with README.md, LICENSE, NOTICE and CHANGELOG.md, as a .tar.gz
// (a .zip for Windows), and a SHA256SUMS file over them. The bytes depend
// on the source tree alone: binaries built with -trimpath, no build ID and
// no VCS stamp (the commit goes in with -X), archive entries sorted, owned
// by root, dated by the commit. Two runs on one commit give identical
// files (make dist-check compares them).
//
// Usage: go run ./tools/dist [-out dist] [-targets "linux/amd64 ..."]
package main

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"debug/buildinfo"
	"flag"
	"fmt"
	"io"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/ctxhook/ctxhook/internal/version"
)

func main() {
	out := flag.String("out", "dist", "directory for the archives")
	targets := flag.String("targets", "linux/amd64 linux/arm64 darwin/arm64 darwin/amd64 windows/amd64 windows/arm64", "GOOS/GOARCH pairs")
	npmDir := flag.String("npm", "", "also write each target's npm platform package (@ctxhook/<os>-<cpu>) under this directory")
	flag.Parse()
	npmOut = *npmDir
	if err := run(*out, strings.Fields(*targets)); err != nil {
		fmt.Fprintln(os.Stderr, "dist:", err)
		os.Exit(1)
	}
}

// npmOut, when set, receives the npm platform packages.
var npmOut string

// npmNames maps Go's names to npm's (process.platform, process.arch).
var npmNames = map[string]string{"windows": "win32", "amd64": "x64", "arm64": "arm64", "linux": "linux", "darwin": "darwin"}

// npmPackage writes @ctxhook/<os>-<cpu>: the two binaries in bin/ and a
// package.json whose os and cpu fields make npm install it on that
// platform only (the package ctxhook lists them all as optional).
func npmPackage(goos, goarch string, files map[string][]byte) error {
	plat := npmNames[goos] + "-" + npmNames[goarch]
	dir := filepath.Join(npmOut, plat)
	if err := os.MkdirAll(filepath.Join(dir, "bin"), 0o755); err != nil {
		return err
	}
	for name, data := range files {
		if strings.HasPrefix(name, "ctxhook") {
			if err := os.WriteFile(filepath.Join(dir, "bin", name), data, 0o755); err != nil {
				return err
			}
		} else if name == "LICENSE" || name == "NOTICE" {
			os.WriteFile(filepath.Join(dir, name), data, 0o644)
		}
	}
	pkg := fmt.Sprintf(`{
  "name": "@ctxhook/%s",
  "version": %q,
  "description": "The ctxhook binaries for %s (installed by the ctxhook package)",
  "license": "Apache-2.0",
  "os": [%q],
  "cpu": [%q],
  "files": ["bin/", "LICENSE", "NOTICE"]
}
`, plat, version.Number, plat, npmNames[goos], npmNames[goarch])
	return os.WriteFile(filepath.Join(dir, "package.json"), []byte(pkg), 0o644)
}

func git(args ...string) string {
	b, err := exec.Command("git", args...).Output()
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(b))
}

func run(out string, targets []string) error {
	commit := git("rev-parse", "--short=12", "HEAD")
	if commit == "" {
		commit = "unknown"
	} else if git("status", "--porcelain", "--untracked-files=no") != "" {
		commit += "-dirty"
	}
	// Every entry is dated by the commit (SOURCE_DATE_EPOCH wins).
	date := time.Unix(0, 0).UTC()
	if s := os.Getenv("SOURCE_DATE_EPOCH"); s != "" {
		if n, err := strconv.ParseInt(s, 10, 64); err == nil {
			date = time.Unix(n, 0).UTC()
		}
	} else if s := git("log", "-1", "--format=%ct"); s != "" {
		if n, err := strconv.ParseInt(s, 10, 64); err == nil {
			date = time.Unix(n, 0).UTC()
		}
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		return err
	}
	build, err := os.MkdirTemp("", "ctxhook-dist-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(build)
	var sums []string
	for _, t := range targets {
		goos, goarch, ok := strings.Cut(t, "/")
		if !ok {
			return fmt.Errorf("target %q is not GOOS/GOARCH", t)
		}
		name := fmt.Sprintf("ctxhook-%s-%s-%s", version.Number, goos, goarch)
		exe := ""
		if goos == "windows" {
			exe = ".exe"
		}
		files := map[string][]byte{}
		for _, cmd := range []string{"ctxhook", "ctxhook-hook"} {
			bin := filepath.Join(build, name, cmd+exe)
			// -tags= overrides any -tags from GOFLAGS or a go env file.
			c := exec.Command("go", "build", "-tags=", "-trimpath", "-buildvcs=false",
				"-ldflags", "-s -w -buildid= -X github.com/ctxhook/ctxhook/internal/version.commit="+commit,
				"-o", bin, "./host/cmd/"+cmd)
			c.Env = append(os.Environ(), "GOOS="+goos, "GOARCH="+goarch, "CGO_ENABLED=0", "GOFLAGS=")
			c.Stderr = os.Stderr
			if err := c.Run(); err != nil {
				return fmt.Errorf("%s: build %s: %v", t, cmd, err)
			}
			if err := releaseBuild(bin); err != nil {
				return fmt.Errorf("%s: %v", t, err)
			}
			if files[cmd+exe], err = os.ReadFile(bin); err != nil {
				return err
			}
		}
		for _, doc := range []string{"README.md", "LICENSE", "NOTICE", "CHANGELOG.md"} {
			if files[doc], err = os.ReadFile(doc); err != nil {
				return err
			}
		}
		if npmOut != "" {
			if err := npmPackage(goos, goarch, files); err != nil {
				return err
			}
		}
		var archive []byte
		if goos == "windows" {
			name += ".zip"
			archive, err = zipOf(strings.TrimSuffix(name, ".zip"), files, date)
		} else {
			name += ".tar.gz"
			archive, err = tarOf(strings.TrimSuffix(name, ".tar.gz"), files, date)
		}
		if err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(out, name), archive, 0o644); err != nil {
			return err
		}
		sums = append(sums, fmt.Sprintf("%x  %s\n", sha256.Sum256(archive), name))
		fmt.Printf("%s (%d bytes)\n", filepath.Join(out, name), len(archive))
	}
	sort.Strings(sums)
	return os.WriteFile(filepath.Join(out, "SHA256SUMS"), []byte(strings.Join(sums, "")), 0o644)
}

// releaseBuild refuses a binary whose build information carries a build
// tag (the test knobs' ctxhook_testhooks among them): a release has none,
// whatever GOFLAGS or a go env file said.
func releaseBuild(bin string) error {
	bi, err := buildinfo.ReadFile(bin)
	if err != nil {
		return fmt.Errorf("%s: no build information: %v", bin, err)
	}
	for _, s := range bi.Settings {
		if s.Key == "-tags" && s.Value != "" {
			return fmt.Errorf("%s was built with -tags %s: not a release build", bin, s.Value)
		}
	}
	return nil
}

func mode(name string) int64 {
	if strings.HasPrefix(name, "ctxhook") {
		return 0o755
	}
	return 0o644
}

func tarOf(dir string, files map[string][]byte, date time.Time) ([]byte, error) {
	var buf bytes.Buffer
	gz, _ := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	gz.ModTime = date
	tw := tar.NewWriter(gz)
	for _, n := range slices.Sorted(maps.Keys(files)) {
		h := &tar.Header{Name: dir + "/" + n, Mode: mode(n), Size: int64(len(files[n])), ModTime: date, Format: tar.FormatPAX, Typeflag: tar.TypeReg}
		if err := tw.WriteHeader(h); err != nil {
			return nil, err
		}
		if _, err := tw.Write(files[n]); err != nil {
			return nil, err
		}
	}
	if err := tw.Close(); err != nil {
		return nil, err
	}
	if err := gz.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

func zipOf(dir string, files map[string][]byte, date time.Time) ([]byte, error) {
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, n := range slices.Sorted(maps.Keys(files)) {
		h := &zip.FileHeader{Name: dir + "/" + n, Method: zip.Deflate, Modified: date}
		h.SetMode(os.FileMode(mode(n)))
		w, err := zw.CreateHeader(h)
		if err != nil {
			return nil, err
		}
		if _, err := io.Copy(w, bytes.NewReader(files[n])); err != nil {
			return nil, err
		}
	}
	if err := zw.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}
