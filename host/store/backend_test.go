package store_test

import (
	"path/filepath"
	"testing"

	"github.com/ctxhook/ctxhook/host/store"
	"github.com/ctxhook/ctxhook/host/store/storetest"
	"github.com/ctxhook/ctxhook/internal/testdir"
)

// TestBackendSuite runs the suite every backend passes on the SQLite store.
func TestBackendSuite(t *testing.T) {
	storetest.Run(t, func(t *testing.T) store.Backend {
		s, err := store.Open(filepath.Join(testdir.New(t), "data", "ctxhook.db"), store.Options{})
		if err != nil {
			t.Fatal(err)
		}
		return s
	})
}
