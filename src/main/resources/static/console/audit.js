// The audit log (GET /v1/audit, operators): every accepted change, newest first, read in
// pages. This module draws its rows (each with what changed in a few words), a service's
// trail on its page, and the page across services with its filters (#/audit?service=…).

import { get } from './api.js';
import { h, when } from './dom.js';

export const ACTIONS = ['instance.create', 'instance.replace', 'instance.deregister', 'instance.edit',
  'instance.drain', 'instance.serve', 'instance.maintenance', 'service.edit', 'service.delete', 'release.start',
  'release.advance', 'release.promote', 'release.abort', 'release.pause', 'instance.expire', 'instance.remove',
  'instance.weight-revert', 'instance.drained', 'instance.warmed', 'instance.maintenance-end',
  'instance.probe-fail', 'instance.probe-pass'];

// Fields that move with every change, or name what the row already names.
const QUIET = new Set(['revision', 'leaseExpiresAt', 'service', 'id', 'name', 'createdAt', 'nextStepAt', 'routable',
  'fromInstances', 'toInstances', 'totalWeight', 'ejection', 'nominalWeight', 'unroutableWeight', 'totalEffectiveWeight',
  'instances', 'passing', 'critical']);

/** The event's change in a few words: what moved from before to after, and why. */
export function change(e) {
  const b = e.before || {};
  const a = e.after || {};
  const parts = [];
  if (!e.before && e.after) {
    parts.push(a.address ? `registered at ${a.address}:${a.port}, weight ${a.weight}` : 'created');
  } else if (e.before && !e.after) {
    parts.push('removed');
  } else {
    for (const key of new Set([...Object.keys(b), ...Object.keys(a)])) {
      if (!QUIET.has(key) && JSON.stringify(b[key]) !== JSON.stringify(a[key])) {
        parts.push(`${key} ${shown(b[key])} → ${shown(a[key])}`);
      }
    }
  }
  if (e.action === 'instance.expire') {
    parts.push(e.details?.ejected ? 'ejected: out of rotation'
      : 'held routable by the ejection cap: balancers still send it traffic');
  }
  for (const [key, value] of Object.entries(e.details || {})) {
    if (key !== 'ejected') {
      parts.push(`${key} ${shown(value)}`);
    }
  }
  return parts.join('; ') || 'no visible change';
}

function shown(value) {
  if (value === undefined || value === null) {
    return '∅';
  }
  if (Array.isArray(value)) {
    return value.length ? value.join(', ') : '[]';
  }
  if (typeof value === 'object') {
    return Object.entries(value).map(([k, v]) => `${k}=${typeof v === 'object' ? JSON.stringify(v) : v}`).join(', ') || '{}';
  }
  return String(value);
}

/** One table row of an event; with the service column when the table spans services. */
export function auditRow(e, withService) {
  return h('tr', { dataset: { action: e.action } },
    h('td', { class: 'small' }, when(e.at)),
    withService ? h('td', {}, e.service ? h('a', { href: `#/services/${e.service}` }, e.service) : '—') : null,
    h('td', {}, e.tokenName || e.tokenId),
    h('td', {}, e.action, e.forced ? h('span', { class: 'pill over' }, ' forced') : ''),
    h('td', {}, e.instance || '—'),
    h('td', { class: 'small change' }, change(e)));
}

/**
 * A table of events read page by page from {@code first}; {@code keep} filters the rows
 * shown. Returns {element, reload}.
 */
export function auditTable(first, { withService = false, keep = () => true, caption }) {
  const body = h('tbody');
  const more = h('button', { type: 'button', hidden: true }, 'Older events');
  const count = h('p', { class: 'muted small', role: 'status' });
  let next = first;
  let read = 0;
  let kept = 0;
  const columns = ['When', withService ? 'Service' : null, 'Who', 'Action', 'Instance', 'Change'].filter(Boolean);

  async function load(reset) {
    if (reset) {
      next = first;
      read = 0;
      kept = 0;
      body.replaceChildren();
    }
    try {
      const page = (await get(next)).body;
      const rows = page.events.filter(keep);
      read += page.events.length;
      kept += rows.length;
      body.append(...rows.map((e) => auditRow(e, withService)));
      next = page.next;
      more.hidden = !page.next;
      count.textContent = `${kept} shown of ${read} read${page.next ? '; older events remain' : ''}.`;
    } catch (error) {
      body.append(h('tr', {}, h('td', { colspan: columns.length, class: 'error' },
        `Could not read the audit log: ${error.message}`)));
    }
  }
  more.addEventListener('click', () => load(false));
  const element = h('div', {},
    h('table', { class: 'audit' }, h('caption', { class: 'visually-hidden' }, caption),
      h('thead', {}, h('tr', {}, columns.map((column) => h('th', { scope: 'col' }, column)))), body),
    count, more);
  return { element, reload: () => load(true) };
}

/** #/audit: the log across services, filtered by service, instance, time and action. */
export function auditPage(view, session, params) {
  if (!session.canOperate) {
    view.replaceChildren(h('p', { class: 'error' }, 'The audit log needs an operator or admin token.'));
    return null;
  }
  const wanted = Object.fromEntries(['service', 'instance', 'since', 'action'].map((k) => [k, params.get(k) || '']));
  const query = new URLSearchParams({ limit: '100' });
  for (const key of ['service', 'instance', 'since']) {
    if (wanted[key]) {
      query.set(key, wanted[key]);
    }
  }
  const field = (id, label, control) => h('div', { class: 'field' }, h('label', { for: `audit-${id}` }, label), control);
  const since = h('input', { id: 'audit-since', type: 'datetime-local', step: 1,
    value: wanted.since ? local(wanted.since) : '' });
  const form = h('form', { class: 'filters', id: 'audit-filters' },
    field('service', 'Service', h('input', { id: 'audit-service', value: wanted.service, placeholder: 'any' })),
    field('instance', 'Instance', h('input', { id: 'audit-instance', value: wanted.instance, placeholder: 'any' })),
    field('since', 'Since', since),
    field('action', 'Action', h('select', { id: 'audit-action' }, h('option', { value: '' }, 'any'),
      ACTIONS.map((a) => h('option', { value: a, selected: a === wanted.action }, a)))),
    h('button', { type: 'submit', class: 'primary' }, 'Apply'),
    h('a', { href: '#/audit' }, 'Clear'));
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const next = new URLSearchParams();
    for (const key of ['service', 'instance', 'action']) {
      const v = document.getElementById(`audit-${key}`).value.trim();
      if (v) {
        next.set(key, v);
      }
    }
    if (since.value) {
      next.set('since', new Date(since.value).toISOString().replace(/\.\d+Z$/, 'Z'));
    }
    location.hash = `#/audit?${next}`;
  });
  const table = auditTable(`/v1/audit?${query}`, {
    withService: true, keep: (e) => !wanted.action || e.action === wanted.action,
    caption: 'Audit events across services, newest first',
  });
  view.replaceChildren(h('section', { 'aria-labelledby': 'audit-page-title' },
    h('h1', { id: 'audit-page-title' }, 'Audit log'),
    h('p', { class: 'muted' }, 'Every accepted change, newest first. Service, instance and since are asked of the '
      + 'registry; the action is picked out of the events read, page by page.'),
    form, table.element));
  table.reload();
  return null;
}

/** An instant as a datetime-local value in this browser's time zone. */
function local(instant) {
  const at = new Date(instant);
  return Number.isNaN(at.getTime()) ? ''
    : new Date(at.getTime() - at.getTimezoneOffset() * 60000).toISOString().slice(0, 19);
}
