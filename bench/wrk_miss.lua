-- wrk script: every request a different tree, so that every request misses Loom's cache.
--   wrk -t2 -c16 -d10s -s bench/wrk_miss.lua http://127.0.0.1:PORT/layout -- BODY_FILE BASE [check]
-- BODY_FILE (bench/trees/cell.json) contains the number 7.125 exactly once (the width of
-- the "unread" node); each request replaces it with 7.NNNNNNNNN, NNNNNNNNN =
-- BASE + thread index * 10^7 + a per-thread request counter, so no two requests of one run
-- (up to 10 threads, 10^7 requests per thread), nor of runs with BASEs 10^8 apart, post
-- the same tree. The layout barely changes; the cache key does.
-- done() prints one line: WRKJSON {...}

local threads = {}

-- wrk calls setup() and then init() for one thread before it sets up the next one, so a
-- thread cannot know the thread count; each thread gets its own range of 10^7 numbers.
function setup(thread)
   thread:set("tid", #threads)
   table.insert(threads, thread)
end

local MARKER = "7.125"
local prefix, suffix
local counter, base = 0, 0
hits, misses, other, non2xx = 0, 0, 0, 0

function init(args)
   local f = assert(io.open(args[1], "rb"), "cannot open " .. tostring(args[1]))
   local body = f:read("*a")
   f:close()
   local s, e = string.find(body, MARKER, 1, true)
   assert(s, "marker 7.125 not found in " .. args[1])
   assert(not string.find(body, MARKER, e + 1, true), "marker 7.125 occurs more than once")
   prefix = string.sub(body, 1, s - 1)
   suffix = string.sub(body, e + 1)
   base = tonumber(args[2] or "0") + (tid or 0) * 10000000
   wrk.method = "POST"
   wrk.headers["Content-Type"] = "application/json"
   if args[3] == "check" then
      response = function(status, headers, body)
         if status < 200 or status > 299 then non2xx = non2xx + 1 end
         local c = headers["X-Layout-Cache"] or headers["x-layout-cache"]
         if c == "hit" then hits = hits + 1
         elseif c == "miss" then misses = misses + 1
         else other = other + 1 end
      end
   end
end

function request()
   local n = (base + counter) % 1000000000
   counter = counter + 1
   return wrk.format(nil, nil, nil, prefix .. string.format("7.%09d", n) .. suffix)
end

function done(summary, latency, requests)
   local h, m, o = 0, 0, 0
   for _, t in ipairs(threads) do
      h = h + (t:get("hits") or 0)
      m = m + (t:get("misses") or 0)
      o = o + (t:get("other") or 0)
   end
   local e = summary.errors
   io.write(string.format(
      'WRKJSON {"requests":%d,"duration_s":%.3f,"rps":%.1f,"p50_ms":%.3f,"p90_ms":%.3f,"p99_ms":%.3f,' ..
      '"mean_ms":%.3f,"max_ms":%.3f,"bytes":%d,"errors":{"connect":%d,"read":%d,"write":%d,"status":%d,"timeout":%d},' ..
      '"cache":{"hit":%d,"miss":%d,"none":%d}}\n',
      summary.requests, summary.duration / 1e6, summary.requests / (summary.duration / 1e6),
      latency:percentile(50) / 1000, latency:percentile(90) / 1000, latency:percentile(99) / 1000,
      latency.mean / 1000, latency.max / 1000, summary.bytes,
      e.connect, e.read, e.write, e.status, e.timeout, h, m, o))
end
