/// The PostgreSQL store's schema: numbered migrations (applied in order, each once,
/// recorded in `collector_schema_version`) and the batch insert.
enum PostgresSchema {
    /// Migration `n` is `migrations[n - 1]`. Append only: never edit one that has shipped.
    static let migrations: [String] = [
        """
        CREATE TABLE collector_events (
            id bigint GENERATED ALWAYS AS IDENTITY,
            message_id text COLLATE "C" PRIMARY KEY NOT NULL,
            type text NOT NULL,
            name text,
            user_id text,
            anonymous_id text,
            timestamp text,
            received_at bigint NOT NULL,
            json text NOT NULL
        )
        """,
        "CREATE INDEX collector_events_arrival ON collector_events (id)",
    ]

    /// One statement per batch: the columns arrive as arrays ($1…$6, $7 the shared
    /// `received_at`, $8 the JSON), rows go in in batch order (so the first of two equal
    /// ids in a batch is the one stored), and the result is the number of rows inserted.
    static let insertSQL = """
        WITH inserted AS (
            INSERT INTO collector_events (message_id, type, name, user_id, anonymous_id, timestamp, received_at, json)
            SELECT m, t, n, u, a, ts, $8, j
            FROM UNNEST($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[])
                WITH ORDINALITY AS r(m, t, n, u, a, ts, j, position)
            ORDER BY position
            ON CONFLICT (message_id) DO NOTHING
            RETURNING 1
        )
        SELECT count(*) FROM inserted
        """
}
