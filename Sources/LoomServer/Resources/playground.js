// The playground: edit a layout request, see it laid out by this server. It talks to the
// server through the JavaScript client (/loom.js, clients/js/loom.js in the repository).
import { LoomClient, LoomError, makeRequest } from "/loom.js";

const client = new LoomClient(location.origin, { retries: 1 });
const $ = (id) => document.getElementById(id);
const tree = $("tree"), statusLine = $("status"), canvas = $("canvas"), view = $("view");
const picker = $("example"), specs = $("specs"), tableBody = document.querySelector("#frames tbody");
const colors = ["#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#17becf"];
const NODE_TYPES = new Set(["node", "text", "image", "button"]);

let examples = [];
let zoom = 1, fit = true;
let shown = null; // {result, body}: what is drawn
let generation = 0, runs = 0, timer = 0;

// ---------------------------------------------------------------------------------------
// The tree in the URL fragment: #tree=<base64url of the JSON>[&specs=1].

function toBase64URL(text) {
  let binary = "";
  for (const b of new TextEncoder().encode(text)) binary += String.fromCharCode(b);
  return btoa(binary).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

function fromBase64URL(s) {
  const binary = atob(s.replace(/-/g, "+").replace(/_/g, "/"));
  return new TextDecoder().decode(Uint8Array.from(binary, (c) => c.charCodeAt(0)));
}

function fragment() {
  const params = new URLSearchParams(location.hash.slice(1));
  return { tree: params.get("tree"), specs: params.get("specs") === "1" };
}

function shareURL() {
  let compact = tree.value;
  try { compact = JSON.stringify(JSON.parse(tree.value)); } catch { /* shared as typed */ }
  const params = new URLSearchParams();
  params.set("tree", toBase64URL(compact));
  if (specs.checked) params.set("specs", "1");
  return location.pathname + "#" + params.toString();
}

// ---------------------------------------------------------------------------------------
// Status and errors.

function setStatus(text, isError) {
  statusLine.textContent = text;
  statusLine.className = isError ? "error" : "";
}

function clearDrawing() {
  shown = null;
  canvas.replaceChildren();
  canvas.style.width = canvas.style.height = "0px";
  tableBody.replaceChildren();
  $("size").textContent = "";
  document.body.dataset.boxes = "0";
  document.body.dataset.frames = "0";
}

function finish(state) {
  document.body.dataset.state = state;
  document.body.dataset.runs = String(++runs);
}

// ---------------------------------------------------------------------------------------
// Laying out.

async function run() {
  const mine = ++generation;
  let request;
  try {
    request = JSON.parse(tree.value);
  } catch (e) {
    clearDrawing();
    setStatus(`Not valid JSON: ${e.message}`, true);
    return finish("error");
  }
  let body;
  try {
    if (request === null || typeof request !== "object" || Array.isArray(request)) {
      throw new Error("the request must be a JSON object: {\"root\": {…}, \"sizeRange\": …}");
    }
    // The client names every element without an id after its place in the tree, so that
    // every box has a frame and a row in the table.
    const options = { ...(request.options ?? {}), includeSpecs: specs.checked };
    const named = makeRequest(request.root, { options }).body;
    body = { ...request, root: named.root, options };
  } catch (e) {
    clearDrawing();
    setStatus(e.message, true);
    return finish("error");
  }
  document.body.dataset.state = "busy";
  let result;
  try {
    result = await client.layout(body);
  } catch (e) {
    if (mine !== generation) return;
    clearDrawing();
    if (e instanceof LoomError) {
      setStatus(`${e.status || "no answer"} ${e.code}: ${e.detail}` + (e.path ? `\nat ${e.path}` : ""), true);
    } else {
      setStatus(String(e?.message ?? e), true);
    }
    return finish("error");
  }
  if (mine !== generation) return;
  shown = { result, body };
  history.replaceState(null, "", shareURL());
  setStatus(`${result.size.width} × ${result.size.height} pt · cache ${result.cache ?? "?"}`
    + (result.warnings.length ? ` · ${result.warnings.length} warning(s): ${result.warnings.map((w) => `${w.path}: ${w.message}`).join("; ")}` : ""), false);
  if (fit) zoom = fitZoom();
  draw();
  finish("ok");
}

function schedule() {
  clearTimeout(timer);
  timer = setTimeout(run, 300);
}

// ---------------------------------------------------------------------------------------
// Drawing: one box per element of the answer, scaled by `zoom`.

function fitZoom() {
  if (!shown) return zoom;
  const { width, height } = shown.result.size;
  const w = view.clientWidth - 18, h = view.clientHeight - 18;
  if (!(width > 0) || !(height > 0) || w <= 0 || h <= 0) return 1;
  return Math.max(0.1, Math.min(8, w / width, h / height));
}

/** Element objects of the request by id (every element has one after makeRequest). */
function elementsById(root) {
  const map = new Map();
  const visit = (el) => {
    if (!el || typeof el !== "object") return;
    if (typeof el.id === "string") map.set(el.id, el);
    for (const k of ["child", "overlay", "background", "corner", "layout"]) visit(el[k]);
    for (const k of ["children", "yogaChildren"]) if (Array.isArray(el[k])) el[k].forEach(visit);
  };
  visit(root);
  return map;
}

function fontCSS(font, base) {
  const f = { ...(base ?? {}), ...(font ?? {}) };
  const weights = { ultraLight: 100, thin: 200, light: 300, regular: 400, medium: 500, semibold: 600, bold: 700, heavy: 800, black: 900 };
  const weight = typeof f.weight === "number" ? f.weight : weights[f.weight] ?? (f.weight === "normal" ? 400 : 400);
  const size = typeof f.size === "number" ? f.size : 12;
  const family = typeof f.family === "string" ? `"${f.family.replace(/["\\]/g, "")}", sans-serif` : "sans-serif";
  return { family, size, weight, italic: f.italic === true, merged: f };
}

/** A text element's string in its font, wrapped by the browser in the node's box. */
function drawText(el, x, y, w, h) {
  const d = document.createElement("div");
  d.className = "text";
  const inset = el.textContainerInset ?? {};
  const base = fontCSS(el.font);
  Object.assign(d.style, {
    left: x * zoom + "px", top: y * zoom + "px", width: w * zoom + "px", height: h * zoom + "px",
    padding: `${(inset.top ?? 0) * zoom}px ${(inset.right ?? 0) * zoom}px ${(inset.bottom ?? 0) * zoom}px ${(inset.left ?? 0) * zoom}px`,
    fontFamily: base.family, fontSize: base.size * zoom + "px", fontWeight: String(base.weight),
    fontStyle: base.italic ? "italic" : "normal",
    textAlign: ["center", "right", "justify"].includes(el.alignment) ? el.alignment : el.alignment === "justified" ? "justify" : "left",
  });
  if (typeof el.lineHeight === "number") d.style.lineHeight = el.lineHeight * zoom + "px";
  if (typeof el.letterSpacing === "number") d.style.letterSpacing = el.letterSpacing * zoom + "px";
  if (el.maximumNumberOfLines > 0) { d.classList.add("clamped"); d.style.webkitLineClamp = String(el.maximumNumberOfLines); }
  if (Array.isArray(el.spans)) {
    for (const span of el.spans) {
      const s = document.createElement("span");
      s.textContent = String(span.text ?? "");
      if (span.font) {
        const f = fontCSS(span.font, base.merged);
        Object.assign(s.style, { fontFamily: f.family, fontSize: f.size * zoom + "px", fontWeight: String(f.weight), fontStyle: f.italic ? "italic" : "normal" });
      }
      d.appendChild(s);
    }
  } else {
    d.textContent = String(el.text ?? "");
  }
  return d;
}

function draw() {
  canvas.replaceChildren();
  tableBody.replaceChildren();
  $("zoomLevel").textContent = Math.round(zoom * 100) + "%";
  document.body.dataset.zoom = String(zoom);
  if (!shown) return;
  const { result, body } = shown;
  const byId = elementsById(body.root);
  canvas.style.width = result.size.width * zoom + "px";
  canvas.style.height = result.size.height * zoom + "px";
  $("size").textContent = `${result.size.width} × ${result.size.height} pt`;
  const labels = [];
  let count = 0;
  const visit = (entry, px, py, depth, parentEntry) => {
    const f = entry.frame, x = px + f.x, y = py + f.y;
    const index = count++;
    const isNode = NODE_TYPES.has(entry.type);
    const box = document.createElement("div");
    box.className = "box " + (isNode ? "node" : "spec");
    box.dataset.id = entry.id ?? "";
    box.dataset.index = String(index);
    Object.assign(box.style, { left: x * zoom + "px", top: y * zoom + "px", width: f.width * zoom + "px", height: f.height * zoom + "px",
                               borderColor: colors[depth % colors.length] });
    box.title = `${entry.id ?? entry.type} ${entry.type} (${x}, ${y}, ${f.width}, ${f.height})`;
    canvas.appendChild(box);
    // A button's title is drawn by its title text node.
    const el = entry.id !== undefined ? byId.get(entry.id)
      : entry.type === "text" && parentEntry?.type === "button" ? byId.get(parentEntry.id)?.title : undefined;
    if (entry.type === "text" && el) canvas.appendChild(drawText(el, x, y, f.width, f.height));
    else if (entry.id !== undefined) placeLabel(labels, entry.id, x * zoom, y * zoom, f.width * zoom, f.height * zoom, depth);
    drawnIndex.set(entry.id ?? `#${index}`, index);
    if (entry.id === undefined) unnamed.push({ index, type: entry.type, frame: { x, y, width: f.width, height: f.height } });
    for (const c of entry.children ?? []) visit(c, x, y, depth + 1, entry);
  };
  const drawnIndex = new Map(), unnamed = [];
  visit(result.layout, 0, 0, 0, undefined);
  // The table: every id's frame as the server gives it (in the root's space; specs too,
  // drawn or not), then the boxes without an id (a button's title and image).
  const rows = Object.entries(result.frames).map(([id, frame]) => ({ id, type: byId.get(id)?.type ?? "", frame, index: drawnIndex.get(id) }));
  for (const u of unnamed) rows.push({ id: "", type: u.type, frame: u.frame, index: u.index });
  for (const r of rows) {
    const row = document.createElement("tr");
    if (r.index !== undefined) {
      row.dataset.index = String(r.index);
      row.onmouseenter = () => highlight(r.index, true);
      row.onmouseleave = () => highlight(r.index, false);
    } else {
      row.className = "undrawn";
      row.title = "a spec: tick \"show specs\" to draw it";
    }
    for (const v of [r.id, r.type, r.frame.x, r.frame.y, r.frame.width, r.frame.height]) {
      const td = document.createElement("td");
      td.textContent = String(v);
      row.appendChild(td);
    }
    tableBody.appendChild(row);
  }
  document.body.dataset.boxes = String(count);
  document.body.dataset.frames = String(Object.keys(result.frames).length);
}

/** The id inside its box (shortened to the box's width), at the first corner where it
 *  overlaps no label placed before; left out when there is none (the tooltip and the table
 *  still name the box). */
function placeLabel(labels, id, x, y, w, h, depth) {
  // 11 px monospace: 6.6 px a character (6.8 with rounding), 2 px padding each side.
  const fits = Math.floor((w - 6) / 6.8);
  const keep = Math.min(24, fits);
  const text = id.length <= keep ? id : keep >= 3 ? id.slice(0, keep - 1) + "…" : "";
  const lw = text.length * 6.8 + 4, lh = 13;
  if (!text || lw > w - 2 || lh > h - 2) return;
  const spots = [[x + 1, y + 1], [x + 1, y + h - lh - 1], [x + w - lw - 1, y + 1], [x + w - lw - 1, y + h - lh - 1]];
  const spot = spots.find(([sx, sy]) => !labels.some((l) => sx < l.x + l.w && l.x < sx + lw && sy < l.y + l.h && l.y < sy + lh));
  if (!spot) return;
  labels.push({ x: spot[0], y: spot[1], w: lw, h: lh });
  const label = document.createElement("div");
  label.className = "label";
  label.textContent = text;
  Object.assign(label.style, { left: spot[0] + "px", top: spot[1] + "px", color: colors[depth % colors.length] });
  canvas.appendChild(label);
}

function highlight(index, on) {
  canvas.querySelector(`.box[data-index="${index}"]`)?.classList.toggle("hl", on);
  tableBody.querySelector(`tr[data-index="${index}"]`)?.classList.toggle("hl", on);
}

canvas.addEventListener("mouseover", (e) => {
  const box = e.target.closest?.(".box");
  tableBody.querySelectorAll("tr.hl").forEach((r) => r.classList.remove("hl"));
  if (box) tableBody.querySelector(`tr[data-index="${box.dataset.index}"]`)?.classList.add("hl");
});

// ---------------------------------------------------------------------------------------
// Controls.

function setZoom(z, keepFit = false) {
  fit = keepFit;
  zoom = Math.max(0.1, Math.min(8, z));
  draw();
}

$("fit").onclick = () => setZoom(fitZoom(), true);
$("zoomIn").onclick = () => setZoom(zoom * 1.25);
$("zoomOut").onclick = () => setZoom(zoom / 1.25);
$("actual").onclick = () => setZoom(1);
window.addEventListener("resize", () => { if (fit && shown) setZoom(fitZoom(), true); });
// Ctrl (or ⌘) and the wheel or a pinch zoom the drawing, not the page.
view.addEventListener("wheel", (e) => {
  if (!e.ctrlKey && !e.metaKey) return;
  e.preventDefault();
  setZoom(e.deltaY < 0 ? zoom * 1.25 : zoom / 1.25);
}, { passive: false });

tree.addEventListener("input", () => {
  if (picker.value !== "") picker.value = "";
  schedule();
});
specs.addEventListener("change", run);
picker.addEventListener("change", () => {
  const ex = examples.find((e) => e.name === picker.value);
  if (!ex) return;
  tree.value = JSON.stringify(ex.request, null, 2);
  fit = true;
  run();
});
$("share").onclick = async () => {
  history.replaceState(null, "", shareURL());
  try {
    await navigator.clipboard.writeText(location.href);
    setStatus("Link copied: it holds the tree in its fragment.", false);
  } catch {
    setStatus("The address bar holds the link (the tree is in its fragment).", false);
  }
};

async function start() {
  try {
    const res = await fetch("/examples.json");
    examples = (await res.json()).examples;
  } catch (e) {
    examples = [];
  }
  const custom = document.createElement("option");
  custom.value = "";
  custom.textContent = "(your tree)";
  picker.appendChild(custom);
  for (const e of examples) {
    const o = document.createElement("option");
    o.value = e.name;
    o.textContent = e.name;
    picker.appendChild(o);
  }
  const linked = fragment();
  let text = null;
  if (linked.tree) {
    try {
      text = fromBase64URL(linked.tree);
      try { text = JSON.stringify(JSON.parse(text), null, 2); } catch { /* shown as it came */ }
    } catch {
      setStatus("The link's tree is not readable (base64url expected).", true);
    }
    specs.checked = linked.specs;
  }
  if (text !== null) {
    tree.value = text;
    picker.value = "";
  } else {
    const first = examples.find((e) => e.name === "header-with-left-right-justified-text") ?? examples[0];
    if (first) {
      tree.value = JSON.stringify(first.request, null, 2);
      picker.value = first.name;
    }
  }
  await run();
}

start();
