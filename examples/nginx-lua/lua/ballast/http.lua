-- A minimal HTTP/1.1 GET over an nginx cosocket. Debian packages no resty.http,
-- and a registry client needs little: one request per connection (Connection:
-- close), a body sent with Content-Length or chunked (Tomcat uses either), and
-- a bound on every wait and on every byte it is willing to hold.

local tcp = ngx.socket.tcp
local tonumber = tonumber
local concat = table.concat

local _M = {}

local MAX_HEADERS = 64
local MAX_LINE = 8192

-- Splits "http://host:port" into host and port; only plain http on purpose:
-- the registry is reached on a private network, and TLS would need a CA bundle
-- and lua_ssl_trusted_certificate that this example does not want to guess.
function _M.parse_url(url)
    local host, port = url:match("^http://([%w%.%-]+):(%d+)/?$")
    if not host then
        host = url:match("^http://([%w%.%-]+)/?$")
        port = "80"
    end
    port = tonumber(port)
    if not host or not port or port < 1 or port > 65535 then
        return nil, "expected http://host[:port], got " .. url
    end
    return { host = host, port = port }
end

local function read_line(sock)
    -- The pattern reader returns the line without its CRLF; a limit on its
    -- length keeps a misbehaving peer from growing the buffer without end.
    local reader = sock:receiveuntil("\r\n")
    local line, err = reader(MAX_LINE)
    if not line then
        return nil, err
    end
    local rest = reader(1)
    if rest ~= nil and rest ~= "" then
        return nil, "line longer than " .. MAX_LINE .. " bytes"
    end
    return line
end

local function read_headers(sock)
    local headers = {}
    for _ = 1, MAX_HEADERS do
        local line, err = read_line(sock)
        if not line then
            return nil, "reading headers: " .. err
        end
        if line == "" then
            return headers
        end
        local name, value = line:match("^([^:]+):%s*(.-)%s*$")
        if name then
            headers[name:lower()] = value
        end
    end
    return nil, "more than " .. MAX_HEADERS .. " header lines"
end

local function read_chunked(sock, max_body)
    local parts, size = {}, 0
    while true do
        local line, err = read_line(sock)
        if not line then
            return nil, "reading chunk size: " .. err
        end
        local hex = line:match("^(%x+)")
        local length = hex and #hex <= 8 and tonumber(hex, 16)
        if not length then
            return nil, "bad chunk size line: " .. line:sub(1, 40)
        end
        if length == 0 then
            -- Trailers end with an empty line, like headers.
            local _, trailer_err = read_headers(sock)
            if trailer_err then
                return nil, trailer_err
            end
            return concat(parts)
        end
        size = size + length
        if size > max_body then
            return nil, "body larger than " .. max_body .. " bytes"
        end
        local data, data_err = sock:receive(length)
        if not data then
            return nil, "reading chunk: " .. data_err
        end
        parts[#parts + 1] = data
        local crlf, crlf_err = sock:receive(2)
        if crlf ~= "\r\n" then
            return nil, "chunk not followed by CRLF" .. (crlf_err and ": " .. crlf_err or "")
        end
    end
end

local function read_body(sock, headers, max_body)
    local encoding = headers["transfer-encoding"]
    if encoding and encoding:lower():find("chunked", 1, true) then
        return read_chunked(sock, max_body)
    end
    local length = headers["content-length"]
    if length then
        local n = length:match("^%d+$") and tonumber(length)
        if not n then
            return nil, "bad Content-Length: " .. length
        end
        if n > max_body then
            return nil, "body of " .. n .. " bytes is larger than " .. max_body
        end
        if n == 0 then
            return ""
        end
        return sock:receive(n)
    end
    -- Neither: the body runs to the end of the connection (we asked for close).
    -- Reading "until" a pattern that never occurs keeps the size limit, which
    -- receive("*a") would not.
    local reader = sock:receiveuntil("\0\0\0\0never\0\0\0\0")
    local body, err, partial = reader(max_body + 1)
    body = body or partial
    if err and err ~= "closed" then
        return nil, err
    end
    if #body > max_body then
        return nil, "body larger than " .. max_body .. " bytes"
    end
    return body
end

-- GET path from target ({host, port}) with "Authorization: Bearer <token>".
-- The caller checks the token once (sync.lua's read_config): it goes into the
-- request as it is, so a CR or LF in it would split the request. opts:
-- connect_timeout, send_timeout, read_timeout (milliseconds; the read timeout
-- bounds each read, so it must exceed a blocking query's wait), max_body
-- (bytes). Returns {status, headers, body} or nil and an error message.
function _M.get(target, path, token, opts)
    local sock = tcp()
    sock:settimeouts(opts.connect_timeout, opts.send_timeout, opts.read_timeout)
    local ok, err = sock:connect(target.host, target.port)
    if not ok then
        return nil, "connect: " .. err
    end
    local request = "GET " .. path .. " HTTP/1.1\r\n"
        .. "Host: " .. target.host .. ":" .. target.port .. "\r\n"
        .. "Authorization: Bearer " .. token .. "\r\n"
        .. "Accept: application/json\r\n"
        .. "User-Agent: ballast-nginx-lua\r\n"
        .. "Connection: close\r\n\r\n"
    ok, err = sock:send(request)
    if not ok then
        sock:close()
        return nil, "send: " .. err
    end
    local status_line
    status_line, err = read_line(sock)
    if not status_line then
        sock:close()
        return nil, "reading status: " .. err
    end
    local status = tonumber(status_line:match("^HTTP/1%.[01] (%d%d%d)"))
    if not status then
        sock:close()
        return nil, "bad status line: " .. status_line:sub(1, 40)
    end
    local headers
    headers, err = read_headers(sock)
    if not headers then
        sock:close()
        return nil, err
    end
    local body
    body, err = read_body(sock, headers, opts.max_body)
    sock:close()
    if not body then
        return nil, "reading body: " .. err
    end
    return { status = status, headers = headers, body = body }
end

return _M
