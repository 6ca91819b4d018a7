// Package ownsecrets gathers the secrets ctxhook itself holds, so that
// the plugin redacts them by value from everything ctxhook stores or
// serves: the hook secret of mcp_tool hooks, every relay token a session
// document holds or retired (of every session, not only the one a hook
// belongs to), and the password of the shared store's URL.
//
// A model with a shell can read any of them (`cat` of the hook secret's
// file or of a session document, an MCP tool that reads files), and what
// it read comes back to ctxhook as a tool result. No pattern rule knows
// these values (a relay token has no fixed shape, the hook secret is 64
// hex digits like any digest), but ctxhook knows each one exactly: it
// hands them to the plugin as environment entries whose names the plugin
// treats as sensitive (Environ), the way it hands over the caller's own
// secret variables.
//
// The relay tokens come from the record of own values (record.go), one
// small file every write of a session document adds to: reading every
// session document cost a hook 100 ms and more for 600 documents of a
// busy relay user, and the newest few could be outnumbered by planted
// ones. A long-lived host keeps a Cache that computes the values again
// only when the record or the files Fixed reads changed.
package ownsecrets

import (
	"net/url"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/ctxhook/ctxhook/host/internal/config"
	"github.com/ctxhook/ctxhook/host/internal/hooksecret"
	"github.com/ctxhook/ctxhook/host/internal/paths"
)

// Bounds limit what is handed to the plugin: Present looks for every
// value in every request. The record's newer values come first; past
// the bounds a token is redacted only by the session it belongs to.
type Bounds struct {
	Bytes int // the values' total size
}

var (
	// Hook bounds a hook process.
	Hook = Bounds{Bytes: 64 << 10}
	// Kept bounds a long-lived host's Cache.
	Kept = Bounds{Bytes: 64 << 10}
	// Index bounds `ctxhook index`, one run of many plugin calls: the
	// whole record.
	Index = Bounds{Bytes: 4 << 20}
)

// fallbackDocs is how many of the newest session documents a host reads
// when the record is refused (64 documents of a busy relay user: about
// 2 ms, with 3-5 ms to list 600 of them).
const fallbackDocs = 64

const (
	maxValues = 4096
	minLen    = 8 // shorter values are not redacted (redact.MinKnownLen)
	envPrefix = "CTXHOOK_OWN_"
	envSuffix = "_TOKEN" // a name the plugin treats as a secret's (redact.SensitiveName)
)

// Present keeps the values that may occur in texts (a request's payload
// and the files read for it): the guest pays for every value it is
// handed (measured on a warm hook: 17 ms more for 32 KiB of values,
// 100 ms for 256 KiB), and a value none of what it reads holds any part
// of cannot reach what it writes. The plugin redacts any run of
// MinRun bytes of a value, in any ASCII case, with JSON escapes decoded
// (redact.MinKnownRun), so a value is kept when the texts hold a run of
// presentRun bytes of it in any case, as they are or with their escapes
// decoded (a shorter run than the plugin's: a value printed split over
// two lines has a shorter piece on one side). The hook secret (and a
// value of its shape) always goes: it is what a model is most likely to
// read, and a 64-byte value costs the guest nothing to speak of.
func Present(values []string, texts ...string) []string {
	return newFinder(values).present(texts)
}

// presentRun is the shortest run of a value that makes Present keep it.
const presentRun = 8

// finder tells which of its values have a run of presentRun bytes in a
// text, in one pass over it whatever their number: every 4-byte piece of
// every value, lower-cased, at every offset, goes in a map; a run of 7
// bytes or more holds a 4-byte block of the text at an offset divisible
// by 4, so the text is read 4 bytes at a time and a block that is a
// piece is extended both ways. One strings.Contains per value cost 1-6
// ms for 135 values on a 6.6 KB payload.
type finder struct {
	vals   []string // lower-cased
	orig   []string
	always []bool
	at     map[uint32][]piece
}

type piece struct{ val, off int }

func newFinder(values []string) *finder {
	f := &finder{orig: values, vals: make([]string, len(values)), always: make([]bool, len(values)), at: map[uint32][]piece{}}
	for v, s := range values {
		f.vals[v] = asciiLower(s)
		// A value holding a quote or a backslash may be in the payload
		// only escaped (\" or \\): it goes too.
		if len(s) < presentRun || hooksecret.Valid(s) || strings.ContainsAny(s, `"\\`) {
			f.always[v] = true
			continue
		}
		for off := 0; off+4 <= len(s); off++ {
			w := le32(f.vals[v], off)
			f.at[w] = append(f.at[w], piece{v, off})
		}
	}
	return f
}

func le32(s string, i int) uint32 {
	return uint32(s[i]) | uint32(s[i+1])<<8 | uint32(s[i+2])<<16 | uint32(s[i+3])<<24
}

func (f *finder) present(texts []string) []string {
	found := slices.Clone(f.always)
	for _, t := range texts {
		f.mark(found, t)
		if strings.Contains(t, `\u`) || strings.Contains(t, `\/`) {
			f.mark(found, unescape(t))
		}
	}
	var out []string
	for v, ok := range found {
		if ok {
			out = append(out, f.orig[v])
		}
	}
	return out
}

// asciiLower lower-cases s's ASCII letters only, as the plugin compares.
func asciiLower(s string) string {
	b := []byte(s)
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}

// mark sets found for the values that have a run of presentRun bytes in
// t, ASCII case aside.
func (f *finder) mark(found []bool, t string) {
	low := func(c byte) byte {
		if 'A' <= c && c <= 'Z' {
			return c + 'a' - 'A'
		}
		return c
	}
	for q := 0; q+4 <= len(t); q += 4 {
		w := uint32(low(t[q])) | uint32(low(t[q+1]))<<8 | uint32(low(t[q+2]))<<16 | uint32(low(t[q+3]))<<24
		for _, pc := range f.at[w] {
			if found[pc.val] {
				continue
			}
			v := f.vals[pc.val]
			a, ja := q, pc.off
			for a > 0 && ja > 0 && low(t[a-1]) == v[ja-1] {
				a, ja = a-1, ja-1
			}
			b, jb := q+4, pc.off+4
			for b < len(t) && jb < len(v) && low(t[b]) == v[jb] {
				b, jb = b+1, jb+1
			}
			found[pc.val] = jb-ja >= presentRun
		}
	}
}

// unescape decodes t's \uXXXX and \/ escapes, leniently (any number of
// backslashes make one: JSON inside a JSON string), as the plugin does
// before it matches known values.
func unescape(t string) string {
	var b strings.Builder
	b.Grow(len(t))
	for i := 0; i < len(t); {
		if t[i] != '\\' {
			b.WriteByte(t[i])
			i++
			continue
		}
		j := i
		for j < len(t) && t[j] == '\\' {
			j++
		}
		if j < len(t) && t[j] == '/' {
			b.WriteByte('/')
			i = j + 1
			continue
		}
		if j+5 <= len(t) && t[j] == 'u' {
			if r, err := strconv.ParseUint(t[j+1:j+5], 16, 32); err == nil {
				b.WriteRune(rune(r))
				i = j + 5
				continue
			}
		}
		b.WriteByte('\\')
		i++
	}
	return b.String()
}

// Environ hands values to the plugin as environment entries whose names
// it treats as a secret's; each value is then redacted wherever it
// appears. The names are the plugin's business only: nothing stores or
// echoes them.
func Environ(values []string) []string {
	env := make([]string, len(values))
	for i, v := range values {
		env[i] = envPrefix + strconv.Itoa(i) + envSuffix + "=" + v
	}
	return env
}

// Fixed is the values that do not come from session documents: the hook
// secret (whatever the mode of its file: a secret others could read is
// still one to keep out of the store) and the shared store's password,
// from config.toml's [store] url and CTXHOOK_STORE_URL as each of envs
// reads it (a daemon's own environment and a request's may differ).
func Fixed(p paths.Paths, envs ...func(string) string) []string {
	var out []string
	if s := hookSecret(p); s != "" {
		out = append(out, s)
	}
	return append(out, storePasswords(p.Config, envs)...)
}

// hookSecret reads the hook secret's file as a value to redact; a file
// that is not a secret install wrote gives none.
func hookSecret(p paths.Paths) string {
	path := hooksecret.Path(p.Data)
	if s, err := hooksecret.Read(path); err == nil {
		return s
	}
	fi, err := os.Lstat(path)
	if err != nil || !fi.Mode().IsRegular() || fi.Size() > 256 {
		return ""
	}
	b, err := os.ReadFile(path)
	if s := strings.TrimSpace(string(b)); err == nil && hooksecret.Valid(s) {
		return s
	}
	return ""
}

// storePasswords are the passwords of the store URLs of the config file
// and of the environment, as written and percent-decoded: a URL's
// user information, its password parameter, and the entry of the
// password file libpq would read for it (pgpassValues).
func storePasswords(configPath string, envs []func(string) string) []string {
	type storeURL struct {
		raw    string
		getenv func(string) string
	}
	var urls []storeURL
	if s, err := config.LoadStore(configPath, func(string) string { return "" }); err == nil && s.URL != "" {
		urls = append(urls, storeURL{s.URL, firstEnv(envs)})
	}
	for _, getenv := range envs {
		if getenv == nil {
			continue
		}
		if u := getenv(config.EnvStoreURL); u != "" {
			urls = append(urls, storeURL{u, getenv})
		}
	}
	var out []string
	for _, u := range urls {
		out = append(out, URLPasswords(u.raw)...)
		out = append(out, pgpassValues(u.raw, u.getenv)...)
	}
	return out
}

// firstEnv is the first of envs that is set, else the process's own.
func firstEnv(envs []func(string) string) func(string) string {
	for _, getenv := range envs {
		if getenv != nil {
			return getenv
		}
	}
	return os.Getenv
}

// URLPasswords returns the passwords raw, a URL, carries, decoded and as
// they are written in it (the forms differ when the password holds a
// character the URL escapes).
func URLPasswords(raw string) []string {
	u, err := url.Parse(raw)
	if err != nil {
		return nil
	}
	var out []string
	if pw, ok := u.User.Password(); ok {
		out = append(out, pw)
		if i := strings.Index(raw, "://"); i >= 0 {
			auth := raw[i+3:]
			if j := strings.IndexAny(auth, "/?#"); j >= 0 {
				auth = auth[:j]
			}
			if at := strings.LastIndex(auth, "@"); at >= 0 {
				if c := strings.IndexByte(auth[:at], ':'); c >= 0 {
					out = append(out, auth[c+1:at])
				}
			}
		}
	}
	for _, k := range []string{"password", "sslpassword"} {
		for _, v := range u.Query()[k] {
			out = append(out, v, url.QueryEscape(v))
		}
	}
	return bound(out, len(raw))
}

// bound drops values too short to redact and duplicates, keeping the
// first of each, within maxValues and maxBytes.
func bound(vals []string, maxBytes int) []string {
	var out []string
	seen := map[string]bool{}
	n := 0
	for _, v := range vals {
		if len(v) < minLen || seen[v] || len(out) == maxValues || n+len(v) > maxBytes {
			continue
		}
		seen[v] = true
		n += len(v)
		out = append(out, v)
	}
	return slices.Clip(out)
}
