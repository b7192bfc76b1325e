-- Picks a peer per request with nginx's smooth weighted round robin over the
-- effective weights the sync published.
--
-- admit() runs in the access phase: it answers 503 when no peer may take the
-- request (ngx.exit(503) in the balancer phase would turn into a 500), and
-- hands the set it checked to balance() through ngx.ctx, so a set that
-- changes in between cannot leave the balancer with nothing to pick.

local balancer = require "ngx.balancer"
local cjson = require "cjson.safe"

local ngx = ngx
local log = ngx.log
local ERR = ngx.ERR
local type = type

local _M = {}

local dict = ngx.shared.ballast

-- This worker's copy of each service's set, rebuilt when the sync publishes a
-- new generation: {generation, revision, peers = {{id, address, port, weight, current}}}.
local sets = {}

local function peer_key(peer)
    return peer.id .. "@" .. peer.address .. ":" .. peer.port
end

-- The picking below must hold whatever the shared dict contains, so a peer
-- enters it only with a positive integer weight.
local function pickable(peer)
    local weight = type(peer) == "table" and peer.weight
    return type(weight) == "number" and weight >= 1 and weight <= 10000 and weight % 1 == 0
        and type(peer.id) == "string" and type(peer.address) == "string" and type(peer.port) == "number"
end

local function current(service)
    local generation = dict:get("generation:" .. service)
    local set = sets[service]
    if not generation or (set and set.generation == generation) then
        return set
    end
    local published = cjson.decode(dict:get("set:" .. service) or "")
    if type(published) ~= "table" or type(published.peers) ~= "table" then
        log(ERR, "ballast: unreadable set for ", service, " in the shared dict; keeping the previous one")
        -- Marked as seen, so that the next requests neither decode nor log it again.
        set = set or { peers = {} }
        set.generation = generation
        sets[service] = set
        return set
    end
    -- Peers that stay keep their place in the rotation, so a ramp step does
    -- not restart every worker's sequence from the heaviest peer.
    local carried = {}
    for _, peer in ipairs(set and set.peers or {}) do
        carried[peer_key(peer)] = peer.current
    end
    local peers = {}
    for _, peer in ipairs(published.peers) do
        if pickable(peer) then
            peer.current = carried[peer_key(peer)] or 0
            peers[#peers + 1] = peer
        end
    end
    set = { generation = generation, revision = published.revision, peers = peers }
    sets[service] = set
    return set
end

-- Smooth weighted round robin: one pass over the peers, no gcd, no retry loop;
-- every peer has a weight of at least 1, so the pick is never empty.
local function pick(peers)
    local best, total = nil, 0
    for i = 1, #peers do
        local peer = peers[i]
        peer.current = peer.current + peer.weight
        total = total + peer.weight
        if best == nil or peer.current > best.current then
            best = peer
        end
    end
    if best then
        best.current = best.current - total
    end
    return best
end

function _M.admit(service)
    local set = current(service)
    if not set or #set.peers == 0 then
        ngx.header["Retry-After"] = "1"
        return ngx.exit(ngx.HTTP_SERVICE_UNAVAILABLE)
    end
    ngx.ctx.ballast_set = set
end

function _M.balance()
    local set = ngx.ctx.ballast_set
    local peer = set and pick(set.peers)
    if not peer then
        log(ERR, "ballast: no set to balance over; is admit() missing from the access phase?")
        return ngx.exit(ngx.ERROR)
    end
    local ok, err = balancer.set_current_peer(peer.address, peer.port)
    if not ok then
        log(ERR, "ballast: cannot use peer ", peer.id, " at ", peer.address, ":", peer.port, ": ", err)
        return ngx.exit(ngx.ERROR)
    end
end

-- What the sync last applied, per service, as this node sees it.
function _M.status()
    local services = {}
    for _, key in ipairs(dict:get_keys(0)) do
        -- A service with a set, or one the sync has only ever failed to reach.
        local service = key:match("^set:(.+)$") or key:match("^failures:(.+)$")
        if service and not services[service] then
            local published = cjson.decode(dict:get("set:" .. service) or "") or {}
            local peers = type(published.peers) == "table" and published.peers or {}
            services[service] = {
                revision = published.revision,
                routablePeers = #peers,
                -- Left out when empty: Debian's lua-cjson would write an empty list as {}.
                peers = #peers > 0 and peers or nil,
                rejected = published.rejected,
                syncedAt = dict:get("synced_at:" .. service),
                failures = dict:get("failures:" .. service),
                lastError = dict:get("error:" .. service),
            }
        end
    end
    ngx.header["Content-Type"] = "application/json"
    ngx.say(cjson.encode({ services = services }))
end

return _M
