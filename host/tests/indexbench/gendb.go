package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/ncruces/go-sqlite3"
)

// growDB copies a recorded database and copies its session, each copy
// with a ticket and a tool result of its own, until its messages and parts
// hold about target bytes.
func growDB(src, dst string, target int64, g *gen) (int64, error) {
	b, err := os.ReadFile(src)
	if err != nil {
		return 0, err
	}
	os.MkdirAll(filepath.Dir(dst), 0o700)
	if err := os.WriteFile(dst, b, 0o600); err != nil {
		return 0, err
	}
	conn, err := sqlite3.Open(dst)
	if err != nil {
		return 0, err
	}
	defer conn.Close()
	size := dbBytes(conn)
	if size == 0 {
		return 0, fmt.Errorf("%s: no messages", src)
	}
	if err := conn.Exec(`BEGIN`); err != nil {
		return 0, err
	}
	for i := 1; size < target; i++ {
		if err := copySession(conn, i, string(g.output(g.resultSize()))); err != nil {
			return 0, fmt.Errorf("%s: %w", dst, err)
		}
		if i%16 == 0 {
			size = dbBytes(conn)
		}
	}
	if err := conn.Exec(`COMMIT`); err != nil {
		return 0, err
	}
	return dbBytes(conn), nil
}

// dbBytes is how many bytes the messages and parts hold.
func dbBytes(conn *sqlite3.Conn) int64 {
	st, _, err := conn.Prepare(`SELECT (SELECT sum(length(data)) FROM message) + (SELECT sum(length(data)) FROM part)`)
	if err != nil {
		return 0
	}
	defer st.Close()
	if st.Step() {
		return st.ColumnInt64(0)
	}
	return 0
}

// copySession copies the recorded session as copy i, its tool result
// followed by out.
func copySession(conn *sqlite3.Conn, i int, out string) error {
	sfx := fmt.Sprintf("_%d", i)
	tk := fmt.Sprint(50000 + i)
	orig := `WHERE id NOT LIKE '%\_%\_%' ESCAPE '\'`
	stmts := []string{
		`INSERT INTO session SELECT id||'` + sfx + `', project_id, workspace_id, parent_id, slug, directory, path, title, version, share_url, summary_additions, summary_deletions, summary_files, summary_diffs, metadata, cost, tokens_input, tokens_output, tokens_reasoning, tokens_cache_read, tokens_cache_write, revert, permission, agent, model, time_created, time_updated, time_compacting, time_archived FROM session ` + orig,
		`INSERT INTO message SELECT id||'` + sfx + `', session_id||'` + sfx + `', time_created, time_updated, replace(data, 'CVX-5909', 'CVX-` + tk + `') FROM message ` + orig,
		`INSERT INTO part SELECT id||'` + sfx + `', message_id||'` + sfx + `', session_id||'` + sfx + `', time_created, time_updated, replace(replace(data, 'CVX-5909', 'CVX-` + tk + `'), '` + string(resultAnchor) + `', '` + string(resultAnchor) + ` ` + strings.ReplaceAll(out, "'", "''") + `') FROM part ` + orig,
	}
	for _, s := range stmts {
		if err := conn.Exec(s); err != nil {
			return err
		}
	}
	return nil
}

// mixOf says how many files of each kind a generated home holds.
func mixOf(home string) string {
	counts := map[string]int{}
	filepath.WalkDir(home, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			rel, _ := filepath.Rel(home, p)
			counts[strings.SplitN(filepath.ToSlash(rel), "/", 2)[0]]++
		}
		return nil
	})
	return fmt.Sprint(counts)
}
