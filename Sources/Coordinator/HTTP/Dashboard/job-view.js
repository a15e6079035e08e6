// One job (#/jobs/N): its facts, the controls its state and the session's role allow, the chunks
// rendering now (live), the chunk map, a chunk's attempts with their log lines, the render rate
// and the first frames of finished chunks.
"use strict";

let shownJob = null;
// The chunk whose attempts are open: { kind, index }, or null.
let openedChunk = null;

async function renderJob(id) {
  const [detail, map, rate] = await Promise.all([
    api("GET", `/api/jobs/${id}`), api("GET", `/api/jobs/${id}/chunks`), api("GET", `/api/jobs/${id}/rate`),
  ]);
  const job = detail.job;
  shownJob = job;
  text($("#job-title"), `Job ${job.id}: ${job.name}`);
  stateBadge($("#job-state"), job.state, job.paused && !hasEnded(job) ? `${job.state}, paused` : job.state);
  $("#job-bar").style.width = `${job.percent}%`;
  const progress = $("#job-progress");
  text(progress, `${job.framesDone} of ${job.frameCount} frames (${job.percent.toFixed(1)} %)`);
  progress.dataset.percent = job.percent;
  text($("#job-eta"), job.etaSeconds == null ? "" : `ETA ${duration(job.etaSeconds)}`);
  const waiting = $("#job-waiting");
  waiting.hidden = !job.waitingFor;
  text(waiting, job.waitingFor ? `Waiting: ${job.waitingFor}` : "");
  text($("#job-error"), job.error || job.warning || "");
  showFacts(job);
  showJobControls(job);
  // Everything from this one snapshot is drawn before the next await, so the page never shows a
  // done job beside the map of a moment before; the QC report and trace are fetched after.
  showRunningChunks(detail.chunks);
  showFailedAttempts(detail.errors || []);
  drawChunkMap(map);
  drawRate(rate);
  showThumbnails(id, map);
  showPlayer(job);
  await showQC(job);
  await showTrace(job);
  if (openedChunk) await showAttempts(openedChunk.kind, openedChunk.index);
}

function showFacts(job) {
  text($("#job-output"), job.output);
  text($("#job-submitted"), localTime(job.submittedAt));
  const elapsed = job.elapsedSeconds == null ? "not started" : duration(job.elapsedSeconds);
  text($("#job-elapsed"), job.finishedAt ? `${elapsed} (finished ${localTime(job.finishedAt)})` : elapsed);
  text($("#job-priority"), job.priority);
  const input = $("#priority-input");
  // Not while the operator is typing a new one.
  if (document.activeElement !== input) input.value = job.priority;
  text($("#job-requires"), job.requires && job.requires.length ? job.requires.join(", ") : "no tags");
  text($("#job-kind"), job.renderKind || "not known until a worker claims its first chunk");
}

// Pause only a queued or running job that is not paused, resume only a paused one, cancel only
// an unfinished one, retry only a failed or cancelled one; none of them for a read token.
function showJobControls(job) {
  const operate = canOperate(), ended = hasEnded(job);
  const allowed = {
    pause: operate && !job.paused && (job.state === "queued" || job.state === "running"),
    resume: operate && job.paused && !ended,
    cancel: operate && !ended,
    retry: operate && (job.state === "failed" || job.state === "cancelled"),
  };
  for (const button of document.querySelectorAll("#job-actions button")) {
    button.hidden = !allowed[button.dataset.action];
  }
  $("#priority-form").hidden = !(operate && !ended);
  $("#job-priority").hidden = !$("#priority-form").hidden;
}

// A chunk may be sent back alone once its latest attempt failed; only video chunks (the API's
// retry takes a video chunk's index), and not while the job is being joined.
const chunkRetryAllowed = (kind, state) =>
  canOperate() && kind === "video" && state === "failed" && shownJob && shownJob.state !== "joining";

function retryChunk(index) {
  act("POST", `/api/jobs/${route.id}/retry`, { chunk: index }, $("#job-action-error"));
}

// The newest failed or lost attempts, as `farm status JOB` lists them; a click opens the chunk.
function showFailedAttempts(attempts) {
  $("#job-errors").hidden = !attempts.length;
  const body = $("#job-error-attempts tbody");
  body.textContent = "";
  for (const attempt of attempts) {
    const row = body.insertRow();
    row.dataset.outcome = attempt.outcome;
    row.className = "clickable";
    row.addEventListener("click", () => openChunk(attempt.kind, attempt.chunk));
    cell(row, chunkName(attempt.kind, attempt.chunk));
    cell(row, attempt.attempt);
    cell(row, attempt.worker);
    stateBadge(cell(row, ""), attempt.outcome);
    cell(row, attempt.finishedAt ? localTime(attempt.finishedAt) : "");
    cell(row, attempt.error || "", "error");
  }
}

// The chunks rendering now or waiting after a failed attempt (GET /api/jobs/:id lists just those).
function showRunningChunks(chunks) {
  const body = $("#running-chunks tbody");
  body.textContent = "";
  const order = (chunk) => (chunk.state === "running" ? 0 : 1);
  for (const chunk of [...chunks].sort((a, b) => order(a) - order(b))) {
    const row = body.insertRow();
    row.dataset.chunk = `${chunk.kind} ${chunk.index}`;
    row.className = "clickable";
    row.addEventListener("click", () => openChunk(chunk.kind, chunk.index));
    cell(row, chunkName(chunk.kind, chunk.index));
    stateBadge(cell(row, ""), chunk.state);
    cell(row, chunk.worker || "");
    cell(row, chunk.attempt);
    const progress = cell(row, "");
    if (chunk.kind === "video") {
      const total = chunk.end - chunk.start, done = chunk.framesDone || 0;
      progressBar(progress, total ? done / total * 100 : 0, `${done}/${total} frames`);
    } else {
      const total = (chunk.end - chunk.start) / (chunk.sampleRate || 1), done = chunk.soundSeconds || 0;
      progressBar(progress, total ? done / total * 100 : 0, `${done.toFixed(1)}/${total.toFixed(1)} s of sound`);
    }
    cell(row, chunk.fps == null ? "" : chunk.fps.toFixed(1));
    cell(row, chunk.seconds == null ? "" : chunk.seconds.toFixed(1));
    const actions = cell(row, "");
    if (chunkRetryAllowed(chunk.kind, chunk.state)) {
      actions.appendChild(controlButton("Retry this chunk", "retry-chunk", () => retryChunk(chunk.index)));
    }
    if (chunk.error) row.title = chunk.error;
  }
  if (!chunks.length) {
    const row = body.insertRow();
    row.className = "empty";
    const td = row.insertCell();
    td.colSpan = 8;
    td.textContent = "no chunk is rendering or waiting after a failure";
  }
}

async function openChunk(kind, index) {
  openedChunk = { kind, index };
  text($("#chunk-error"), "");
  try {
    await showAttempts(kind, index);
  } catch (error) {
    text($("#chunk-error"), error.message);
  }
}

function closeChunk() {
  openedChunk = null;
  $("#chunk-detail").hidden = true;
}

// Every attempt at one chunk, each with the lines its worker logged (`farm logs JOB --chunk N`).
async function showAttempts(kind, index) {
  const attempts = await api("GET", `/api/jobs/${route.id}/attempts?chunk=${index}&kind=${kind}`);
  const detail = $("#chunk-detail");
  detail.hidden = false;
  detail.dataset.chunk = `${kind} ${index}`;
  text($("#chunk-detail-title"), chunkName(kind, index).replace(/^./, (c) => c.toUpperCase()));
  const letter = chunkLetter(kind, index);
  $("#chunk-retry").hidden = !chunkRetryAllowed(kind, letter ? stateNames[letter] : "");
  const body = $("#chunk-attempts tbody");
  body.textContent = "";
  const logs = $("#chunk-log");
  logs.textContent = "";
  for (const attempt of attempts) {
    const row = body.insertRow();
    cell(row, attempt.attempt);
    cell(row, attempt.worker);
    stateBadge(cell(row, ""), attempt.outcome);
    cell(row, new Date(attempt.startedAt).toLocaleTimeString());
    cell(row, attempt.seconds.toFixed(2));
    cell(row, attempt.fps == null ? "" : attempt.fps.toFixed(1));
    logs.appendChild(attemptLog(attempt));
  }
  if (!attempts.length) text(logs, "no attempts yet");
}

function attemptLog(attempt) {
  const section = document.createElement("section");
  section.className = "attempt-log";
  section.dataset.attempt = attempt.attempt;
  const end = attempt.finishedAt ? ` → ${attempt.outcome} at ${attempt.finishedAt}` : " (running)";
  // A video chunk counts frames, an audio block seconds of sound.
  const made = attempt.soundSeconds == null
    ? `${attempt.framesDone ?? 0} frames` : `${attempt.soundSeconds.toFixed(1)} s of sound`;
  const heading = document.createElement("h4");
  heading.textContent = `${attempt.startedAt} attempt ${attempt.attempt} on ${attempt.worker}${end}, ${made}`;
  const lines = document.createElement("pre");
  const logged = (attempt.log || []).filter((line) => line !== "");
  if (attempt.error) logged.push(`error: ${attempt.error}`);
  lines.textContent = logged.length ? logged.join("\n") : "(no log lines from its worker)";
  section.append(heading, lines);
  return section;
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

function startJobView() {
  const errors = $("#job-action-error");
  for (const button of document.querySelectorAll("#job-actions button")) {
    button.addEventListener("click", () => {
      const action = button.dataset.action;
      if (action === "cancel" && !confirm(`Cancel job ${route.id}?`)) return;
      act("POST", `/api/jobs/${route.id}/${action}`, action === "retry" ? {} : undefined, errors);
    });
  }
  $("#priority-form").addEventListener("submit", (event) => {
    event.preventDefault();
    const priority = Number($("#priority-input").value);
    if (!Number.isInteger(priority)) { text(errors, "a priority is a whole number"); return; }
    $("#priority-input").blur();
    act("PUT", `/api/jobs/${route.id}/priority`, { priority }, errors);
  });
  $("#chunk-retry").addEventListener("click", () => { if (openedChunk) retryChunk(openedChunk.index); });
  startChunkMap((kind, index) => openChunk(kind, index));
}
