-- The marketing agent's posts in the jdbc profile: one row per committed execution, written in the
-- transaction of the task's completion record. task_id is deliberately not unique, so a duplicate
-- execution would show as a second row instead of failing.
CREATE TABLE IF NOT EXISTS posts (
	id BIGSERIAL PRIMARY KEY,
	task_id VARCHAR(255) NOT NULL,
	commit_sha VARCHAR(64) NOT NULL,
	instance_id TEXT NOT NULL,
	delivery_count BIGINT NOT NULL,
	created_at TIMESTAMPTZ NOT NULL DEFAULT clock_timestamp()
);
CREATE INDEX IF NOT EXISTS posts_task_id ON posts (task_id);
