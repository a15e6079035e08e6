// The farm's dashboard: plain scripts, no build step, loaded in order by index.html. This one holds
// what every view shares: calls to the HTTP API (docs/openapi.yaml) with the login cookie, the
// session's role, the refresh driven by the server's events (GET /api/events), the stale state
// while the server is away, and the routes. The views live in jobs-view.js, job-view.js and
// workers-view.js, the job page's player in player.js.
"use strict";

const $ = (selector) => document.querySelector(selector);
const views = ["login", "jobs", "job", "workers"];
let route = { view: "jobs" };
// The session's role ("read", "submit" or "operate"); null until the server said.
let role = null;
let events = null;
let serverLostAt = null;
let lastAnswerAt = null;
let refreshing = false;
let refreshAgain = false;
let lastRefresh = 0;
let pendingRefresh = null;

async function api(method, path, body) {
  const response = await fetch(path, {
    method, headers: body ? { "Content-Type": "application/json" } : {},
    body: body ? JSON.stringify(body) : undefined, credentials: "same-origin",
  });
  lastAnswerAt = new Date();
  const data = response.status === 204 ? null : await response.json();
  // A refused login stays on the form; any other 401 means the session has ended.
  if (response.status === 401 && !(path === "/api/session" && method === "POST")) showLogin();
  if (!response.ok) throw new Error(data && data.error ? data.error : response.statusText);
  return data;
}

// Only an operate token may act; read and submit tokens see no control at all.
const canOperate = () => role === "operate";

function show(view) {
  for (const name of views) $(`#${name}-view`).hidden = name !== view;
  $("#logout").hidden = view === "login";
}

function showLogin() {
  role = null;
  showRole();
  show("login");
  if (events) { events.close(); events = null; }
}

function showRole() {
  const badge = $("#role");
  badge.hidden = !role || canOperate();
  text(badge, role ? `${role} only` : "");
}

// MARK: Formatting

function text(element, value) { element.textContent = value == null ? "" : String(value); }

// A cell labelled with its column's heading, which the narrow layout shows beside the value.
function cell(row, value, className) {
  const td = row.insertCell();
  text(td, value);
  if (className) td.className = className;
  const heading = row.closest("table").tHead.rows[0].cells[td.cellIndex];
  if (heading && heading.textContent) td.dataset.label = heading.textContent;
  return td;
}

function duration(seconds) {
  if (seconds == null) return "";
  seconds = Math.round(seconds);
  const h = Math.floor(seconds / 3600), m = Math.floor(seconds % 3600 / 60), s = seconds % 60;
  return h ? `${h}h ${m}m` : m ? `${m}m ${s}s` : `${s}s`;
}

function bytes(count) {
  if (count == null) return "";
  const units = ["B", "KB", "MB", "GB", "TB"];
  let unit = 0;
  while (count >= 1000 && unit < units.length - 1) { count /= 1000; unit++; }
  return `${count.toFixed(unit ? 1 : 0)} ${units[unit]}`;
}

const localTime = (iso) => (iso ? new Date(iso).toLocaleString() : "");

// "chunk 22" or "audio block 0": the names `farm logs` uses.
const chunkName = (kind, index) => (kind === "audio" ? `audio block ${index}` : `chunk ${index}`);

const hasEnded = (job) => /done|failed|cancelled/.test(job.state);

// A state as a coloured badge; `label` says more than the state ("running, paused").
function stateBadge(element, state, label) {
  element.textContent = "";
  const span = element.classList.contains("state") ? element : document.createElement("span");
  span.className = `state ${state}`;
  span.dataset.label = label || state;
  span.textContent = serverLostAt ? `last known: ${span.dataset.label}` : span.dataset.label;
  if (span !== element) element.appendChild(span);
}

// A bar and its caption, in one box so that a narrow layout keeps them together.
function progressBar(element, percent, caption) {
  element.textContent = "";
  const box = document.createElement("span");
  box.className = "progress";
  const bar = document.createElement("span");
  bar.className = "bar";
  const fill = document.createElement("span");
  fill.style.width = `${Math.max(0, Math.min(100, percent))}%`;
  bar.appendChild(fill);
  box.append(bar, ` ${caption}`);
  element.appendChild(box);
}

function link(href, label) {
  const anchor = document.createElement("a");
  anchor.href = href;
  anchor.textContent = label;
  return anchor;
}

// A control button, made only for a session that may use it.
function controlButton(label, action, onClick) {
  const button = document.createElement("button");
  button.textContent = label;
  button.dataset.action = action;
  button.disabled = Boolean(serverLostAt);
  button.addEventListener("click", (event) => { event.stopPropagation(); onClick(); });
  return button;
}

// MARK: Refresh, events and the stale state

async function renderFarm() {
  const farm = await api("GET", "/api/farm");
  const jobs = farm.jobsWithSegments === 1 ? "1 job" : `${farm.jobsWithSegments} jobs`;
  text($("#farm-summary"), `segments ${bytes(farm.segmentBytes)} in ${jobs}`);
  serverReached();
  setBanner(farm.coordinatorServing ? null : farm.warning || "no coordinator is serving this farm");
}

function setBanner(message) {
  const banner = $("#banner");
  banner.hidden = !message;
  text(banner, message ? `Coordinator down: ${message}` : "");
}

// The server is away: what the page shows is as it was, so it says so (a banner, greyed data,
// states as "last known", no ETA, no buttons) until the server answers again.
function serverLost() {
  if (!serverLostAt) serverLostAt = new Date();
  const since = (lastAnswerAt || serverLostAt).toLocaleTimeString();
  setBanner(`the farm's server has not answered since ${since}; what is shown is the last known state, `
    + "greyed until it answers again (retrying)");
  markStale(true);
}

function serverReached() {
  if (!serverLostAt) return;
  serverLostAt = null;
  markStale(false);
}

function markStale(stale) {
  document.body.classList.toggle("stale", stale);
  for (const badge of document.querySelectorAll("main .state[data-label]")) {
    badge.textContent = stale ? `last known: ${badge.dataset.label}` : badge.dataset.label;
  }
  for (const button of document.querySelectorAll("main button")) button.disabled = stale;
}

// At most one refresh a second (every five for a job of over 20,000 chunks, whose map
// is megabytes): a busy farm sends several events a second.
function refresh() {
  if (pendingRefresh) return;
  const gap = chunkMap && chunkMap.video.states.length > 20000 ? 5000 : 1000;
  const delay = Math.max(0, lastRefresh + gap - Date.now());
  pendingRefresh = setTimeout(() => { pendingRefresh = null; refreshNow(); }, delay);
}

async function refreshNow() {
  if (refreshing) { refreshAgain = true; return; }
  refreshing = true;
  lastRefresh = Date.now();
  try {
    if (!role) {
      role = (await api("GET", "/api/session")).role;
      showRole();
    }
    await renderFarm();
    listen();
    if (route.view === "jobs") await renderJobs();
    if (route.view === "job") await renderJob(route.id);
    if (route.view === "workers") await renderWorkers(route.worker);
    // How many times the page was drawn from fresh answers: a test waits for the next one.
    document.body.dataset.refreshes = Number(document.body.dataset.refreshes || 0) + 1;
  } catch (error) {
    if (error instanceof TypeError) serverLost();
    else if (route.view === "job") text($("#job-error"), error.message);
    else if (route.view === "workers") text($("#workers-error"), error.message);
  } finally {
    refreshing = false;
    if (refreshAgain) { refreshAgain = false; refresh(); }
  }
}

function listen() {
  if (events) return;
  events = new EventSource("/api/events");
  events.addEventListener("hello", refresh);
  events.addEventListener("tick", refresh);
  events.addEventListener("jobs", (event) => {
    const ids = JSON.parse(event.data);
    if (route.view !== "job" || ids.includes(route.id)) refresh();
  });
  events.onerror = () => { if (events.readyState !== EventSource.OPEN) serverLost(); };
}

// Runs a control call; what it refuses is shown in `errorBox`, beside the button.
async function act(method, path, body, errorBox) {
  text(errorBox, "");
  try {
    await api(method, path, body);
  } catch (error) {
    text(errorBox, error instanceof TypeError ? "the farm's server did not answer" : error.message);
  }
  refresh();
}

// MARK: Routes and start

function navigate() {
  const hash = location.hash.replace(/^#/, "");
  const job = hash.match(/^\/jobs\/(\d+)$/);
  const worker = hash.match(/^\/workers\/(.+)$/);
  route = job ? { view: "job", id: Number(job[1]) }
    : worker ? { view: "workers", worker: decodeURIComponent(worker[1]) }
    : hash === "/workers" ? { view: "workers" } : { view: "jobs" };
  closeChunk();
  if (route.view !== "job" || (player && player.job !== route.id)) stopPlayer();
  show(route.view);
  refresh();
}

async function logIn(token) {
  const answer = await api("POST", "/api/session", { token });
  role = answer.role;
  showRole();
  text($("#login-error"), "");
  navigate();
}

function start() {
  // While the server is away the event stream retries on its own; this looks too.
  setInterval(() => { if (serverLostAt) refresh(); }, 3000);
  $("#login-form").addEventListener("submit", async (event) => {
    event.preventDefault();
    try {
      await logIn($("#token").value.trim());
      $("#token").value = "";
    } catch (error) {
      text($("#login-error"), error.message);
      show("login");
    }
  });
  $("#logout").addEventListener("click", async () => { await api("DELETE", "/api/session"); showLogin(); });
  $("#state-filter").addEventListener("change", refresh);
  $("#name-filter").addEventListener("input", refresh);
  startJobView();
  startPlayerView();
  window.addEventListener("hashchange", navigate);
  // `farm render` prints its private farm's address with a token after #token=: log in with it
  // and take it out of the address bar and the history.
  const given = location.hash.match(/^#token=(farm_[0-9a-f]+)$/);
  if (given) {
    history.replaceState(null, "", "#/");
    logIn(given[1]).catch(() => show("login"));
    return;
  }
  navigate();
}

document.addEventListener("DOMContentLoaded", start);
