// The jobs list (#/): every job with its state and progress, filtered by state or name.
"use strict";

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
    cell(row, "").appendChild(link(`#/jobs/${job.id}`, job.id));
    cell(row, job.name);
    stateBadge(cell(row, ""), job.state, job.paused && !hasEnded(job) ? "paused" : job.state);
    progressBar(cell(row, ""), job.percent, `${job.percent.toFixed(1)} %`);
    cell(row, job.fps == null ? "" : job.fps.toFixed(1), "live-only");
    cell(row, duration(job.etaSeconds), "live-only");
    cell(row, localTime(job.submittedAt));
    cell(row, bytes(job.segmentBytes));
  }
}
