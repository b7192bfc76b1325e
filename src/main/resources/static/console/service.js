// One service: its instances live from the watch stream, its settings and guard budget,
// its releases and its audit trail, and (for operators) the actions on them.

import { call, get, watch } from './api.js';
import { act } from './dialogs.js';
import { bar, h, percent, put, relative, say } from './dom.js';

export function servicePage(view, name, session) {
  const base = `/v1/services/${name}`;
  const instances = new Map();
  const rows = new Map();
  const selected = new Set();
  let revision = null;
  let scale = 1;

  const revisionText = h('span', { id: 'revision' }, '…');
  const live = h('span', { class: 'live', id: 'live' }, 'connecting');
  const settingsLine = h('div', { class: 'settings', id: 'settings' });
  const tbody = h('tbody');
  const batchButton = h('button', { type: 'button', class: 'write', disabled: true, onclick: batchDrain },
    'Drain selected');
  const releaseBox = h('div', { id: 'releases' });
  const auditBody = h('tbody');
  const auditMore = h('button', { type: 'button', hidden: true }, 'Older events');

  put(view,
    h('section', { 'aria-labelledby': 'service-title' },
      h('div', { class: 'heading' },
        h('h1', { id: 'service-title' }, name),
        h('span', { class: 'pill' }, 'revision ', revisionText), live),
      settingsLine),
    h('section', { 'aria-labelledby': 'instances-title' },
      h('div', { class: 'heading' }, h('h2', { id: 'instances-title' }, 'Instances'),
        session.canOperate ? batchButton : null),
      h('table', { class: 'instances' },
        h('caption', { class: 'visually-hidden' }, `Instances of ${name}, updated live`),
        h('thead', {}, h('tr', {},
          session.canOperate ? h('th', { scope: 'col' }, h('span', { class: 'visually-hidden' }, 'Select')) : null,
          ['Instance', 'Zone', 'Mode', 'Health', 'Weight', 'Effective weight', 'Lease', 'Metadata']
            .map((column) => h('th', { scope: 'col' }, column)),
          session.canOperate ? h('th', { scope: 'col' }, 'Actions') : null)),
        tbody)),
    h('section', { 'aria-labelledby': 'releases-title' },
      h('h2', { id: 'releases-title' }, 'Releases'), releaseBox),
    session.canOperate ? h('section', { 'aria-labelledby': 'audit-title' },
      h('h2', { id: 'audit-title' }, 'Audit trail'),
      h('table', { class: 'audit' }, h('caption', { class: 'visually-hidden' }, `Audit trail of ${name}, newest first`),
        h('thead', {}, h('tr', {}, ['When', 'Who', 'Action', 'Instance', 'Change']
          .map((column) => h('th', { scope: 'col' }, column)))), auditBody),
      auditMore) : null);

  // Settings, budget and releases change with the instances: re-read them at most
  // once a second while events arrive.
  let pending = null;
  function refreshSoon() {
    if (!pending) {
      pending = setTimeout(() => {
        pending = null;
        refreshSettings();
        refreshReleases();
      }, 800);
    }
  }

  async function refreshSettings() {
    try {
      const s = (await get(base)).body;
      const used = percent(s.unroutableWeight, s.nominalWeight);
      const kind = used > s.maxUnroutablePercent ? 'over' : used >= s.maxUnroutablePercent * 0.8 ? 'near' : 'budget';
      settingsLine.replaceChildren(
        h('dl', {},
          h('dt', {}, 'Policy'), h('dd', {}, s.weightPolicy),
          h('dt', {}, 'Default weight'), h('dd', {}, s.defaultWeight),
          h('dt', {}, 'Lease'), h('dd', {}, `${s.leaseTtlSeconds} s`),
          h('dt', {}, 'Routable'), h('dd', {}, `${s.routable} / ${s.instances}`),
          h('dt', {}, 'Effective weight'), h('dd', {}, bar(s.totalEffectiveWeight, s.nominalWeight, {
            label: 'effective weight of nominal', kind: 'weight', text: `${s.totalEffectiveWeight} / ${s.nominalWeight}`,
          })),
          h('dt', {}, 'Guard budget in use'), h('dd', { id: 'budget' }, bar(used, 100, {
            label: 'guard budget in use', kind, limit: s.maxUnroutablePercent,
            text: `${used}% of nominal (limit maxUnroutable ${s.maxUnroutable})`,
          }))));
    } catch (error) {
      say(`Could not read ${name}: ${error.message}`, 'error');
    }
  }

  function draw() {
    scale = Math.max(1, ...[...instances.values()].flatMap((i) => [i.weight, i.effectiveWeight]));
    const focused = document.activeElement?.closest?.('tr[data-instance]');
    const focusKey = focused ? document.activeElement.dataset.focus : null;
    const ids = [...instances.keys()].sort();
    for (const [id, old] of rows) {
      if (!instances.has(id)) {
        old.row.remove();
        rows.delete(id);
        selected.delete(id);
      }
    }
    let previous = null;
    for (const id of ids) {
      const instance = instances.get(id);
      const key = `${JSON.stringify(instance)}|${scale}`;
      let entry = rows.get(id);
      if (!entry || entry.key !== key) {
        const row = instanceRow(instance);
        if (entry) {
          entry.row.replaceWith(row);
        }
        entry = { row, key };
        rows.set(id, entry);
      }
      if (previous ? previous.nextSibling !== entry.row : tbody.firstChild !== entry.row) {
        if (previous) {
          previous.after(entry.row);
        } else {
          tbody.prepend(entry.row);
        }
      }
      previous = entry.row;
    }
    if (!ids.length) {
      tbody.replaceChildren(h('tr', {}, h('td', { colspan: 11, class: 'muted' }, 'No instance is registered.')));
      rows.clear();
    } else {
      tbody.querySelector('tr:not([data-instance])')?.remove();
    }
    if (focused && focusKey) {
      rows.get(focused.dataset.instance)?.row.querySelector(`[data-focus="${focusKey}"]`)?.focus();
    }
    batchButton.disabled = selected.size === 0;
    batchButton.textContent = selected.size ? `Drain selected (${selected.size})` : 'Drain selected';
    revisionText.textContent = revision ?? '…';
  }

  function instanceRow(i) {
    const id = i.id;
    const mode = h('span', { class: `pill mode-${i.mode.toLowerCase()}` }, i.mode);
    const why = i.modeReason ? h('div', { class: 'muted small' }, i.modeReason,
      i.modeUntil ? ` (until ${new Date(i.modeUntil).toLocaleString()})` : '') : null;
    const keys = Object.keys(i.metadata || {});
    return h('tr', { dataset: { instance: id, mode: i.mode } },
      session.canOperate ? h('td', {}, h('input', {
        type: 'checkbox', class: 'write', 'aria-label': `Select ${id}`, checked: selected.has(id),
        dataset: { focus: 'select' },
        onchange: (event) => {
          if (event.target.checked) {
            selected.add(id);
          } else {
            selected.delete(id);
          }
          batchButton.disabled = selected.size === 0;
          batchButton.textContent = selected.size ? `Drain selected (${selected.size})` : 'Drain selected';
        },
      })) : null,
      h('th', { scope: 'row' }, h('div', {}, id), h('div', { class: 'muted small' }, `${i.address}:${i.port}`)),
      h('td', {}, i.zone || h('span', { class: 'muted' }, '—')),
      h('td', {}, mode, why),
      h('td', {}, h('span', { class: `pill health-${i.health.toLowerCase()}` }, i.health)),
      h('td', { class: 'weight' }, bar(i.weight, scale, { label: `${id} weight`, kind: 'configured', text: `${i.weight}` })),
      h('td', { class: 'effective' }, bar(i.effectiveWeight, scale, {
        label: `${id} effective weight`, kind: i.routable ? 'weight' : 'zero', text: `${i.effectiveWeight}`,
      })),
      h('td', { class: 'lease', dataset: { expires: i.leaseExpiresAt } }, relative(i.leaseExpiresAt)),
      h('td', {}, keys.length ? h('details', {}, h('summary', { dataset: { focus: 'meta' } },
        `${keys.length} ${keys.length === 1 ? 'key' : 'keys'}`),
      h('dl', { class: 'meta' }, keys.sort().flatMap((k) => [h('dt', {}, k), h('dd', {}, i.metadata[k])])))
        : h('span', { class: 'muted' }, 'none')),
      session.canOperate ? h('td', { class: 'actions' },
        button('Weight', `Edit the weight of ${id}`, () => editWeight(id), 'weight'),
        i.mode === 'SERVING' || i.mode === 'WARMING'
          ? button('Drain', `Drain ${id}`, () => drain(id), 'drain')
          : button('Serve', `Serve ${id} again`, () => serve(id), 'serve'),
        i.mode !== 'MAINTENANCE' ? button('Maintenance', `Put ${id} in maintenance`, () => maintenance(id), 'maint')
          : null) : null);
  }

  function button(text, label, onclick, focus) {
    return h('button', { type: 'button', class: 'write small', 'aria-label': label, onclick, dataset: { focus } }, text);
  }

  const forceQuery = (force) => (force ? '?force=true' : '');
  const instancePath = (id) => `${base}/instances/${encodeURIComponent(id)}`;

  async function editWeight(id) {
    let current;
    try {
      current = await get(instancePath(id));
    } catch (error) {
      say(`Could not read ${id}: ${error.message}`, 'error');
      return;
    }
    let etag = current.headers.get('ETag');
    const intro = h('p', { class: 'muted', id: 'weight-now' },
      `Now ${current.body.weight} (effective ${current.body.effectiveWeight}), revision ${current.body.revision}. `
      + 'The edit is sent with If-Match, so a change made meanwhile is not overwritten.');
    act({
      title: `Weight of ${id}`,
      intro,
      fields: [{
        id: 'weight', label: 'Weight (0 to 10000)', type: 'number', min: 0, max: 10000, required: true,
        value: current.body.weight, help: 'An integer. 0 takes the instance out of rotation, guarded like a drain.',
      }],
      submitLabel: 'Save weight',
      send: (v, force) => call('PATCH', instancePath(id) + forceQuery(force),
        { body: { weight: v.weight }, headers: { 'If-Match': etag } }),
      onStale: async () => {
        const now = await get(instancePath(id));
        etag = now.headers.get('ETag');
        intro.textContent = `Now ${now.body.weight} (effective ${now.body.effectiveWeight}), revision ${now.body.revision}.`;
        return `Its weight is now ${now.body.weight} (revision ${now.body.revision}).`;
      },
      done: (r) => `Weight of ${id} is now ${r.body.weight}.`,
    });
  }

  function drain(id) {
    act({
      title: `Drain ${id}`,
      fields: [{
        id: 'durationSeconds', label: 'Ramp duration (seconds)', type: 'number', min: 0, max: 3600, value: 10,
        help: 'Its effective weight steps down to 0 over this time; 0 drains at once.',
      }],
      submitLabel: 'Drain',
      send: (v, force) => call('POST', `${instancePath(id)}/drain`,
        { body: { durationSeconds: v.durationSeconds, ...(force ? { force: true } : {}) } }),
      done: () => `${id} is draining.`,
    });
  }

  function serve(id) {
    act({
      title: `Serve ${id} again`,
      fields: [{
        id: 'warmupSeconds', label: 'Warm-up (seconds)', type: 'number', min: 0, max: 3600, value: 30,
        help: 'Its effective weight ramps from 1 to its weight over this time; 0 serves at once.',
      }],
      submitLabel: 'Serve',
      send: (v) => call('POST', `${instancePath(id)}/serve`, { body: { warmupSeconds: v.warmupSeconds } }),
      done: () => `${id} serves again.`,
    });
  }

  function maintenance(id) {
    act({
      title: `Maintenance of ${id}`,
      fields: [
        { id: 'reason', label: 'Reason', required: true, placeholder: 'kernel upgrade', help: 'Shown on the instance.' },
        {
          id: 'minutes', label: 'Duration (minutes, optional)', type: 'number', min: 1, max: 10080,
          help: 'The registry ends the maintenance by itself after this; empty keeps it until Serve.',
        },
      ],
      submitLabel: 'Start maintenance',
      send: (v, force) => call('POST', `${instancePath(id)}/maintenance`, {
        body: {
          reason: v.reason,
          ...(v.minutes ? { until: new Date(Date.now() + v.minutes * 60000).toISOString().replace(/\.\d+Z$/, 'Z') } : {}),
          ...(force ? { force: true } : {}),
        },
      }),
      done: () => `${id} is in maintenance.`,
    });
  }

  function batchDrain() {
    const ids = [...selected].sort();
    act({
      title: `Drain ${ids.length} instances together`,
      intro: h('p', {}, 'Drains ', h('strong', {}, ids.join(', ')),
        ' in one step: the guard checks them together, so either all drain or none does.'),
      fields: [{ id: 'durationSeconds', label: 'Ramp duration (seconds)', type: 'number', min: 0, max: 3600, value: 10 }],
      submitLabel: 'Drain all',
      send: (v, force) => call('POST', `${base}/drains`,
        { body: { instances: ids, durationSeconds: v.durationSeconds, ...(force ? { force: true } : {}) } }),
      done: () => {
        selected.clear();
        draw();
        return `${ids.join(', ')} are draining.`;
      },
    });
  }

  async function refreshReleases() {
    let list;
    try {
      list = (await get(`${base}/releases`)).body;
    } catch (error) {
      releaseBox.replaceChildren(h('p', { class: 'error' }, `Could not read the releases: ${error.message}`));
      return;
    }
    const current = list.find((r) => r.state === 'ACTIVE' || r.state === 'PAUSED');
    const past = list.filter((r) => r !== current).slice(0, 5);
    put(releaseBox,
      current ? releaseCard(current) : h('p', { class: 'muted' }, 'No release under way.'),
      !current && session.canOperate
        ? h('button', { type: 'button', class: 'write', onclick: startRelease }, 'Start a release…') : null,
      past.length ? h('details', {}, h('summary', {}, `Earlier releases (${past.length})`),
        h('ul', {}, past.map((r) => h('li', {}, `#${r.id} ${r.state} at ${r.percent}%: ${selector(r.from)} → `
          + `${selector(r.to)}, ${new Date(r.createdAt).toLocaleString()}`)))) : null);
  }

  function releaseCard(r) {
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
      session.canOperate ? h('div', { class: 'buttons' },
        h('button', { type: 'button', class: 'write', onclick: () => release('advance', 'Advance', true) }, 'Advance'),
        h('button', { type: 'button', class: 'write', onclick: () => release('promote', 'Promote', true) }, 'Promote'),
        h('button', { type: 'button', class: 'write danger', onclick: () => release('abort', 'Abort', false) }, 'Abort'))
        : null);
  }

  function startRelease() {
    act({
      title: `Start a release of ${name}`,
      intro: h('p', {}, 'Shifts traffic from the instances matching one metadata selector to those matching another, in steps.'),
      fields: [
        { id: 'from', label: 'From (key=value)', required: true, placeholder: 'version=1.0' },
        { id: 'to', label: 'To (key=value)', required: true, placeholder: 'version=1.1' },
        { id: 'steps', label: 'Steps (% for the to group)', required: true, value: '10,50,100', help: 'Increasing, ending at 100.' },
        { id: 'interval', label: 'Seconds between automatic steps', type: 'number', min: 0, max: 86400, value: 0, help: '0: advance by hand.' },
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

  let auditNext = `/v1/audit?service=${name}&limit=25`;
  async function loadAudit(reset) {
    if (reset) {
      auditNext = `/v1/audit?service=${name}&limit=25`;
      auditBody.replaceChildren();
    }
    try {
      const page = (await get(auditNext)).body;
      auditBody.append(...page.events.map((e) => h('tr', {},
        h('td', { class: 'small' }, new Date(e.at).toLocaleString()),
        h('td', {}, e.tokenName || e.tokenId),
        h('td', {}, e.action, e.forced ? h('span', { class: 'pill over' }, ' forced') : ''),
        h('td', {}, e.instance || '—'),
        h('td', { class: 'small' }, change(e)))));
      auditNext = page.next;
      auditMore.hidden = !page.next;
    } catch (error) {
      auditBody.append(h('tr', {}, h('td', { colspan: 5, class: 'error' }, `Could not read the audit log: ${error.message}`)));
    }
  }
  auditMore.addEventListener('click', () => loadAudit(false));

  const stopWatch = watch(`${base}/watch`, {
    onEvent: (event) => {
      if (event.name === 'snapshot') {
        instances.clear();
        for (const i of event.data.instances) {
          instances.set(i.id, i);
        }
        revision = event.data.revision;
      } else if (event.name === 'upsert') {
        instances.set(event.data.id, event.data);
        revision = event.data.revision;
      } else if (event.name === 'remove') {
        instances.delete(event.data.id);
        revision = event.data.revision;
      } else if (event.id !== null) {
        revision = Number(event.id);
      } else {
        return;
      }
      draw();
      refreshSoon();
      if (session.canOperate && event.name !== 'snapshot') {
        clearTimeout(auditTimer);
        auditTimer = setTimeout(() => loadAudit(true), 1500);
      }
    },
    onState: (state, error) => {
      live.textContent = state === 'live' ? 'live' : state === 'stopped' ? `stopped: ${error?.message}` : 'reconnecting…';
      live.dataset.state = state;
    },
  });
  let auditTimer = null;

  const ticker = setInterval(() => {
    const now = Date.now();
    for (const cell of tbody.querySelectorAll('td.lease')) {
      cell.textContent = relative(cell.dataset.expires, now);
    }
  }, 1000);

  refreshSettings();
  refreshReleases();
  if (session.canOperate) {
    loadAudit(true);
  }
  return () => {
    stopWatch();
    clearInterval(ticker);
    clearTimeout(pending);
    clearTimeout(auditTimer);
  };
}

function selector(map) {
  return Object.entries(map || {}).map(([k, v]) => `${k}=${v}`).join(', ');
}

function pairs(text) {
  return Object.fromEntries(text.split(',').map((pair) => pair.split('=').map((s) => s.trim())));
}

/** The audit event's change in a few words: what moved from before to after. */
function change(e) {
  const b = e.before || {};
  const a = e.after || {};
  const parts = [];
  for (const key of ['weight', 'effectiveWeight', 'mode', 'percent', 'state', 'maxUnroutablePercent', 'weightPolicy']) {
    if (b[key] !== a[key] && (key in a || key in b)) {
      parts.push(`${key} ${b[key] ?? '∅'} → ${a[key] ?? '∅'}`);
    }
  }
  return parts.join(', ') || (e.after ? '' : 'removed');
}
