// The job page's player: a small Media Source Extensions player of HLS playlists of fragmented
// MP4 (CMAF), with no library. It plays a running job's live preview (GET /api/jobs/N/preview.m3u8,
// an EVENT playlist of the accepted chunks from the first on, fetched again every second as it
// grows) and a done HLS job's renditions (GET /api/jobs/N/hls/master.m3u8), and marks on the
// chunk map the chunk whose frames are at the playhead.
"use strict";

// { job, url, video, source, buffer, appended (URIs), queue, segments, ended, zero, timer }
let player = null;

async function fetchPart(url, as) {
  const response = await fetch(url, { credentials: "same-origin" });
  if (!response.ok) {
    let reason = response.statusText;
    try { reason = (await response.json()).error || reason; } catch (_) { /* not JSON */ }
    throw new Error(reason);
  }
  return as === "text" ? response.text() : new Uint8Array(await response.arrayBuffer());
}

// Attributes of an #EXT-X tag: KEY=VALUE or KEY="VALUE", comma separated.
function playlistAttributes(line) {
  const found = {};
  for (const match of line.matchAll(/([A-Z0-9-]+)=("[^"]*"|[^,]*)/g)) found[match[1]] = match[2].replace(/^"|"$/g, "");
  return found;
}

// A master playlist's variants, each { uri, codecs, width, height, bandwidth }, URIs absolute.
function masterVariants(text, base) {
  const lines = text.split("\n").map((line) => line.trim()).filter(Boolean);
  const variants = [];
  lines.forEach((line, i) => {
    if (!line.startsWith("#EXT-X-STREAM-INF:") || !lines[i + 1]) return;
    const tags = playlistAttributes(line.slice(18));
    const [width, height] = (tags.RESOLUTION || "0x0").split("x").map(Number);
    variants.push({
      uri: new URL(lines[i + 1], base).href, codecs: tags.CODECS || "", width, height,
      bandwidth: Number(tags.BANDWIDTH || 0),
    });
  });
  return variants;
}

// A media playlist: its initialization segment, its segments { uri, seconds }, whether it ended.
function mediaPlaylist(text, base) {
  const lines = text.split("\n").map((line) => line.trim()).filter(Boolean);
  let map = null, seconds = null;
  const segments = [];
  for (const line of lines) {
    if (line.startsWith("#EXT-X-MAP:")) map = new URL(playlistAttributes(line.slice(11)).URI, base).href;
    else if (line.startsWith("#EXTINF:")) seconds = parseFloat(line.slice(8));
    else if (!line.startsWith("#") && seconds != null) {
      segments.push({ uri: new URL(line, base).href, seconds });
      seconds = null;
    }
  }
  return { map, segments, ended: lines.includes("#EXT-X-ENDLIST") };
}

// RFC 6381's name of the video codec an initialization segment's sample entry configures.
function initCodec(bytes) {
  const find = (name) => {
    const tag = [...name].map((c) => c.charCodeAt(0));
    for (let i = 4; i + 4 <= bytes.length; i++) {
      if (tag.every((c, k) => bytes[i + k] === c)) return i + 4;
    }
    return -1;
  };
  const hex = (value) => value.toString(16).padStart(2, "0");
  let at = find("avcC");
  if (at >= 0) return `avc1.${hex(bytes[at + 1])}${hex(bytes[at + 2])}${hex(bytes[at + 3])}`;
  at = find("av1C");
  if (at >= 0) {
    const profile = bytes[at + 1] >> 5, level = bytes[at + 1] & 31, tier = bytes[at + 2] >> 7 ? "H" : "M";
    const high = (bytes[at + 2] >> 6) & 1, twelve = (bytes[at + 2] >> 5) & 1;
    const depth = high ? (profile === 2 && twelve ? 12 : 10) : 8;
    return `av01.${profile}.${String(level).padStart(2, "0")}${tier}.${String(depth).padStart(2, "0")}`;
  }
  at = find("hvcC");
  if (at >= 0) {
    const space = ["", "A", "B", "C"][bytes[at + 1] >> 6], tier = (bytes[at + 1] >> 5) & 1 ? "H" : "L";
    let flags = 0;
    for (let k = 0; k < 4; k++) flags = (flags << 8) | bytes[at + 2 + k];
    let reversed = 0;
    for (let bit = 0; bit < 32; bit++) if (flags & (1 << bit)) reversed |= 1 << (31 - bit);
    const constraints = [...bytes.slice(at + 6, at + 12)];
    while (constraints.length && constraints[constraints.length - 1] === 0) constraints.pop();
    return `hvc1.${space}${bytes[at + 1] & 31}.${(reversed >>> 0).toString(16).toUpperCase()}.${tier}${bytes[at + 12]}`
      + constraints.map((c) => `.${c.toString(16).toUpperCase()}`).join("");
  }
  return "";
}

function stopPlayer() {
  if (!player) return;
  clearTimeout(player.timer);
  player.stopped = true;
  player.video.removeAttribute("src");
  player.video.load();
  player = null;
}

// Called on every refresh of the job page: starts, keeps or stops the player for `job`.
async function showPlayer(job) {
  const section = $("#job-player");
  const live = job.state === "queued" || job.state === "running" || job.state === "joining";
  const packaged = job.state === "done" && /\.m3u8$/i.test(job.output);
  const kind = packaged ? "package" : live ? "preview" : null;
  // A preview that was playing when its job ended plays on; a package replaces it.
  if (!kind && player && player.job === job.id && player.kind === "preview") return;
  section.hidden = !kind;
  if (!kind) { stopPlayer(); return; }
  if (player && player.job === job.id && player.kind === kind) return;
  stopPlayer();
  text($("#player-caption"), packaged ? "(the output's renditions)" : "(the accepted chunks, growing as they come in)");
  const select = $("#player-rendition");
  select.hidden = !packaged;
  if (!packaged) { startPlayer(job, kind, `/api/jobs/${job.id}/preview.m3u8`, ""); return; }
  try {
    const base = new URL(`/api/jobs/${job.id}/hls/master.m3u8`, location.href).href;
    const variants = masterVariants(await fetchPart(base, "text"), base);
    select.textContent = "";
    for (const variant of variants) {
      const option = document.createElement("option");
      option.value = variant.uri;
      option.dataset.codecs = variant.codecs;
      text(option, `${variant.width}x${variant.height}, ${bytes(variant.bandwidth / 8)}/s`);
      select.appendChild(option);
    }
    const chosen = () => select.selectedOptions[0];
    select.onchange = () => { stopPlayer(); startPlayer(job, kind, chosen().value, chosen().dataset.codecs); };
    if (variants.length) startPlayer(job, kind, chosen().value, chosen().dataset.codecs);
  } catch (error) {
    text($("#player-status"), `no package to play: ${error.message}`);
  }
}

function startPlayer(job, kind, url, codecs) {
  const video = $("#player");
  const source = new MediaSource();
  const state = {
    job: job.id, kind, live: kind === "preview", url: new URL(url, location.href).href, video, source,
    buffer: null, appended: new Set(), segments: [], ended: false, zero: null, timer: null, stopped: false,
    frames: job.frameCount,
  };
  player = state;
  video.src = URL.createObjectURL(source);
  source.addEventListener("sourceopen", () => load(state, codecs), { once: true });
}

const appendTo = (buffer, bytes) => new Promise((resolve, reject) => {
  buffer.addEventListener("updateend", resolve, { once: true });
  buffer.addEventListener("error", () => reject(new Error("the browser refused a segment")), { once: true });
  buffer.appendBuffer(bytes);
});

// Reads the playlist, appends what is new, and, until it ends, comes back in two seconds.
async function load(state, codecs) {
  if (state.stopped) return;
  const status = $("#player-status");
  try {
    const playlist = mediaPlaylist(await fetchPart(state.url, "text"), state.url);
    state.segments = playlist.segments;
    if (!state.buffer && playlist.map && playlist.segments.length) {
      const init = await fetchPart(playlist.map);
      const video = (codecs.split(",").find((c) => /^(avc1|hvc1|hev1|av01)/.test(c)) || initCodec(init)).trim();
      const type = `video/mp4; codecs="${video}"`;
      if (!MediaSource.isTypeSupported(type)) throw new Error(`this browser cannot play ${type}`);
      state.buffer = state.source.addSourceBuffer(type);
      await appendTo(state.buffer, init);
    }
    let seconds = 0, count = 0;
    const report = (last) => {
      text(status, `${count} segments, ${seconds.toFixed(1)} s${last && playlist.ended ? "" : " so far"}`);
      status.dataset.seconds = seconds.toFixed(3);
    };
    for (const segment of playlist.segments) {
      if (state.stopped) return;
      if (!state.appended.has(segment.uri)) {
        await appendTo(state.buffer, await fetchPart(segment.uri));
        state.appended.add(segment.uri);
        if (state.zero == null && state.buffer.buffered.length) {
          state.zero = state.buffer.buffered.start(0);
          state.video.currentTime = state.zero;
          state.video.play().catch(() => {});
        }
      }
      // Said as each segment is in, not once the whole list is.
      seconds += segment.seconds;
      count++;
      report(false);
    }
    report(true);
    if (playlist.ended) {
      state.ended = true;
      if (state.source.readyState === "open" && state.buffer && !state.buffer.updating) state.source.endOfStream();
      return;
    }
  } catch (error) {
    text(status, error.message);
  }
  state.timer = setTimeout(() => load(state, codecs), state.live ? 1000 : 2000);
}

// The output frame at the playhead: within its segment for the preview (a segment is a chunk),
// at the package's mean rate otherwise.
function playheadFrame() {
  if (!player || player.zero == null || !chunkMap) return null;
  const at = player.video.currentTime - player.zero;
  if (player.kind === "preview") {
    let start = 0;
    for (const segment of player.segments) {
      const index = Number(segment.uri.match(/(\d+)\.m4s$/)[1]);
      if (at < start + segment.seconds) {
        const first = chunkMap.video.start[index], last = chunkMap.video.end[index];
        return first + Math.floor((at - start) / segment.seconds * (last - first));
      }
      start += segment.seconds;
    }
    return null;
  }
  const seconds = player.segments.reduce((sum, segment) => sum + segment.seconds, 0);
  return seconds > 0 ? Math.floor(at * player.frames / seconds) : null;
}

function startPlayerView() {
  $("#player").addEventListener("timeupdate", () => markPlayhead(playheadFrame()));
}
