-- A machine-readable summary line for bench/broker_bench.sh, printed after
-- wrk's own --latency report. wrk's text rounds to two digits and leaves out
-- p95 (the percentile Brokkr publishes); these are exact microseconds.
-- Failed requests are counted apart: a run with errors must not pass as fast.
--
-- wrk counts only answers >= 400 as status errors. A script that must count
-- every answer outside 2xx calls count_non_2xx(): that makes wrk hand each
-- response to Lua (a little client CPU per request, the same for every
-- scenario that uses it), adds non_2xx=N to the summary line, and prints the
-- first failed answer of each thread to stderr.
local counted_threads = nil

function count_non_2xx()
  counted_threads = {}
  -- setup() runs in wrk's main Lua state, once per thread.
  function setup(thread)
    counted_threads[#counted_threads + 1] = thread
  end
  -- The rest runs in each thread's own Lua state.
  non_2xx = 0
  function response(status, headers, body)
    if status < 200 or status > 299 then
      non_2xx = non_2xx + 1
      if non_2xx == 1 then
        io.stderr:write(string.format("first answer outside 2xx: %d %s\n", status, body:sub(1, 500)))
      end
    end
  end
end

function done(summary, latency, requests)
  local errors = summary.errors
  local extra = ""
  if counted_threads then
    local total = 0
    for _, thread in ipairs(counted_threads) do total = total + (thread:get("non_2xx") or 0) end
    extra = string.format(" non_2xx=%d", total)
  end
  io.write(string.format(
    "SINDRI_WRK requests=%d duration_us=%d bytes=%d p50_us=%d p95_us=%d p99_us=%d max_us=%d " ..
    "status_errors=%d connect_errors=%d read_errors=%d write_errors=%d timeouts=%d%s\n",
    summary.requests, summary.duration, summary.bytes, latency:percentile(50), latency:percentile(95),
    latency:percentile(99), latency.max, errors.status, errors.connect, errors.read,
    errors.write, errors.timeout, extra))
end
