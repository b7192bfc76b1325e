-- wrk script: POST heartbeats round-robin over the instances Populate.java (in
-- bench/src/ballast/bench) registered (instance i-K of service bench-(K % S)). Each wrk thread starts at a
-- different offset so threads do not renew the same instance at the same moment.
-- BALLAST_TOKEN (environment) is sent as the bearer token of every heartbeat.
local token = os.getenv("BALLAST_TOKEN")
if not token or not token:match("^[!-~]+$") then
  error("BALLAST_TOKEN must hold the bearer token to send (printable ASCII, no spaces)")
end
wrk.headers["Authorization"] = "Bearer " .. token
local instances = tonumber(os.getenv("BENCH_INSTANCES") or "100000")
local services = tonumber(os.getenv("BENCH_SERVICES") or "100")
local counter = 0
local threads = {}

function setup(thread)
  thread:set("offset", #threads * 50021)
  table.insert(threads, thread)
end

function init(args)
  counter = offset or 0
end

function request()
  counter = (counter + 1) % instances
  return wrk.format("POST", string.format("/v1/services/bench-%d/instances/i-%d/heartbeat",
    counter % services, counter))
end

function done(summary, latency, requests)
  local seconds = summary.duration / 1e6
  local errors = summary.errors
  io.write(string.format("heartbeats: %d in %.1f s = %.0f/s\n", summary.requests, seconds,
    summary.requests / seconds))
  io.write(string.format("errors: connect %d, read %d, write %d, non-2xx %d, timeout %d\n",
    errors.connect, errors.read, errors.write, errors.status, errors.timeout))
  io.write(string.format("latency: p50 %.2f ms, p90 %.2f ms, p99 %.2f ms, p99.9 %.2f ms, max %.2f ms\n",
    latency:percentile(50) / 1000, latency:percentile(90) / 1000, latency:percentile(99) / 1000,
    latency:percentile(99.9) / 1000, latency.max / 1000))
end
