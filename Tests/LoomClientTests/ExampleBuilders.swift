import LoomClient

/// Every file of examples/ written with the builder, as its `layoutSpecThatFits:` reads in
/// Texture. The tests check each gives the file's very request (same X-Layout-Key).
enum ExampleBuilders {
    static let all: [(file: String, request: () -> LayoutRequest)] = [
        ("header-with-left-right-justified-text.json", header),
        ("photo-with-inset-text-overlay.json", photoWithInsetText),
        ("photo-with-outset-icon-overlay.json", photoWithOutsetIcon),
        ("simple-inset-text-cell.json", simpleInsetTextCell),
        ("top-bottom-separator-lines.json", separatorLines),
        ("yoga-card-row.json", yogaCardRow),
        ("yoga-chip-absolute.json", yogaChipAbsolute),
        ("yoga-toolbar-in-stack.json", yogaToolbarInStack),
        ("text-cell-title-subtitle.json", textCell),
        ("button-with-icon.json", buttonWithIcon),
        ("wrapped-tag-stack.json", wrappedTags),
        ("ratio-photo-with-corner-badge.json", ratioPhotoWithBadge),
    ]

    static func header() -> LayoutRequest {
        let username = DisplayNode().id("usernameNode").style {
            $0.flexShrink = 1
            $0.preferredSize = Size(width: 140, height: 24)
        }
        let location = DisplayNode().id("postLocationNode").style {
            $0.flexShrink = 1
            $0.preferredSize = Size(width: 280, height: 24)
        }
        let time = DisplayNode().id("postTimeNode").style { $0.preferredSize = Size(width: 30, height: 24) }
        let nameLocation = Stack(.vertical) { username; location }
            .id("verticalStackSpec").style { $0.flexShrink = 1 }
        let spacer = Spacer().id("spacerSpec").style { $0.flexGrow = 1; $0.flexShrink = 1 }
        let row = Stack(.horizontal, justifyContent: .start, alignItems: .center) { nameLocation; spacer; time }
            .id("horizontalStackSpec").style { $0.flexShrink = 1; $0.flexGrow = 1 }
        let root = Inset(EdgeInsets(top: 0, left: 10, bottom: 0, right: 10), row)
            .id("headerInsetSpec").style { $0.flexShrink = 1; $0.flexGrow = 1 }
        return .width(375, root, scale: 2)
    }

    static func photoWithInsetText() -> LayoutRequest {
        let photo = ImageNode(url: "http://texturegroup.org/static/images/layout-examples-photo-with-inset-text-overlay-photo.png")
            .id("photoNode").style { $0.preferredSize = Size(width: 150, height: 150) }
        let title = DisplayNode().id("titleNode").style { $0.preferredSize = Size(width: 120, height: 20) }
        let insets = EdgeInsets(top: .infinity, left: 12, bottom: 12, right: 12)
        let root = Overlay(StaticLayout { photo }.id("backgroundImageStaticSpec"),
                           overlay: Inset(insets, title).id("textInsetSpec")).id("textOverlaySpec")
        return LayoutRequest(root, maxWidth: 375, scale: 2)
    }

    static func photoWithOutsetIcon() -> LayoutRequest {
        let photo = ImageNode(url: "http://texturegroup.org/static/images/layout-examples-photo-with-outset-icon-overlay-photo.png")
            .id("photoNode").style {
                $0.preferredSize = Size(width: 150, height: 150)
                $0.layoutPosition = Point(x: 20, y: 20)
            }
        let icon = ImageNode(url: "http://texturegroup.org/static/images/layout-examples-photo-with-outset-icon-overlay-icon.png")
            .id("iconNode").style {
                $0.preferredSize = Size(width: 40, height: 40)
                $0.layoutPosition = Point(x: 150, y: 0)
            }
        return LayoutRequest(StaticLayout { photo; icon }.id("staticLayoutSpec"), maxWidth: 375, scale: 2)
    }

    static func simpleInsetTextCell() -> LayoutRequest {
        let title = DisplayNode().id("titleNode").style { $0.preferredSize = Size(width: 120, height: 20) }
        let inset = Inset(EdgeInsets(top: 0, left: 12, bottom: 4, right: 4), title).id("inset")
        let root = Center(centeringOptions: .y, sizingOptions: .minimumX, inset).id("centerSpec")
        return LayoutRequest(root, maxWidth: 375, maxHeight: 44, scale: 2)
    }

    static func separatorLines() -> LayoutRequest {
        let top = DisplayNode().id("topSeparator").style { $0.flexGrow = 1 }
        let bottom = DisplayNode().id("bottomSeparator").style { $0.flexGrow = 1 }
        let text = DisplayNode().id("textNode").style { $0.preferredSize = Size(width: 180, height: 20) }
        let content = Inset(EdgeInsets(top: 10, left: 10, bottom: 10, right: 10), text).id("insetContentSpec")
        let root = Stack(.vertical, justifyContent: .center, alignItems: .stretch) { top; content; bottom }
            .id("verticalStackSpec")
        return LayoutRequest(root, minSize: Size(width: 375, height: 100), maxWidth: 375, maxHeight: 100, scale: 2)
    }

    static func yogaCardRow() -> LayoutRequest {
        let card = DisplayNode {
            DisplayNode().id("avatar").style {
                $0.width = 40; $0.height = 40
                $0.margin = YogaEdges(right: 8)
            }
            DisplayNode(intrinsicSize: Size(width: 120.3, height: 17)).id("label").style {
                $0.flexGrow = 1; $0.flexShrink = 1
            }
            ImageNode(intrinsicSize: Size(width: 16, height: 16)).id("badge")
        }.id("card").style {
            $0.flexDirection = .horizontal
            $0.alignItems = .center
            $0.padding = YogaEdges(all: 10)
        }
        return LayoutRequest(card, maxWidth: 300, scale: 2)
    }

    static func yogaChipAbsolute() -> LayoutRequest {
        let chipIcon = DisplayNode(intrinsicSize: Size(width: 20.2, height: 20.2)).id("chipIcon")
        let chip = DisplayNode(layout: Inset(EdgeInsets(top: 4, left: 10, bottom: 4, right: 10), chipIcon).id("chipInset"))
            .id("chip")
        let root = DisplayNode {
            chip
            DisplayNode().id("dot").style {
                $0.positionType = .absolute
                $0.position = YogaEdges(top: 5, right: 5)
                $0.width = 10; $0.height = 10
            }
            DisplayNode().id("bar").style { $0.width = .percent(33.3); $0.height = 7 }
        }.id("root").style { $0.alignItems = .start; $0.justifyContent = .center }
        return LayoutRequest(root, minSize: Size(width: 200, height: 120), maxWidth: 200, maxHeight: 120, scale: 3)
    }

    static func yogaToolbarInStack() -> LayoutRequest {
        let toolbar = DisplayNode {
            DisplayNode(intrinsicSize: Size(width: 24, height: 24)).id("back")
            DisplayNode(intrinsicSize: Size(width: 97.3, height: 20.5)).id("title")
            DisplayNode().id("menu").style { $0.width = 24; $0.height = 24 }
        }.id("toolbar").style {
            $0.height = 44
            $0.flexDirection = .horizontal
            $0.justifyContent = .spaceBetween
            $0.alignItems = .center
            $0.padding = YogaEdges(horizontal: 12)
        }
        let body = DisplayNode(intrinsicSize: Size(width: 200, height: 100)).id("body")
        return .width(320, Stack(.vertical, spacing: 8) { toolbar; body }.id("screen"), scale: 2)
    }

    static func textCell() -> LayoutRequest {
        let title = TextNode("Hiking trails", font: Font(family: "Roboto", size: 17)).id("titleNode")
        let subtitle = TextNode("12 new this week", font: Font(family: "Roboto", size: 14)).id("subtitleNode")
        let stack = Stack(.vertical, spacing: 4, alignItems: .start) { title; subtitle }.id("textStack")
        return .width(375, Inset(EdgeInsets(top: 12, left: 16, bottom: 12, right: 16), stack).id("cellInset"), scale: 2)
    }

    static func buttonWithIcon() -> LayoutRequest {
        let button = ButtonNode(title: "Follow", font: Font(family: "Roboto", size: 15, weight: 500),
                                imageSize: Size(width: 16, height: 16), imageURL: "https://example.com/icons/plus.png",
                                contentSpacing: 6, contentEdgeInsets: EdgeInsets(top: 8, left: 16, bottom: 8, right: 16))
        return LayoutRequest(button.id("followButton"), maxWidth: 375, scale: 2)
    }

    static func wrappedTags() -> LayoutRequest {
        func tag(_ text: String, _ id: String) -> Element {
            TextNode(text, font: Font(family: "Roboto", size: 14)) {
                $0.textContainerInset = EdgeInsets(top: 4, left: 10, bottom: 4, right: 10)
            }.id(id)
        }
        let tags = Stack(.horizontal, spacing: 8, flexWrap: .wrap, lineSpacing: 8) {
            tag("swift", "swiftTag"); tag("layout", "layoutTag"); tag("texture", "textureTag")
            tag("ios", "iosTag"); tag("web", "webTag")
        }.id("tagStack")
        return LayoutRequest(tags, maxWidth: 160, scale: 2)
    }

    static func ratioPhotoWithBadge() -> LayoutRequest {
        let photo = ImageNode(url: "https://example.com/photos/trail.jpg").id("photoNode")
        let badge = DisplayNode().id("badgeNode").style { $0.preferredSize = Size(width: 24, height: 24) }
        let root = Corner(Ratio(0.5625, photo).id("photoRatio"), corner: badge, location: .topRight,
                          offset: Point(x: -16, y: 16)).id("badgeCorner")
        return LayoutRequest(root, maxWidth: 300, scale: 2)
    }
}
