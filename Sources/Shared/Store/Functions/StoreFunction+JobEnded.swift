extension StoreFunction {
    /// Every way a job ends (joined, failed, cancelled) makes its notice due (step 13's
    /// `notify_url`), here in one place. A retried job that ends again is told of again.
    static let jobEnded = StoreFunction(
        name: "farm_job_ended", since: 13,
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
