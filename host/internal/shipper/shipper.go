// Package shipper sends the local store's events to the shared store
// (PostgreSQL) when one is configured. Hooks never wait on the network:
// they write the local store (through the spool) as always, and the
// daemon's shipper copies what is new, each event exactly once (the
// database holds the cursor, written with the events). While the
// database cannot be reached the events wait in the local store, bounded
// by its retention caps; ship.json says how many wait and why, for
// doctor and `ctxhook store status`.
package shipper

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/ctxhook/ctxhook/host/internal/config"
	"github.com/ctxhook/ctxhook/host/internal/paths"
	"github.com/ctxhook/ctxhook/host/internal/platform"
	"github.com/ctxhook/ctxhook/host/store"
	"github.com/ctxhook/ctxhook/host/store/pgstore"
)

// Report is the last shipping attempt, kept in ship.json.
type Report struct {
	AtMS     int64  `json:"at_ms"`
	Cursor   int64  `json:"cursor"`  // the highest local id the database holds
	Pending  int64  `json:"pending"` // local events not yet in it
	Shipped  int64  `json:"shipped"` // events this attempt sent
	Bytes    int64  `json:"bytes"`
	Error    string `json:"error,omitempty"` // why it failed (no password in it)
	SinceMS  int64  `json:"since_ms,omitempty"`
	Database string `json:"database,omitempty"` // host and database, no user or password
}

// ReportPath is where the last Report is.
func ReportPath(p paths.Paths) string { return filepath.Join(p.Data, "ship.json") }

// ReadReport reads the last Report (false: none yet).
func ReadReport(p paths.Paths) (Report, bool) {
	b, err := os.ReadFile(ReportPath(p))
	var r Report
	if err != nil || json.Unmarshal(b, &r) != nil {
		return Report{}, false
	}
	return r, true
}

// Once ships what is new, telling progress after each batch, and
// writes the report. It does nothing (and no report) without a shared store.
func Once(ctx context.Context, p paths.Paths, getenv func(string) string, progress func(pgstore.Shipped)) (Report, error) {
	sc, err := config.LoadStore(p.Config, getenv)
	if err != nil || sc.URL == "" {
		return Report{}, err
	}
	prev, _ := ReadReport(p)
	r := Report{AtMS: time.Now().UnixMilli(), Database: Where(sc.URL), Cursor: prev.Cursor, SinceMS: prev.SinceMS}
	shipped, err := ship(ctx, p, sc, progress, &r)
	r.Shipped, r.Bytes = shipped.Events, shipped.Bytes
	if err != nil {
		r.Error = err.Error()
		if r.SinceMS == 0 {
			r.SinceMS = r.AtMS
		}
		if local, lerr := store.Open(p.DB(), store.Options{ReadOnly: true}); lerr == nil {
			r.Pending, _ = local.PendingAfter(r.Cursor)
			local.Close()
		}
	} else {
		r.Pending, r.SinceMS = shipped.Pending, 0
	}
	writeReport(p, r)
	return r, err
}

func ship(ctx context.Context, p paths.Paths, sc config.Store, progress func(pgstore.Shipped), r *Report) (pgstore.Shipped, error) {
	local, err := store.Open(p.DB(), store.Options{ReadOnly: true})
	if err != nil {
		return pgstore.Shipped{}, err
	}
	defer local.Close()
	remote, err := pgstore.Open(ctx, sc.URL, pgstore.Options{Machine: sc.Machine, Team: sc.Team})
	if err != nil {
		return pgstore.Shipped{}, err
	}
	defer remote.Close()
	out, err := remote.Ship(ctx, local, func(s pgstore.Shipped) {
		if progress != nil {
			progress(s)
		}
	})
	if c, cerr := remote.Cursor(); cerr == nil {
		r.Cursor = c
	}
	return out, err
}

// writeReport replaces ship.json, only in a data directory that is the
// user's alone (package owned): a file planted in another user's tree
// (a symbolic link at a fixed temporary name, say) is never written
// through. The temporary file gets a fresh name, created exclusively.
func writeReport(p paths.Paths, r Report) error {
	if err := platform.OwnedDir(p.Data); err != nil {
		return err
	}
	b, _ := json.Marshal(r)
	f, err := os.CreateTemp(p.Data, "ship.json.*")
	if err != nil {
		return err
	}
	_, err = f.Write(b)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(f.Name(), ReportPath(p))
	}
	if err != nil {
		os.Remove(f.Name())
	}
	return err
}

// Where is a URL's host and database, without user or password, for
// messages.
func Where(url string) string {
	if c, err := pgstore.Where(url); err == nil {
		return c
	}
	return "the shared store"
}

// Loop ships while ctx lives: at once, then every interval while all
// is shipped, and after a failure, again after a wait that doubles up
// to a minute. Without a shared store configured it only rechecks the
// config now and then.
func Loop(ctx context.Context, p paths.Paths, getenv func(string) string, log func(string)) {
	const interval = 2 * time.Second
	wait, failing := interval, ""
	for {
		r, err := Once(ctx, p, getenv, nil)
		switch {
		case err != nil:
			if msg := err.Error(); msg != failing {
				log(fmt.Sprintf("shipper: %v; %d events wait in the local store", err, r.Pending))
				failing = msg
			}
			wait = min(wait*2, time.Minute)
		default:
			if failing != "" {
				log("shipper: the shared store is back")
			}
			wait, failing = interval, ""
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(wait):
		}
	}
}
