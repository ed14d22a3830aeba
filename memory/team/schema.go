package team

// SchemaVersion is the version of the team schema this package writes
// and reads. A database whose anchorage.schema_version is higher was
// installed by a newer Anchorage and is refused (ErrNewer).
const SchemaVersion = 1

// writeLockKey is the transaction-level advisory lock every change of
// anchorage.rules takes (in the rules_before trigger, and first thing in
// an approval). It serialises the writers of rules so that:
//   - seq numbers commit in the order they are drawn, so a cache that has
//     everything up to seq N and asks for seq > N misses nothing (without
//     it, a transaction that drew seq 5 could commit after one that drew 6
//     and a reader that saw 6 would never ask for 5);
//   - an approval's check against the approved rules and its update are
//     one decision: two approvers approving two contradicting rules at
//     once are serialised, and the second sees the first's rule.
//
// Team rules change at the pace of people deciding, so one lock costs
// nothing measurable (see BenchmarkTeamSync).
const writeLockKey = 0x616e63686f72 // "anchor"

// installLockKey serialises two installers of one database.
const installLockKey = 0x616e63686f73

// Role names. They are cluster-wide PostgreSQL roles: every database of
// a cluster that holds a team store shares them.
const (
	// RoleMember may read team rules and propose new ones.
	RoleMember = "anchorage_member"
	// RoleApprover may also approve, reject, edit and retire rules. It
	// is a member of RoleMember.
	RoleApprover = "anchorage_approver"
)

// migrations are the schema's versions in order: migrations[i] takes
// the schema from version i to i+1. They run in one transaction holding
// installLockKey; never edit one that has shipped, add a new one.
//
// How the roles are enforced (the choice the issue asks to explain):
// row-level security and column grants, not SECURITY DEFINER functions.
// A member's direct SQL is held to the same rules as the client:
//   - anchorage_member: SELECT on rules and audit; INSERT on rules only
//     of the columns a proposer chooses (not seq, proposed_by,
//     decided_by, times), and the RLS policy "propose" admits only a row
//     with status 'proposed' proposed by session_user;
//   - anchorage_approver: additionally UPDATE of status, category,
//     scope, content and rationale (column grants), admitted by the RLS
//     policy "decide";
//   - nobody but the owner may UPDATE rules' other columns, DELETE a rule
//     (audited as "delete") or change any audit row (no grant).
//
// The triggers that must write what the caller may not (the sequence,
// the audit table) are SECURITY DEFINER functions owned by the
// installer, with a fixed search_path. The rules_before trigger forces
// seq, the times, proposed_by and decided_by whatever the statement
// says. Conflict detection (a rule that repeats or contradicts an
// approved one) needs the text analysis of package memory, so the client
// decides it in its approval transaction, under writeLockKey (Store.decide):
// an approver who bypasses the client with plain SQL bypasses that check
// (but not the roles, and not the audit).
var migrations = []string{
	// 1: rules, audit, the sequence, triggers, row-level security.
	`
CREATE SEQUENCE anchorage.rule_seq;

CREATE TABLE anchorage.rules (
	id                  uuid PRIMARY KEY,
	seq                 bigint NOT NULL UNIQUE,
	status              text NOT NULL DEFAULT 'proposed'
	                    CHECK (status IN ('proposed', 'approved', 'rejected', 'retired')),
	category            text NOT NULL DEFAULT 'rule' CHECK (octet_length(category) BETWEEN 1 AND 64),
	scope               text NOT NULL DEFAULT 'team'
	                    CHECK (octet_length(scope) <= 256 AND scope ~ '^team( (language|project):.+)?$'),
	content             text NOT NULL CHECK (octet_length(content) BETWEEN 1 AND 4096),
	rationale           text NOT NULL DEFAULT '' CHECK (octet_length(rationale) <= 4096),
	example_file        text NOT NULL DEFAULT '' CHECK (octet_length(example_file) <= 4096),
	example_symbol      text NOT NULL DEFAULT '' CHECK (octet_length(example_symbol) <= 1024),
	example_fingerprint text NOT NULL DEFAULT '' CHECK (octet_length(example_fingerprint) <= 256),
	correction          text NOT NULL DEFAULT '' CHECK (octet_length(correction) <= 1024),
	proposed_by         text NOT NULL DEFAULT session_user,
	decided_by          text,
	created_at          timestamptz NOT NULL DEFAULT clock_timestamp(),
	updated_at          timestamptz NOT NULL DEFAULT clock_timestamp()
);
CREATE INDEX rules_status ON anchorage.rules (status);

CREATE TABLE anchorage.audit (
	id      bigserial PRIMARY KEY,
	seq     bigint NOT NULL,
	at      timestamptz NOT NULL DEFAULT clock_timestamp(),
	actor   text NOT NULL DEFAULT session_user,
	action  text NOT NULL,
	rule_id uuid NOT NULL,
	detail  text NOT NULL DEFAULT ''
);
CREATE INDEX audit_rule ON anchorage.audit (rule_id);

-- Every change: take the write lock, draw the next seq, and set what
-- the caller may not choose.
CREATE FUNCTION anchorage.rules_before() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
BEGIN
	PERFORM pg_advisory_xact_lock(` + lockKeySQL + `);
	NEW.seq := nextval('anchorage.rule_seq');
	NEW.updated_at := clock_timestamp();
	IF TG_OP = 'INSERT' THEN
		NEW.proposed_by := session_user;
		NEW.created_at := NEW.updated_at;
		NEW.decided_by := CASE WHEN NEW.status = 'proposed' THEN NULL ELSE session_user END;
	ELSE
		NEW.id := OLD.id;
		NEW.proposed_by := OLD.proposed_by;
		NEW.created_at := OLD.created_at;
		NEW.decided_by := CASE WHEN NEW.status IS DISTINCT FROM OLD.status THEN session_user ELSE OLD.decided_by END;
	END IF;
	RETURN NEW;
END $$;

CREATE TRIGGER rules_before BEFORE INSERT OR UPDATE ON anchorage.rules
	FOR EACH ROW EXECUTE FUNCTION anchorage.rules_before();

-- Every change is audited, whoever makes it and however (the client or
-- plain SQL), and announced on the channel anchorage_team with its seq
-- (delivered at commit).
CREATE FUNCTION anchorage.rules_after() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
DECLARE
	act text;
	det text := '';
BEGIN
	IF TG_OP = 'DELETE' THEN
		INSERT INTO anchorage.audit (seq, action, rule_id, detail)
			VALUES (OLD.seq, 'delete', OLD.id, left(OLD.content, 200));
		PERFORM pg_notify('anchorage_team', OLD.seq::text);
		RETURN OLD;
	END IF;
	IF TG_OP = 'INSERT' THEN
		act := CASE WHEN NEW.status = 'proposed' THEN 'propose' ELSE 'propose ' || NEW.status END;
		det := NEW.correction;
	ELSIF NEW.status IS DISTINCT FROM OLD.status THEN
		act := CASE NEW.status WHEN 'approved' THEN 'approve' WHEN 'rejected' THEN 'reject'
			WHEN 'retired' THEN 'retire' ELSE 'reopen' END;
		det := OLD.status || ' -> ' || NEW.status;
		IF NEW.content IS DISTINCT FROM OLD.content THEN
			det := det || '; content was: ' || left(OLD.content, 200);
		END IF;
	ELSE
		act := 'edit';
		IF NEW.content IS DISTINCT FROM OLD.content THEN
			det := 'content was: ' || left(OLD.content, 200);
		ELSIF NEW.rationale IS DISTINCT FROM OLD.rationale THEN
			det := 'rationale was: ' || left(OLD.rationale, 200);
		END IF;
	END IF;
	INSERT INTO anchorage.audit (seq, action, rule_id, detail) VALUES (NEW.seq, act, NEW.id, det);
	PERFORM pg_notify('anchorage_team', NEW.seq::text);
	RETURN NEW;
END $$;

CREATE TRIGGER rules_after AFTER INSERT OR UPDATE OR DELETE ON anchorage.rules
	FOR EACH ROW EXECUTE FUNCTION anchorage.rules_after();

ALTER TABLE anchorage.rules ENABLE ROW LEVEL SECURITY;
CREATE POLICY read ON anchorage.rules FOR SELECT TO anchorage_member USING (true);
CREATE POLICY propose ON anchorage.rules FOR INSERT TO anchorage_member
	WITH CHECK (status = 'proposed' AND proposed_by = session_user AND decided_by IS NULL);
CREATE POLICY decide ON anchorage.rules FOR UPDATE TO anchorage_approver USING (true) WITH CHECK (true);
`,
}

// lockKeySQL is writeLockKey as SQL text.
const lockKeySQL = "107126742085490" // writeLockKey; TestLockKeySQL checks it

// grantsSQL gives the roles their rights; it runs on every Install (the
// roles are cluster-wide and may have been made again since).
const grantsSQL = `
REVOKE ALL ON SCHEMA anchorage FROM PUBLIC;
REVOKE ALL ON ALL TABLES IN SCHEMA anchorage FROM PUBLIC;
REVOKE ALL ON ALL SEQUENCES IN SCHEMA anchorage FROM PUBLIC;
REVOKE ALL ON FUNCTION anchorage.rules_before(), anchorage.rules_after() FROM PUBLIC;
GRANT USAGE ON SCHEMA anchorage TO anchorage_member;
GRANT SELECT ON anchorage.schema_version, anchorage.rules, anchorage.audit TO anchorage_member;
GRANT INSERT (id, status, category, scope, content, rationale, example_file, example_symbol,
	example_fingerprint, correction) ON anchorage.rules TO anchorage_member;
GRANT UPDATE (status, category, scope, content, rationale) ON anchorage.rules TO anchorage_approver;
`
