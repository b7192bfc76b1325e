// What an instance's or a service's health means for traffic, in words. Why an instance
// is critical is the registry's to say (criticalReason, and healthDetail, worded in one
// place on the server): the console shows it, and never guesses a cause from the lease's
// times. A CRITICAL instance the ejection cap keeps routable still receives traffic, and
// the console says so instead of drawing it green.

import { h, localTimes } from './dom.js';

/** The causes as the registry names them, in a few words for labels. */
export const CAUSES = {
  'lease-expired': 'lease expired',
  'check-failing': 'check failing',
  'reported-critical': 'reported critical',
};

/** One instance's state: a key for styling, a short label and why, in a sentence. */
export function instanceState(i) {
  if (i.health === 'CRITICAL') {
    const cause = CAUSES[i.criticalReason] || 'critical';
    const why = localTimes(i.healthDetail || 'Critical.');
    return i.routable
      ? { key: 'held', label: `critical (${cause}), held routable`, why }
      : { key: 'ejected', label: `ejected (${cause})`, why };
  }
  if (i.mode === 'MAINTENANCE') {
    return { key: 'maintenance', label: 'in maintenance', why: 'Out of rotation for maintenance.' };
  }
  if (i.mode === 'DRAINING' || i.mode === 'DRAINED') {
    return { key: 'draining', label: i.mode.toLowerCase(), why: 'Taken out of rotation by a drain.' };
  }
  if (!i.routable) {
    return { key: 'out', label: 'out of rotation', why: 'Its weight is 0.' };
  }
  return { key: 'routable', label: 'routable', why: 'Passing and in rotation.' };
}

/** The pill and the sentence of an instance's health, for a table cell. */
export function healthCell(i) {
  const state = instanceState(i);
  return h('div', { class: 'health', dataset: { state: state.key, cause: i.criticalReason || '' } },
    h('span', { class: `pill health-${i.health.toLowerCase()}` }, i.health),
    state.key === 'routable' ? null : h('span', { class: `state state-${state.key}` }, state.label),
    state.key === 'held' || state.key === 'ejected' ? h('div', { class: 'muted small why' }, state.why) : null);
}

/**
 * A service's health from what its instances say, for its page's header: the same
 * instances its rows are drawn from, so that header and rows never disagree.
 */
export function instancesHealth(instances) {
  const all = [...instances];
  const critical = all.filter((i) => i.health === 'CRITICAL');
  return {
    instances: all.length,
    routable: all.filter((i) => i.routable).length,
    effective: all.reduce((sum, i) => sum + i.effectiveWeight, 0),
    configured: all.reduce((sum, i) => sum + i.weight, 0),
    held: critical.filter((i) => i.routable).length,
    ejected: critical.filter((i) => !i.routable).length,
    causes: critical.map((i) => `${i.id}: ${CAUSES[i.criticalReason] || 'critical'}, ${i.routable ? 'held routable' : 'ejected'}`),
  };
}

/**
 * A service's health from its line in the service list: the instances in each state
 * that matters, worst first, and the one word its row is styled by.
 */
export function serviceHealth(s) {
  const parts = [];
  if (s.held) {
    parts.push(['held', `${s.held} critical, held routable by the ejection cap`]);
  }
  if (s.ejected) {
    parts.push(['ejected', `${s.ejected} ejected`]);
  }
  if (s.maintenance) {
    parts.push(['maintenance', `${s.maintenance} in maintenance`]);
  }
  if (s.draining) {
    parts.push(['draining', `${s.draining} draining`]);
  }
  if (s.drained) {
    parts.push(['draining', `${s.drained} drained`]);
  }
  const healthy = s.routable - s.held;
  const worst = s.held || s.ejected ? 'critical' : parts.length || healthy < s.instances ? 'degraded' : 'ok';
  return {
    worst,
    cell: h('div', { class: 'health', dataset: { state: worst } },
      h('span', { class: `state state-${healthy === s.instances ? 'routable' : 'partial'}` },
        s.instances ? `${healthy} of ${s.instances} passing and routable` : 'no instance'),
      parts.map(([key, text]) => h('div', { class: `state state-${key}` }, text))),
  };
}
