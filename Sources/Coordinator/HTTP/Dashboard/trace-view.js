// A finished job's trace on its page (GET /api/jobs/:id/trace): a row per worker render slot,
// time across, a bar per render, as `farm trace` prints it; read once per job when it has ended.
"use strict";

let traceShownFor = null;

async function showTrace(job) {
  const section = $("#job-trace");
  if (!hasEnded(job)) {
    section.hidden = true;
    traceShownFor = null;
    return;
  }
  if (traceShownFor === job.id) return;
  traceShownFor = job.id;
  let answer;
  try {
    answer = await api("GET", `/api/jobs/${job.id}/trace`);
  } catch (error) {
    section.hidden = true;
    return;
  }
  const summary = answer.summary;
  if (!summary.slots.length) {
    section.hidden = true;
    return;
  }
  section.hidden = false;
  const end = Math.max(summary.finished || 0, summary.lastAccepted || 0, 1e-9);
  const rows = $("#trace-rows");
  rows.replaceChildren();
  const percent = (seconds) => `${(100 * seconds / end).toFixed(3)}%`;
  for (const slot of summary.slots) {
    const row = document.createElement("div");
    row.className = "trace-row";
    const label = document.createElement("span");
    label.className = "trace-label";
    label.textContent = `${slot.worker}#${slot.lane}`;
    label.title = `${(100 * slot.busyUntilLastStart).toFixed(1)} % rendering until the last render began`;
    const lane = document.createElement("span");
    lane.className = "trace-lane";
    for (const render of slot.renders) {
      const bar = document.createElement("span");
      bar.className = "trace-bar";
      bar.style.left = percent(render.start);
      bar.style.width = percent(Math.max(render.end - render.start, end / 500));
      bar.title = `${render.name}: ${render.start.toFixed(2)}–${render.end.toFixed(2)} s`;
      lane.append(bar);
    }
    row.append(label, lane);
    rows.append(row);
  }
  const tail = [];
  if (summary.joinStarted != null && summary.joined != null && summary.checked != null) {
    tail.push(`join ${(summary.joined - summary.joinStarted).toFixed(2)} s, QC ${(summary.checked - summary.joined).toFixed(2)} s`);
  }
  const phases = summary.phases;
  tail.push(`rendering ${phases.rendering.toFixed(1)} s of ${(phases.delivering + phases.waiting + phases.rendering
    + phases.uploading + phases.verifying + phases.accepting).toFixed(1)} s from sent to accepted`);
  text($("#trace-tail"), `0 to ${end.toFixed(2)} s from the first assignment; ${tail.join("; ")}`);
}
