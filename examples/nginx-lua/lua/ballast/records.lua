-- Validation of what the registry sends, record by record. Ballast guarantees
-- integer weights; this checks anyway, because the outage it exists for was a
-- balancer trusting a registry: a weight served as the string "0" compared
-- unequal to 0 in Lua, a % "0" gave NaN, and a gcd recursion spun forever.

local type = type
local tostring = tostring
local tonumber = tonumber
local pairs = pairs
local format = string.format

local _M = {}

local MAX_WEIGHT = 10000
local MAX_INSTANCES = 10000

local function describe(value)
    local kind = type(value)
    if kind == "string" then
        return format("the string %q", #value > 40 and value:sub(1, 40) .. "..." or value)
    end
    if kind == "userdata" then
        return "null" -- cjson.null is the only userdata the decoder produces
    end
    if kind == "number" then
        return "the number " .. tostring(value)
    end
    return "a " .. kind
end

-- A weight must be a Lua number that is an integer in 0..10000. NaN fails every
-- comparison, so it fails here too; infinities fail the range.
local function valid_weight(value)
    return type(value) == "number" and value >= 0 and value <= MAX_WEIGHT and value % 1 == 0
end

local function valid_ipv4(address)
    local a, b, c, d = address:match("^(%d+)%.(%d+)%.(%d+)%.(%d+)$")
    if not a then
        return false
    end
    return #a <= 3 and #b <= 3 and #c <= 3 and #d <= 3
        and tonumber(a) <= 255 and tonumber(b) <= 255 and tonumber(c) <= 255 and tonumber(d) <= 255
end

-- ngx.balancer.set_current_peer takes an IP address, never a name to resolve.
local function valid_address(address)
    if type(address) ~= "string" then
        return false
    end
    return valid_ipv4(address) or (#address <= 45 and address:find(":", 1, true) ~= nil
        and address:match("^[%x:%.]+$") ~= nil)
end

-- Returns the peer {id, address, port, weight} for a record balancers may pick
-- (weight > 0), false for a valid record that must not receive traffic, or nil
-- and the reason the record is rejected.
local function peer_of(record)
    if type(record) ~= "table" then
        return nil, "record is " .. describe(record)
    end
    local id = record.id
    if type(id) ~= "string" or not id:match("^[A-Za-z0-9._:-]+$") or #id > 128 then
        return nil, "id is " .. describe(id)
    end
    if not valid_weight(record.weight) then
        return nil, format("instance %s: weight must be an integer from 0 to %d; got %s",
            id, MAX_WEIGHT, describe(record.weight))
    end
    local weight = record.effectiveWeight
    if not valid_weight(weight) then
        return nil, format("instance %s: effectiveWeight must be an integer from 0 to %d; got %s",
            id, MAX_WEIGHT, describe(weight))
    end
    if type(record.routable) ~= "boolean" then
        return nil, format("instance %s: routable must be a boolean; got %s", id, describe(record.routable))
    end
    if not valid_address(record.address) then
        return nil, format("instance %s: address must be an IP address; got %s", id, describe(record.address))
    end
    local port = record.port
    if type(port) ~= "number" or port % 1 ~= 0 or port < 1 or port > 65535 then
        return nil, format("instance %s: port must be an integer from 1 to 65535; got %s", id, describe(port))
    end
    if not record.routable or weight == 0 then
        return false
    end
    return { id = id, address = record.address, port = port, weight = weight }
end

-- cjson decodes arrays and objects alike into tables: an array has exactly the
-- keys 1..n.
local function is_array(value)
    if type(value) ~= "table" then
        return false
    end
    local count = 0
    for _ in pairs(value) do
        count = count + 1
    end
    return count == #value
end

-- Checks a decoded blocking-query answer for service. Returns the peers that
-- may receive traffic, the rejection messages, and whether the answer is usable
-- at all; it is not when its shape is wrong, or when it lists instances and
-- every one of them is rejected (then the last good set is worth more than an
-- empty one).
function _M.check(service, answer)
    if type(answer) ~= "table" or answer.service ~= service or not is_array(answer.instances) then
        return nil, nil, "the answer is not {service: " .. service .. ", instances: [...]}"
    end
    local records = answer.instances
    if #records > MAX_INSTANCES then
        return nil, nil, "more than " .. MAX_INSTANCES .. " instances"
    end
    local peers, rejected, seen = {}, {}, {}
    for i = 1, #records do
        local peer, reason = peer_of(records[i])
        if peer and seen[peer.id] then
            peer, reason = nil, "instance " .. peer.id .. " is listed twice"
        end
        if peer then
            seen[peer.id] = true
            peers[#peers + 1] = peer
        elseif peer == nil then
            rejected[#rejected + 1] = reason
        end
    end
    if #records > 0 and #rejected == #records then
        return nil, rejected, "every instance was rejected"
    end
    return peers, rejected
end

return _M
