package config

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"sort"
	"strings"

	"github.com/BurntSushi/toml"
)

// storeTable is config.toml's [store]: where a shared store is. It is the
// host's alone (the plugin never sees it): the URL names a database and
// may carry a password.
type storeTable struct {
	URL     string `toml:"url"`
	Machine string `toml:"machine"`
}

// Share values of [servers.X] share.
const (
	SharePrivate = "private"
	ShareTeam    = "team"
)

// Store is where a shared store is and what goes into it as the team's.
type Store struct {
	// URL is a postgres:// URL, "" for none (the local store only).
	URL string
	// Machine names this machine in the shared store ("" for the host name).
	Machine string
	// Team are the servers whose events the team sees; others' are private.
	Team map[string]bool
}

// EnvStoreURL overrides [store] url.
const EnvStoreURL = "CTXHOOK_STORE_URL"

// LoadStore reads the shared store's settings from the config at path
// (missing: none) and the environment. The rest of the config is not
// checked here (Load reports its problems).
func LoadStore(path string, getenv func(string) string) (Store, error) {
	var f file
	b, err := os.ReadFile(path)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return Store{}, fmt.Errorf("config: %w", err)
	}
	if err == nil {
		if _, err := toml.Decode(string(b), &f); err != nil {
			return Store{}, fmt.Errorf("config: %w", err)
		}
	}
	out := Store{URL: f.Store.URL, Machine: f.Store.Machine, Team: map[string]bool{}}
	if u := getenv(EnvStoreURL); u != "" {
		out.URL = u
	}
	for name, s := range f.Servers {
		if s.Share == ShareTeam {
			out.Team[name] = true
		}
	}
	if out.URL != "" {
		if out.URL, err = SecureStoreURL(out.URL, getenv); err != nil {
			return Store{}, err
		}
	}
	return out, nil
}

// storeProblems names bad [store] and share values.
func storeProblems(f *file) []string {
	var out []string
	if f.Store.URL != "" {
		if _, err := SecureStoreURL(f.Store.URL, os.Getenv); err != nil {
			out = append(out, "store.url ignored: "+strings.TrimPrefix(err.Error(), "config: store.url "))
			f.Store.URL = ""
		}
	}
	names := make([]string, 0, len(f.Servers))
	for name := range f.Servers {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		if s := f.Servers[name].Share; s != "" && s != SharePrivate && s != ShareTeam {
			out = append(out, fmt.Sprintf("servers.%s.share = %q ignored: it must be %q or %q", name, s, SharePrivate, ShareTeam))
		}
	}
	return out
}
