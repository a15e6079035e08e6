/// The dashboard's style sheet (`GET /dashboard.css`).
/// Kept in the binary, so that the dashboard is wherever `farm` is: no files to install, no CDN.
enum DashboardStyle {
    static let source = #"""
        :root { --queued: #c9ced6; --running: #3b82f6; --done: #22a06b; --failed: #e5484d; --reused: #8e4ec6;
          font-family: system-ui, sans-serif; }
        body { margin: 0; color: #1c2024; background: #f8f9fa; }
        header { display: flex; gap: 1.5em; align-items: center; padding: .6em 1.2em; background: #1c2024;
          color: #fff; }
        header a { color: #fff; text-decoration: none; }
        header .brand { font-weight: 700; }
        header #farm-summary { margin-left: auto; font-size: .9em; opacity: .8; }
        main { padding: 1em 1.2em; max-width: 1000px; }
        #banner { background: var(--failed); color: #fff; padding: .6em 1.2em; font-weight: 600; }
        table { border-collapse: collapse; width: 100%; background: #fff; }
        th, td { text-align: left; padding: .35em .6em; border-bottom: 1px solid #e6e8eb; font-size: .92em; }
        .filters { display: flex; gap: 1.5em; margin-bottom: .8em; }
        .state { padding: .1em .5em; border-radius: 1em; background: var(--queued); font-size: .85em; }
        .state.running, .state.joining, .state.rendering { background: var(--running); color: #fff; }
        .state.done { background: var(--done); color: #fff; }
        .state.reused { background: var(--reused); color: #fff; }
        .state.failed, .state.cancelled, .state.lost { background: var(--failed); color: #fff; }
        .bar { display: inline-block; width: 160px; height: .7em; background: #e6e8eb; border-radius: .35em;
          overflow: hidden; }
        .bar > div { height: 100%; background: var(--done); width: 0; }
        .job-head { display: flex; gap: 1em; align-items: center; flex-wrap: wrap; }
        .actions { margin-left: auto; }
        .legend span { margin-right: 1em; font-size: .8em; font-weight: 400; }
        .legend i { display: inline-block; width: .8em; height: .8em; margin-right: .3em; }
        #chunk-map { background: #fff; cursor: pointer; max-width: 100%; }
        #chunk-tip { position: fixed; background: #1c2024; color: #fff; padding: .3em .6em; font-size: .85em;
          border-radius: .3em; pointer-events: none; }
        #chunk-log { background: #1c2024; color: #e6e8eb; padding: .6em; white-space: pre-wrap; font-size: .85em; }
        #rate-plot { width: 100%; height: 160px; background: #fff; }
        #rate-plot polyline { fill: none; stroke: var(--running); stroke-width: 2; vector-effect: non-scaling-stroke; }
        #thumbnails { display: flex; flex-wrap: wrap; gap: 6px; }
        #thumbnails figure { margin: 0; font-size: .75em; text-align: center; }
        #thumbnails img { display: block; width: 120px; background: #000; }
        .error { color: var(--failed); }
        """#
}
