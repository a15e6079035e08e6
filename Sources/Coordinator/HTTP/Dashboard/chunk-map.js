// A job's chunk map: a canvas cell per video chunk (in timeline order) and, after them, per
// audio block, coloured by state, from GET /api/jobs/:id/chunks (ChunkMap.swift's compact shape).
"use strict";

const colors = { q: "--queued", r: "--running", d: "--done", f: "--failed", c: "--reused", x: "--stopped" };
const stateNames = { q: "queued", r: "running", d: "done", f: "failed", c: "reused", x: "stopped" };
// Video chunks, then audio blocks, then a loudness target's measuring passes, each from a new row.
const mapKinds = ["video", "audio", "loudness"];
let chunkMap = null;

const mapList = (map, kind) => map[kind] || { states: "" };

function drawChunkMap(map) {
  chunkMap = map;
  const canvas = $("#chunk-map");
  const all = mapKinds.map((kind) => mapList(map, kind).states).join("");
  const size = Math.max(4, Math.min(18, Math.floor(Math.sqrt(960 * 240 / Math.max(all.length, 1)))));
  const columns = Math.floor(960 / size);
  const firstRows = {};
  let rows = 0;
  for (const kind of mapKinds) {
    firstRows[kind] = rows;
    rows += Math.ceil(mapList(map, kind).states.length / columns);
  }
  canvas.height = Math.max(rows, 1) * size;
  canvas.dataset.cell = size;
  canvas.dataset.columns = columns;
  canvas.dataset.firstRows = JSON.stringify(firstRows);
  const context = canvas.getContext("2d");
  context.clearRect(0, 0, canvas.width, canvas.height);
  // Six colours, looked up once rather than once a cell.
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
  for (const kind of mapKinds) paint(mapList(map, kind).states, firstRows[kind]);
  outlinePlayhead();
  const counts = { q: 0, r: 0, d: 0, f: 0, c: 0, x: 0 };
  for (const letter of all) counts[letter]++;
  canvas.dataset.states = all;
  canvas.dataset.done = counts.d + counts.c;
  canvas.dataset.total = all.length;
  const legend = $("#chunk-legend");
  legend.textContent = "";
  for (const letter of "qrdfcx") {
    if (letter === "x" && counts.x === 0) continue;
    const span = document.createElement("span");
    span.innerHTML = "<i></i>";
    span.querySelector("i").style.background = `var(${colors[letter]})`;
    span.append(`${stateNames[letter]} ${counts[letter]}`);
    legend.appendChild(span);
  }
}

// The video chunk whose frames the player shows (player.js), outlined on the map.
let playheadChunk = -1;

function markPlayhead(frame) {
  const video = chunkMap ? chunkMap.video : null;
  let found = -1;
  if (video && frame != null) {
    for (let i = 0; i < video.states.length; i++) if (video.start[i] <= frame && frame < video.end[i]) found = i;
  }
  if (found === playheadChunk) return;
  playheadChunk = found;
  drawChunkMap(chunkMap);
}

function outlinePlayhead() {
  const canvas = $("#chunk-map");
  canvas.dataset.playhead = playheadChunk;
  if (playheadChunk < 0 || !chunkMap || playheadChunk >= chunkMap.video.states.length) return;
  const size = Number(canvas.dataset.cell), columns = Number(canvas.dataset.columns);
  const context = canvas.getContext("2d");
  context.strokeStyle = "#111";
  context.lineWidth = 2;
  context.strokeRect((playheadChunk % columns) * size + 1, Math.floor(playheadChunk / columns) * size + 1,
    size - 3, size - 3);
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
  const firstRows = JSON.parse(canvas.dataset.firstRows || "{}");
  const kind = mapKinds.filter((name) => firstRows[name] <= row && mapList(chunkMap, name).states.length).pop();
  if (!kind) return null;
  const position = (row - firstRows[kind]) * columns + column;
  if (column >= columns || position < 0 || position >= mapList(chunkMap, kind).states.length) return null;
  return { kind, position };
}

// A chunk's state letter in the map last drawn ("f" failed, ...), or "" if the map lacks it.
const chunkLetter = (kind, index) => (chunkMap && mapList(chunkMap, kind).states[index]) || "";

function describeChunk(found) {
  const list = chunkMap[found.kind], i = found.position;
  const worker = list.worker[i] >= 0 ? chunkMap.workers[list.worker[i]] : "no worker yet";
  const seconds = list.seconds[i] >= 0 ? `, ${list.seconds[i].toFixed(1)} s` : "";
  const what = found.kind === "video" ? `chunk ${i}, frames ${list.start[i]}–${list.end[i]}`
    : found.kind === "audio" ? `audio block ${i}` : `loudness block ${i} (audio block ${i} measured)`;
  return `${what}: ${stateNames[list.states[i]]}, ${worker}, attempt ${list.attempt[i]}${seconds}`;
}

// Hovering names a chunk; a click calls `open(kind, index)`.
function startChunkMap(open) {
  const canvas = $("#chunk-map"), tip = $("#chunk-tip");
  canvas.addEventListener("mousemove", (event) => {
    const found = chunkAt(event);
    tip.hidden = !found;
    if (!found) return;
    text(tip, describeChunk(found));
    tip.style.left = `${Math.min(event.clientX + 12, window.innerWidth - tip.offsetWidth - 4)}px`;
    tip.style.top = `${event.clientY + 12}px`;
  });
  canvas.addEventListener("mouseleave", () => { tip.hidden = true; });
  canvas.addEventListener("click", (event) => {
    const found = chunkAt(event);
    // A loudness block's log is its audio block's first pass: no page of its own.
    if (found && found.kind !== "loudness") open(found.kind, found.position);
  });
}
