-- exactly-once idempotency records (JDBC store), MariaDB and MySQL. Times are epoch milliseconds of the database's clock.
-- journal is a JSON array, or once steps moved to ${table}_step a JSON object naming their count; audit a JSON array, duplicate_sequences comma-separated stream sequences; the last two are NULL when empty.
CREATE TABLE IF NOT EXISTS ${table} (
	record_key VARCHAR(255) CHARACTER SET ascii COLLATE ascii_bin NOT NULL PRIMARY KEY,
	idempotency_key LONGBLOB NOT NULL,
	listener TEXT,
	owner TEXT NOT NULL,
	token VARCHAR(64) CHARACTER SET ascii COLLATE ascii_bin NOT NULL,
	state VARCHAR(16) CHARACTER SET ascii NOT NULL,
	attempts INT NOT NULL,
	started_at BIGINT NOT NULL,
	lease_until BIGINT NOT NULL,
	stream_sequence BIGINT NOT NULL,
	completed_at BIGINT,
	expires_at BIGINT NOT NULL,
	result_summary TEXT,
	previous_owner TEXT,
	previous_started_at BIGINT,
	previous_attempts INT,
	previous_state VARCHAR(16) CHARACTER SET ascii,
	previous_failure TEXT,
	previous_unfinished_step TEXT,
	previous_token VARCHAR(64) CHARACTER SET ascii,
	journal LONGTEXT NOT NULL,
	duplicate_sequences TEXT CHARACTER SET ascii,
	audit LONGTEXT,
	version BIGINT NOT NULL,
	INDEX ${index} (expires_at)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin;
-- one row per durable step of a record, in the order the steps first started; name_digest is the SHA-256 of the
-- step's name (hex), entry its journal entry as JSON. Deleted with their record.
CREATE TABLE IF NOT EXISTS ${table}_step (
	record_key VARCHAR(255) CHARACTER SET ascii COLLATE ascii_bin NOT NULL,
	position INT NOT NULL,
	name_digest CHAR(64) CHARACTER SET ascii NOT NULL,
	entry LONGTEXT NOT NULL,
	PRIMARY KEY (record_key, position),
	UNIQUE KEY ${index_step_name} (record_key, name_digest),
	FOREIGN KEY (record_key) REFERENCES ${table} (record_key) ON DELETE CASCADE
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin;
