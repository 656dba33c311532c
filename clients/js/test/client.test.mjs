// The JavaScript client against a real `loom serve` (node --test).
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { readFile, readdir } from "node:fs/promises";
import path from "node:path";
import http from "node:http";

import {
  LoomClient, LoomError, makeRequest, stack, inset, node, text, spacer, ratio, corner, image, overlay,
} from "../loom.js";
import { examples } from "./examples.mjs";
import { startLoom, repoRoot } from "./server.mjs";

let loom;
before(async () => { loom = await startLoom(); });
after(async () => { await loom?.stop(); });

async function postRaw(body) {
  const res = await fetch(`${loom.url}/layout`, {
    method: "POST", headers: { "Content-Type": "application/json" }, body,
  });
  return { status: res.status, key: res.headers.get("x-layout-key"), json: await res.json() };
}

test("every file of examples/ has a builder version", async () => {
  const files = (await readdir(path.join(repoRoot, "examples"))).filter((f) => f.endsWith(".json")).sort();
  assert.deepEqual(Object.keys(examples).sort(), files);
});

for (const [file, build] of Object.entries(examples)) {
  test(`examples/${file} written with the builder is the same request`, async () => {
    const fileBody = await readFile(path.join(repoRoot, "examples", file), "utf8");
    const direct = await postRaw(fileBody);
    assert.equal(direct.status, 200);
    const client = new LoomClient(loom.url);
    const result = await client.layout(build());
    assert.equal(result.key, direct.key, "X-Layout-Key of the builder's request");
    assert.deepEqual(result.frames, direct.json.frames);
    assert.deepEqual(result.layout, direct.json.layout);
    // Every id of the file comes back as a frame.
    const ids = [...fileBody.matchAll(/"id":\s*"([^"]+)"/g)].map((m) => m[1]);
    assert.deepEqual(Object.keys(result.frames).sort(), [...new Set(ids)].sort());
  });
}

test("generated ids are derived from the position, so the same code sends the same bytes", async () => {
  const cell = () => stack({ direction: "horizontal", spacing: 8 }, [
    node({ intrinsicSize: { width: 40, height: 40 } }),
    stack({ direction: "vertical", style: { flexShrink: 1 } }, [node({ id: "title", intrinsicSize: { width: 90, height: 20 } })]),
  ]);
  const a = makeRequest(cell(), { scale: 2 });
  const b = makeRequest(cell(), { scale: 2 });
  assert.equal(JSON.stringify(a.body), JSON.stringify(b.body));
  assert.equal(a.body.root.id, "@root");
  assert.equal(a.body.root.children[0].id, "@root.children[0]");
  assert.equal(a.body.root.children[1].children[0].id, "title");

  const client = new LoomClient(loom.url);
  const avatar = node({ intrinsicSize: { width: 40, height: 40 } });
  const title = node({ intrinsicSize: { width: 90, height: 20 } });
  const r1 = await client.layout(stack({ direction: "horizontal", spacing: 8 }, [avatar, title]),
    { sizeRange: { max: { width: 320 } }, scale: 2 });
  // Texture's horizontal stack: avatar at 0, title after it plus the spacing; alignItems
  // defaults to stretch, so the title takes the line's height (40).
  assert.deepEqual(r1.frame(avatar), { x: 0, y: 0, width: 40, height: 40 });
  assert.deepEqual(r1.frame(title), { x: 48, y: 0, width: 90, height: 40 });
  assert.deepEqual(r1.size, { width: 138, height: 40 });
  const r2 = await client.layout(stack({ direction: "horizontal", spacing: 8 }, [
    node({ intrinsicSize: { width: 40, height: 40 } }), node({ intrinsicSize: { width: 90, height: 20 } }),
  ]), { sizeRange: { max: { width: 320 } }, scale: 2 });
  assert.equal(r2.key, r1.key);
  assert.equal(r2.cache, "hit");
  // The server names layouts with a weak ETag; the second identical request asked with
  // If-None-Match and got a 304, answered from what the client kept.
  assert.equal(r1.etag, `W/"${r1.key}"`);
  assert.equal(r2.notModified, true);
});

test("an id given twice or colliding with a generated one is refused before sending", () => {
  assert.throws(() => makeRequest(stack({}, [node({ id: "a" }), node({ id: "a" })])), /duplicate id "a"/);
  assert.throws(() => makeRequest(stack({}, [node({ id: "@root.children[1]" }), node({})])), /collides/);
  assert.throws(() => stack({}, [42]), /expected an element/);
});

test("a bad field comes back as a LoomError with the server's code, message and path", async () => {
  const client = new LoomClient(loom.url);
  await assert.rejects(
    client.layout(stack({ id: "s" }, [node({ id: "a" }), ratio({ id: "r", ratio: -1 }, node({ id: "b" }))])),
    (err) => {
      assert.ok(err instanceof LoomError);
      assert.equal(err.status, 400);
      assert.equal(err.code, "invalid_spec");
      assert.equal(err.path, "root.children[1].ratio");
      assert.match(err.detail, /ratio/);
      return true;
    },
  );
});

test("batch: results in order, an item's error does not fail the others", async () => {
  const client = new LoomClient(loom.url);
  const results = await client.batch([
    { root: node({ id: "a", intrinsicSize: { width: 10, height: 20 } }), scale: 1 },
    { root: inset({ id: "i", insets: { top: 1, left: 2, bottom: 3, right: 4 } }, node({ id: "bad", style: { width: "abc" } })) },
    { root: inset({ insets: { top: 1, left: 2, bottom: 3, right: 4 } }, node({ intrinsicSize: { width: 10, height: 20 } })), scale: 1 },
  ]);
  assert.equal(results.length, 3);
  assert.deepEqual(results[0].frame("a"), { x: 0, y: 0, width: 10, height: 20 });
  assert.ok(results[1] instanceof LoomError);
  assert.equal(results[1].code, "invalid_spec");
  assert.equal(results[1].path, "items[1].root.child.style.width");
  // The inset adds its insets around the child.
  assert.deepEqual(results[2].size, { width: 16, height: 24 });
  assert.deepEqual(results[2].frames["@root.child"], { x: 2, y: 1, width: 10, height: 20 });
});

test("svg: the drawing of the layout", async () => {
  const client = new LoomClient(loom.url);
  const svg = await client.svg(overlay({ id: "o" }, image({ id: "photo", intrinsicSize: { width: 150, height: 150 } }),
    corner({ id: "c", cornerLocation: "topRight" }, spacer({}), node({ id: "badge", intrinsicSize: { width: 20, height: 20 } }))));
  assert.match(svg, /^<svg[\s>]/);
  assert.match(svg, /photo/);
  assert.match(svg, /badge/);
});

test("text is measured on the server with real fonts", async () => {
  const client = new LoomClient(loom.url);
  const one = await client.layout(text("Hello", { id: "t", font: { family: "Roboto", size: 16 } }), { scale: 2 });
  const two = await client.layout(text("Hello Hello", { id: "t", font: { family: "Roboto", size: 16 } }), { scale: 2 });
  const f1 = one.frame("t"), f2 = two.frame("t");
  assert.ok(f1.width > 20 && f1.width < 60, `width of "Hello" at 16 pt: ${f1.width}`);
  // Twice the word plus a space: wider than twice one word, on one line of the same height.
  assert.ok(f2.width > 2 * f1.width - 1 && f2.width < 2 * f1.width + 8, `${f2.width} vs ${f1.width}`);
  assert.equal(f2.height, f1.height);
});

// A stand-in server for the transport behaviour the real one shows only under load.
function fakeServer(handler) {
  return new Promise((resolve) => {
    const seen = [];
    const server = http.createServer((req, res) => {
      let body = "";
      req.on("data", (c) => { body += c; });
      req.on("end", () => { seen.push({ headers: req.headers, body, at: Date.now() }); handler(seen.length, req, res); });
    });
    server.listen(0, "127.0.0.1", () => resolve({ url: `http://127.0.0.1:${server.address().port}`, seen, close: () => server.close() }));
  });
}

const okBody = JSON.stringify({ size: { width: 1, height: 1 }, layout: { type: "node", frame: { x: 0, y: 0, width: 1, height: 1 }, children: [] }, frames: {} });

test("503 is retried after its Retry-After, then the answer is returned", async () => {
  const fake = await fakeServer((n, req, res) => {
    if (n === 1) { res.writeHead(503, { "Retry-After": "1", "Content-Type": "application/json" }); res.end('{"error":{"code":"overloaded","message":"busy"}}'); return; }
    res.writeHead(200, { "Content-Type": "application/json" }); res.end(okBody);
  });
  try {
    const client = new LoomClient(fake.url, { retries: 2 });
    const r = await client.layout(node({ id: "n" }));
    assert.deepEqual(r.size, { width: 1, height: 1 });
    assert.equal(fake.seen.length, 2);
    assert.ok(fake.seen[1].at - fake.seen[0].at >= 950, "waited for Retry-After");
  } finally { fake.close(); }
});

test("503 beyond the retries comes back as an overloaded LoomError", async () => {
  const fake = await fakeServer((n, req, res) => {
    res.writeHead(503, { "Retry-After": "0", "Content-Type": "application/json" }); res.end('{"error":{"code":"overloaded","message":"busy"}}');
  });
  try {
    const client = new LoomClient(fake.url, { retries: 1 });
    await assert.rejects(client.layout(node({ id: "n" })), (e) => e instanceof LoomError && e.code === "overloaded" && e.status === 503);
    assert.equal(fake.seen.length, 2);
  } finally { fake.close(); }
});

test("an answer with an ETag is kept, and asked for again with If-None-Match", async () => {
  const fake = await fakeServer((n, req, res) => {
    if (req.headers["if-none-match"] === 'W/"k1"') { res.writeHead(304, { ETag: 'W/"k1"' }); res.end(); return; }
    res.writeHead(200, { "Content-Type": "application/json", ETag: 'W/"k1"', "X-Layout-Key": "k1" }); res.end(okBody);
  });
  try {
    const client = new LoomClient(fake.url);
    const a = await client.layout(node({ id: "n" }));
    const b = await client.layout(node({ id: "n" }));
    assert.equal(fake.seen[0].headers["if-none-match"], undefined);
    assert.equal(fake.seen[1].headers["if-none-match"], 'W/"k1"');
    assert.deepEqual(b.size, a.size);
    assert.equal(b.cache, "hit");
    assert.equal(b.notModified, true);
    const c = await client.layout(node({ id: "other" }));
    assert.equal(fake.seen[2].headers["if-none-match"], undefined, "another request has no ETag yet");
    assert.ok(c);
  } finally { fake.close(); }
});

test("a refused connection is a LoomError with status 0", async () => {
  const client = new LoomClient("http://127.0.0.1:9", { retries: 0 });
  await assert.rejects(client.layout(node({ id: "n" })), (e) => e instanceof LoomError && e.status === 0 && e.code === "transport");
});
