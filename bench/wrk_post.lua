-- wrk script: POST the same JSON body on every request (bare server, Loom cache-hit).
--   wrk -t2 -c16 -d10s -s bench/wrk_post.lua http://127.0.0.1:PORT/layout -- BODY_FILE [check]
-- With "check", every response's X-Layout-Cache header is counted (costs some client CPU).
-- done() prints one line: WRKJSON {...}

local threads = {}

function setup(thread)
   table.insert(threads, thread)
end

local function read_file(path)
   local f = assert(io.open(path, "rb"), "cannot open " .. tostring(path))
   local s = f:read("*a")
   f:close()
   return s
end

hits, misses, other, non2xx = 0, 0, 0, 0

function init(args)
   wrk.method = "POST"
   wrk.body = read_file(args[1])
   wrk.headers["Content-Type"] = "application/json"
   if args[2] == "check" then
      response = function(status, headers, body)
         if status < 200 or status > 299 then non2xx = non2xx + 1 end
         local c = headers["X-Layout-Cache"] or headers["x-layout-cache"]
         if c == "hit" then hits = hits + 1
         elseif c == "miss" then misses = misses + 1
         else other = other + 1 end
      end
   end
end

function done(summary, latency, requests)
   local h, m, o, n = 0, 0, 0, 0
   for _, t in ipairs(threads) do
      h = h + (t:get("hits") or 0)
      m = m + (t:get("misses") or 0)
      o = o + (t:get("other") or 0)
      n = n + (t:get("non2xx") or 0)
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
