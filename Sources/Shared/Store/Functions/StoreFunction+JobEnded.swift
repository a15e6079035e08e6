extension StoreFunction {
    /// Every way a job ends (joined, failed, cancelled) makes its notice due (step 13's
    /// `notify_url`), here in one place. A retried job that ends again is told of again. The
    /// jobs waiting on it (step 24's `waiting_for`) wait on it no more once it is done, and fail
    /// when it failed or was cancelled (which ends them in turn, and so down a chain).
    static let jobEnded = StoreFunction(
        name: "farm_job_ended", since: 24,
        definition: """
            CREATE FUNCTION farm_job_ended() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN
                IF NEW.notify_url IS NOT NULL AND NEW.state IN ('done', 'failed', 'cancelled')
                   AND OLD.state NOT IN ('done', 'failed', 'cancelled') THEN
                    NEW.notify_next_at := now();
                    NEW.notified_at := NULL;
                    NEW.notify_attempts := 0;
                    NEW.notify_error := NULL;
                END IF;
                IF NEW.state IN ('done', 'failed', 'cancelled')
                   AND OLD.state NOT IN ('done', 'failed', 'cancelled') THEN
                    IF NEW.state = 'done' THEN
                        UPDATE jobs SET waiting_for = nullif(array_remove(waiting_for, NEW.id), '{}')
                        WHERE waiting_for @> ARRAY[NEW.id];
                    ELSE
                        UPDATE jobs SET state = 'failed', waiting_for = NULL, finished_at = now(),
                                        error = format('job %s, which it waits on (--after), %s', NEW.id, NEW.state)
                        WHERE waiting_for @> ARRAY[NEW.id] AND state IN ('queued', 'running');
                    END IF;
                END IF;
                RETURN NEW;
            END
            $$;
            """,
        triggers: [
            (
                "jobs_ended",
                """
                CREATE TRIGGER jobs_ended BEFORE UPDATE OF state ON jobs
                    FOR EACH ROW EXECUTE FUNCTION farm_job_ended();
                """
            )
        ])
}
