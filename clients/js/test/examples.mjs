// Every file of examples/ written with the builder, as a Texture user would port it.
// The tests check that each gives the very request the file holds (same X-Layout-Key,
// same frames).
import {
  stack, inset, overlay, center, staticLayout, spacer, node, image, text, button, ratio, corner,
} from "../loom.js";

const scale2 = { scale: 2 };

export const examples = {
  "header-with-left-right-justified-text.json": () => ({
    sizeRange: { min: { width: 375, height: 0 }, max: { width: 375, height: null } },
    ...scale2,
    root: inset(
      { id: "headerInsetSpec", insets: { top: 0, left: 10, bottom: 0, right: 10 }, style: { flexShrink: true, flexGrow: true } },
      stack(
        { id: "horizontalStackSpec", direction: "horizontal", alignItems: "center", justifyContent: "start",
          style: { flexShrink: true, flexGrow: true } },
        [
          stack({ id: "verticalStackSpec", direction: "vertical", style: { flexShrink: true } }, [
            node({ id: "usernameNode", style: { flexShrink: true, preferredSize: { width: 140, height: 24 } } }),
            node({ id: "postLocationNode", style: { flexShrink: true, preferredSize: { width: 280, height: 24 } } }),
          ]),
          spacer({ id: "spacerSpec", style: { flexGrow: true, flexShrink: true } }),
          node({ id: "postTimeNode", style: { preferredSize: { width: 30, height: 24 } } }),
        ],
      ),
    ),
  }),

  "photo-with-inset-text-overlay.json": () => ({
    sizeRange: { min: { width: 0, height: 0 }, max: { width: 375, height: null } },
    ...scale2,
    root: overlay(
      { id: "textOverlaySpec" },
      staticLayout({ id: "backgroundImageStaticSpec" }, [
        image({ id: "photoNode",
          url: "http://texturegroup.org/static/images/layout-examples-photo-with-inset-text-overlay-photo.png",
          style: { preferredFrameSize: { width: 150, height: 150 } } }),
      ]),
      inset({ id: "textInsetSpec", insets: { top: "inf", left: 12, bottom: 12, right: 12 } },
        node({ id: "titleNode", style: { preferredSize: { width: 120, height: 20 } } })),
    ),
  }),

  "photo-with-outset-icon-overlay.json": () => ({
    sizeRange: { min: { width: 0, height: 0 }, max: { width: 375, height: null } },
    ...scale2,
    root: staticLayout({ id: "staticLayoutSpec" }, [
      image({ id: "photoNode",
        url: "http://texturegroup.org/static/images/layout-examples-photo-with-outset-icon-overlay-photo.png",
        style: { preferredFrameSize: { width: 150, height: 150 }, layoutPosition: { x: 20, y: 20 } } }),
      image({ id: "iconNode",
        url: "http://texturegroup.org/static/images/layout-examples-photo-with-outset-icon-overlay-icon.png",
        style: { preferredFrameSize: { width: 40, height: 40 }, layoutPosition: { x: 150, y: 0 } } }),
    ]),
  }),

  "simple-inset-text-cell.json": () => ({
    sizeRange: { min: { width: 0, height: 0 }, max: { width: 375, height: 44 } },
    ...scale2,
    root: center({ id: "centerSpec", centeringOptions: "y", sizingOptions: "minimumX" },
      inset({ id: "inset", insets: { top: 0, left: 12, bottom: 4, right: 4 } },
        node({ id: "titleNode", style: { preferredSize: { width: 120, height: 20 } } }))),
  }),

  "top-bottom-separator-lines.json": () => ({
    sizeRange: { min: { width: 375, height: 100 }, max: { width: 375, height: 100 } },
    ...scale2,
    root: stack({ id: "verticalStackSpec", direction: "vertical", justifyContent: "center", alignItems: "stretch" }, [
      node({ id: "topSeparator", style: { flexGrow: true } }),
      inset({ id: "insetContentSpec", insets: { top: 10, left: 10, bottom: 10, right: 10 } },
        node({ id: "textNode", style: { preferredSize: { width: 180, height: 20 } } })),
      node({ id: "bottomSeparator", style: { flexGrow: true } }),
    ]),
  }),

  "yoga-card-row.json": () => ({
    sizeRange: { min: { width: 0, height: 0 }, max: { width: 300, height: null } },
    ...scale2,
    root: node({ id: "card", style: { flexDirection: "horizontal", alignItems: "center", padding: { all: 10 } }, yogaChildren: [
      node({ id: "avatar", style: { width: 40, height: 40, margin: { right: 8 } } }),
      node({ id: "label", intrinsicSize: { width: 120.3, height: 17 }, style: { flexGrow: 1, flexShrink: 1 } }),
      image({ id: "badge", intrinsicSize: { width: 16, height: 16 } }),
    ] }),
  }),

  "yoga-chip-absolute.json": () => ({
    sizeRange: { min: { width: 200, height: 120 }, max: { width: 200, height: 120 } },
    scale: 3,
    root: node({ id: "root", style: { alignItems: "start", justifyContent: "center" }, yogaChildren: [
      node({ id: "chip", layout: inset({ id: "chipInset", insets: { top: 4, left: 10, bottom: 4, right: 10 } },
        node({ id: "chipIcon", intrinsicSize: { width: 20.2, height: 20.2 } })) }),
      node({ id: "dot", style: { positionType: "absolute", position: { right: 5, top: 5 }, width: 10, height: 10 } }),
      node({ id: "bar", style: { width: "33.3%", height: 7 } }),
    ] }),
  }),

  "yoga-toolbar-in-stack.json": () => ({
    sizeRange: { min: { width: 320, height: 0 }, max: { width: 320, height: null } },
    ...scale2,
    root: stack({ id: "screen", direction: "vertical", spacing: 8 }, [
      node({ id: "toolbar", style: { height: 44, flexDirection: "horizontal", justifyContent: "spaceBetween",
        alignItems: "center", padding: { horizontal: 12 } }, yogaChildren: [
        node({ id: "back", intrinsicSize: { width: 24, height: 24 } }),
        node({ id: "title", intrinsicSize: { width: 97.3, height: 20.5 } }),
        node({ id: "menu", style: { width: 24, height: 24 } }),
      ] }),
      node({ id: "body", intrinsicSize: { width: 200, height: 100 } }),
    ]),
  }),

  "text-cell-title-subtitle.json": () => ({
    sizeRange: { min: { width: 375, height: 0 }, max: { width: 375, height: null } },
    ...scale2,
    root: inset({ id: "cellInset", insets: { top: 12, left: 16, bottom: 12, right: 16 } },
      stack({ id: "textStack", direction: "vertical", spacing: 4, alignItems: "start" }, [
        text("Hiking trails", { id: "titleNode", font: { family: "Roboto", size: 17 } }),
        text("12 new this week", { id: "subtitleNode", font: { family: "Roboto", size: 14 } }),
      ])),
  }),

  "button-with-icon.json": () => ({
    sizeRange: { min: { width: 0, height: 0 }, max: { width: 375, height: null } },
    ...scale2,
    root: button({ id: "followButton",
      title: { text: "Follow", font: { family: "Roboto", size: 15, weight: 500 } },
      image: { intrinsicSize: { width: 16, height: 16 }, url: "https://example.com/icons/plus.png" },
      contentSpacing: 6,
      contentEdgeInsets: { top: 8, left: 16, bottom: 8, right: 16 } }),
  }),

  "wrapped-tag-stack.json": () => {
    const tag = (t, id) => text(t, { id, font: { family: "Roboto", size: 14 },
      textContainerInset: { top: 4, left: 10, bottom: 4, right: 10 } });
    return {
      sizeRange: { min: { width: 0, height: 0 }, max: { width: 160, height: null } },
      ...scale2,
      root: stack({ id: "tagStack", direction: "horizontal", flexWrap: "wrap", spacing: 8, lineSpacing: 8 }, [
        tag("swift", "swiftTag"), tag("layout", "layoutTag"), tag("texture", "textureTag"),
        tag("ios", "iosTag"), tag("web", "webTag"),
      ]),
    };
  },

  "ratio-photo-with-corner-badge.json": () => ({
    sizeRange: { min: { width: 0, height: 0 }, max: { width: 300, height: null } },
    ...scale2,
    root: corner({ id: "badgeCorner", cornerLocation: "topRight", offset: { x: -16, y: 16 } },
      ratio({ id: "photoRatio", ratio: 0.5625 }, image({ id: "photoNode", url: "https://example.com/photos/trail.jpg" })),
      node({ id: "badgeNode", style: { preferredSize: { width: 24, height: 24 } } })),
  }),
};
