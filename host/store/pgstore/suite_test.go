package pgstore

import (
	"testing"

	"github.com/ctxhook/ctxhook/host/store"
	"github.com/ctxhook/ctxhook/host/store/storetest"
)

// TestBackendSuite runs the suite every backend passes on PostgreSQL,
// each case as a new user: what others wrote is invisible to it.
func TestBackendSuite(t *testing.T) {
	needPG(t)
	storetest.Run(t, func(t *testing.T) store.Backend {
		_, url := newUser(t)
		return openAs(t, url, Options{Machine: "m1"})
	})
}
