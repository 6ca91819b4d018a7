package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"github.com/ncruces/go-sqlite3"
)

// A history written by many sessions, from the recorded ones: each
// generated file is a recorded history of its harness repeated (each
// repetition a turn of its own, its ticket, session and trace ids made
// unique), laid out where the harness writes it.

// layout is where each recorded history goes under the home: a format
// string taking the file's number.
var layout = map[string]string{
	"claude-code-2.1.330.jsonl": ".claude/projects/-p%d/s%d.jsonl",
	"codex-0.169.0.jsonl":       ".codex/sessions/2026/11/%d/rollout-%d.jsonl",
	"copilot-1.0.102.jsonl":     ".copilot/session-state/s%d-%d/events.jsonl",
	"droid-0.225.2.jsonl":       ".factory/sessions/-p%d/s%d.jsonl",
	"gemini-0.61.0.jsonl":       ".gemini/tmp/p%d/chats/session-%d.jsonl",
	"qwen-0.24.4.jsonl":         ".qwen/projects/-p%d/chats/s%d.jsonl",
	"pi-1.6.0.jsonl":            ".pi/agent/sessions/--p%d--/t_%d.jsonl",
}

// perFile is how many repetitions of a recorded session one generated
// file holds (about 1-2 MB: a long day's session).
const perFile = 24

var ticket = regexp.MustCompile(`CVX-5909|cvx-5909`)

// generate writes about target bytes of mixed history under home and
// returns what it wrote.
func generate(fixtures, home string, target int64) (int64, error) {
	srcs := map[string][]byte{}
	for name := range layout {
		b, err := os.ReadFile(filepath.Join(fixtures, name))
		if err != nil {
			return 0, err
		}
		srcs[name] = b
	}
	// OpenCode's and Kilo's databases take a tenth of the total.
	dbShare := target / 10
	var written int64
	old := time.Now().Add(-24 * time.Hour)
	for n := 0; written < target-dbShare; n++ {
		for name, b := range srcs {
			var buf bytes.Buffer
			for k := range perFile {
				buf.Write(ticket.ReplaceAll(b, []byte(fmt.Sprintf("CVX-%d", 10000+n*perFile+k))))
			}
			p := filepath.Join(home, fmt.Sprintf(layout[name], n%50, n))
			os.MkdirAll(filepath.Dir(p), 0o700)
			if err := os.WriteFile(p, buf.Bytes(), 0o600); err != nil {
				return written, err
			}
			os.Chtimes(p, old, old) // written before install, quiet since
			written += int64(buf.Len())
		}
	}
	for _, db := range []struct{ src, dst string }{{"opencode-1.18.33.db", ".local/share/opencode/opencode.db"}, {"kilo-7.7.7.db", ".local/share/kilo/kilo.db"}} {
		n, err := growDB(filepath.Join(fixtures, db.src), filepath.Join(home, db.dst), dbShare/2)
		written += n
		if err != nil {
			return written, err
		}
	}
	return written, nil
}

// growDB copies a recorded database and copies its session until its
// messages and parts hold about target bytes.
func growDB(src, dst string, target int64) (int64, error) {
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
	var size int64
	if st, _, err := conn.Prepare(`SELECT (SELECT sum(length(data)) FROM message) + (SELECT sum(length(data)) FROM part)`); err == nil {
		if st.Step() {
			size = st.ColumnInt64(0)
		}
		st.Close()
	}
	if size == 0 {
		return 0, fmt.Errorf("%s: no messages", src)
	}
	copies := int(target / size)
	if err := conn.Exec(`BEGIN`); err != nil {
		return 0, err
	}
	for i := 1; i <= copies; i++ {
		sfx := fmt.Sprintf("_%d", i)
		stmts := []string{
			`INSERT INTO session SELECT id||'` + sfx + `', project_id, workspace_id, parent_id, slug, directory, path, title, version, share_url, summary_additions, summary_deletions, summary_files, summary_diffs, metadata, cost, tokens_input, tokens_output, tokens_reasoning, tokens_cache_read, tokens_cache_write, revert, permission, agent, model, time_created, time_updated, time_compacting, time_archived FROM session WHERE id NOT LIKE '%\_%\_%' ESCAPE '\'`,
			`INSERT INTO message SELECT id||'` + sfx + `', session_id||'` + sfx + `', time_created, time_updated, replace(data, 'CVX-5909', 'CVX-` + fmt.Sprint(50000+i) + `') FROM message WHERE id NOT LIKE '%\_%\_%' ESCAPE '\'`,
			`INSERT INTO part SELECT id||'` + sfx + `', message_id||'` + sfx + `', session_id||'` + sfx + `', time_created, time_updated, replace(data, 'CVX-5909', 'CVX-` + fmt.Sprint(50000+i) + `') FROM part WHERE id NOT LIKE '%\_%\_%' ESCAPE '\'`,
		}
		for _, s := range stmts {
			if err := conn.Exec(s); err != nil {
				return 0, fmt.Errorf("%s: %w", dst, err)
			}
		}
	}
	if err := conn.Exec(`COMMIT`); err != nil {
		return 0, err
	}
	return size * int64(copies+1), nil
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
