-- A Goose sessions.db in the schema of Goose 1.x (tables schema_version, sessions, messages),
-- written by hand for the golden test, which builds the database from it.
CREATE TABLE schema_version (version INTEGER PRIMARY KEY, applied_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP);
CREATE TABLE sessions (
    id TEXT PRIMARY KEY,
    name TEXT NOT NULL DEFAULT '',
    description TEXT NOT NULL DEFAULT '',
    session_type TEXT NOT NULL DEFAULT 'user',
    working_dir TEXT NOT NULL,
    created_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP,
    updated_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP,
    extension_data TEXT DEFAULT '{}',
    total_tokens INTEGER,
    input_tokens INTEGER,
    output_tokens INTEGER,
    accumulated_total_tokens INTEGER,
    accumulated_input_tokens INTEGER,
    accumulated_output_tokens INTEGER,
    accumulated_cost REAL,
    provider_name TEXT,
    model_config_json TEXT,
    goose_mode TEXT NOT NULL DEFAULT 'auto'
);
CREATE TABLE messages (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    message_id TEXT,
    session_id TEXT NOT NULL REFERENCES sessions(id),
    role TEXT NOT NULL,
    content_json TEXT NOT NULL,
    created_timestamp INTEGER NOT NULL,
    timestamp TIMESTAMP DEFAULT CURRENT_TIMESTAMP,
    tokens INTEGER,
    metadata_json TEXT
);
INSERT INTO schema_version (version) VALUES (13);
-- the plain columns hold the last turn; the accumulated ones the session: those count
INSERT INTO sessions (id, name, working_dir, created_at, updated_at, total_tokens, input_tokens,
    output_tokens, accumulated_total_tokens, accumulated_input_tokens, accumulated_output_tokens,
    accumulated_cost, provider_name, model_config_json)
VALUES
    ('20260303_1', 'Port the CSV reader', '/home/dana/src/tidepool', '2026-03-03 10:15:00',
     '2026-03-03 10:52:00', 21000, 20400, 600, 148000, 141000, 6500, 0.52, 'anthropic',
     '{"model_name":"claude-sonnet-4-5-20250929","context_limit":200000,"temperature":null}'),
    ('20260303_2', 'Explain the build', '/home/dana/src/harbor-cli', '2026-03-03T14:00:00Z',
     NULL, 9000, 8700, 300, 9000, 8200, 300, NULL, 'openai',
     '{"model_name":"gpt-5","context_limit":400000}'),
    ('20260304_1', 'Empty session', '/home/dana/src/harbor-cli', '2026-03-04 08:00:00',
     NULL, NULL, NULL, NULL, 0, 0, 0, NULL, 'openai', '{"model_name":"gpt-5"}'),
    ('20260304_2', 'Older row', '/home/dana/src/tilecache', 1772611200, NULL, 2400, 2000, 400,
     NULL, NULL, NULL, NULL, 'ollama', '{"model_name":"qwen3-coder:30b"}');
INSERT INTO messages (message_id, session_id, role, content_json, created_timestamp)
VALUES ('msg_1', '20260303_1', 'user', '[{"type":"text","text":"Port the CSV reader"}]', 1772532900);
