/// `ASCenterLayoutSpecCenteringOptions`.
public enum CenterLayoutSpecCenteringOptions: String, Hashable, Sendable, CaseIterable {
    case none, x, y, xy
}

/// `ASCenterLayoutSpecSizingOptions`.
public enum CenterLayoutSpecSizingOptions: String, Hashable, Sendable, CaseIterable {
    case `default`, minimumX, minimumY, minimumXY
}

/// `ASCenterLayoutSpec` (§7.7): a relative spec centring on the chosen axes.
public final class CenterLayoutSpec: RelativeLayoutSpec {
    public let centeringOptions: CenterLayoutSpecCenteringOptions
    public let sizingOptions: CenterLayoutSpecSizingOptions

    public init(centeringOptions: CenterLayoutSpecCenteringOptions, sizingOptions: CenterLayoutSpecSizingOptions,
                child: LayoutElement, style: LayoutElementStyle = LayoutElementStyle(), id: String? = nil) {
        self.centeringOptions = centeringOptions
        self.sizingOptions = sizingOptions
        let h: RelativeLayoutSpecPosition = (centeringOptions == .x || centeringOptions == .xy) ? .center : .none
        let v: RelativeLayoutSpecPosition = (centeringOptions == .y || centeringOptions == .xy) ? .center : .none
        var sizing: RelativeLayoutSpecSizingOption = []
        if sizingOptions == .minimumX || sizingOptions == .minimumXY { sizing.insert(.minimumWidth) }
        if sizingOptions == .minimumY || sizingOptions == .minimumXY { sizing.insert(.minimumHeight) }
        super.init(horizontalPosition: h, verticalPosition: v, sizingOption: sizing, child: child, style: style, id: id)
    }
}
