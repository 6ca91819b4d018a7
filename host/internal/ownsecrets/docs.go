package ownsecrets

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/ctxhook/ctxhook/host/internal/config"
	"github.com/ctxhook/ctxhook/host/internal/hooksecret"
	"github.com/ctxhook/ctxhook/host/internal/paths"
)

// maxDoc bounds what is read of one session document.
const maxDoc = 1 << 20

// doc is what a session document gave, with the stamp it was read at.
type doc struct {
	mod          time.Time
	size         int64
	cur, retired []string
}

// Gather is every value Fixed gives and the relay tokens of the record
// of own values (RecordValues), newest first, within b.
func Gather(p paths.Paths, b Bounds, envs ...func(string) string) []string {
	vals, _ := recordValues(p.StateDir())
	return bound(slices.Concat(Fixed(p, envs...), vals), b.Bytes)
}

// Cache keeps what Gather gives across the calls of a long-lived host
// (the daemon, the proxy, ctxhook mcp), computing it again only when the
// record, the hook secret's file, the config or the store URLs the
// environment gives changed.
type Cache struct {
	mu    sync.Mutex
	vals  []string
	stamp string
}

var shared struct {
	sync.Mutex
	m map[string]*Cache
}

// Shared is the one Cache of a state directory in this process.
func Shared(dir string) *Cache {
	shared.Lock()
	defer shared.Unlock()
	if shared.m == nil {
		shared.m = map[string]*Cache{}
	}
	c := shared.m[dir]
	if c == nil {
		c = &Cache{}
		shared.m[dir] = c
	}
	return c
}

// Values is what Gather gives with Kept, from the cache.
func (c *Cache) Values(p paths.Paths, envs ...func(string) string) []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	rec, recStamp := recordValues(p.StateDir())
	stamp := fixedStamp(p, envs) + "\x00" + recStamp
	if c.vals == nil || stamp != c.stamp || recStamp == "" {
		c.vals, c.stamp = bound(slices.Concat(Fixed(p, envs...), rec), Kept.Bytes), stamp
	}
	return c.vals
}

// fixedStamp names what Fixed reads: the hook secret's, the config's
// and the password file's files by size and time, and the store URLs of
// envs.
func fixedStamp(p paths.Paths, envs []func(string) string) string {
	var b strings.Builder
	for _, f := range []string{hooksecret.Path(p.Data), p.Config, pgpassPath(firstEnv(envs))} {
		if fi, err := os.Stat(f); err == nil {
			fmt.Fprintf(&b, "%d/%d;", fi.Size(), fi.ModTime().UnixNano())
		} else {
			b.WriteString("-;")
		}
	}
	for _, getenv := range envs {
		if getenv != nil {
			b.WriteString(getenv(config.EnvStoreURL) + "\x00" + getenv("PGPASSFILE") + "\x00")
		}
	}
	return b.String()
}

// docScan is the tokens of session documents as scan and tokens read
// them: the record's seed, and what a hook falls back to when the
// record is refused.
type docScan struct {
	dir  string
	docs map[string]doc // by file name
}

// scan lists dir and reads the newest n documents. Only regular files are read (a link or a FIFO is
// passed over).
func (c *docScan) scan(dir string, n int) {
	ents, err := os.ReadDir(dir)
	c.dir, c.docs = dir, map[string]doc{}
	if err != nil {
		return
	}
	type entry struct {
		name string
		fi   os.FileInfo
	}
	var es []entry
	for _, e := range ents {
		if !strings.HasSuffix(e.Name(), ".json") || !e.Type().IsRegular() {
			continue
		}
		if fi, err := e.Info(); err == nil {
			es = append(es, entry{e.Name(), fi})
		}
	}
	slices.SortFunc(es, func(a, b entry) int { return b.fi.ModTime().Compare(a.fi.ModTime()) })
	for _, e := range es[:min(len(es), n)] {
		cur, retired := readTokens(filepath.Join(dir, e.name))
		c.docs[e.name] = doc{e.fi.ModTime(), e.fi.Size(), cur, retired}
	}
}

// tokens are the cached documents' tokens: the current ones of every
// document, newest document first, then the retired ones.
func (c *docScan) tokens() []string {
	type named struct {
		name string
		d    doc
	}
	var ds []named
	for name, d := range c.docs {
		if len(d.cur)+len(d.retired) > 0 {
			ds = append(ds, named{name, d})
		}
	}
	slices.SortFunc(ds, func(a, b named) int {
		return cmp.Or(b.d.mod.Compare(a.d.mod), strings.Compare(a.name, b.name))
	})
	var out []string
	for _, d := range ds {
		out = append(out, d.d.cur...)
	}
	for _, d := range ds {
		out = append(out, d.d.retired...)
	}
	return out
}

func readTokens(path string) (cur, retired []string) {
	f, err := os.Open(path) // listed as a regular file of the user's 0700 directory
	if err != nil {
		return nil, nil
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		return nil, nil
	}
	b, err := io.ReadAll(io.LimitReader(f, maxDoc))
	if err != nil {
		return nil, nil
	}
	return docTokens(b)
}

// docTokens reads a session document's top-level "tokens" (current, by
// server) and "retired" fields. Only their values are decoded, found by
// walking the top-level keys (topLevel): a document is mostly long lists
// (answered calls, recent results), and decoding all of it cost 0.3-1 ms
// a document. A key of that name inside another field (a server named
// "retired" in upstreams) is not the document's. Another document
// (Cursor's tool map) gives none.
func docTokens(b []byte) (cur, retired []string) {
	topLevel(b, func(key string, val []byte) {
		switch key {
		case "tokens":
			var m map[string]string
			cur = nil
			if json.Unmarshal(val, &m) == nil {
				for _, s := range slices.Sorted(maps.Keys(m)) {
					cur = append(cur, m[s])
				}
			}
		case "retired":
			retired = nil
			if json.Unmarshal(val, &retired) != nil {
				retired = nil
			}
		}
	})
	return cur, retired
}

// topLevel calls fn with every key of the object b holds and the raw
// bytes of its value, in order, until b stops being a well-formed
// object. A key with an escape is decoded, as json.Unmarshal would.
func topLevel(b []byte, fn func(key string, val []byte)) {
	i := skipSpace(b, 0)
	if i >= len(b) || b[i] != '{' {
		return
	}
	for i = skipSpace(b, i+1); i < len(b) && b[i] == '"'; {
		end := skipString(b, i)
		if end < 0 {
			return
		}
		key := string(b[i+1 : end-1])
		if bytes.IndexByte(b[i:end], '\\') >= 0 && json.Unmarshal(b[i:end], &key) != nil {
			return
		}
		if i = skipSpace(b, end); i >= len(b) || b[i] != ':' {
			return
		}
		start := skipSpace(b, i+1)
		stop := skipValue(b, start)
		if stop < 0 {
			return
		}
		fn(key, b[start:stop])
		if i = skipSpace(b, stop); i >= len(b) || b[i] != ',' {
			return
		}
		i = skipSpace(b, i+1)
	}
}

func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// skipString returns the offset after the string starting at b[i] (a
// quote), or -1.
func skipString(b []byte, i int) int {
	for j := i + 1; j < len(b); j++ {
		switch b[j] {
		case '\\':
			j++
		case '"':
			return j + 1
		}
	}
	return -1
}

// skipValue returns the offset after the value starting at b[i]: a
// string, or anything up to the comma or brace that closes its level,
// strings inside skipped whole; -1 if b ends first. The value's own
// syntax is json.Unmarshal's to judge.
func skipValue(b []byte, i int) int {
	depth := 0
	for j := i; j < len(b); j++ {
		switch b[j] {
		case '"':
			if j = skipString(b, j); j < 0 {
				return -1
			}
			if depth == 0 {
				return j
			}
			j--
		case '{', '[':
			depth++
		case '}', ']':
			if depth == 0 {
				return j
			}
			if depth--; depth == 0 {
				return j + 1
			}
		case ',':
			if depth == 0 {
				return j
			}
		}
	}
	return -1
}
