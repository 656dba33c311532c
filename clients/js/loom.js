// Loom's JavaScript client: build layout trees in Texture's vocabulary and ask a Loom
// server for their frames. One ES module, no dependencies; runs in browsers and in
// Node 18+ (it needs only `fetch`). Types: ./loom.d.ts. Wire format: docs/wire-format.md.

/**
 * @typedef {{width?: number|null, height?: number|null}} Size
 * @typedef {{top?: number|"inf", left?: number|"inf", bottom?: number|"inf", right?: number|"inf"}} Insets
 * @typedef {Record<string, unknown>} Style  ASLayoutElementStyle fields (and Yoga's), applied in the order written
 * @typedef {{type: string, id?: string, style?: Style, [field: string]: unknown}} Element
 * @typedef {{x: number, y: number, width: number, height: number}} Frame
 */

/** A plain element object: `type`, then `id` and `style` when given, then its fields. */
function element(type, options, members) {
  const { id, style, ...fields } = options ?? {};
  const out = { type };
  if (id !== undefined) out.id = id;
  if (style !== undefined) out.style = style;
  Object.assign(out, fields, members);
  return out;
}

function checkChild(value, where) {
  if (value === null || typeof value !== "object" || typeof value.type !== "string") {
    throw new TypeError(`${where}: expected an element (built with stack(), node(), …), got ${typeof value}`);
  }
  return value;
}

function checkChildren(list, where) {
  if (!Array.isArray(list)) throw new TypeError(`${where}: expected an array of elements`);
  return list.map((c, i) => checkChild(c, `${where}[${i}]`));
}

// ---------------------------------------------------------------------------
// Layout specs (ASStackLayoutSpec, ASInsetLayoutSpec, …): options first, then children.

/** ASStackLayoutSpec: `stack({direction: "vertical", spacing: 8}, [a, b])`. */
export function stack(options, children) {
  return element("stack", options, { children: checkChildren(children, "stack children") });
}

/** ASInsetLayoutSpec: `inset({insets: {top: 8, left: 12, bottom: 8, right: 12}}, child)`. */
export function inset(options, child) {
  return element("inset", options, { child: checkChild(child, "inset child") });
}

/** ASOverlayLayoutSpec: `overlay({}, child, overlayElement)`. */
export function overlay(options, child, over) {
  return element("overlay", options, { child: checkChild(child, "overlay child"), overlay: checkChild(over, "overlay") });
}

/** ASBackgroundLayoutSpec: `background({}, child, backgroundElement)`. */
export function background(options, child, back) {
  return element("background", options, {
    child: checkChild(child, "background child"),
    background: checkChild(back, "background"),
  });
}

/** ASCenterLayoutSpec: `center({centeringOptions: "xy"}, child)`. */
export function center(options, child) {
  return element("center", options, { child: checkChild(child, "center child") });
}

/** ASRelativeLayoutSpec: `relative({horizontalPosition: "end"}, child)`. */
export function relative(options, child) {
  return element("relative", options, { child: checkChild(child, "relative child") });
}

/** ASRatioLayoutSpec (ratio = height ÷ width): `ratio({ratio: 0.5}, child)`. */
export function ratio(options, child) {
  return element("ratio", options, { child: checkChild(child, "ratio child") });
}

/** ASAbsoluteLayoutSpec: children placed by `style.layoutPosition`. */
export function absolute(options, children) {
  return element("absolute", options, { children: checkChildren(children, "absolute children") });
}

/** ASStaticLayoutSpec (Layout API 1.x): an absolute spec that sizes to fit its children. */
export function staticLayout(options, children) {
  return element("static", options, { children: checkChildren(children, "static children") });
}

/** ASCornerLayoutSpec: `corner({cornerLocation: "topRight"}, child, badge)`. */
export function corner(options, child, cornerElement) {
  return element("corner", options, {
    child: checkChild(child, "corner child"),
    corner: checkChild(cornerElement, "corner"),
  });
}

/** ASWrapperLayoutSpec. */
export function wrapper(options, children) {
  return element("wrapper", options, { children: checkChildren(children, "wrapper children") });
}

/** A plain ASLayoutSpec with no child, used with flexGrow as a flexible spacer. */
export function spacer(options) {
  return element("spacer", options, {});
}

// ---------------------------------------------------------------------------
// Nodes.

/**
 * ASDisplayNode: `node({intrinsicSize: {width: 40, height: 40}})`, `node({layout: spec})`
 * (its own layoutSpecThatFits:), or a Yoga container `node({style: {flexDirection: "row"},
 * yogaChildren: [...]})`.
 */
export function node(options) {
  const o = { ...(options ?? {}) };
  if (o.layout !== undefined) checkChild(o.layout, "node layout");
  if (o.yogaChildren !== undefined) checkChildren(o.yogaChildren, "node yogaChildren");
  return element("node", o, {});
}

/** ASTextNode: `text("Hello", {font: {family: "Roboto", size: 16}})` or `text({spans: [...]})`. */
export function text(string, options) {
  if (typeof string === "string") return element("text", { ...(options ?? {}), text: string }, {});
  return element("text", string, {});
}

/** ASImageNode / ASNetworkImageNode: `image({intrinsicSize: {width: 60, height: 60}, url})`. */
export function image(options) {
  return element("image", options, {});
}

/** ASButtonNode: `button({title: {text: "Follow", font: {...}}, contentEdgeInsets: {...}})`. */
export function button(options) {
  return element("button", options, {});
}

// ---------------------------------------------------------------------------
// Requests: ids the builder did not get are derived from the element's position, so the
// same layout code always sends the same bytes (and hits the server's caches).

const CHILD_MEMBERS = ["child", "overlay", "background", "corner", "layout"];
const LIST_MEMBERS = ["children", "yogaChildren"];

/**
 * The request object for `root`, with every element given an id (`@` + its path when the
 * builder did not name it). Returns `{body, elements}`: `elements` maps each element
 * object to its id, so frames can be read back by element.
 * @param {Element} root
 * @param {{sizeRange?: {min?: Size, max?: Size}, scale?: number, options?: Record<string, unknown>}} [envelope]
 *   (options: `includeSpecs`, `output`, `includeText`: text entries with their `textLines`)
 */
export function makeRequest(root, envelope = {}) {
  checkChild(root, "root");
  const elements = new Map();
  const taken = new Set();
  const pending = [];
  const rebuilt = assignIds(root, "root", elements, taken, pending);
  for (const [copy, id] of pending) {
    if (taken.has(id)) throw new Error(`generated id ${JSON.stringify(id)} collides with an id given by hand`);
    copy.id = id;
  }
  const body = {};
  if (envelope.sizeRange !== undefined) body.sizeRange = envelope.sizeRange;
  if (envelope.scale !== undefined) body.scale = envelope.scale;
  body.root = rebuilt;
  if (envelope.options !== undefined) body.options = envelope.options;
  return { body, elements };
}

function assignIds(el, path, elements, taken, pending) {
  const copy = {};
  for (const [k, v] of Object.entries(el)) {
    if (CHILD_MEMBERS.includes(k) && v && typeof v === "object" && typeof v.type === "string") {
      copy[k] = assignIds(v, `${path}.${k}`, elements, taken, pending);
    } else if (LIST_MEMBERS.includes(k) && Array.isArray(v)) {
      copy[k] = v.map((c, i) => assignIds(c, `${path}.${k}[${i}]`, elements, taken, pending));
    } else {
      copy[k] = v;
    }
  }
  if (typeof el.id === "string") {
    if (taken.has(el.id)) throw new Error(`duplicate id ${JSON.stringify(el.id)} at ${path}`);
    taken.add(el.id);
    elements.set(el, el.id);
  } else {
    // `type` stays first, the id right after it, as in hand-written requests.
    const id = `@${path}`;
    const ordered = { type: copy.type, id: undefined };
    for (const [k, v] of Object.entries(copy)) if (k !== "type") ordered[k] = v;
    pending.push([ordered, id]);
    elements.set(el, id);
    return ordered;
  }
  return copy;
}

// ---------------------------------------------------------------------------
// Answers and errors.

/** An error answered by the server (or a transport failure, status 0). */
export class LoomError extends Error {
  /**
   * @param {number} status
   * @param {string} code
   * @param {string} message
   * @param {string|undefined} path
   * @param {{requestId?: string, retryAfter?: number}} [extra]
   */
  constructor(status, code, message, path, extra = {}) {
    super(path ? `${code} at ${path}: ${message}` : `${code}: ${message}`);
    this.name = "LoomError";
    this.status = status;
    this.code = code;
    this.detail = message;
    this.path = path;
    this.requestId = extra.requestId;
    this.retryAfter = extra.retryAfter;
  }
}

/** A computed layout: the server's answer, with frames readable by id or element. */
export class LayoutResult {
  constructor(json, elements, meta) {
    /** @type {Size} */ this.size = json.size;
    /** the flattened layout tree (`{type, id?, frame, children}`) */ this.layout = json.layout;
    /** @type {Record<string, Frame>} every id's frame in the root's space */ this.frames = json.frames ?? {};
    /** @type {Array<{code: string, path: string, message: string}>} */ this.warnings = json.warnings ?? [];
    this.key = meta.key;
    this.cache = meta.cache;
    this.etag = meta.etag;
    this.requestId = meta.requestId;
    /** true when a 304 let the client reuse the answer it kept */
    this.notModified = meta.notModified === true;
    this._elements = elements;
  }

  /** The frame of an id, or of an element object passed to the builder. */
  frame(idOrElement) {
    const id = typeof idOrElement === "string" ? idOrElement : this._elements?.get(idOrElement);
    return id === undefined ? undefined : this.frames[id];
  }
}

function errorFromBody(status, json, headers) {
  const e = json && typeof json === "object" ? json.error : undefined;
  const retry = headers ? Number(headers.get("retry-after")) : NaN;
  return new LoomError(
    status,
    e?.code ?? "http_" + status,
    e?.message ?? `HTTP ${status}`,
    e?.path,
    { requestId: headers?.get("x-request-id") ?? undefined, retryAfter: Number.isFinite(retry) ? retry : undefined },
  );
}

// ---------------------------------------------------------------------------
// The client.

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

export class LoomClient {
  /**
   * @param {string} baseURL e.g. "http://127.0.0.1:8080"
   * @param {{fetch?: typeof fetch, retries?: number, maxRetryDelay?: number, etagEntries?: number, headers?: Record<string,string>}} [options]
   *   retries: how often a 503 is retried (default 2), each after its Retry-After (capped
   *   at maxRetryDelay seconds, default 5); etagEntries: answers kept by ETag (default 256, 0 = off).
   */
  constructor(baseURL, options = {}) {
    this.baseURL = String(baseURL).replace(/\/+$/, "");
    this._fetch = options.fetch ?? globalThis.fetch.bind(globalThis);
    this.retries = options.retries ?? 2;
    this.maxRetryDelay = options.maxRetryDelay ?? 5;
    this.headers = options.headers ?? {};
    this._etagLimit = options.etagEntries ?? 256;
    /** body text → {etag, text, meta}; insertion order is recency (an LRU). */
    this._etags = new Map();
  }

  /**
   * Lays out `root` (an element) or a whole request object (`{root, sizeRange, …}`).
   * @returns {Promise<LayoutResult>}
   */
  async layout(rootOrRequest, envelope) {
    const { body, elements } = this._request(rootOrRequest, envelope);
    const { json, meta } = await this._post("/layout", body, "application/json", true);
    return new LayoutResult(json, elements, meta);
  }

  /** The layout drawn as SVG (text). */
  async svg(rootOrRequest, envelope) {
    const { body } = this._request(rootOrRequest, envelope);
    const { text } = await this._post("/layout?format=svg", body, "image/svg+xml", false);
    return text;
  }

  /**
   * Lays out several requests in one call. Each result is a LayoutResult or a LoomError
   * (errors of one item do not fail the others).
   * @param {Array<Element | {root: Element}>} items
   */
  async batch(items, envelope) {
    const built = items.map((it) => this._request(it, envelope));
    const { json, meta } = await this._post("/layout/batch", { items: built.map((b) => b.body) }, "application/json", false);
    return json.results.map((r, i) =>
      r && r.error ? errorFromBody(400, r, null) : new LayoutResult(r, built[i].elements, { requestId: meta.requestId }),
    );
  }

  _request(rootOrRequest, envelope) {
    if (rootOrRequest && typeof rootOrRequest === "object" && "root" in rootOrRequest && !("type" in rootOrRequest)) {
      const { root, ...rest } = rootOrRequest;
      return makeRequest(root, { ...rest, ...(envelope ?? {}) });
    }
    return makeRequest(rootOrRequest, envelope);
  }

  async _post(path, body, accept, useETag) {
    const text = JSON.stringify(body);
    const kept = useETag && this._etagLimit > 0 ? this._etags.get(text) : undefined;
    for (let attempt = 0; ; attempt++) {
      const headers = { "Content-Type": "application/json", Accept: accept, ...this.headers };
      if (kept) headers["If-None-Match"] = kept.etag;
      let res;
      try {
        res = await this._fetch(this.baseURL + path, { method: "POST", headers, body: text });
      } catch (err) {
        throw new LoomError(0, "transport", String(err?.message ?? err), undefined);
      }
      if (res.status === 304 && kept) {
        this._touch(text, kept);
        return { json: JSON.parse(kept.text), text: kept.text, meta: { ...kept.meta, cache: "hit", notModified: true } };
      }
      if (res.status === 503 && attempt < this.retries) {
        const after = Number(res.headers.get("retry-after"));
        await res.arrayBuffer().catch(() => {});
        await sleep(1000 * Math.min(this.maxRetryDelay, Number.isFinite(after) && after >= 0 ? after : 1));
        continue;
      }
      const answer = await res.text();
      if (!res.ok) {
        let json;
        try { json = JSON.parse(answer); } catch { json = undefined; }
        throw errorFromBody(res.status, json, res.headers);
      }
      const meta = {
        key: res.headers.get("x-layout-key") ?? undefined,
        cache: res.headers.get("x-layout-cache") ?? undefined,
        etag: res.headers.get("etag") ?? undefined,
        requestId: res.headers.get("x-request-id") ?? undefined,
      };
      if (useETag && meta.etag && this._etagLimit > 0) this._touch(text, { etag: meta.etag, text: answer, meta });
      return { json: accept === "application/json" ? JSON.parse(answer) : undefined, text: answer, meta };
    }
  }

  _touch(key, entry) {
    this._etags.delete(key);
    this._etags.set(key, entry);
    while (this._etags.size > this._etagLimit) this._etags.delete(this._etags.keys().next().value);
  }
}
