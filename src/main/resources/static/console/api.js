// Calls to the registry's API with the operator's token. The token lives in
// sessionStorage (this tab only) and travels only in the Authorization header: never in
// a URL, so it cannot end up in an access log, the history or a Referer.

const KEY = 'ballast.token';

export const token = {
  get: () => sessionStorage.getItem(KEY),
  set: (value) => sessionStorage.setItem(KEY, value),
  clear: () => sessionStorage.removeItem(KEY),
};

/** A refused call: its status and the problem detail the registry answered. */
export class Refused extends Error {
  constructor(status, problem, response) {
    super(problem?.detail || problem?.title || `HTTP ${status}`);
    this.status = status;
    this.problem = problem || {};
    this.response = response;
  }
}

/** Sends one call; resolves to {status, body, headers}, rejects with Refused on 4xx/5xx. */
export async function call(method, path, { body, headers = {}, timeoutMs = 15000 } = {}) {
  const sent = { ...headers, Authorization: `Bearer ${token.get()}`, Accept: 'application/json, application/problem+json' };
  if (body !== undefined) {
    sent['Content-Type'] = method === 'PATCH' ? 'application/merge-patch+json' : 'application/json';
  }
  const response = await fetch(path, {
    method,
    headers: sent,
    body: body === undefined ? undefined : JSON.stringify(body),
    signal: AbortSignal.timeout(timeoutMs),
    cache: 'no-store',
  });
  const text = await response.text();
  const parsed = text ? safeJson(text) : null;
  if (!response.ok) {
    if (response.status === 401) {
      window.dispatchEvent(new CustomEvent('ballast:unauthorized', { detail: parsed }));
    }
    throw new Refused(response.status, parsed, response);
  }
  return { status: response.status, body: parsed, headers: response.headers };
}

export const get = (path) => call('GET', path);

function safeJson(text) {
  try {
    return JSON.parse(text);
  } catch {
    return { detail: text.slice(0, 300) };
  }
}

/**
 * Follows a watch stream (server-sent events) with fetch and a streamed body reader:
 * EventSource cannot send the Authorization header, and the token must not go into the
 * URL. Reconnects with Last-Event-ID after the server's `reconnect` event, a dropped
 * connection or an error, backing off up to 10 s. Returns a function that stops it.
 */
export function watch(path, { onEvent, onState }) {
  const stop = new AbortController();
  let lastId = null;
  let backoff = 500;

  async function once() {
    const headers = { Authorization: `Bearer ${token.get()}`, Accept: 'text/event-stream' };
    if (lastId !== null) {
      headers['Last-Event-ID'] = lastId;
    }
    const response = await fetch(path, { headers, signal: stop.signal, cache: 'no-store' });
    if (!response.ok) {
      const problem = safeJson(await response.text());
      if (response.status === 401) {
        window.dispatchEvent(new CustomEvent('ballast:unauthorized', { detail: problem }));
      }
      throw new Refused(response.status, problem, response);
    }
    onState('live');
    backoff = 500;
    const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
    let buffer = '';
    for (;;) {
      const { value, done } = await reader.read();
      if (done) {
        return;
      }
      buffer += value.replace(/\r\n?/g, '\n');
      let end;
      while ((end = buffer.indexOf('\n\n')) >= 0) {
        const frame = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        const event = parse(frame);
        if (event.id !== null) {
          lastId = event.id;
        }
        if (event.name === 'reconnect') {
          await reader.cancel();
          return;
        }
        onEvent(event);
      }
    }
  }

  (async () => {
    while (!stop.signal.aborted) {
      try {
        await once();
        onState('reconnecting');
      } catch (error) {
        if (stop.signal.aborted) {
          return;
        }
        onState('reconnecting', error);
        if (error instanceof Refused && (error.status === 401 || error.status === 403 || error.status === 404)) {
          onState('stopped', error);
          return;
        }
      }
      await new Promise((resolve) => setTimeout(resolve, backoff));
      backoff = Math.min(backoff * 2, 10000);
    }
  })();
  return () => stop.abort();
}

/** One SSE frame: its id, event name and data (comments and keepalives have neither). */
function parse(frame) {
  let id = null;
  let name = 'message';
  const data = [];
  for (const line of frame.split('\n')) {
    if (line.startsWith(':')) {
      continue;
    }
    const colon = line.indexOf(':');
    const field = colon < 0 ? line : line.slice(0, colon);
    let value = colon < 0 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) {
      value = value.slice(1);
    }
    if (field === 'id') {
      id = value;
    } else if (field === 'event') {
      name = value;
    } else if (field === 'data') {
      data.push(value);
    }
  }
  return { id, name, data: data.length ? safeJson(data.join('\n')) : null };
}
