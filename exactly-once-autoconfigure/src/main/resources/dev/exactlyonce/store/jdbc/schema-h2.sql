-- exactly-once idempotency records (JDBC store), H2. Times are epoch milliseconds of the database's clock.
-- journal is a JSON array, or once steps moved to ${table}_step a JSON object naming their count; audit a JSON array, duplicate_sequences comma-separated stream sequences; the last two are NULL when empty.
CREATE TABLE IF NOT EXISTS ${table} (
	record_key VARCHAR(255) NOT NULL PRIMARY KEY,
	idempotency_key VARBINARY NOT NULL,
	listener VARCHAR,
	owner VARCHAR NOT NULL,
	token VARCHAR(64) NOT NULL,
	state VARCHAR(16) NOT NULL,
	attempts INTEGER NOT NULL,
	started_at BIGINT NOT NULL,
	lease_until BIGINT NOT NULL,
	stream_sequence BIGINT NOT NULL,
	completed_at BIGINT,
	expires_at BIGINT NOT NULL,
	result_summary VARCHAR,
	previous_owner VARCHAR,
	previous_started_at BIGINT,
	previous_attempts INTEGER,
	previous_state VARCHAR(16),
	previous_failure VARCHAR,
	previous_unfinished_step VARCHAR,
	previous_token VARCHAR(64),
	journal CLOB NOT NULL,
	duplicate_sequences VARCHAR,
	audit CLOB,
	version BIGINT NOT NULL
);
CREATE INDEX IF NOT EXISTS ${index} ON ${table} (expires_at);
-- one row per durable step of a record, in the order the steps first started; name_digest is the SHA-256 of the
-- step's name (hex), entry its journal entry as JSON. Deleted with their record.
CREATE TABLE IF NOT EXISTS ${table}_step (
	record_key VARCHAR(255) NOT NULL,
	position INTEGER NOT NULL,
	name_digest CHAR(64) NOT NULL,
	entry CLOB NOT NULL,
	PRIMARY KEY (record_key, position),
	CONSTRAINT ${index_step_name} UNIQUE (record_key, name_digest),
	FOREIGN KEY (record_key) REFERENCES ${table} (record_key) ON DELETE CASCADE
);
