-- POST /api/v1/stacks/{id}/deployment-objects, a new manifest each time.
-- Environment (set by bench/broker_bench.sh):
--   SINDRI_WRK_DIR        this directory
--   SINDRI_BENCH_MANIFEST optional: another manifest file like manifest.lua
--   SINDRI_BENCH_PAK      a PAK that may write to the stack (the generator's)
--   SINDRI_BENCH_STACK    the stack id
--   SINDRI_BENCH_RUN      a tag that keeps names unique across wrk runs
--   SINDRI_BENCH_QUOTA    optional: each thread stops after this many 201s
--                         (bulk loading); it then touches
--   SINDRI_BENCH_MARKER   .<thread number>, so the caller knows when to end
--                         wrk (wrk itself always runs for its full -d).
local dir = os.getenv("SINDRI_WRK_DIR")
dofile(dir .. "/report.lua")

local path = "/api/v1/stacks/" .. os.getenv("SINDRI_BENCH_STACK") .. "/deployment-objects"
local run = os.getenv("SINDRI_BENCH_RUN") or "run"
local quota = tonumber(os.getenv("SINDRI_BENCH_QUOTA") or "0")
local marker = os.getenv("SINDRI_BENCH_MARKER")
local headers = {
  ["Authorization"] = "Bearer " .. os.getenv("SINDRI_BENCH_PAK"),
  ["Content-Type"] = "application/json",
}

-- The body is {"yaml_content": "<manifest>"}. Escape the manifest for JSON
-- once, then cut it at each @NAME@, so a request costs one concatenation.
local function json_escape(text)
  return (text:gsub('[%c"\\]', function(c)
    if c == "\n" then return "\\n" end
    if c == '"' then return '\\"' end
    if c == "\\" then return "\\\\" end
    return string.format("\\u%04x", c:byte())
  end))
end
local escaped = '{"yaml_content":"' .. json_escape(dofile(os.getenv("SINDRI_BENCH_MANIFEST") or (dir .. "/manifest.lua"))) .. '"}'
-- The name goes where @NAME@ is; @HASH@ gets hex digits that change with
-- every request.
local pieces, holes = {}, {}
for piece, hole in (escaped .. "@END@"):gmatch("(.-)@(%u+)@") do
  pieces[#pieces + 1] = piece
  holes[#holes + 1] = hole
end

-- setup() runs in wrk's main Lua state, once per thread: number the threads.
local threads = 0
function setup(thread)
  thread:set("thread_number", threads)
  threads = threads + 1
end

local counter = 0
local parts = {}
function request()
  counter = counter + 1
  local fill = {
    NAME = "bench-" .. run .. "-" .. thread_number .. "-" .. counter,
    HASH = string.format("%08x%08x%08x%08x%08x%08x%08x%08x", math.random(0, 0x7fffffff),
      math.random(0, 0x7fffffff), math.random(0, 0x7fffffff), math.random(0, 0x7fffffff), counter,
      math.random(0, 0x7fffffff), math.random(0, 0x7fffffff), math.random(0, 0x7fffffff)),
    END = "",
  }
  for i = 1, #pieces do
    parts[2 * i - 1] = pieces[i]
    parts[2 * i] = fill[holes[i]]
  end
  return wrk.format("POST", path, headers, table.concat(parts))
end

-- Only when loading a fixed number of objects: a response callback makes wrk
-- parse every response, which the timed runs should not pay for.
if quota > 0 then
  local created = 0
  local stopped = false
  function response(status, headers, body)
    if status == 201 then created = created + 1 end
    if created >= quota and not stopped then
      stopped = true
      local file = io.open(marker .. "." .. thread_number, "w")
      if file then file:close() end
      wrk.thread:stop()
    end
  end
end
