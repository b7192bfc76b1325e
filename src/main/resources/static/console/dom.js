// Small DOM helpers: elements are built with h() and text is always set as text, so
// nothing the registry returns (ids, metadata, reasons) is ever parsed as HTML.

export function h(tag, attributes = {}, ...children) {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (value === undefined || value === null || value === false) {
      continue;
    }
    if (name.startsWith('on')) {
      element.addEventListener(name.slice(2), value);
    } else if (name === 'class') {
      element.className = value;
    } else if (name === 'dataset') {
      Object.assign(element.dataset, value);
    } else {
      element.setAttribute(name, value === true ? '' : value);
    }
  }
  for (const child of children.flat()) {
    if (child !== null && child !== undefined && child !== false) {
      element.append(child instanceof Node ? child : String(child));
    }
  }
  return element;
}

/** Replaces the parent's children, skipping the absent ones (a control a role may not use). */
export function put(parent, ...children) {
  parent.replaceChildren(...children.flat().filter((child) => child !== null && child !== undefined && child !== false));
}

/**
 * A horizontal bar of value out of max, with its figures as text beside it and as an ARIA
 * meter for screen readers. A limit, when given, is drawn as a mark.
 */
export function bar(value, max, { label, kind = '', limit, text } = {}) {
  const share = max > 0 ? Math.min(1, Math.max(0, value / max)) : 0;
  const fill = h('span', { class: 'fill' });
  fill.style.width = `${(share * 100).toFixed(1)}%`;
  const track = h('span', { class: `track ${kind}` }, fill);
  if (limit !== undefined) {
    const mark = h('span', { class: 'limit', title: `limit ${limit}%` });
    mark.style.left = `${limit}%`;
    track.append(mark);
  }
  return h('span', {
    class: 'bar', role: 'meter', 'aria-label': label, 'aria-valuemin': 0, 'aria-valuemax': max,
    'aria-valuenow': value, 'aria-valuetext': text ?? `${value} of ${max}`,
  }, track, h('span', { class: 'figure', 'aria-hidden': 'true' }, text ?? `${value}`));
}

export function percent(part, whole) {
  return whole > 0 ? Math.round((part * 1000) / whole) / 10 : 0;
}

/** "in 4 min 52 s", "12 s ago": a lease countdown or an age, to the second. */
export function relative(instant, now = Date.now()) {
  const seconds = Math.round((Date.parse(instant) - now) / 1000);
  const size = Math.abs(seconds);
  const amount = size < 60 ? `${size} s`
    : size < 3600 ? `${Math.floor(size / 60)} min ${size % 60} s`
      : `${Math.floor(size / 3600)} h ${Math.floor((size % 3600) / 60)} min`;
  return seconds >= 0 ? `in ${amount}` : `${amount} ago`;
}

/**
 * Runs an async read now and again `ms` after each one ends (never two at once), until
 * the returned function stops it: for the pages that a change of theirs does not announce.
 */
export function everyFew(ms, read) {
  let stopped = false;
  let timer = null;
  (async function again() {
    await read();
    if (!stopped) {
      timer = setTimeout(again, ms);
    }
  })();
  return () => {
    stopped = true;
    clearTimeout(timer);
  };
}

/** When something was last seen: "just now" within a second (clocks differ), else an age. */
export function seen(instant, now = Date.now()) {
  return Date.parse(instant) >= now - 1000 ? 'just now' : relative(instant, now);
}

/** Tags as small labels, the first few shown and the rest counted (all in the title). */
export function tagList(tags, most = Infinity) {
  if (!tags?.length) {
    return h('span', { class: 'muted' }, '—');
  }
  const shown = tags.slice(0, most);
  return h('span', { class: 'tag-list', title: tags.join(', ') },
    shown.map((tag) => h('span', { class: 'tag' }, tag)),
    tags.length > shown.length ? h('span', { class: 'muted small' }, ` +${tags.length - shown.length}`) : null);
}

/** A time of day, with the date when it is not today. */
export function when(instant) {
  const at = new Date(instant);
  return at.toDateString() === new Date().toDateString() ? at.toLocaleTimeString() : at.toLocaleString();
}

export function say(message, kind = 'info') {
  const status = document.getElementById('status');
  status.textContent = message;
  status.dataset.kind = kind;
}

/**
 * Text the registry worded, with each UTC instant in it (2026-12-07T15:06:12.889Z) shown
 * as this browser's local time, as every other time in the console is.
 */
export function localTimes(text) {
  return String(text ?? '').replace(/\b\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?Z\b/g, (instant) => when(instant));
}
