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
	searchFunctions,
	confinedLookups,
	closedTables,
	ownerLedReads,
}

// searchFunctions are the index lookups of a search (RATIONALE.md, "Why
// does search go through functions of its own?"). Under row-level
// security PostgreSQL applies a policy before any condition that is not
// leakproof, and @@ and ILIKE are not: a member's search read every row
// it may see. These functions run as ctxhook_search, a role that can do
// nothing but read ctxhook_docs (its policy lets it see every row, so
// the GIN indexes serve the lookup), and apply the policy's filter
// themselves with the caller's identity: session_user, the role that
// logged in, which no argument and no SET ROLE changes. They return ids
// only; the statement that calls them joins the events and pieces as
// the caller, under the policies, so a row gets out only if both agree.
// search_path is pinned to the catalog (pg_temp last), and every table
// is named with its schema, so nothing a member creates is called or
// read. Each returns its newest 1,000 matches, as the SQLite store ranks
// at most the newest 1,000 per index: a common word would otherwise
// score most of the store. pg_trgm guesses that any ILIKE matches a few
// rows, so the planner would read every match of a common substring
// (all of them, from the whole table) to keep the newest: substrings
// collects at most 3,000 matches in the index's order, and only when
// there are more reads the pieces newest first until 1,000 match.
const searchFunctions = `DO $$ BEGIN
		IF NOT EXISTS (SELECT 1 FROM pg_catalog.pg_roles WHERE rolname = 'ctxhook_search') THEN
			CREATE ROLE ctxhook_search NOLOGIN;
		END IF;
	END $$;
	GRANT ctxhook_search TO CURRENT_USER;
	CREATE SCHEMA ctxhook_search AUTHORIZATION ctxhook_search;
	REVOKE ALL ON SCHEMA ctxhook_search FROM PUBLIC;
	GRANT USAGE ON SCHEMA ctxhook_search TO ctxhook_users;
	GRANT SELECT ON public.ctxhook_docs TO ctxhook_search;
	CREATE POLICY search_lookup ON public.ctxhook_docs FOR SELECT TO ctxhook_search USING (true);
	CREATE FUNCTION ctxhook_search.words(q text) RETURNS TABLE(event_id bigint, seq int, r real)
		LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $f$
	BEGIN
		RETURN QUERY EXECUTE 'SELECT d.event_id, d.seq, pg_catalog.ts_rank_cd(d.words, t.q)
			FROM public.ctxhook_docs d, pg_catalog.plainto_tsquery(''english''::pg_catalog.regconfig, $1) AS t(q)
			WHERE d.words OPERATOR(pg_catalog.@@) t.q
			AND (d.owner OPERATOR(pg_catalog.=) session_user OR d.visibility OPERATOR(pg_catalog.=) ''team'')
			ORDER BY d.event_id DESC LIMIT 1000' USING q;
	END $f$;
	CREATE FUNCTION ctxhook_search.substrings(pat text) RETURNS TABLE(event_id bigint, seq int)
		LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $f$
	DECLARE
		cond text := ' WHERE d.doc OPERATOR(pg_catalog.~~*) $1
			AND (d.owner OPERATOR(pg_catalog.=) session_user OR d.visibility OPERATOR(pg_catalog.=) ''team'')';
		ids bigint[];
		seqs int[];
	BEGIN
		EXECUTE 'SELECT pg_catalog.array_agg(d.event_id), pg_catalog.array_agg(d.seq)
			FROM (SELECT d.event_id, d.seq FROM public.ctxhook_docs d' || cond || ' LIMIT 3000) d' INTO ids, seqs USING pat;
		IF coalesce(cardinality(ids), 0) < 3000 THEN
			RETURN QUERY SELECT u.e, u.s FROM unnest(ids, seqs) AS u(e, s) ORDER BY u.e DESC LIMIT 1000;
		ELSE
			RETURN QUERY EXECUTE 'SELECT d.event_id, d.seq FROM (SELECT * FROM public.ctxhook_docs
				ORDER BY event_id DESC, seq DESC OFFSET 0) d' || cond || ' LIMIT 1000' USING pat;
		END IF;
	END $f$;
	ALTER FUNCTION ctxhook_search.words(text) OWNER TO ctxhook_search;
	ALTER FUNCTION ctxhook_search.substrings(text) OWNER TO ctxhook_search;
	REVOKE ALL ON FUNCTION ctxhook_search.words(text), ctxhook_search.substrings(text) FROM PUBLIC;
	GRANT EXECUTE ON FUNCTION ctxhook_search.words(text), ctxhook_search.substrings(text) TO ctxhook_users;`

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

// confinedLookups (schema 4) makes the search functions' errors, counts
// and time depend on nothing the caller cannot read (RATIONALE.md, "Why
// does each member have indexes of their own?"). Under schema 3 the
// trigram and word indexes held every row, so a lookup's recheck ran the
// caller's pattern over other members' private pieces before the owner
// filter: a pattern ending in the escape character failed exactly when
// some private piece held what came before it, and time grew with every
// private match. Now each member's private pieces have their own partial
// GIN indexes (memberIndexes, also run by AddUser) and the team's pieces
// theirs; the indexes over every row are dropped. A lookup scans the
// caller's indexes and the team's, so only pieces the caller may read
// are ever fetched or matched; a newest-first read (a substring too
// common for the index) matches the pattern only inside a CASE on the
// owner filter, which no plan can reorder, and reads the btree on
// (owner, visibility, event_id, seq) or the team's. Those btrees hold
// only rows with seq >= 0 (every row), a condition only that read
// states: a lookup cannot use them, so its plan (the member's GIN index
// and the team's) does not turn on the planner's estimates, which
// ANALYZE draws from every row. Sequential scans are off inside the
// functions, and words sorts its matches outside a MATERIALIZED CTE, so
// no ordered scan of the primary key is a candidate either. The
// arguments are checked before any scan: a pattern ending in an
// unescaped escape character, or either argument past maxLookupBytes,
// fails the same way whatever the table holds.
var confinedLookups = `DROP INDEX public.ctxhook_docs_words;
	DROP INDEX public.ctxhook_docs_trgm;
	CREATE INDEX ctxhook_docs_owner ON public.ctxhook_docs(owner, visibility, event_id, seq) WHERE seq >= 0;
	CREATE INDEX ctxhook_docs_team ON public.ctxhook_docs(event_id, seq) WHERE visibility = 'team' AND seq >= 0;
	CREATE INDEX ctxhook_docs_words_team ON public.ctxhook_docs USING gin(words) WHERE visibility = 'team';
	CREATE INDEX ctxhook_docs_trgm_team ON public.ctxhook_docs USING gin(doc public.gin_trgm_ops) WHERE visibility = 'team';
	` + memberIndexes(`true`) + `;
	CREATE OR REPLACE FUNCTION ctxhook_search.words(q text) RETURNS TABLE(event_id bigint, seq int, r real)
		LANGUAGE plpgsql STABLE STRICT SECURITY DEFINER
		SET search_path = pg_catalog, pg_temp SET enable_seqscan = off SET work_mem = '64MB' AS $f$
	DECLARE
		tq tsquery;
	BEGIN
		IF octet_length(q) > ` + maxLookupBytes + ` THEN
			RAISE EXCEPTION USING ERRCODE = '54000', MESSAGE = 'ctxhook: a search query is at most ` + maxLookupBytes + ` bytes';
		END IF;
		tq := plainto_tsquery('english'::regconfig, q);
		IF numnode(tq) = 0 THEN
			RETURN;
		END IF;
		RETURN QUERY EXECUTE 'WITH m AS MATERIALIZED (
				SELECT d.event_id, d.seq, d.words FROM public.ctxhook_docs d
				WHERE ' || ` + ownFilter + ` || ' AND d.words OPERATOR(pg_catalog.@@) $1
				UNION ALL
				SELECT d.event_id, d.seq, d.words FROM public.ctxhook_docs d
				WHERE d.visibility OPERATOR(pg_catalog.=) ''team'' AND d.words OPERATOR(pg_catalog.@@) $1)
			SELECT m.event_id, m.seq, pg_catalog.ts_rank_cd(m.words, $1) FROM m
			ORDER BY m.event_id DESC LIMIT 1000' USING tq;
	END $f$;
	CREATE OR REPLACE FUNCTION ctxhook_search.substrings(pat text) RETURNS TABLE(event_id bigint, seq int)
		LANGUAGE plpgsql STABLE STRICT SECURITY DEFINER
		SET search_path = pg_catalog, pg_temp SET enable_seqscan = off SET work_mem = '64MB' AS $f$
	DECLARE
		own text := ` + ownFilter + `;
		ids bigint[];
		seqs int[];
	BEGIN
		IF octet_length(pat) > ` + maxLookupBytes + ` THEN
			RAISE EXCEPTION USING ERRCODE = '54000', MESSAGE = 'ctxhook: a search pattern is at most ` + maxLookupBytes + ` bytes';
		END IF;
		IF length(substring(pat FROM '\\*$')) % 2 = 1 THEN
			RAISE EXCEPTION USING ERRCODE = '22025', MESSAGE = 'LIKE pattern must not end with escape character';
		END IF;
		EXECUTE 'SELECT pg_catalog.array_agg(m.event_id), pg_catalog.array_agg(m.seq) FROM (
				SELECT d.event_id, d.seq FROM public.ctxhook_docs d
				WHERE ' || own || ' AND d.doc OPERATOR(pg_catalog.~~*) $1
				UNION ALL
				SELECT d.event_id, d.seq FROM public.ctxhook_docs d
				WHERE d.visibility OPERATOR(pg_catalog.=) ''team'' AND d.doc OPERATOR(pg_catalog.~~*) $1
				LIMIT 3000) m' INTO ids, seqs USING pat;
		IF coalesce(cardinality(ids), 0) < 3000 THEN
			RETURN QUERY SELECT u.e, u.s FROM unnest(ids, seqs) AS u(e, s) ORDER BY u.e DESC LIMIT 1000;
			RETURN;
		END IF;
		RETURN QUERY EXECUTE 'SELECT m.event_id, m.seq FROM (
				(SELECT d.event_id, d.seq FROM public.ctxhook_docs d WHERE ' || own || ' AND d.seq OPERATOR(pg_catalog.>=) 0
					AND CASE WHEN ' || own || ' THEN d.doc OPERATOR(pg_catalog.~~*) $1 END
				ORDER BY d.event_id DESC, d.seq DESC LIMIT 1000)
				UNION ALL
				(SELECT d.event_id, d.seq FROM public.ctxhook_docs d WHERE d.visibility OPERATOR(pg_catalog.=) ''team''
					AND d.seq OPERATOR(pg_catalog.>=) 0 AND CASE WHEN d.visibility OPERATOR(pg_catalog.=) ''team'' THEN d.doc OPERATOR(pg_catalog.~~*) $1 END
				ORDER BY d.event_id DESC, d.seq DESC LIMIT 1000)) m
			ORDER BY m.event_id DESC, m.seq DESC LIMIT 1000' USING pat;
	END $f$;`

// ownFilter is, in a search function, the SQL condition for the
// caller's private pieces, the caller's name (session_user) as a literal
// so that the planner matches the member's partial indexes to it.
const ownFilter = `'d.owner OPERATOR(pg_catalog.=) ' || quote_literal(session_user) || '::pg_catalog.name AND d.visibility OPERATOR(pg_catalog.=) ''private'''`

// maxLookupBytes bounds a search function's argument: a query holds at
// most store.MaxQueryBytes, a pattern at most twice that (escapes) and
// its two wildcards.
const maxLookupBytes = "16384"

// memberIndexes is a DO block that gives each direct member of
// ctxhook_users whose name satisfies cond (an SQL condition on
// r.rolname) a trigram and a word index over its private pieces, named
// after a hash of the name, with the name as a literal in the predicate
// so that the planner matches it to a lookup's owner filter (ownFilter).
func memberIndexes(cond string) string {
	return `DO $$ DECLARE r record; BEGIN
		FOR r IN SELECT m.rolname FROM pg_catalog.pg_auth_members a
			JOIN pg_catalog.pg_roles m ON m.oid = a.member
			WHERE a.roleid = 'ctxhook_users'::regrole AND (` + cond + `) LOOP
			EXECUTE format('CREATE INDEX IF NOT EXISTS %I ON public.ctxhook_docs USING gin(doc public.gin_trgm_ops) WHERE owner = %L::name AND visibility = %L',
				'ctxhook_docs_trgm_' || left(md5(r.rolname), 16), r.rolname, 'private');
			EXECUTE format('CREATE INDEX IF NOT EXISTS %I ON public.ctxhook_docs USING gin(words) WHERE owner = %L::name AND visibility = %L',
				'ctxhook_docs_words_' || left(md5(r.rolname), 16), r.rolname, 'private');
		END LOOP;
	END $$`
}
