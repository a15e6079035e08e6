/// The dashboard's one page (`GET /`): its views are shown and hidden by `DashboardScript`.
/// Kept in the binary, so that the dashboard is wherever `farm` is: no files to install, no CDN.
enum DashboardPage {
    static let html = #"""
        <!doctype html>
        <html lang="en">
        <head>
        <meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <title>farm</title>
        <link rel="stylesheet" href="/dashboard.css">
        <script src="/dashboard.js" defer></script>
        </head>
        <body>
        <header>
          <a class="brand" href="#/">farm</a>
          <nav><a href="#/">Jobs</a> <a href="#/workers">Workers</a></nav>
          <span id="farm-summary"></span>
          <button id="logout" hidden>Log out</button>
        </header>
        <div id="banner" role="alert" hidden></div>
        <main>
          <section id="login-view" hidden>
            <h1>Log in</h1>
            <p>Paste a token made with <code>farm tokens create NAME --role read</code> (or operate, to act on jobs).
              It is kept in a cookie page scripts cannot read.</p>
            <form id="login-form">
              <input id="token" type="password" autocomplete="off" placeholder="farm_…" size="60">
              <button id="login" type="submit">Log in</button>
            </form>
            <p id="login-error" class="error"></p>
          </section>

          <section id="jobs-view" hidden>
            <h1>Jobs</h1>
            <div class="filters">
              <label>State <select id="state-filter">
                <option value="">all</option><option value="active">active</option><option>queued</option>
                <option>running</option><option>joining</option><option>done</option><option>failed</option>
                <option>cancelled</option>
              </select></label>
              <label>Name <input id="name-filter" type="search" placeholder="filter"></label>
            </div>
            <table id="jobs"><thead><tr>
              <th>Job</th><th>Name</th><th>State</th><th>Progress</th><th>fps</th><th>ETA</th><th>Submitted</th>
              <th>Segments</th>
            </tr></thead><tbody></tbody></table>
          </section>

          <section id="job-view" hidden>
            <h1 id="job-title"></h1>
            <div class="job-head">
              <span id="job-state" class="state"></span>
              <div class="bar"><div id="job-bar"></div></div>
              <span id="job-progress"></span>
              <span id="job-eta"></span>
              <span class="actions">
                <button data-action="pause">Pause</button><button data-action="resume">Resume</button>
                <button data-action="retry">Retry</button><button data-action="cancel">Cancel</button>
              </span>
            </div>
            <p id="job-error" class="error"></p>
            <h2>Chunks <span id="chunk-legend" class="legend"></span></h2>
            <canvas id="chunk-map" width="960" height="40"></canvas>
            <div id="chunk-tip" hidden></div>
            <div id="chunk-detail" hidden>
              <h3 id="chunk-detail-title"></h3>
              <table id="chunk-attempts"><thead><tr>
                <th>Attempt</th><th>Worker</th><th>Outcome</th><th>Started</th><th>Seconds</th><th>fps</th>
              </tr></thead><tbody></tbody></table>
              <pre id="chunk-log"></pre>
            </div>
            <h2>Frames per second</h2>
            <svg id="rate-plot" viewBox="0 0 960 160" preserveAspectRatio="none"></svg>
            <h2>First frames</h2>
            <div id="thumbnails"></div>
          </section>

          <section id="workers-view" hidden>
            <h1>Workers</h1>
            <table id="workers"><thead><tr>
              <th>Worker</th><th>Host</th><th>State</th><th>Current</th><th>fps</th><th>Last heartbeat</th><th></th>
            </tr></thead><tbody></tbody></table>
          </section>
        </main>
        </body>
        </html>
        """#
}
