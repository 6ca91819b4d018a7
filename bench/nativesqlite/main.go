// Command nativesqlite times statements in native SQLite (the C library,
// through cgo) for the store's search benchmark: the same file and the
// same statements the store ran for each query (captured with SQLite's
// statement trace, bound values expanded). It is a module of its own so
// that ctxhook itself never links C.
//
// Usage: nativesqlite <db> <plan.json> <rounds>
// plan.json is a list of queries, each a list of SQL statements. It
// prints one line per round and query: the query's index and the
// milliseconds its statements took, every row read.
package main

import (
	"database/sql"
	"encoding/json"
	"fmt"
	"os"
	"strconv"
	"time"

	_ "github.com/mattn/go-sqlite3"
)

func main() {
	if len(os.Args) != 4 {
		fmt.Fprintln(os.Stderr, "usage: nativesqlite <db> <plan.json> <rounds>")
		os.Exit(2)
	}
	var plan [][]string
	b, err := os.ReadFile(os.Args[2])
	check(err)
	check(json.Unmarshal(b, &plan))
	rounds, err := strconv.Atoi(os.Args[3])
	check(err)
	db, err := sql.Open("sqlite3", "file:"+os.Args[1]+"?mode=ro")
	check(err)
	db.SetMaxOpenConns(1)
	var version string
	check(db.QueryRow("SELECT sqlite_version()").Scan(&version))
	fmt.Fprintln(os.Stderr, "native SQLite", version)
	for range rounds {
		for i, stmts := range plan {
			start := time.Now()
			for _, s := range stmts {
				rows, err := db.Query(s)
				check(err)
				cols, _ := rows.Columns()
				vals := make([]any, len(cols))
				for j := range vals {
					vals[j] = new(any)
				}
				for rows.Next() {
					check(rows.Scan(vals...))
				}
				check(rows.Err())
				rows.Close()
			}
			fmt.Println(i, float64(time.Since(start).Microseconds())/1000)
		}
	}
}

func check(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, "nativesqlite:", err)
		os.Exit(1)
	}
}
