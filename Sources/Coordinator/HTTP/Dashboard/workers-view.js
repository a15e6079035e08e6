// The workers (#/workers): what each is, holds and has done, a drain button for an operate token,
// and (#/workers/ID) one worker's recent attempts over every job.
"use strict";

async function renderWorkers(selected) {
  const [workers, history] = await Promise.all([
    api("GET", "/api/workers"),
    selected ? api("GET", `/api/workers/${encodeURIComponent(selected)}/attempts?limit=20`) : null,
  ]);
  const body = $("#workers tbody");
  body.textContent = "";
  for (const worker of workers) {
    const row = body.insertRow();
    row.dataset.worker = worker.id;
    if (worker.id === selected) row.className = "selected";
    cell(row, "").appendChild(link(`#/workers/${encodeURIComponent(worker.id)}`, worker.id));
    cell(row, worker.host);
    stateBadge(cell(row, ""), worker.state);
    cell(row, worker.slots);
    cell(row, worker.version);
    cell(row, worker.tags.length ? worker.tags.join(", ") : "none");
    cell(row, worker.kindSummary).title = `kind ${worker.kind}`;
    // One box for the links, so that a narrow layout wraps them as text.
    const current = document.createElement("span");
    cell(row, "", "live-only").appendChild(current);
    for (const [i, held] of worker.current.entries()) {
      if (i) current.append(", ");
      current.appendChild(link(`#/jobs/${held.job}`, `job ${held.job} ${chunkName(held.kind, held.chunk)}`));
    }
    cell(row, worker.chunksDone);
    // Now, as `farm workers` says it: the lifetime average beside it, never in its place.
    const now = (worker.currentFps ?? 0).toFixed(1);
    const fps = cell(row, worker.averageFps == null ? now : `${now} (avg ${worker.averageFps.toFixed(1)})`);
    fps.dataset.fpsNow = now;
    cell(row, `${duration(worker.secondsSinceHeartbeat)} ago`);
    const actions = cell(row, "");
    if (canOperate()) {
      const action = worker.draining ? "undrain" : "drain";
      actions.appendChild(controlButton(worker.draining ? "Undrain" : "Drain", action, () =>
        act("POST", `/api/workers/${encodeURIComponent(worker.id)}/${action}`, undefined, $("#workers-error"))));
    }
  }
  showWorkerHistory(selected, history);
}

function showWorkerHistory(worker, attempts) {
  const box = $("#worker-history");
  box.hidden = !worker;
  if (!worker) return;
  text($("#worker-history-title"), `${worker}: its ${attempts.length} newest attempts`);
  const body = $("#worker-attempts tbody");
  body.textContent = "";
  for (const attempt of attempts) {
    const row = body.insertRow();
    cell(row, "").appendChild(link(`#/jobs/${attempt.job}`, `job ${attempt.job}`));
    cell(row, chunkName(attempt.kind, attempt.chunk));
    cell(row, attempt.attempt);
    stateBadge(cell(row, ""), attempt.outcome);
    cell(row, localTime(attempt.startedAt));
    cell(row, attempt.seconds.toFixed(1));
    cell(row, attempt.soundSeconds == null
      ? `${attempt.framesDone ?? 0} frames${attempt.fps == null ? "" : ` at ${attempt.fps.toFixed(1)} fps`}`
      : `${attempt.soundSeconds.toFixed(1)} s of sound`);
    cell(row, attempt.error || "");
  }
}
