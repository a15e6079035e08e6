// A job's render rate over time (GET /api/jobs/:id/rate) as an SVG line plot with axes: frames
// per second up the left, time since the first chunk was assigned along the bottom. The plot is
// drawn at the size it is shown (one unit a pixel), so its text is never stretched.
"use strict";

const svgNamespace = "http://www.w3.org/2000/svg";
let ratePoints = [];

function svgElement(name, attributes, content) {
  const element = document.createElementNS(svgNamespace, name);
  for (const [key, value] of Object.entries(attributes)) element.setAttribute(key, value);
  if (content != null) element.textContent = content;
  return element;
}

// The first of 1, 2, 5 × a power of ten at or above `rough`: ticks at round numbers.
function niceStep(rough) {
  const power = 10 ** Math.floor(Math.log10(Math.max(rough, 1e-6)));
  return [1, 2, 5, 10].map((m) => m * power).find((step) => step >= rough);
}

// Seconds between time ticks, from steps a clock reads well.
function timeStep(rough) {
  const steps = [1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600, 7200, 14400, 28800, 86400];
  return steps.find((step) => step >= rough) || steps[steps.length - 1];
}

// 45 → "45s", 135 → "2:15", 3700 → "1:01:40".
function clock(seconds) {
  if (seconds < 60) return `${seconds}s`;
  const h = Math.floor(seconds / 3600), m = Math.floor(seconds % 3600 / 60), s = seconds % 60;
  const mm = h ? String(m).padStart(2, "0") : String(m);
  return `${h ? `${h}:` : ""}${mm}:${String(s).padStart(2, "0")}`;
}

function drawRate(points) {
  ratePoints = points;
  const svg = $("#rate-plot");
  svg.textContent = "";
  svg.dataset.points = points.length;
  const width = Math.max(240, Math.round(svg.getBoundingClientRect().width || 600)), height = 190;
  svg.setAttribute("viewBox", `0 0 ${width} ${height}`);
  const box = { left: 52, right: width - 14, top: 12, bottom: height - 40 };
  const peak = Math.max(0, ...points.map((p) => p.fps));
  const yStep = niceStep(Math.max(peak, 1) / 4), yMax = Math.max(yStep, Math.ceil(peak / yStep) * yStep);
  const end = points.length ? Math.max(points[points.length - 1].seconds, 1) : 60;
  const xStep = timeStep(end / Math.max(2, Math.floor((box.right - box.left) / 80)));
  const x = (seconds) => box.left + seconds / end * (box.right - box.left);
  const y = (fps) => box.bottom - fps / yMax * (box.bottom - box.top);
  for (let fps = 0; fps <= yMax + yStep / 1000; fps += yStep) {
    svg.appendChild(svgElement("line", { class: "grid", x1: box.left, x2: box.right, y1: y(fps), y2: y(fps) }));
    const label = Number.isInteger(yStep) ? String(fps) : fps.toFixed(1);
    svg.appendChild(svgElement("text", { class: "tick", x: box.left - 6, y: y(fps) + 4, "text-anchor": "end" }, label));
  }
  for (let seconds = 0; seconds <= end + xStep / 1000; seconds += xStep) {
    svg.appendChild(svgElement("line", { class: "axis", x1: x(seconds), x2: x(seconds), y1: box.bottom, y2: box.bottom + 4 }));
    svg.appendChild(svgElement("text", {
      class: "tick", x: x(seconds), y: box.bottom + 16, "text-anchor": "middle" }, clock(seconds)));
  }
  svg.appendChild(svgElement("line", { class: "axis", x1: box.left, x2: box.right, y1: box.bottom, y2: box.bottom }));
  svg.appendChild(svgElement("line", { class: "axis", x1: box.left, x2: box.left, y1: box.top, y2: box.bottom }));
  svg.appendChild(svgElement("text", {
    class: "axis-title", x: 12, y: (box.top + box.bottom) / 2, "text-anchor": "middle",
    transform: `rotate(-90 12 ${(box.top + box.bottom) / 2})` }, "frames/s"));
  svg.appendChild(svgElement("text", {
    class: "axis-title", x: box.right, y: height - 4, "text-anchor": "end" }, "time since the first chunk started"));
  if (points.length) {
    const coordinates = [[x(0), y(0)]].concat(points.map((p) => [x(p.seconds), y(p.fps)]));
    svg.appendChild(svgElement("polyline", { points: coordinates.map((c) => c.join(",")).join(" ") }));
  }
  text($("#rate-summary"), points.length
    ? `peak ${peak.toFixed(1)} frames/s over ${duration(end)}` : "no chunk accepted yet");
}

// Drawn again at the new size when the window changes, since one unit is one pixel.
window.addEventListener("resize", () => { if (!$("#job-view").hidden) drawRate(ratePoints); });
