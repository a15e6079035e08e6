// A finished job's QC report on its page: what the coordinator measured from the output file
// (GET /api/jobs/:id/qc), read once per job when it has ended.
"use strict";

let qcShownFor = null;

async function showQC(job) {
  const section = $("#job-qc");
  if (!hasEnded(job)) {
    section.hidden = true;
    qcShownFor = null;
    return;
  }
  if (qcShownFor === job.id) return;
  qcShownFor = job.id;
  let report;
  try {
    report = await api("GET", `/api/jobs/${job.id}/qc`);
  } catch (error) {
    // A cancelled job, or one that failed before its join, has no report.
    section.hidden = true;
    return;
  }
  section.hidden = false;
  const verdict = $("#qc-verdict");
  if (report.target) {
    text(verdict, report.misses.length ? `Target missed: ${report.misses.join("; ")}` : "Target met");
    verdict.className = report.misses.length ? "error" : "ok";
  } else {
    text(verdict, "No loudness target");
    verdict.className = "";
  }
  const facts = $("#qc-facts");
  facts.replaceChildren();
  const add = (term, value) => {
    const dt = document.createElement("dt");
    const dd = document.createElement("dd");
    dt.textContent = term;
    dd.textContent = value;
    facts.append(dt, dd);
  };
  const figure = (value, unit) => (value == null ? "none" : `${value.toFixed(1)} ${unit}`);
  const runs = (list) =>
    list.length ? list.map((run) => `${run.start.toFixed(2)}–${run.end.toFixed(2)} s`).join(", ") : "none";
  add("File", `${report.container}, ${bytes(report.bytes)}`);
  if (report.video) {
    const video = report.video;
    add("Video", `${video.codec} ${video.width}×${video.height} ${video.pixelFormat || ""}, ${video.frames} frames`);
    add("Black", runs(video.blacks));
  }
  if (report.audio) {
    const audio = report.audio;
    add("Audio", `${audio.codec} ${audio.sampleRate} Hz, ${audio.channels} channels`);
    add("Loudness", `${figure(audio.integrated, "LUFS")}, range ${figure(audio.loudnessRange, "LU")}`);
    add("Peaks", `true ${figure(audio.truePeak, "dBTP")}, sample ${figure(audio.samplePeak, "dBFS")}`);
    add("Silence", runs(audio.silences));
  }
  const seams = report.seams;
  add("Seams", seams.broken.length ? `${seams.broken.length} broken: ${seams.broken.join("; ")}`
    : `${seams.checked} checked, all continuous`);
}
