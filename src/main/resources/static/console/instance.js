// #/services/NAME/instances/ID: one instance as its own resource says it: why it is
// critical (the registry's words), the checks the registry runs on it with their last
// output and since when, which node probes them (operators), and its metadata and tags,
// which an operator edits here. Re-read every 3 s: a probe's verdict changes the checks
// without a revision, so no event would tell.

import { Refused, get } from './api.js';
import { everyFew, h, localTimes, relative, say, tagList, when } from './dom.js';
import { CAUSES, healthCell } from './health.js';

const REFRESH_MS = 3000;

export function instancePage(view, session, name, id) {
  const path = `/v1/services/${name}/instances/${encodeURIComponent(id)}`;
  const summary = h('div', { id: 'instance-summary' });
  const checksBody = h('tbody');
  const labels = h('div', { id: 'instance-labels' });
  const prober = h('p', { class: 'muted small', id: 'instance-prober' });
  const act = (verb, ...args) => import('./actions.js').then((m) => m.actions(name)[verb](...args));
  view.replaceChildren(
    h('section', { 'aria-labelledby': 'instance-title' },
      h('div', { class: 'heading' }, h('h1', { id: 'instance-title' }, id),
        h('a', { href: `#/services/${name}?instance=${encodeURIComponent(id)}` }, `in ${name}`)),
      summary),
    h('section', { 'aria-labelledby': 'checks-title' },
      h('h2', { id: 'checks-title' }, 'Checks the registry runs'),
      h('table', { class: 'checks' },
        h('caption', { class: 'visually-hidden' }, `Checks of ${id}, with their last verdicts`),
        h('thead', {}, h('tr', {}, ['Check', 'Kind', 'Target', 'Every', 'Status', 'Since', 'Last output']
          .map((column) => h('th', { scope: 'col' }, column)))),
        checksBody),
      prober),
    h('section', { 'aria-labelledby': 'labels-title' },
      h('div', { class: 'heading' }, h('h2', { id: 'labels-title' }, 'Metadata and tags'),
        session.canOperate ? h('button', { type: 'button', class: 'write', id: 'labels-button',
          onclick: () => act('editLabels', id) }, 'Edit labels…') : null),
      labels));

  async function refresh() {
    try {
      const i = (await get(path)).body;
      draw(i);
    } catch (error) {
      summary.replaceChildren(h('p', { class: 'error' }, error instanceof Refused && error.status === 404
        ? `${id} is not registered in ${name} (any more).` : `Could not read ${id}: ${error.message}`));
    }
    if (session.canOperate) {
      await whoProbes();
    }
  }

  function draw(i) {
    summary.replaceChildren(h('dl', { class: 'facts' },
      h('dt', {}, 'Address'), h('dd', {}, `${i.address}:${i.port}`),
      h('dt', {}, 'Zone'), h('dd', {}, i.zone || '—'),
      h('dt', {}, 'Mode'), h('dd', {}, h('span', { class: `pill mode-${i.mode.toLowerCase()}` }, i.mode),
        i.modeReason ? ` ${i.modeReason}` : '', i.modeUntil ? ` (until ${when(i.modeUntil)})` : ''),
      h('dt', {}, 'Health'), h('dd', { id: 'instance-health' }, healthCell(i)),
      h('dt', {}, 'Cause'), h('dd', { id: 'instance-cause' },
        i.criticalReason ? `${CAUSES[i.criticalReason] || i.criticalReason} (${i.criticalReason})` : 'none: passing'),
      h('dt', {}, 'Weight'), h('dd', {}, `${i.weight}, effective ${i.effectiveWeight}`),
      h('dt', {}, 'Lease'), h('dd', {}, `${i.leaseTtlSeconds} s, runs out ${relative(i.leaseExpiresAt)} `
        + `(${when(i.leaseExpiresAt)})`),
      h('dt', {}, 'Revision'), h('dd', {}, i.revision)));
    const checks = i.checks || [];
    checksBody.replaceChildren(...checks.map((c) => h('tr', { dataset: { check: c.id, status: c.status } },
      h('th', { scope: 'row' }, c.id),
      h('td', {}, c.kind),
      h('td', { class: 'target' }, c.target),
      h('td', { class: 'num' }, `${c.intervalMillis / 1000} s (timeout ${c.timeoutMillis} ms)`),
      h('td', {}, h('span', { class: `pill check-${c.status}` }, c.status)),
      h('td', { class: 'small' }, `${when(c.since)} (${relative(c.since)})`),
      h('td', {}, h('pre', { class: 'output' }, localTimes(c.output) || '—')))));
    if (!checks.length) {
      checksBody.append(h('tr', {}, h('td', { colspan: 7, class: 'muted' }, i.checks
        ? 'None: its lease is its only health (heartbeats, or a TTL check).' : 'Not known: the registry could not read them.')));
    }
    const meta = Object.keys(i.metadata || {}).sort();
    labels.replaceChildren(h('p', {}, h('strong', {}, 'Tags: '), tagList(i.tags)),
      meta.length ? h('dl', { class: 'meta', id: 'instance-metadata' }, meta.flatMap((k) => [h('dt', {}, k),
        h('dd', {}, i.metadata[k])])) : h('p', { class: 'muted', id: 'instance-metadata' }, 'No metadata.'));
  }

  /** Which live node probes this instance's checks: the nodes page's answer, for this service. */
  async function whoProbes() {
    try {
      const nodes = (await get(`/v1/nodes?service=${name}`)).body;
      const probing = nodes.filter((n) => n.probing.some((c) => c.instance === id));
      prober.textContent = probing.length
        ? `Probed by ${probing.map((n) => `${n.id}${n.self ? ' (the node answering)' : ''}`).join(', ')}; see Nodes.`
        : '';
    } catch (error) {
      prober.textContent = '';
      if (!(error instanceof Refused)) {
        say(`Could not read the nodes: ${error.message}`, 'error');
      }
    }
  }

  return everyFew(REFRESH_MS, refresh);
}
