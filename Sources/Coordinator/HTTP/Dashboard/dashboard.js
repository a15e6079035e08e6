// The farm's dashboard: plain script, no build step. Views read the HTTP API (docs/openapi.yaml)
// with the login cookie and refresh on the server's events (GET /api/events).
"use strict";

const $ = (selector) => document.querySelector(selector);
const views = ["login", "jobs", "job", "workers"];
const colors = { q: "--queued", r: "--running", d: "--done", f: "--failed", c: "--reused" };
const stateNames = { q: "queued", r: "running", d: "done", f: "failed", c: "reused" };
let route = { view: "jobs" };
let chunkMap = null;
let events = null;
let serverLostAt = null;
let refreshing = false;
let refreshAgain = false;
let lastRefresh = 0;
let pendingRefresh = null;

async function api(method, path, body) {
  const response = await fetch(path, {
    method, headers: body ? { "Content-Type": "application/json" } : {},
    body: body ? JSON.stringify(body) : undefined, credentials: "same-origin",
  });
  const data = response.status === 204 ? null : await response.json();
  if (response.status === 401 && path !== "/api/session") showLogin();
  if (!response.ok) throw new Error(data && data.error ? data.error : response.statusText);
  return data;
}

function show(view) {
  for (const name of views) $(`#${name}-view`).hidden = name !== view;
  $("#logout").hidden = view === "login";
}

function showLogin() {
  show("login");
  if (events) { events.close(); events = null; }
}

function text(element, value) { element.textContent = value == null ? "" : String(value); }

function cell(row, value, className) {
  const td = row.insertCell();
  text(td, value);
  if (className) td.className = className;
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

function stateBadge(td, state) {
  td.textContent = "";
  const span = document.createElement("span");
  span.className = `state ${state}`;
  span.textContent = state;
  td.appendChild(span);
}

// MARK: Views

async function renderJobs() {
  const jobs = await api("GET", "/api/jobs?limit=200");
  const state = $("#state-filter").value, name = $("#name-filter").value.toLowerCase();
  const active = ["queued", "running", "joining"];
  const body = $("#jobs tbody");
  body.textContent = "";
  for (const job of jobs) {
    if (state === "active" ? !active.includes(job.state) : state && job.state !== state) continue;
    if (name && !job.name.toLowerCase().includes(name)) continue;
    const row = body.insertRow();
    row.dataset.job = job.id;
    const link = document.createElement("a");
    link.href = `#/jobs/${job.id}`;
    link.textContent = job.id;
    row.insertCell().appendChild(link);
    cell(row, job.name);
    stateBadge(row.insertCell(), job.paused && !hasEnded(job) ? "paused" : job.state);
    const progress = row.insertCell();
    progress.innerHTML = '<div class="bar"><div></div></div> ';
    progress.querySelector(".bar > div").style.width = `${job.percent}%`;
    progress.append(`${job.percent.toFixed(1)} %`);
    cell(row, job.fps == null ? "" : job.fps.toFixed(1));
    cell(row, duration(job.etaSeconds));
    cell(row, new Date(job.submittedAt).toLocaleString());
    cell(row, bytes(job.segmentBytes));
  }
}

const hasEnded = (job) => /done|failed|cancelled/.test(job.state);

async function renderJob(id) {
  const [detail, map, rate] = await Promise.all([
    api("GET", `/api/jobs/${id}`), api("GET", `/api/jobs/${id}/chunks`), api("GET", `/api/jobs/${id}/rate`),
  ]);
  const job = detail.job;
  text($("#job-title"), `Job ${job.id}: ${job.name}`);
  const state = $("#job-state");
  state.className = `state ${job.state}`;
  text(state, job.paused && !hasEnded(job) ? `${job.state}, paused` : job.state);
  $("#job-bar").style.width = `${job.percent}%`;
  const progress = $("#job-progress");
  text(progress, `${job.framesDone} of ${job.frameCount} frames (${job.percent.toFixed(1)} %)`);
  progress.dataset.percent = job.percent;
  text($("#job-eta"), job.etaSeconds == null ? "" : `ETA ${duration(job.etaSeconds)}`);
  text($("#job-error"), job.error || job.warning || "");
  chunkMap = map;
  drawChunkMap(map);
  drawRate(rate);
  showThumbnails(id, map);
}

function drawChunkMap(map) {
  const canvas = $("#chunk-map");
  const all = map.video.states + map.audio.states;
  const size = Math.max(4, Math.min(18, Math.floor(Math.sqrt(960 * 240 / Math.max(all.length, 1)))));
  const columns = Math.floor(960 / size);
  const videoRows = Math.ceil(map.video.states.length / columns);
  const rows = videoRows + Math.ceil(map.audio.states.length / columns);
  canvas.height = Math.max(rows, 1) * size;
  canvas.dataset.cell = size;
  canvas.dataset.columns = columns;
  canvas.dataset.videoRows = videoRows;
  const context = canvas.getContext("2d");
  context.clearRect(0, 0, canvas.width, canvas.height);
  // Five colours, looked up once rather than once a cell.
  const style = getComputedStyle(document.documentElement);
  const fills = Object.fromEntries(
    Object.entries(colors).map(([letter, name]) => [letter, style.getPropertyValue(name)]));
  const paint = (states, firstRow) => {
    for (let i = 0; i < states.length; i++) {
      context.fillStyle = fills[states[i]];
      const x = (i % columns) * size, y = (firstRow + Math.floor(i / columns)) * size;
      context.fillRect(x, y, size - 1, size - 1);
    }
  };
  paint(map.video.states, 0);
  paint(map.audio.states, videoRows);
  const counts = { q: 0, r: 0, d: 0, f: 0, c: 0 };
  for (const letter of all) counts[letter]++;
  canvas.dataset.states = all;
  canvas.dataset.done = counts.d + counts.c;
  canvas.dataset.total = all.length;
  const legend = $("#chunk-legend");
  legend.textContent = "";
  for (const letter of "qrdfc") {
    const span = document.createElement("span");
    span.innerHTML = "<i></i>";
    span.querySelector("i").style.background = `var(${colors[letter]})`;
    span.append(`${stateNames[letter]} ${counts[letter]}`);
    legend.appendChild(span);
  }
}

// The chunk under a point of the map: { kind, position } or null.
function chunkAt(event) {
  const canvas = $("#chunk-map");
  if (!chunkMap) return null;
  const rect = canvas.getBoundingClientRect();
  const scale = canvas.width / rect.width;
  const size = Number(canvas.dataset.cell), columns = Number(canvas.dataset.columns);
  const column = Math.floor((event.clientX - rect.left) * scale / size);
  const row = Math.floor((event.clientY - rect.top) * scale / size);
  const videoRows = Number(canvas.dataset.videoRows);
  const kind = row < videoRows ? "video" : "audio";
  const position = (kind === "video" ? row : row - videoRows) * columns + column;
  if (column >= columns || position < 0 || position >= chunkMap[kind].states.length) return null;
  return { kind, position };
}

function describeChunk(found) {
  const list = chunkMap[found.kind], i = found.position;
  const worker = list.worker[i] >= 0 ? chunkMap.workers[list.worker[i]] : "no worker yet";
  const seconds = list.seconds[i] >= 0 ? `, ${list.seconds[i].toFixed(1)} s` : "";
  const what =
    found.kind === "video" ? `chunk ${i}, frames ${list.start[i]}–${list.end[i]}` : `audio block ${i}`;
  return `${what}: ${stateNames[list.states[i]]}, ${worker}, attempt ${list.attempt[i]}${seconds}`;
}

async function openChunk(kind, index) {
  const attempts = await api("GET", `/api/jobs/${route.id}/attempts?chunk=${index}&kind=${kind}`);
  $("#chunk-detail").hidden = false;
  text($("#chunk-detail-title"), kind === "video" ? `Chunk ${index}` : `Audio block ${index}`);
  const body = $("#chunk-attempts tbody");
  body.textContent = "";
  const lines = [];
  for (const attempt of attempts) {
    const row = body.insertRow();
    cell(row, attempt.attempt);
    cell(row, attempt.worker);
    stateBadge(row.insertCell(), attempt.outcome);
    cell(row, new Date(attempt.startedAt).toLocaleTimeString());
    cell(row, attempt.seconds.toFixed(2));
    cell(row, attempt.fps == null ? "" : attempt.fps.toFixed(1));
    const end = attempt.finishedAt ? ` → ${attempt.outcome} at ${attempt.finishedAt}` : " (running)";
    // A video chunk counts frames, an audio block seconds of sound.
    const made = attempt.soundSeconds == null
      ? `${attempt.framesDone ?? 0} frames` : `${attempt.soundSeconds.toFixed(1)} s of sound`;
    lines.push(`${attempt.startedAt} attempt ${attempt.attempt} on ${attempt.worker}${end}` +
      `, ${made}` + (attempt.error ? `\n    error: ${attempt.error}` : ""));
  }
  text($("#chunk-log"), lines.join("\n") || "no attempts yet");
}

function drawRate(points) {
  const svg = $("#rate-plot");
  svg.textContent = "";
  svg.dataset.points = points.length;
  if (!points.length) return;
  const top = Math.max(...points.map((p) => p.fps), 1), end = points[points.length - 1].seconds;
  const line = document.createElementNS("http://www.w3.org/2000/svg", "polyline");
  const coordinates = [[0, 160]].concat(points.map((p) => [p.seconds / end * 960, 160 - p.fps / top * 150]));
  line.setAttribute("points", coordinates.map((c) => c.join(",")).join(" "));
  svg.appendChild(line);
  const label = document.createElementNS("http://www.w3.org/2000/svg", "text");
  label.setAttribute("x", 6);
  label.setAttribute("y", 14);
  label.textContent = `peak ${top.toFixed(1)} fps over ${duration(end)}`;
  svg.appendChild(label);
}

// At most 48 pictures, spread over the job's finished chunks; those shown stay.
function showThumbnails(id, map) {
  const box = $("#thumbnails");
  if (box.dataset.job !== String(id)) { box.textContent = ""; box.dataset.job = id; }
  const done = [];
  for (let i = 0; i < map.video.states.length; i++) if ("dc".includes(map.video.states[i])) done.push(i);
  const step = Math.max(1, done.length / 48);
  for (let k = 0; k < done.length; k += step) {
    const index = done[Math.floor(k)];
    if (box.querySelector(`[data-chunk="${index}"]`)) continue;
    const figure = document.createElement("figure");
    figure.dataset.chunk = index;
    const image = document.createElement("img");
    image.loading = "lazy";
    image.alt = `chunk ${index}`;
    image.src = `/api/jobs/${id}/chunks/${index}/thumbnail`;
    image.onerror = () => figure.remove();
    figure.appendChild(image);
    figure.append(`chunk ${index}`);
    const later = [...box.children].find((other) => Number(other.dataset.chunk) > index);
    box.insertBefore(figure, later || null);
  }
}

async function renderWorkers() {
  const workers = await api("GET", "/api/workers");
  const body = $("#workers tbody");
  body.textContent = "";
  for (const worker of workers) {
    const row = body.insertRow();
    row.dataset.worker = worker.id;
    cell(row, worker.id);
    cell(row, worker.host);
    stateBadge(row.insertCell(), worker.state);
    cell(row, worker.current.map((c) => `job ${c.job} ${c.kind} ${c.chunk}`).join(", "));
    cell(row, worker.averageFps == null ? "" : worker.averageFps.toFixed(1));
    cell(row, `${duration(worker.secondsSinceHeartbeat)} ago`);
    const button = document.createElement("button");
    const action = worker.draining ? "undrain" : "drain";
    button.textContent = worker.draining ? "Undrain" : "Drain";
    button.dataset.action = action;
    button.onclick = () => act(`/api/workers/${encodeURIComponent(worker.id)}/${action}`);
    row.insertCell().appendChild(button);
  }
}

async function renderFarm() {
  const farm = await api("GET", "/api/farm");
  text($("#farm-summary"), `segments ${bytes(farm.segmentBytes)} in ${farm.jobsWithSegments} jobs`);
  serverReached();
  setBanner(farm.coordinatorServing ? null : farm.warning || "no coordinator is serving this farm");
}

// MARK: Refresh, events and the banner

function setBanner(message) {
  const banner = $("#banner");
  banner.hidden = !message;
  text(banner, message ? `Coordinator down: ${message}` : "");
}

function serverLost() {
  if (!serverLostAt) serverLostAt = new Date();
  setBanner(`the farm's server has not answered since ${serverLostAt.toLocaleTimeString()}; retrying`);
}

function serverReached() { serverLostAt = null; }

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
    await renderFarm();
    listen();
    if (route.view === "jobs") await renderJobs();
    if (route.view === "job") await renderJob(route.id);
    if (route.view === "workers") await renderWorkers();
  } catch (error) {
    if (error instanceof TypeError) serverLost();
    else if (route.view === "job") text($("#job-error"), error.message);
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

async function act(path, body) {
  try {
    await api("POST", path, body);
  } catch (error) {
    alert(error.message);
  }
  refresh();
}

function navigate() {
  const hash = location.hash.replace(/^#/, "");
  const job = hash.match(/^\/jobs\/(\d+)$/);
  route = job ? { view: "job", id: Number(job[1]) }
    : hash === "/workers" ? { view: "workers" } : { view: "jobs" };
  $("#chunk-detail").hidden = true;
  show(route.view);
  refresh();
}

function start() {
  // While the server is away the event stream retries on its own; this looks too.
  setInterval(() => { if (serverLostAt) refresh(); }, 3000);
  $("#login-form").addEventListener("submit", async (event) => {
    event.preventDefault();
    try {
      await api("POST", "/api/session", { token: $("#token").value.trim() });
      $("#token").value = "";
      text($("#login-error"), "");
      navigate();
    } catch (error) {
      text($("#login-error"), error.message);
      show("login");
    }
  });
  $("#logout").addEventListener("click", async () => { await api("DELETE", "/api/session"); showLogin(); });
  $("#state-filter").addEventListener("change", refresh);
  $("#name-filter").addEventListener("input", refresh);
  for (const button of document.querySelectorAll(".actions button")) {
    button.addEventListener("click", () => {
      const action = button.dataset.action;
      if (action === "cancel" && !confirm(`Cancel job ${route.id}?`)) return;
      act(`/api/jobs/${route.id}/${action}`, action === "retry" ? {} : undefined);
    });
  }
  const canvas = $("#chunk-map"), tip = $("#chunk-tip");
  canvas.addEventListener("mousemove", (event) => {
    const found = chunkAt(event);
    tip.hidden = !found;
    if (!found) return;
    text(tip, describeChunk(found));
    tip.style.left = `${event.clientX + 12}px`;
    tip.style.top = `${event.clientY + 12}px`;
  });
  canvas.addEventListener("mouseleave", () => { tip.hidden = true; });
  canvas.addEventListener("click", (event) => {
    const found = chunkAt(event);
    if (found) openChunk(found.kind, found.position).catch((error) => text($("#chunk-log"), error.message));
  });
  window.addEventListener("hashchange", navigate);
  // `farm render` prints its private farm's address with a token after #token=: log in with it
  // and take it out of the address bar and the history.
  const given = location.hash.match(/^#token=(farm_[0-9a-f]+)$/);
  if (given) {
    history.replaceState(null, "", "#/");
    api("POST", "/api/session", { token: given[1] }).then(navigate, () => show("login"));
    return;
  }
  navigate();
}

document.addEventListener("DOMContentLoaded", start);
