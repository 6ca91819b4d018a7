package state

import (
	"cmp"
	"io"
	"os"
	"path/filepath"
	"slices"
)

// maxValue bounds one document read by Values: a session's document is a
// few KiB (its lists are bounded by the plugin).
const maxValue = 1 << 20

// Values returns the documents of the newest n keys (by last write),
// whatever their keys. `ctxhook index` reads transcripts that name no
// session: it must still redact every relay token any session holds or
// retired. Only regular files of this directory are read (a link or a
// FIFO is passed over), at most maxValue bytes each.
func (d Dir) Values(n int) []string {
	docs, _ := filepath.Glob(filepath.Join(d.path, "*.json"))
	type doc struct {
		path string
		mod  int64
	}
	var ds []doc
	for _, p := range docs {
		if fi, err := os.Lstat(p); err == nil && fi.Mode().IsRegular() {
			ds = append(ds, doc{p, fi.ModTime().UnixNano()})
		}
	}
	slices.SortFunc(ds, func(a, b doc) int { return cmp.Compare(b.mod, a.mod) })
	var out []string
	for _, dc := range ds[:min(len(ds), n)] {
		if v, ok := readValue(dc.path); ok {
			out = append(out, v)
		}
	}
	return out
}

func readValue(p string) (string, bool) {
	f, err := os.Open(p) // checked regular by Lstat, in the user's 0700 directory

	if err != nil {
		return "", false
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		return "", false
	}
	b, err := io.ReadAll(io.LimitReader(f, maxValue))
	return string(b), err == nil
}
