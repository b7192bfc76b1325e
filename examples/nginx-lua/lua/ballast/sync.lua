-- Follows services in Ballast with blocking queries and publishes each one's
-- routable peers into the shared dict, for every worker's balancer.
--
-- One timer in worker 0 does it, with one light thread per service, so that a
-- service whose query is waiting never delays another. Each poll passes the
-- revision already applied as ?index=, which Ballast records as this named
-- subscriber's acknowledgement: a drain is confirmed only once the weight of 0
-- is in use here, not merely sent. Every request carries BALLAST_TOKEN as a
-- bearer token; a reader token is all this needs, acknowledgements included.
-- With BALLAST_ZONE, each answer is that zone's view of the service (Ballast's
-- docs/locality.md): the weights a balancer in the zone must use.

local cjson = require "cjson.safe"
local http = require "ballast.http"
local records = require "ballast.records"

local ngx = ngx
local log = ngx.log
local ERR, WARN, NOTICE = ngx.ERR, ngx.WARN, ngx.NOTICE
local sleep = ngx.sleep
local now = ngx.now
local exiting = ngx.worker.exiting
local format = string.format
local random = math.random
local min, max = math.min, math.max

local _M = {}

local dict = ngx.shared.ballast

-- Ballast holds a query up to wait plus 1/16 jitter; each read may take that
-- long, and a little more for the answer to travel.
local WAIT_SECONDS = 25
local TIMEOUTS = {
    connect_timeout = 2000,
    send_timeout = 2000,
    read_timeout = (WAIT_SECONDS + WAIT_SECONDS / 16 + 5) * 1000,
    max_body = 4 * 1024 * 1024,
}
-- A registry that answers at once every time (a bug, a proxy in between) must
-- not turn this loop into a busy one.
local MIN_POLL_INTERVAL = 0.1
local BACKOFF_FIRST, BACKOFF_MAX = 0.5, 5
local RETRY_AFTER_MAX = 30
-- Far more than a token of Ballast's takes; a bound on what goes into every request.
local MAX_TOKEN = 4096

local function split(list)
    local items = {}
    for item in (list or ""):gmatch("[^,%s]+") do
        items[#items + 1] = item
    end
    return items
end

-- Two balancers sharing a subscriber name would acknowledge for each other, so
-- the default is per host.
local function default_subscriber()
    local file = io.open("/proc/sys/kernel/hostname")
    local host = file and file:read("*l")
    if file then
        file:close()
    end
    return "nginx-" .. ((host or "unknown"):gsub("[^A-Za-z0-9._:-]", "-"))
end

local function read_config()
    local config = {
        nodes = {},
        services = split(os.getenv("BALLAST_SERVICES")),
        subscriber = os.getenv("BALLAST_SUBSCRIBER") or default_subscriber(),
        token = os.getenv("BALLAST_TOKEN"),
        zone = os.getenv("BALLAST_ZONE"),
    }
    if config.zone == "" then
        config.zone = nil
    end
    for _, url in ipairs(split(os.getenv("BALLAST_URLS") or "http://127.0.0.1:8080")) do
        local target, err = http.parse_url(url)
        if not target then
            return nil, "BALLAST_URLS: " .. err
        end
        config.nodes[#config.nodes + 1] = target
    end
    if #config.services == 0 then
        return nil, "BALLAST_SERVICES names no service"
    end
    for _, service in ipairs(config.services) do
        if not service:match("^[a-z0-9][a-z0-9-]*$") or #service > 63 then
            return nil, "BALLAST_SERVICES: not a service name: " .. service
        end
    end
    if not config.subscriber:match("^[A-Za-z0-9._:-]+$") or #config.subscriber > 128 then
        return nil, "BALLAST_SUBSCRIBER: not a subscriber name: " .. config.subscriber
    end
    -- The zone goes into the query as it is: only the characters of a zone name,
    -- none of which needs escaping in a URL.
    if config.zone and (not config.zone:match("^[A-Za-z0-9._-]+$") or #config.zone > 63) then
        return nil, "BALLAST_ZONE: not a zone name (1 to 63 of A-Z a-z 0-9 . _ -): " .. config.zone
    end
    if not config.token or config.token == "" then
        return nil, "BALLAST_TOKEN is not set: the registry answers only requests with a bearer token "
            .. "(a reader token is enough)"
    end
    -- It goes into every request as it is: a CR or LF would end the header and let
    -- the rest pass for headers of its own. The token itself is never logged.
    if #config.token > MAX_TOKEN or not config.token:match("^[!-~]+$") then
        return nil, format("BALLAST_TOKEN must be 1 to %d printable ASCII characters without spaces or "
            .. "control characters (CR, LF, tab...); the one given has %d characters", MAX_TOKEN, #config.token)
    end
    return config
end

local function publish(service, index, peers, rejected)
    local value = cjson.encode({ revision = index, peers = peers, rejected = rejected })
    -- safe_set never evicts another service's set to make room.
    local ok, err = dict:safe_set("set:" .. service, value)
    if not ok then
        return nil, "cannot store the set in lua_shared_dict ballast: " .. err
    end
    dict:incr("generation:" .. service, 1, 0)
    return true
end

-- The detail of a problem answer, for the log; short, as a registry's body may
-- be anything.
local function problem_detail(body)
    local problem = cjson.decode(body)
    local detail = type(problem) == "table" and problem.detail
    if type(detail) ~= "string" then
        return "(no problem detail)"
    end
    return detail:sub(1, 200)
end

-- One blocking query. Returns the index to pass next time (the revision now in
-- use), or nil, why the answer was not applied, the Retry-After it carried and
-- whether the registry refused the token (a problem of this configuration, not
-- of the registry).
local function poll(config, node, service, applied)
    local path = format("/v1/services/%s/instances?wait=%ds&subscriber=%s",
        service, WAIT_SECONDS, config.subscriber)
    if config.zone then
        -- This nginx's zone's view: local first, at most the service's cap across zones.
        path = path .. "&zone=" .. config.zone
    end
    if applied then
        path = path .. "&index=" .. applied
    end
    local res, err = http.get(node, path, config.token, TIMEOUTS)
    if not res then
        return nil, err
    end
    if res.status == 401 or res.status == 403 then
        return nil, format("registry refused the token: %d %s (check BALLAST_TOKEN: it needs the reader role)",
            res.status, problem_detail(res.body)), nil, true
    end
    if res.status ~= 200 then
        local retry_after = tonumber((res.headers["retry-after"] or ""):match("^%d+$"))
        return nil, format("status %d%s", res.status, res.status == 404 and " (service not registered yet?)" or ""),
            retry_after
    end
    -- Kept as a string: revisions go up to 2^63-1, beyond what a Lua number holds exactly.
    local index = res.headers["x-ballast-index"]
    if not index or not index:match("^%d+$") or #index > 19 then
        return nil, "no valid X-Ballast-Index header"
    end
    if index == applied then
        return index
    end
    local answer, decode_err = cjson.decode(res.body)
    if answer == nil then
        return nil, "body is not JSON: " .. tostring(decode_err)
    end
    local peers, rejected, problem = records.check(service, answer)
    for _, reason in ipairs(rejected or {}) do
        log(ERR, "ballast: ", service, " revision ", index, ": rejected ", reason)
    end
    if not peers then
        return nil, problem
    end
    local ok, publish_err = publish(service, index, peers, #rejected)
    if not ok then
        return nil, publish_err
    end
    log(NOTICE, "ballast: ", service, " revision ", index, ": ", #peers, " routable peers")
    return index
end

local function backoff(failures, retry_after)
    local delay = min(BACKOFF_MAX, BACKOFF_FIRST * 2 ^ (failures - 1))
    delay = delay / 2 + random() * delay / 2
    return max(delay, min(retry_after or 0, RETRY_AFTER_MAX))
end

local function follow(config, service)
    local applied
    local failures = 0
    local node = 1
    while not exiting() do
        local started = now()
        -- A bug here must cost one poll, not the service's whole sync.
        local ok, index, err, retry_after, refused = pcall(poll, config, config.nodes[node], service, applied)
        if not ok then
            index, err = nil, "error: " .. tostring(index)
        end
        if not index and exiting() then
            -- nginx closed the waiting query to let this worker go; not a registry failure.
            break
        end
        if index then
            applied = index
            failures = 0
            dict:set("synced_at:" .. service, now())
            dict:set("failures:" .. service, 0)
        else
            failures = failures + 1
            dict:set("failures:" .. service, failures)
            dict:set("error:" .. service, format("%s (%s:%d)", err, config.nodes[node].host, config.nodes[node].port))
            log(refused and ERR or WARN, "ballast: ", service, ": ", err, "; keeping revision ", applied or "none",
                ", attempt ", failures)
            node = node % #config.nodes + 1
            sleep(backoff(failures, retry_after))
        end
        local pause = MIN_POLL_INTERVAL - (now() - started)
        if pause > 0 then
            sleep(pause)
        end
    end
end

local function run(premature, config)
    if premature then
        return
    end
    local threads = {}
    for _, service in ipairs(config.services) do
        threads[#threads + 1] = ngx.thread.spawn(follow, config, service)
    end
    for _, thread in ipairs(threads) do
        ngx.thread.wait(thread)
    end
end

-- From init_worker_by_lua: cosockets are not allowed there, so the work starts
-- in a timer.
function _M.start()
    if ngx.worker.id() ~= 0 then
        return
    end
    local config, err = read_config()
    if not config then
        log(ERR, "ballast: not syncing: ", err)
        return
    end
    math.randomseed(ngx.worker.pid() + now() * 1000)
    local ok, timer_err = ngx.timer.at(0, run, config)
    if not ok then
        log(ERR, "ballast: cannot start the sync timer: ", timer_err)
    end
end

return _M
