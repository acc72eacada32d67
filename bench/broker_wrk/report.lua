-- A machine-readable summary line for bench/broker_bench.sh, printed after
-- wrk's own --latency report. wrk's text rounds to two digits and leaves out
-- p95 (the percentile Brokkr publishes); these are exact microseconds.
-- Failed requests are counted apart: a run with errors must not pass as fast.
function done(summary, latency, requests)
  local errors = summary.errors
  io.write(string.format(
    "SINDRI_WRK requests=%d duration_us=%d bytes=%d p50_us=%d p95_us=%d p99_us=%d max_us=%d " ..
    "status_errors=%d connect_errors=%d read_errors=%d write_errors=%d timeouts=%d\n",
    summary.requests, summary.duration, summary.bytes, latency:percentile(50), latency:percentile(95),
    latency:percentile(99), latency.max, errors.status, errors.connect, errors.read,
    errors.write, errors.timeout))
end
