#!/usr/bin/env node
// The SVG drawings and the playground of a running `loom serve`, checked in headless
// Chromium over the DevTools protocol (--remote-debugging-pipe: no dependencies).
//
//   node scripts/check-playground.mjs --url http://127.0.0.1:PORT --chromium chromium [--shots DIR]
//
// 1. SVG: every file of examples/ is POSTed to /layout?format=svg and opened in the
//    browser; every label's box (getBBox) must lie inside the picture and intersect no
//    other label; every text node's string must be drawn; a screenshot of each is kept.
// 2. Playground, with real input events (clicks, typing, keys): the page loads the header
//    example through /loom.js (the page's CSP allows nothing inline); one box per element
//    of the server's answer and one table row per frame with the server's numbers; zoom
//    in/out (buttons, Ctrl+wheel) changes the drawn size by 1.25×; each example picked from the list is laid
//    out; an edit re-lays out; a syntax error clears the boxes and says so; a 4xx shows
//    the server's code and path; "show specs" re-runs with specs; the URL fragment
//    restores the tree in a fresh tab.
// Exit 0 when all hold, 1 otherwise (each failure printed).
import { spawn } from "node:child_process";
import { mkdirSync, readFileSync, readdirSync, writeFileSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, dirname } from "node:path";
import { fileURLToPath } from "node:url";

const args = Object.fromEntries(process.argv.slice(2).reduce((acc, a, i, all) => {
  if (a.startsWith("--")) acc.push([a.slice(2), all[i + 1]]);
  return acc;
}, []));
const base = args.url;
const browser = args.chromium ?? "chromium";
const shots = args.shots;
if (!base) { console.error("usage: check-playground.mjs --url http://127.0.0.1:PORT [--chromium BIN] [--shots DIR]"); process.exit(2); }
const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const exampleNames = readdirSync(join(root, "examples")).filter((f) => f.endsWith(".json")).sort();
if (shots) mkdirSync(shots, { recursive: true });

let failures = 0;
const fail = (what) => { failures++; console.log(`FAIL ${what}`); };
const check = (ok, what) => { if (!ok) fail(what); return ok; };

// ---------------------------------------------------------------------------------------
// The DevTools protocol over fds 3 (to the browser) and 4 (from it), NUL-terminated JSON.

const profile = mkdtempSync(join(tmpdir(), "loom-playground-"));
const chrome = spawn(browser, ["--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run",
  "--no-default-browser-check", "--disable-extensions", "--disable-background-networking", "--hide-scrollbars",
  "--remote-debugging-pipe", `--user-data-dir=${profile}`, "--window-size=1280,800", "about:blank"],
  { stdio: ["ignore", "ignore", "pipe", "pipe", "pipe"] });
let chromeLog = "";
chrome.stderr.on("data", (d) => { chromeLog = (chromeLog + d).slice(-4000); });
const out = chrome.stdio[3], inp = chrome.stdio[4];
let nextId = 1, buffered = "";
const pending = new Map(), listeners = [];
inp.on("data", (chunk) => {
  buffered += chunk.toString("utf8");
  let end;
  while ((end = buffered.indexOf("\0")) >= 0) {
    const msg = JSON.parse(buffered.slice(0, end));
    buffered = buffered.slice(end + 1);
    if (msg.id && pending.has(msg.id)) {
      const { resolve, reject } = pending.get(msg.id);
      pending.delete(msg.id);
      msg.error ? reject(new Error(`${msg.error.message} ${msg.error.data ?? ""}`)) : resolve(msg.result);
    } else if (msg.method) {
      for (const l of [...listeners]) l(msg);
    }
  }
});
function send(method, params = {}, sessionId) {
  const id = nextId++;
  out.write(JSON.stringify({ id, method, params, sessionId }) + "\0");
  return new Promise((resolve, reject) => pending.set(id, { resolve, reject }));
}
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const deadline = setTimeout(() => { console.log("FAIL: the whole check took more than 120 s"); cleanup(1); }, 120000);

function cleanup(code) {
  clearTimeout(deadline);
  try { chrome.kill("SIGKILL"); } catch { /* gone */ }
  try { rmSync(profile, { recursive: true, force: true }); } catch { /* kept */ }
  process.exit(code);
}

async function openTab(url) {
  const { targetId } = await send("Target.createTarget", { url: "about:blank" });
  const { sessionId } = await send("Target.attachToTarget", { targetId, flatten: true });
  const s = (m, p) => send(m, p, sessionId);
  await s("Page.enable");
  await s("Runtime.enable");
  const errors = [];
  listeners.push((msg) => {
    if (msg.sessionId !== sessionId) return;
    if (msg.method === "Runtime.exceptionThrown") errors.push(msg.params.exceptionDetails.exception?.description ?? msg.params.exceptionDetails.text);
    if (msg.method === "Runtime.consoleAPICalled" && msg.params.type === "error") errors.push(msg.params.args.map((a) => a.value ?? a.description).join(" "));
  });
  await s("Emulation.setDeviceMetricsOverride", { width: 1280, height: 800, deviceScaleFactor: 1, mobile: false });
  const tab = { s, errors, targetId };
  if (url) await navigate(tab, url);
  return tab;
}

async function navigate(tab, url) {
  const loaded = new Promise((resolve) => {
    const l = (msg) => { if (msg.method === "Page.loadEventFired") { listeners.splice(listeners.indexOf(l), 1); resolve(); } };
    listeners.push(l);
  });
  await tab.s("Page.navigate", { url });
  await loaded;
}

async function evaluate(tab, expression) {
  const r = await tab.s("Runtime.evaluate", { expression, awaitPromise: true, returnByValue: true });
  if (r.exceptionDetails) throw new Error(`in page: ${r.exceptionDetails.exception?.description ?? r.exceptionDetails.text}`);
  return r.result.value;
}

async function screenshot(tab, name) {
  if (!shots) return;
  const { data } = await tab.s("Page.captureScreenshot", { format: "png" });
  writeFileSync(join(shots, name + ".png"), Buffer.from(data, "base64"));
}

async function click(tab, selector) {
  const at = await evaluate(tab, `(() => { const r = document.querySelector(${JSON.stringify(selector)}).getBoundingClientRect();
    return [r.left + r.width / 2, r.top + r.height / 2]; })()`);
  for (const type of ["mousePressed", "mouseReleased"]) {
    await tab.s("Input.dispatchMouseEvent", { type, x: at[0], y: at[1], button: "left", clickCount: 1 });
  }
}

async function key(tab, keyName, code, keyCode, modifiers = 0) {
  await tab.s("Input.dispatchKeyEvent", { type: "rawKeyDown", key: keyName, code, windowsVirtualKeyCode: keyCode, modifiers });
  await tab.s("Input.dispatchKeyEvent", { type: "keyUp", key: keyName, code, windowsVirtualKeyCode: keyCode, modifiers });
}

/** Waits until the playground has finished a run after `runs` (bounded). */
async function settled(tab, runs, what) {
  for (let i = 0; i < 100; i++) {
    const st = await evaluate(tab, `({runs: Number(document.body.dataset.runs || 0), state: document.body.dataset.state})`);
    if (st.runs > runs && st.state !== "busy") return st;
    await sleep(50);
  }
  fail(`${what}: the playground did not finish a layout within 5 s`);
  return { runs, state: "timeout" };
}
const runsOf = (tab) => evaluate(tab, `Number(document.body.dataset.runs || 0)`);

// ---------------------------------------------------------------------------------------

async function post(path, body) {
  const res = await fetch(base + path, { method: "POST", headers: { "Content-Type": "application/json" }, body });
  return { status: res.status, text: await res.text() };
}

async function checkSVGs() {
  const tab = await openTab();
  for (const file of exampleNames) {
    const body = readFileSync(join(root, "examples", file), "utf8");
    const { status, text: svg } = await post("/layout?format=svg", body);
    if (!check(status === 200, `svg ${file}: status ${status}`)) continue;
    await navigate(tab, "data:image/svg+xml;base64," + Buffer.from(svg).toString("base64"));
    await evaluate(tab, "document.fonts.ready.then(() => true)");
    const r = await evaluate(tab, `(() => {
      const svg = document.documentElement, vb = svg.viewBox.baseVal;
      const labels = [...svg.querySelectorAll("text.label")].map((t) => { const b = t.getBBox(); return {text: t.textContent, x: b.x, y: b.y, w: b.width, h: b.height}; });
      const texts = [...svg.querySelectorAll("text.text")].map((t) => t.textContent);
      return {vb: {x: vb.x, y: vb.y, w: vb.width, h: vb.height}, labels, texts,
              width: svg.width.baseVal.value, titles: svg.querySelectorAll("g > title").length};
    })()`);
    const e = 0.01;
    for (const l of r.labels) {
      check(l.w > 0 && l.h > 0, `svg ${file}: label "${l.text}" has an empty box`);
      check(l.x >= r.vb.x - e && l.y >= r.vb.y - e && l.x + l.w <= r.vb.x + r.vb.w + e && l.y + l.h <= r.vb.y + r.vb.h + e,
        `svg ${file}: label "${l.text}" (${l.x}, ${l.y}, ${l.w}, ${l.h}) leaves the picture ${JSON.stringify(r.vb)}`);
    }
    for (let i = 0; i < r.labels.length; i++) for (let j = i + 1; j < r.labels.length; j++) {
      const a = r.labels[i], b = r.labels[j];
      check(!(a.x < b.x + b.w - e && b.x < a.x + a.w - e && a.y < b.y + b.h - e && b.y < a.y + a.h - e),
        `svg ${file}: labels "${a.text}" and "${b.text}" overlap`);
    }
    // Every text element of the request has its string drawn (its first word at least).
    const request = JSON.parse(body);
    const strings = [];
    const visit = (el) => {
      if (!el || typeof el !== "object") return;
      if (el.type === "text") strings.push(typeof el.text === "string" ? el.text : (el.spans ?? []).map((s) => s.text).join(""));
      for (const k of ["child", "overlay", "background", "corner", "layout"]) visit(el[k]);
      for (const k of ["children", "yogaChildren"]) (el[k] ?? []).forEach(visit);
    };
    visit(request.root);
    for (const s of strings) {
      const word = s.trim().split(/\s+/)[0];
      check(r.texts.some((t) => t.includes(word)), `svg ${file}: the text "${s}" is not drawn (drawn: ${JSON.stringify(r.texts)})`);
    }
    check(r.width >= r.vb.w, `svg ${file}: shown ${r.width} px wide, smaller than its ${r.vb.w} pt`);
    console.log(`svg ${file}: ${r.labels.length} labels, ${r.texts.length} texts, ${r.titles} tooltips`);
    await screenshot(tab, "svg-" + file.replace(/\.json$/, ""));
  }
}

async function checkPlayground() {
  const tab = await openTab(base + "/");
  let st = await settled(tab, 0, "load");
  check(st.state === "ok", `playground: first layout state ${st.state}`);
  // The page and the client module loaded from this server, nothing inline.
  const modules = await evaluate(tab, `[...document.scripts].map((s) => s.src + (s.textContent.trim() ? " inline" : ""))`);
  check(modules.length === 1 && modules[0].endsWith("/playground.js"), `playground: scripts ${JSON.stringify(modules)}`);
  check((await evaluate(tab, `performance.getEntriesByType("resource").some((e) => e.name.endsWith("/loom.js"))`)), "playground: /loom.js not loaded");

  /** What is drawn, checked against the server's own answer for the same request. */
  async function checkDrawn(what) {
    const page = await evaluate(tab, `(() => {
      const boxes = [...document.querySelectorAll("#canvas .box")].map((b) => ({id: b.dataset.id, w: b.getBoundingClientRect().width}));
      const rows = [...document.querySelectorAll("#frames tbody tr")].map((r) => [...r.cells].map((c) => c.textContent));
      return {boxes, rows, zoom: Number(document.body.dataset.zoom), tree: document.getElementById("tree").value,
              specs: document.getElementById("specs").checked,
              texts: [...document.querySelectorAll("#canvas .text")].map((t) => t.textContent),
              canvas: document.getElementById("canvas").getBoundingClientRect().width};
    })()`);
    // The same request the page sends: its client names every element.
    const request = JSON.parse(page.tree);
    const { makeRequest } = await import(join(root, "clients/js/loom.js"));
    const options = { ...(request.options ?? {}), includeSpecs: page.specs };
    const sent = { ...request, root: makeRequest(request.root, { options }).body.root, options };
    const answer = await post("/layout", JSON.stringify(sent));
    if (!check(answer.status === 200, `${what}: the server answers ${answer.status}`)) return page;
    const server = JSON.parse(answer.text);
    const ids = Object.keys(server.frames);
    // One box and one row per entry of the answer's tree (each has a frame; a button's
    // title and image have no id, so `frames` does not list them).
    const count = (e) => 1 + (e.children ?? []).reduce((n, c) => n + count(c), 0);
    const entries = count(server.layout);
    const unnamed = (e) => (e.id === undefined ? 1 : 0) + (e.children ?? []).reduce((n, c) => n + unnamed(c), 0);
    check(page.boxes.length === entries, `${what}: ${page.boxes.length} boxes drawn, ${entries} frames in the answer's tree`);
    check(page.rows.length === ids.length + unnamed(server.layout),
      `${what}: ${page.rows.length} table rows, ${ids.length} ids in frames and ${unnamed(server.layout)} unnamed boxes`);
    const drawnIds = (e) => [e.id, ...(e.children ?? []).flatMap(drawnIds)].filter((id) => id !== undefined);
    check(JSON.stringify(page.boxes.map((b) => b.id).filter(Boolean)) === JSON.stringify(drawnIds(server.layout)),
      `${what}: the boxes drawn are not the answer's tree`);
    for (const id of ids) {
      const f = server.frames[id];
      const row = page.rows.find((r) => r[0] === id);
      check(row && row.slice(2).map(Number).join() === [f.x, f.y, f.width, f.height].join(),
        `${what}: row of ${id} is ${JSON.stringify(row)}, the server says ${JSON.stringify(f)}`);
    }
    check(Math.abs(page.canvas - server.size.width * page.zoom) < 1.5,
      `${what}: canvas ${page.canvas} px wide, expected ${server.size.width} × zoom ${page.zoom}`);
    return page;
  }

  let page = await checkDrawn("header example");
  const viewWidth = await evaluate(tab, `document.getElementById("view").clientWidth`);
  check(page.zoom > 1.5 && page.canvas <= viewWidth && page.canvas >= 0.9 * (viewWidth - 18),
    `playground: the 375-pt header is not fitted to the ${viewWidth}-px view (zoom ${page.zoom}, ${page.canvas} px)`);
  await screenshot(tab, "playground-header");

  // Zoom in and out with the buttons.
  const z0 = page.zoom;
  await click(tab, "#zoomIn");
  let z1 = await evaluate(tab, `Number(document.body.dataset.zoom)`);
  check(Math.abs(z1 - z0 * 1.25) < 1e-6, `zoom in: ${z0} → ${z1}`);
  page = await checkDrawn("zoomed in");
  await click(tab, "#zoomOut");
  await click(tab, "#zoomOut");
  z1 = await evaluate(tab, `Number(document.body.dataset.zoom)`);
  check(Math.abs(z1 - z0 / 1.25) < 1e-6, `zoom out twice: ${z0} → ${z1}`);
  await checkDrawn("zoomed out");
  // Ctrl and the wheel over the drawing zoom in.
  const zw = await evaluate(tab, `Number(document.body.dataset.zoom)`);
  const at = await evaluate(tab, `(() => { const r = document.getElementById("view").getBoundingClientRect(); return [r.left + 50, r.top + 50]; })()`);
  await tab.s("Input.dispatchMouseEvent", { type: "mouseWheel", x: at[0], y: at[1], deltaX: 0, deltaY: -100, modifiers: 2 });
  await sleep(100);
  z1 = await evaluate(tab, `Number(document.body.dataset.zoom)`);
  check(Math.abs(z1 - zw * 1.25) < 1e-6, `ctrl+wheel: ${zw} → ${z1}`);
  await click(tab, "#actual");
  check((await evaluate(tab, `Number(document.body.dataset.zoom)`)) === 1, "1:1 button");
  await click(tab, "#fit");
  check(Math.abs((await evaluate(tab, `Number(document.body.dataset.zoom)`)) - z0) < 1e-6, "fit button");

  // Show specs: re-runs, with the specs drawn.
  const withoutSpecs = (await evaluate(tab, `document.querySelectorAll("#canvas .box").length`));
  let before = await runsOf(tab);
  await click(tab, "#specs");
  await settled(tab, before, "show specs");
  page = await checkDrawn("show specs");
  check(page.boxes.length > withoutSpecs, `show specs: ${page.boxes.length} boxes, not more than ${withoutSpecs}`);
  before = await runsOf(tab);
  await click(tab, "#specs");
  await settled(tab, before, "hide specs");

  // Pick every example from the list with the keyboard.
  const names = await evaluate(tab, `[...document.getElementById("example").options].map((o) => o.value).filter(Boolean)`);
  check(JSON.stringify(names) === JSON.stringify(exampleNames.map((n) => n.replace(/\.json$/, ""))),
    `playground: the list ${JSON.stringify(names)} is not examples/`);
  await evaluate(tab, `(() => { const p = document.getElementById("example"); p.focus(); p.selectedIndex = 0; })()`);
  for (const name of names) {
    const before = await runsOf(tab);
    await key(tab, "ArrowDown", "ArrowDown", 40);
    st = await settled(tab, before, `pick ${name}`);
    const picked = await evaluate(tab, `document.getElementById("example").value`);
    check(picked === name, `pick: ArrowDown selected ${picked}, expected ${name}`);
    check(st.state === "ok", `pick ${name}: state ${st.state}`);
    page = await checkDrawn(`example ${name}`);
    check(JSON.stringify(JSON.parse(page.tree)) === JSON.stringify(JSON.parse(readFileSync(join(root, "examples", name + ".json"), "utf8"))),
      `pick ${name}: the editor does not hold the file`);
    const request = JSON.parse(page.tree);
    if (JSON.stringify(request).includes('"type":"text"')) check(page.texts.length > 0, `example ${name}: no text drawn`);
    await screenshot(tab, "playground-" + name);
  }

  // Edit: type into the editor: a syntax error clears the drawing and says where.
  await evaluate(tab, `(() => { const t = document.getElementById("tree"); t.focus(); t.setSelectionRange(t.value.length, t.value.length); })()`);
  before = await runsOf(tab);
  await tab.s("Input.insertText", { text: "}" });
  st = await settled(tab, before, "syntax error");
  const broken = await evaluate(tab, `({state: document.body.dataset.state, boxes: document.querySelectorAll("#canvas .box").length,
    rows: document.querySelectorAll("#frames tbody tr").length, status: document.getElementById("status").textContent,
    cls: document.getElementById("status").className})`);
  check(broken.state === "error" && broken.boxes === 0 && broken.rows === 0 && broken.cls === "error" && /JSON/.test(broken.status),
    `syntax error: ${JSON.stringify(broken)}`);
  await screenshot(tab, "playground-syntax-error");
  before = await runsOf(tab);
  await key(tab, "Backspace", "Backspace", 8);
  st = await settled(tab, before, "fixed");
  check(st.state === "ok", `after removing the brace: ${st.state}`);

  // A request the server refuses: its code, message and path are shown.
  await evaluate(tab, `(() => { const t = document.getElementById("tree"); t.focus(); t.select(); })()`);
  before = await runsOf(tab);
  await tab.s("Input.insertText", { text: JSON.stringify({ root: { type: "stack", id: "s", children: [{ type: "node", id: "a", style: { flexGrow: "x" } }] } }) });
  st = await settled(tab, before, "4xx");
  const refused = await evaluate(tab, `({boxes: document.querySelectorAll("#canvas .box").length, status: document.getElementById("status").textContent})`);
  check(st.state === "error" && refused.boxes === 0 && /^400 invalid_spec: /.test(refused.status) && refused.status.includes("root.children[0].style.flexGrow"),
    `4xx: ${JSON.stringify(refused)}`);
  await screenshot(tab, "playground-4xx");

  // A real edit: a width changed by typing re-lays out and the table follows.
  const edited = { sizeRange: { min: { width: 200, height: 0 }, max: { width: 200, height: null } },
    root: { type: "stack", id: "s", direction: "horizontal", children: [{ type: "node", id: "a", style: { width: 30, height: 40 } }] } };
  await evaluate(tab, `(() => { const t = document.getElementById("tree"); t.focus(); t.select(); })()`);
  before = await runsOf(tab);
  await tab.s("Input.insertText", { text: JSON.stringify(edited, null, 1) });
  await settled(tab, before, "edit");
  await evaluate(tab, `(() => { const t = document.getElementById("tree"); const i = t.value.indexOf("30"); t.focus(); t.setSelectionRange(i, i + 2); })()`);
  before = await runsOf(tab);
  await tab.s("Input.insertText", { text: "55" });
  await settled(tab, before, "edit width");
  page = await checkDrawn("edited");
  check(page.rows.some((r) => r[0] === "a" && r.slice(2).join() === "0,0,55,40"), `edit: row of a ${JSON.stringify(page.rows)}`);

  // The fragment restores the tree in a fresh tab.
  const href = await evaluate(tab, `location.href`);
  check(href.includes("#tree="), `share: no tree in ${href}`);
  const tab2 = await openTab(href);
  await settled(tab2, 0, "shared link");
  const restored = await evaluate(tab2, `document.getElementById("tree").value`);
  check(JSON.stringify(JSON.parse(restored)) === JSON.stringify(JSON.parse(JSON.stringify(edited).replace("30", "55"))),
    `share: restored ${restored}`);
  check((await evaluate(tab2, `document.querySelector('#frames tbody tr td')?.textContent`)) !== undefined, "share: nothing drawn");
  for (const t of [tab, tab2]) check(t.errors.length === 0, `page errors (CSP or script): ${JSON.stringify(t.errors)}`);
}

try {
  const t0 = Date.now();
  await checkSVGs();
  await checkPlayground();
  console.log(`${failures === 0 ? "ok" : failures + " failure(s)"} in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
  cleanup(failures === 0 ? 0 : 1);
} catch (e) {
  console.log(`FAIL ${e.stack ?? e}`);
  console.log(chromeLog);
  cleanup(1);
}
