package ownsecrets

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"net/url"
	"os"
	"os/user"
	"path/filepath"
	"strings"

	"github.com/ctxhook/ctxhook/host/internal/platform"
)

// maxPgpass bounds what is read of a password file.
const maxPgpass = 1 << 20

// connKey is what a password file's line is matched against.
type connKey struct{ host, port, db, user string }

// storeConn reads the host, port, database and user a store URL names,
// with libpq's defaults: a socket directory or no host is "localhost"
// (as libpq matches a password file), port 5432, the database named as
// the user, the user PGUSER or the login name. Query parameters win over
// the URL's parts, as in libpq.
func storeConn(raw string, getenv func(string) string) (connKey, bool) {
	u, err := url.Parse(raw)
	if err != nil || u.Scheme != "postgres" && u.Scheme != "postgresql" {
		return connKey{}, false
	}
	q := u.Query()
	pick := func(vals ...string) string {
		for _, v := range vals {
			if v != "" {
				return v
			}
		}
		return ""
	}
	k := connKey{
		host: pick(q.Get("host"), u.Hostname()),
		port: pick(q.Get("port"), u.Port(), getenv("PGPORT"), "5432"),
		db:   pick(q.Get("dbname"), strings.TrimPrefix(u.Path, "/")),
		user: pick(q.Get("user"), u.User.Username(), getenv("PGUSER"), getenv("USER")),
	}
	if k.user == "" {
		if me, err := user.Current(); err == nil {
			k.user = me.Username
		}
	}
	// Several hosts (host=a,b): the first is matched.
	k.host, _, _ = strings.Cut(k.host, ",")
	k.port, _, _ = strings.Cut(k.port, ",")
	if k.host == "" || strings.HasPrefix(k.host, "/") || strings.HasPrefix(k.host, "@") {
		k.host = "localhost"
	}
	k.db = pick(k.db, k.user)
	return k, true
}

// pgpassPath is the password file libpq reads: PGPASSFILE, else
// ~/.pgpass (Windows: %APPDATA%\postgresql\pgpass.conf).
func pgpassPath(getenv func(string) string) string {
	if f := getenv("PGPASSFILE"); f != "" {
		return f
	}
	if ad := getenv("APPDATA"); ad != "" && filepath.Separator == '\\' {
		return filepath.Join(ad, "postgresql", "pgpass.conf")
	}
	home := getenv("HOME")
	if home == "" {
		home, _ = os.UserHomeDir()
	}
	if home == "" {
		return ""
	}
	return filepath.Join(home, ".pgpass")
}

// readPgpass reads the password file libpq would: a regular file of the
// user's that no one else may read or write (libpq ignores one group or
// others may read; ctxhook also ignores one another user owns).
func readPgpass(path string) ([]byte, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|noBlock, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a regular file", path)
	}
	if fi.Mode().Perm()&0o077 != 0 {
		return nil, fmt.Errorf("%s may be read by others (mode %v)", path, fi.Mode().Perm())
	}
	if err := platform.OwnedOpened(path, fi); err != nil {
		return nil, err
	}
	return io.ReadAll(io.LimitReader(f, maxPgpass))
}

// pgpassLookup returns the password of the first line of a password
// file that matches k, as libpq reads it: five fields split by ':', a
// field of `*` matches anything, `\` escapes the next character (`\:`,
// `\\`), a line starting with '#' is a comment, and the password ends at
// the line's end or an unescaped ':'.
func pgpassLookup(b []byte, k connKey) (string, bool) {
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(nil, maxPgpass)
	for sc.Scan() {
		line := strings.TrimRight(sc.Text(), "\r")
		if line == "" || line[0] == '#' {
			continue
		}
		rest, ok := line, true
		for _, want := range []string{k.host, k.port, k.db, k.user} {
			if rest, ok = matchField(rest, want); !ok {
				break
			}
		}
		if !ok {
			continue
		}
		var pw strings.Builder
		for i := 0; i < len(rest) && rest[i] != ':'; i++ {
			if rest[i] == '\\' && i+1 < len(rest) {
				i++
			}
			pw.WriteByte(rest[i])
		}
		return pw.String(), true
	}
	return "", false
}

// matchField matches the first field of s against want and returns what
// follows its ':'.
func matchField(s, want string) (string, bool) {
	if strings.HasPrefix(s, "*:") {
		return s[2:], true
	}
	j := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == ':' && j == len(want) {
			return s[i+1:], true
		}
		if c == '\\' && i+1 < len(s) {
			i++
			c = s[i]
		}
		if j == len(want) || c != want[j] {
			return "", false
		}
		j++
	}
	return "", false
}

// pgpassValues are the values to redact that a store URL's password file
// entry gives: the password, as written and as a URL's user information
// and query escape it; and, for a password too short to redact alone
// (under 8 bytes), the end of "user:password" as it stands in a password
// file's line and a URL's user information, up to 11 bytes (redacted
// only whole: a longer value would make a run of the user name alone
// redacted everywhere). A password whose "user:password" is shorter than
// 8 bytes is not redacted.
func pgpassValues(raw string, getenv func(string) string) []string {
	k, ok := storeConn(raw, getenv)
	if !ok {
		return nil
	}
	path := pgpassPath(getenv)
	if path == "" {
		return nil
	}
	b, err := readPgpass(path)
	if err != nil {
		return nil
	}
	pw, ok := pgpassLookup(b, k)
	if !ok || pw == "" {
		return nil
	}
	return passwordForms(k.user, pw)
}

// passwordForms are pw as written, escaped as in a URL's user
// information and query, and for a short one its contextual forms.
func passwordForms(usr, pw string) []string {
	esc := strings.TrimPrefix(url.UserPassword("", pw).String(), ":")
	out := []string{pw, esc, url.QueryEscape(pw)}
	if len(pw) >= minLen {
		return out
	}
	for _, ctx := range []string{usr + ":" + pw, url.UserPassword(usr, pw).String()} {
		out = append(out, ctx[max(0, len(ctx)-11):])
	}
	return out
}
