// A service's traffic shifts (GET /v1/services/{s}/releases): the one under way with its
// progress and steps and the operator's Advance, Promote and Abort; a new one; and every
// release's history, step by step, from the audit log (operators).

import { call, get } from './api.js';
import { bar, h, put, relative, when } from './dom.js';

const HISTORY_PAGES = 10;

// The dialogs load with the first action or history: reading releases needs neither.
const act = (options) => import('./dialogs.js').then((m) => m.act(options));
const show = (options) => import('./dialogs.js').then((m) => m.show(options));

export function releases(box, name, session) {
  const base = `/v1/services/${name}`;
  const forceQuery = (force) => (force ? '?force=true' : '');

  async function refresh() {
    let list;
    try {
      list = (await get(`${base}/releases`)).body;
    } catch (error) {
      box.replaceChildren(h('p', { class: 'error' }, `Could not read the releases: ${error.message}`));
      return;
    }
    const current = list.find((r) => r.state === 'ACTIVE' || r.state === 'PAUSED');
    const past = list.filter((r) => r !== current);
    put(box,
      current ? card(current) : h('p', { class: 'muted' }, 'No release under way.'),
      !current && session.canOperate
        ? h('button', { type: 'button', class: 'write', onclick: start }, 'Start a release…') : null,
      past.length ? h('table', { class: 'releases', id: 'release-list' },
        h('caption', {}, `Earlier releases (${past.length})`),
        h('thead', {}, h('tr', {}, ['Release', 'State', 'Reached', 'From → to', 'Started', session.canOperate ? 'History' : null]
          .filter(Boolean).map((c) => h('th', { scope: 'col' }, c)))),
        h('tbody', {}, past.map((r) => h('tr', { dataset: { release: r.id } },
          h('th', { scope: 'row' }, `#${r.id}`), h('td', {}, h('span', { class: 'pill' }, r.state)),
          h('td', { class: 'num' }, `${r.percent}%`), h('td', {}, `${selector(r.from)} → ${selector(r.to)}`),
          h('td', { class: 'small' }, when(r.createdAt)),
          session.canOperate ? h('td', {}, historyButton(r)) : null)))) : null);
  }

  function historyButton(r) {
    return h('button', { type: 'button', class: 'small', 'aria-label': `History of release #${r.id}`,
      onclick: () => history(r) }, 'History');
  }

  function card(r) {
    const path = `${base}/releases/${r.id}`;
    const progress = bar(r.percent, 100, {
      label: `release ${r.id} progress`, kind: 'release', text: `${r.percent}% to ${selector(r.to)}`,
    });
    const marks = h('div', { class: 'steps', 'aria-label': 'steps' }, r.steps.map((step, index) =>
      h('span', { class: index <= r.step ? 'step done' : 'step' }, `${step}%`)));
    const release = (verb, label, query) => act({
      title: `${label} release #${r.id}`,
      intro: h('p', {}, verb === 'abort'
        ? 'Restores every weight exactly as before the release, in one transaction.'
        : verb === 'promote' ? 'Jumps to 100%: the to group takes all the traffic.'
          : `Takes the next step, to ${r.steps[r.step + 1] ?? 100}%.`),
      submitLabel: label,
      send: (v, force) => call('POST', `${path}/${verb}${query ? forceQuery(force) : ''}`),
      done: (result) => `Release #${r.id}: ${result.body.state} at ${result.body.percent}%.`,
    });
    return h('div', { class: 'card', id: 'release-current' },
      h('p', {}, h('strong', {}, `Release #${r.id} `), h('span', { class: 'pill' }, r.state), ' ',
        `${selector(r.from)} (${r.fromInstances.join(', ')}) → ${selector(r.to)} (${r.toInstances.join(', ')})`),
      r.stateReason ? h('p', { class: 'error' }, r.stateReason) : null,
      progress, marks,
      h('p', { class: 'muted small' }, `Step ${r.step + 1} of ${r.steps.length}; `,
        r.stepIntervalSeconds ? `advances every ${r.stepIntervalSeconds} s` : 'advances on request',
        r.nextStepAt ? `, next ${relative(r.nextStepAt)}` : ''),
      h('div', { class: 'buttons' },
        session.canOperate ? [
          h('button', { type: 'button', class: 'write', onclick: () => release('advance', 'Advance', true) }, 'Advance'),
          h('button', { type: 'button', class: 'write', onclick: () => release('promote', 'Promote', true) }, 'Promote'),
          h('button', { type: 'button', class: 'write danger', onclick: () => release('abort', 'Abort', false) }, 'Abort'),
          historyButton(r)] : null));
  }

  function start() {
    act({
      title: `Start a release of ${name}`,
      intro: h('p', {}, 'Shifts traffic from the instances matching one metadata selector to those matching another, in steps.'),
      fields: [
        { id: 'from', label: 'From (key=value)', required: true, placeholder: 'version=1.0', pointer: '/from' },
        { id: 'to', label: 'To (key=value)', required: true, placeholder: 'version=1.1', pointer: '/to' },
        { id: 'steps', label: 'Steps (% for the to group)', required: true, value: '10,50,100', pointer: '/steps',
          help: 'Increasing, ending at 100.' },
        { id: 'interval', label: 'Seconds between automatic steps', type: 'number', min: 0, max: 86400, value: 0,
          pointer: '/stepIntervalSeconds', help: '0: advance by hand.' },
      ],
      submitLabel: 'Start',
      send: (v, force) => call('POST', `${base}/releases`, {
        body: {
          from: pairs(v.from), to: pairs(v.to),
          steps: v.steps.split(/[,\s]+/).filter(Boolean).map(Number),
          stepIntervalSeconds: v.interval ?? 0, ...(force ? { force: true } : {}),
        },
      }),
      done: (r) => `Release #${r.body.id} started at ${r.body.percent}%.`,
    });
  }

  /**
   * A release's steps as the audit log recorded them, oldest first: read from its start
   * on (the service's events since it was created), a bounded number of pages.
   */
  async function history(r) {
    const since = new Date(Date.parse(r.createdAt) - 1000).toISOString().replace(/\.\d+Z$/, 'Z');
    let next = `/v1/audit?service=${name}&since=${since}&limit=500`;
    const events = [];
    try {
      for (let page = 0; next && page < HISTORY_PAGES; page++) {
        const read = (await get(next)).body;
        events.push(...read.events.filter((e) => e.action.startsWith('release.') && (e.after ?? e.before)?.id === r.id));
        next = read.next;
      }
    } catch (error) {
      show({ title: `History of release #${r.id}`, body: h('p', { class: 'error' }, `Could not read it: ${error.message}`) });
      return;
    }
    events.reverse();
    show({
      title: `History of release #${r.id}`,
      body: h('div', { id: 'release-history' },
        h('p', { class: 'muted' }, `${selector(r.from)} → ${selector(r.to)}, steps ${r.steps.join(', ')}%; now `
          + `${r.state} at ${r.percent}%.`),
        h('table', { class: 'figures' }, h('caption', {}, 'Each step, oldest first'),
          h('thead', {}, h('tr', {}, ['When', 'Who', 'Action', 'To group', 'State'].map((c) => h('th', { scope: 'col' }, c)))),
          h('tbody', {}, events.map((e) => h('tr', { dataset: { action: e.action } },
            h('td', { class: 'small' }, when(e.at)), h('td', {}, e.tokenName || e.tokenId),
            h('td', {}, e.action, e.forced ? ' (forced)' : ''),
            h('td', { class: 'num' }, `${e.before ? `${e.before.percent}% → ` : ''}${e.after?.percent ?? '—'}%`),
            h('td', {}, e.after?.state ?? '—'))))),
        next ? h('p', { class: 'muted small' }, 'Older pages of the log were not read.') : null),
    });
  }

  return { refresh };
}

function selector(map) {
  return Object.entries(map || {}).map(([k, v]) => `${k}=${v}`).join(', ');
}

function pairs(text) {
  return Object.fromEntries(text.split(',').map((pair) => pair.split('=').map((s) => s.trim())));
}
