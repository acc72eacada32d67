-- POST the same JSON body with every request, for bench/template_bench.sh:
-- the URL on wrk's command line carries the path (from-template instantiation
-- or a direct deployment object creation). Environment:
--   SINDRI_WRK_DIR          this directory
--   SINDRI_BENCH_BODY_FILE  the request body
--   SINDRI_BENCH_PAK        the PAK to send (the generator's)
-- Nothing varies between requests, so wrk builds the request once; every
-- answer outside 2xx is counted (report.lua's count_non_2xx).
local dir = os.getenv("SINDRI_WRK_DIR")
dofile(dir .. "/report.lua")

local file = assert(io.open(os.getenv("SINDRI_BENCH_BODY_FILE"), "rb"))
wrk.method = "POST"
wrk.body = file:read("*a")
file:close()
wrk.headers["Authorization"] = "Bearer " .. os.getenv("SINDRI_BENCH_PAK")
wrk.headers["Content-Type"] = "application/json"

count_non_2xx()
