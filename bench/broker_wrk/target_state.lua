-- GET /api/v1/agents/{id}/target-state as the agent itself polls it: the
-- URL on wrk's command line carries the path, SINDRI_BENCH_PAK the agent's PAK.
-- SINDRI_BENCH_GZIP=1 adds Accept-Encoding: gzip (wrk counts the compressed
-- bytes and never inflates them). SINDRI_BENCH_CLOSE=1 adds Connection:
-- close, a new connection (and over HTTPS a TLS handshake) per request.
-- Nothing varies between requests, so wrk builds the request once.
local dir = os.getenv("SINDRI_WRK_DIR")
dofile(dir .. "/report.lua")

wrk.headers["Authorization"] = "Bearer " .. os.getenv("SINDRI_BENCH_PAK")
if os.getenv("SINDRI_BENCH_GZIP") == "1" then wrk.headers["Accept-Encoding"] = "gzip" end
if os.getenv("SINDRI_BENCH_CLOSE") == "1" then wrk.headers["Connection"] = "close" end
