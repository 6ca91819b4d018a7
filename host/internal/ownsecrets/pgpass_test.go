package ownsecrets

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestPgpassLookup(t *testing.T) {
	k := connKey{"db.example", "5432", "ctxhook", "alice"}
	for _, tc := range []struct {
		name, file string
		want       string
	}{
		{"exact", "db.example:5432:ctxhook:alice:s3cret-pass\n", "s3cret-pass"},
		{"first match wins", "*:*:*:alice:first-pass\ndb.example:5432:ctxhook:alice:second\n", "first-pass"},
		{"comment and others", "# db.example:5432:ctxhook:alice:commented\nother:5432:ctxhook:alice:nope\n*:5432:*:*:wild-pass\n", "wild-pass"},
		{"escapes", `db.example:5432:ctxhook:alice:a\:b\\c:ignored` + "\n", `a:b\c`},
		{"escaped field", "db\\.example:5432:ctxhook:alice:esc-field\n", "esc-field"},
		{"crlf", "db.example:5432:ctxhook:alice:crlf-pass\r\n", "crlf-pass"},
		{"star inside a field is literal", "db.*:5432:ctxhook:alice:nope\n", ""},
		{"wrong user", "db.example:5432:ctxhook:bob:nope\n", ""},
		{"short line", "db.example:5432\n", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, _ := pgpassLookup([]byte(tc.file), k)
			if got != tc.want {
				t.Errorf("pgpassLookup = %q, want %q", got, tc.want)
			}
		})
	}
}

func TestStoreConn(t *testing.T) {
	env := func(k string) string { return map[string]string{"USER": "login"}[k] }
	for _, tc := range []struct {
		url  string
		want connKey
	}{
		{"postgres://alice@db.example:6543/ctxhook", connKey{"db.example", "6543", "ctxhook", "alice"}},
		{"postgres://db.example/ctxhook", connKey{"db.example", "5432", "ctxhook", "login"}},
		{"postgresql:///ctxhook?host=/run/postgresql&user=carol", connKey{"localhost", "5432", "ctxhook", "carol"}},
		{"postgres://alice@h1,h2/x?port=5433", connKey{"h1", "5433", "x", "alice"}},
		{"postgres://alice@db.example", connKey{"db.example", "5432", "alice", "alice"}},
		{"postgres://al%69ce@db.example/c%74xhook", connKey{"db.example", "5432", "ctxhook", "alice"}},
	} {
		if got, ok := storeConn(tc.url, env); !ok || got != tc.want {
			t.Errorf("storeConn(%q) = %+v, want %+v", tc.url, got, tc.want)
		}
	}
}

// FuzzPgpassLookup: a line written with libpq's escapes gives back the
// password it was written with, whatever the fields hold.
func FuzzPgpassLookup(f *testing.F) {
	f.Add("db", "5432", "ctxhook", "alice", `a:b\c`)
	f.Add("*", "*", "x:y", `u\`, "pw")
	f.Fuzz(func(t *testing.T, host, port, db, usr, pw string) {
		for _, s := range []string{host, port, db, usr, pw} {
			if strings.ContainsAny(s, "\r\n") {
				return
			}
		}
		esc := strings.NewReplacer(`\`, `\\`, `:`, `\:`)
		line := esc.Replace(host) + ":" + esc.Replace(port) + ":" + esc.Replace(db) + ":" + esc.Replace(usr) + ":" + esc.Replace(pw)
		if line[0] == '#' {
			return
		}
		got, ok := pgpassLookup([]byte(line+"\n"), connKey{host, port, db, usr})
		if !ok || got != pw {
			t.Fatalf("line %q: got %q %v, want %q", line, got, ok, pw)
		}
		pgpassLookup([]byte(host+port+db+usr+pw), connKey{host, port, db, usr}) // any bytes: no panic
	})
}

// TestPgpassPasswords: the password of the matching entry of a real
// password file is among Gather's values, in its escaped forms too; a
// short one only with its user in front; a file others may read, or a
// FIFO, gives nothing.
func TestPgpassPasswords(t *testing.T) {
	for _, tc := range []struct {
		name, line string
		user       string
		mode       os.FileMode
		want, not  []string
	}{
		{"entry", "db.example:5432:ctxhook:alice:Pg-pass/w0rd%x\n", "alice", 0o600,
			[]string{"Pg-pass/w0rd%x", "Pg-pass%2Fw0rd%25x"}, nil},
		{"short", "*:*:*:alice:ab12\n", "alice", 0o600, []string{"alice:ab12"}, []string{"ab12"}},
		{"short, long user", "*:*:*:ctxhook_member:ab12\n", "ctxhook_member", 0o600, []string{"member:ab12"}, []string{"ab12", "ctxhook_member:ab12", "ctxhook_memb"}},
		{"readable by others", "db.example:5432:ctxhook:alice:Pg-open-pass\n", "alice", 0o644, nil, []string{"Pg-open-pass"}},
		{"no match", "db.example:5432:other:alice:Pg-other-pass\n", "alice", 0o600, nil, []string{"Pg-other-pass"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, _ := home(t)
			pgpass := filepath.Join(t.TempDir(), "pgpass")
			os.WriteFile(pgpass, []byte(tc.line), 0o600)
			os.Chmod(pgpass, tc.mode)
			getenv := func(k string) string {
				return map[string]string{"PGPASSFILE": pgpass, "CTXHOOK_STORE_URL": "postgres://" + tc.user + "@db.example/ctxhook"}[k]
			}
			got := Gather(p, Hook, getenv)
			for _, v := range tc.want {
				if !slices.Contains(got, v) {
					t.Errorf("%q missing from %q", v, got)
				}
			}
			for _, v := range tc.not {
				if slices.Contains(got, v) {
					t.Errorf("%q in %q", v, got)
				}
			}
		})
	}
}

// TestPgpassFIFO: a FIFO named as the password file is not waited on.
func TestPgpassFIFO(t *testing.T) {
	pgpass := filepath.Join(t.TempDir(), "pgpass")
	if err := mkfifo(pgpass); err != nil {
		t.Skip(err)
	}
	if _, err := readPgpass(pgpass); err == nil {
		t.Error("a FIFO was read as a password file")
	}
}

// TestPercentCase: a password the URL writes with lower-case escapes is
// found written with upper-case ones (and the other way round).
func TestPercentCase(t *testing.T) {
	vals := URLPasswords("postgres://alice:Pass%2dword%2fxyz@db/ctxhook")
	for _, text := range []string{"url=postgres://alice:Pass%2Dword%2Fxyz@db", "Pass-word/xyz"} {
		if got := Present(vals, text); len(got) == 0 {
			t.Errorf("%q: none of %q found", text, vals)
		}
	}
}
