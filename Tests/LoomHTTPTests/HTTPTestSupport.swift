// Every file of this target sees the shared test helpers (LoomTestSupport): the raw
// client, the JSON helpers, polling, the captured log.
@_exported import LoomTestSupport
