import Foundation
import LoomLayout
import LoomService
import XCTest
@_exported import LoomTestSupport

// Shared helpers of the LoomService tests (JSON plumbing and a deterministic stub text
// measurer). Expected numbers in the tests are derived by hand from
// docs/layout-semantics.md and docs/wire-format.md, never computed here.

/// The JSON helpers of every test target (Foundation reads the bodies), under the name these
/// tests have always used.
typealias Svc = TestJSON
