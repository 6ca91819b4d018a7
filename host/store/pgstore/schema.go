package pgstore

// migrations[i] moves the schema from version i to i+1; ctxhook_schema
// records the version. They run as the database's administrator
// (`ctxhook store init`), in one transaction each, under an advisory
// lock so two first runs do not race.
//
// Who sees what is the database's decision, not the client's: every row
// carries its owner (the database role that wrote it, forced by the
// policies) and a visibility, and row-level security lets a member of
// ctxhook_users read its own rows and the team's, insert only rows it
// owns, and delete only its own. A forged filter, or raw SQL as that
// role, reaches nothing more.
var migrations = []string{
	`CREATE EXTENSION IF NOT EXISTS pg_trgm SCHEMA public;
	DO $$ BEGIN
		IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'ctxhook_users') THEN
			CREATE ROLE ctxhook_users NOLOGIN;
		END IF;
	END $$;
	CREATE TABLE public.ctxhook_events(
		id bigserial PRIMARY KEY,
		owner name NOT NULL DEFAULT current_user,
		machine text NOT NULL,
		local_id bigint,
		visibility text NOT NULL DEFAULT 'private' CHECK (visibility IN ('private', 'team')),
		ts_ms bigint NOT NULL,
		session text NOT NULL,
		harness text NOT NULL,
		hook_event text NOT NULL,
		category text NOT NULL,
		tool text NOT NULL DEFAULT '',
		server text NOT NULL DEFAULT '',
		tool_use_id text NOT NULL DEFAULT '',
		cwd text NOT NULL DEFAULT '',
		args text NOT NULL DEFAULT '',
		response text NOT NULL DEFAULT '',
		body_text text NOT NULL DEFAULT '',
		response_bytes bigint NOT NULL DEFAULT 0,
		truncated boolean NOT NULL DEFAULT false,
		redactions bigint NOT NULL DEFAULT 0,
		event_key text NOT NULL DEFAULT '',
		context_bytes bigint NOT NULL DEFAULT 0,
		UNIQUE (owner, machine, local_id),
		UNIQUE (id, owner, visibility)
	);
	CREATE INDEX ctxhook_events_session ON ctxhook_events(session, id);
	CREATE INDEX ctxhook_events_server ON ctxhook_events(server, id);
	CREATE INDEX ctxhook_events_time ON ctxhook_events(ts_ms);
	CREATE INDEX ctxhook_events_key ON ctxhook_events(event_key) WHERE event_key <> '';
	CREATE TABLE public.ctxhook_docs(
		event_id bigint NOT NULL,
		seq int NOT NULL,
		owner name NOT NULL DEFAULT current_user,
		visibility text NOT NULL DEFAULT 'private' CHECK (visibility IN ('private', 'team')),
		body_off bigint NOT NULL,
		pre int NOT NULL DEFAULT 0,
		doc text NOT NULL,
		words tsvector GENERATED ALWAYS AS (to_tsvector('english'::regconfig, doc)) STORED,
		PRIMARY KEY (event_id, seq),
		-- A piece has its event's owner and visibility: nobody can attach
		-- text to another's event (the key is checked whatever the policies).
		FOREIGN KEY (event_id, owner, visibility) REFERENCES ctxhook_events(id, owner, visibility) ON DELETE CASCADE
	);
	CREATE INDEX ctxhook_docs_words ON ctxhook_docs USING gin(words);
	CREATE INDEX ctxhook_docs_trgm ON ctxhook_docs USING gin(doc gin_trgm_ops);
	ALTER TABLE ctxhook_events ENABLE ROW LEVEL SECURITY;
	ALTER TABLE ctxhook_docs ENABLE ROW LEVEL SECURITY;
	CREATE POLICY read_own_or_team ON ctxhook_events FOR SELECT TO ctxhook_users
		USING (owner = current_user OR visibility = 'team');
	CREATE POLICY write_own ON ctxhook_events FOR INSERT TO ctxhook_users
		WITH CHECK (owner = current_user);
	CREATE POLICY delete_own ON ctxhook_events FOR DELETE TO ctxhook_users
		USING (owner = current_user);
	CREATE POLICY read_own_or_team ON ctxhook_docs FOR SELECT TO ctxhook_users
		USING (owner = current_user OR visibility = 'team');
	CREATE POLICY write_own ON ctxhook_docs FOR INSERT TO ctxhook_users
		WITH CHECK (owner = current_user);
	CREATE POLICY delete_own ON ctxhook_docs FOR DELETE TO ctxhook_users
		USING (owner = current_user);
	GRANT SELECT, INSERT, DELETE ON ctxhook_events, ctxhook_docs TO ctxhook_users;
	GRANT USAGE ON SEQUENCE ctxhook_events_id_seq TO ctxhook_users;
	GRANT SELECT ON ctxhook_schema TO ctxhook_users;`,
	// Nobody but the schema's owner creates in public, where the tables
	// live: a function or operator planted there runs as whoever calls it
	// (PostgreSQL 14 and older let every role create there). A non-owner
	// administrator's REVOKE only warns; Init then refuses (checkSchemas).
	`REVOKE CREATE ON SCHEMA public FROM PUBLIC;`,
}

// SchemaVersion is the version a fully migrated database has.
var SchemaVersion = len(migrations)

// schemaTable records the version; it exists before the first migration.
// What the migrations create is named with its schema: pg_catalog comes
// first on the search path (searchPath), so it is the default one.
const schemaTable = `CREATE TABLE IF NOT EXISTS public.ctxhook_schema(
	version int NOT NULL,
	applied timestamptz NOT NULL DEFAULT now()
)`

// lockKey is the advisory lock migrations take ('ctxh').
const lockKey = 0x63747868
