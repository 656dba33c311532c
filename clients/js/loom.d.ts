// Types of loom.js, checked by hand against openapi.yaml (docs/wire-format.md).

/** Points, "NN%" of the parent, or "auto". */
export type Dimension = number | `${number}%` | "auto";
export interface Size { width?: number | null; height?: number | null }
export interface Point { x: number; y: number }
export interface Insets { top?: number | "inf"; left?: number | "inf"; bottom?: number | "inf"; right?: number | "inf" }
export interface SizeRange { min?: Size; max?: Size }
export interface Frame { x: number; y: number; width: number; height: number }

/** ASLayoutElementStyle (and, on Yoga nodes, Yoga's style). Fields apply in the order written. */
export interface Style {
  width?: Dimension; height?: Dimension;
  minWidth?: Dimension; maxWidth?: Dimension; minHeight?: Dimension; maxHeight?: Dimension;
  preferredSize?: Size; minSize?: Size; maxSize?: Size;
  flexGrow?: number | boolean; flexShrink?: number | boolean; flexBasis?: Dimension;
  alignSelf?: "auto" | "start" | "end" | "center" | "stretch" | "baseline";
  spacingBefore?: number; spacingAfter?: number;
  ascender?: number; descender?: number;
  layoutPosition?: Point;
  /** Layout API 1.x */
  preferredFrameSize?: Size;
  sizeRange?: { min?: { width?: Dimension; height?: Dimension }; max?: { width?: Dimension; height?: Dimension } };
  /** Yoga (docs/yoga.md) */
  [yogaField: string]: unknown;
}

export interface Element {
  type: string;
  id?: string;
  style?: Style;
  [field: string]: unknown;
}

export interface Common { id?: string; style?: Style }

export type StackAlign = "start" | "end" | "center" | "stretch" | "baselineFirst" | "baselineLast";
export type StackJustify = "start" | "center" | "end" | "spaceBetween" | "spaceAround";
export interface StackOptions extends Common {
  direction?: "horizontal" | "vertical";
  spacing?: number;
  justifyContent?: StackJustify;
  alignItems?: StackAlign;
  flexWrap?: "noWrap" | "wrap";
  alignContent?: StackJustify | "stretch";
  lineSpacing?: number;
  horizontalAlignment?: "none" | "left" | "middle" | "right";
  verticalAlignment?: "none" | "top" | "center" | "bottom";
  concurrent?: boolean;
}
export interface InsetOptions extends Common { insets?: Insets }
export interface CenterOptions extends Common {
  centeringOptions?: "none" | "x" | "y" | "xy";
  sizingOptions?: "default" | "minimumX" | "minimumY" | "minimumXY";
}
export interface RelativeOptions extends Common {
  horizontalPosition?: "none" | "start" | "center" | "end";
  verticalPosition?: "none" | "start" | "center" | "end";
  sizingOption?: "default" | "minimumWidth" | "minimumHeight" | "minimumSize";
}
export interface RatioOptions extends Common { ratio: number }
export interface AbsoluteOptions extends Common { sizing?: "default" | "sizeToFit" }
export interface CornerOptions extends Common {
  cornerLocation?: "topLeft" | "topRight" | "bottomLeft" | "bottomRight";
  offset?: Point;
  wrapsCorner?: boolean;
}
export interface NodeOptions extends Common {
  layout?: Element;
  intrinsicSize?: Size;
  yogaChildren?: Element[];
}
export interface Font { family?: string; size?: number; weight?: number | string; italic?: boolean }
export interface Span { text: string; font?: Font; letterSpacing?: number }
export interface TextOptions extends Common {
  text?: string;
  spans?: Span[];
  font?: Font;
  lineHeight?: number;
  lineSpacing?: number;
  letterSpacing?: number;
  alignment?: "left" | "center" | "right" | "justified" | "natural";
  maximumNumberOfLines?: number;
  truncationMode?: "tail" | "head" | "middle" | "clip" | "wordWrap" | "charWrap";
  truncationText?: string;
  textContainerInset?: Insets;
  layout?: Element;
}
export interface ImageOptions extends Common { intrinsicSize?: Size; url?: string; layout?: Element }
export interface ButtonOptions extends Common {
  title?: Omit<TextOptions, "id" | "style" | "layout">;
  image?: { intrinsicSize?: Size };
  contentSpacing?: number;
  laysOutHorizontally?: boolean;
  contentHorizontalAlignment?: string;
  contentVerticalAlignment?: string;
  contentEdgeInsets?: Insets;
  imageAlignment?: "beginning" | "end";
}

export function stack(options: StackOptions, children: Element[]): Element;
export function inset(options: InsetOptions, child: Element): Element;
export function overlay(options: Common, child: Element, overlay: Element): Element;
export function background(options: Common, child: Element, background: Element): Element;
export function center(options: CenterOptions, child: Element): Element;
export function relative(options: RelativeOptions, child: Element): Element;
export function ratio(options: RatioOptions, child: Element): Element;
export function absolute(options: AbsoluteOptions, children: Element[]): Element;
export function staticLayout(options: Common, children: Element[]): Element;
export function corner(options: CornerOptions, child: Element, corner: Element): Element;
export function wrapper(options: Common, children: Element[]): Element;
export function spacer(options?: Common): Element;
export function node(options?: NodeOptions): Element;
export function text(text: string, options?: TextOptions): Element;
export function text(options: TextOptions): Element;
export function image(options?: ImageOptions): Element;
export function button(options?: ButtonOptions): Element;

export interface Envelope {
  sizeRange?: SizeRange;
  scale?: number;
  /** output: "both" (default), "layout" or "frames": only the part you read is encoded;
   *  includeText: text entries carry their laid-out lines (`textLines`, `truncatedString`) */
  options?: { includeSpecs?: boolean; output?: "both" | "layout" | "frames"; includeText?: boolean; [option: string]: unknown };
}
export interface LayoutRequest extends Envelope { root: Element }

export function makeRequest(root: Element, envelope?: Envelope): { body: LayoutRequest; elements: Map<Element, string> };

export interface LayoutTree {
  type: string;
  id?: string;
  frame: Frame;
  children: LayoutTree[];
  lines?: number;
  truncated?: boolean;
  /** with `options.includeText`: the visible lines, and what a truncated text shows */
  textLines?: TextLine[];
  truncatedString?: string;
  url?: string;
}

/** One laid-out line (`options.includeText`): points in the text entry's frame, the range
 *  in UTF-16 code units of the element's string (JavaScript string indices). */
export interface TextLine {
  text: string;
  location: number;
  length: number;
  x: number;
  y: number;
  width: number;
  height: number;
  baseline: number;
  rightToLeft: boolean;
  fonts: string[];
}

export interface Warning { code: string; path: string; message: string; [detail: string]: unknown }

export class LayoutResult {
  size: { width: number; height: number };
  /** left out when `options.output` is "frames" */
  layout?: LayoutTree;
  /** empty when `options.output` is "layout" */
  frames: Record<string, Frame>;
  warnings: Warning[];
  /** X-Layout-Key */
  key?: string;
  /** X-Layout-Cache ("hit" | "miss"; "hit" too when answered from the client's ETag store) */
  cache?: string;
  /** true when a 304 let the client reuse the answer it kept */
  notModified: boolean;
  etag?: string;
  requestId?: string;
  frame(idOrElement: string | Element): Frame | undefined;
}

export class LoomError extends Error {
  /** HTTP status; 0 when the server was not reached */
  status: number;
  /** the server's error code (invalid_spec, malformed_json, too_large, overloaded, …) or "transport" */
  code: string;
  /** the server's message */
  detail: string;
  /** the offending field, e.g. "root.children[2].ratio" */
  path?: string;
  requestId?: string;
  retryAfter?: number;
}

export interface ClientOptions {
  fetch?: typeof fetch;
  /** how often a 503 is retried (default 2) */
  retries?: number;
  /** the longest Retry-After honoured, in seconds (default 5) */
  maxRetryDelay?: number;
  /** answers kept by ETag for If-None-Match (default 256; 0 = off) */
  etagEntries?: number;
  headers?: Record<string, string>;
}

export class LoomClient {
  constructor(baseURL: string, options?: ClientOptions);
  layout(root: Element, envelope?: Envelope): Promise<LayoutResult>;
  layout(request: LayoutRequest): Promise<LayoutResult>;
  svg(root: Element | LayoutRequest, envelope?: Envelope): Promise<string>;
  batch(items: Array<Element | LayoutRequest>, envelope?: Envelope): Promise<Array<LayoutResult | LoomError>>;
}
