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
        // The shared totals: one row per shard, each batch's transaction adds to the row of
        // its connection's shard (see `insertSQL`), and a reader sums them all.
        """
        CREATE TABLE collector_totals (
            shard integer PRIMARY KEY,
            events bigint NOT NULL CHECK (events >= 0),
            batches bigint NOT NULL CHECK (batches >= 0)
        )
        """,
        // Events stored before the counter table existed are counted once, here.
        "INSERT INTO collector_totals (shard, events, batches) SELECT 0, count(*), 0 FROM collector_events",
    ]

    /// Rows of `collector_totals` that batches spread their updates over. A transaction
    /// holds its shard's row lock until `COMMIT`, so one row for everyone would make every
    /// commit wait for the one before; by backend pid, concurrent connections (whose pids
    /// are mostly consecutive) land on different rows.
    static let totalShards = 128

    /// The sum of the shards: the database's totals.
    static let totalsSQL = """
        SELECT coalesce(sum(events), 0)::bigint, coalesce(sum(batches), 0)::bigint FROM collector_totals
        """

    /// One statement per batch: the columns arrive as arrays ($1…$7, the JSON last; $8 the
    /// shared `received_at`), rows go in in batch order (so the first of two equal ids in a
    /// batch is the one stored), the shard of the totals gets the count, and the result is
    /// the number of rows inserted.
    static let insertSQL = """
        WITH inserted AS (
            INSERT INTO collector_events (message_id, type, name, user_id, anonymous_id, timestamp, received_at, json)
            SELECT m, t, n, u, a, ts, $8, j
            FROM UNNEST($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[])
                WITH ORDINALITY AS r(m, t, n, u, a, ts, j, position)
            ORDER BY position
            ON CONFLICT (message_id) DO NOTHING
            RETURNING 1
        ), stored AS (
            SELECT count(*) AS events FROM inserted
        ), counted AS (
            INSERT INTO collector_totals AS totals (shard, events, batches)
            SELECT pg_backend_pid() % \(totalShards), events, 1 FROM stored WHERE events > 0
            ON CONFLICT (shard) DO UPDATE SET events = totals.events + excluded.events, batches = totals.batches + 1
        )
        SELECT events FROM stored
        """

    /// The plain multi-row insert of the same columns, with no counting: PostgreSQL's own
    /// speed for a batch's rows, which `beacon bench ingest` compares the collector with.
    static let plainInsertSQL = """
        INSERT INTO collector_events (message_id, type, name, user_id, anonymous_id, timestamp, received_at, json)
        SELECT m, t, n, u, a, ts, $8, j
        FROM UNNEST($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[])
            AS r(m, t, n, u, a, ts, j)
        ON CONFLICT (message_id) DO NOTHING
        """
}
