module github.com/ctxhook/ctxhook

go 1.26.8

require (
	github.com/BurntSushi/toml v1.6.0 // host: config.toml
	github.com/extism/go-pdk v1.1.3 // plugin/guest only: the //go:wasmexport shims
	github.com/extism/go-sdk v1.7.1 // host/runner: loads plugin.wasm (any Extism host could)
	github.com/google/go-cmp v0.7.0 // tests only
	github.com/ncruces/go-sqlite3 v0.36.0 // host/store: SQLite + FTS5, no cgo; v0.37.0 pulls a module the proxy cannot serve
	github.com/tetratelabs/wazero v1.12.0 // host/runner: compilation cache, runtime config
	golang.org/x/tools v0.52.0 // tests only: txtar for the conformance corpus
)

require (
	github.com/jackc/pgx/v5 v5.12.0 // host/store/pgstore: the shared store
	github.com/modelcontextprotocol/go-sdk v1.8.0
	golang.org/x/sys v0.49.0
	golang.org/x/text v0.43.0 // pgstore: SASLprep of a password for its SCRAM verifier
)

require (
	github.com/dylibso/observe-sdk/go v0.0.0-20240819160327-2d926c5d788a // indirect
	github.com/gobwas/glob v0.2.3 // indirect
	github.com/google/jsonschema-go v0.4.3 // indirect
	github.com/ianlancetaylor/demangle v0.0.0-20240805132620-81f5be970eca // indirect
	github.com/jackc/pgpassfile v1.0.0 // indirect
	github.com/jackc/pgservicefile v0.0.0-20240606120523-5a60cdf6a761 // indirect
	github.com/ncruces/go-sqlite3-wasm/v6 v6.4.35401 // indirect
	github.com/ncruces/julianday v1.0.0 // indirect
	github.com/segmentio/asm v1.1.3 // indirect
	github.com/segmentio/encoding v0.5.4 // indirect
	github.com/tetratelabs/wabin v0.0.0-20230304001439-f6f874872834 // indirect
	github.com/yosida95/uritemplate/v3 v3.0.2 // indirect
	go.opentelemetry.io/proto/otlp v1.3.1 // indirect
	golang.org/x/oauth2 v0.35.0 // indirect
	golang.org/x/sync v0.24.0 // indirect
	golang.org/x/time v0.15.0 // indirect
	google.golang.org/protobuf v1.34.2 // indirect
)
