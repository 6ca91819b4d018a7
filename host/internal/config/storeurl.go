package config

import (
	"errors"
	"net"
	"net/url"
	"strings"
)

// errStoreURL says what a store URL must be, never echoing it (it may
// hold a password).
var errStoreURL = errors.New("config: store.url must be a postgres://host/database URL")

// errStoreTLS names the fix for a remote store reached without a
// verified TLS connection: sslmode=prefer (the default) falls back to
// plaintext and checks no certificate, so anyone on the path reads the
// events, or poses as the server and collects the password.
var errStoreTLS = errors.New("config: store.url reaches a remote server without verified TLS: " +
	"add ?sslmode=verify-full (or verify-ca) to the URL, with the server's CA in ~/.postgresql/root.crt " +
	"or sslrootcert=; plaintext is allowed only to localhost, 127.0.0.1, ::1 or a Unix socket")

// SecureStoreURL checks a shared store's URL and returns it as it is to
// be used: a remote server (any host but the loopback ones and Unix
// socket directories) must be reached with sslmode=verify-full or
// verify-ca, and, unless the URL or PGREQUIREAUTH says otherwise, only
// SCRAM-SHA-256 authentication is accepted over TCP, so no server (nor
// anyone posing as one) is ever sent the password in clear or as MD5.
// The environment is what libpq's (PGHOST, PGSSLMODE) would supply.
func SecureStoreURL(raw string, getenv func(string) string) (string, error) {
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "postgres" && u.Scheme != "postgresql") {
		return "", errStoreURL
	}
	q := u.Query()
	hosts := storeHosts(u, q, getenv)
	if u.Host == "" && q.Get("host") == "" {
		return "", errStoreURL
	}
	mode := q.Get("sslmode")
	if mode == "" {
		mode = getenv("PGSSLMODE")
	}
	tcp := false
	for _, h := range hosts {
		if strings.HasPrefix(h, "/") {
			continue
		}
		tcp = true
		if !loopback(h) && mode != "verify-full" && mode != "verify-ca" {
			return "", errStoreTLS
		}
	}
	if tcp && q.Get("require_auth") == "" && getenv("PGREQUIREAUTH") == "" {
		q.Set("require_auth", "scram-sha-256")
		u.RawQuery = q.Encode()
	}
	return u.String(), nil
}

// storeHosts are the hosts a URL connects to, as pgx reads them: the
// host query parameter overrides the URL's host list, PGHOST supplies a
// missing one, and none at all means the local server.
func storeHosts(u *url.URL, q url.Values, getenv func(string) string) []string {
	list := q.Get("host")
	if list == "" {
		list = u.Host
	}
	if list == "" {
		list = getenv("PGHOST")
	}
	if list == "" {
		return []string{"localhost"}
	}
	var out []string
	for _, h := range strings.Split(list, ",") {
		if !strings.HasPrefix(h, "/") {
			if host, _, err := net.SplitHostPort(h); err == nil {
				h = host
			}
			h = strings.Trim(h, "[]")
		}
		out = append(out, h)
	}
	return out
}

// loopback is whether host names this machine over TCP.
func loopback(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
