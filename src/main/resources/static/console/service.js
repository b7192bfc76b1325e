// One service: its instances live from the watch stream, its settings, health and guard
// budget, its zones, its releases and its audit trail, and (for operators) the actions on
// them. The header's counts (routable, effective weight, critical and why) are drawn from
// the same instances as the rows, at the same moment, so the two never disagree; the guard
// budget, which the registry alone can count, is read after each change.

import { get, watch } from './api.js';
import { auditTable } from './audit.js';
import { bar, h, percent, put, relative, say, tagList, when } from './dom.js';
import { healthCell, instanceState, instancesHealth } from './health.js';
import { releases } from './releases.js';
import { drawZones } from './zones.js';

export function servicePage(view, session, name, params) {
  const base = `/v1/services/${name}`;
  const instances = new Map();
  const rows = new Map();
  const selected = new Set();
  let revision = null;
  let scale = 1;
  let settings = null;
  let highlight = params.get('instance');

  const revisionText = h('span', { id: 'revision' }, '…');
  const live = h('span', { class: 'live', id: 'live' }, 'connecting');
  const settingsLine = h('div', { class: 'settings', id: 'settings' });
  const tbody = h('tbody');
  // The actions and their dialogs load with the first action: reading needs neither.
  const act = (verb, ...args) => import('./actions.js').then((m) => m.actions(name)[verb](...args));
  const batchButton = h('button', { type: 'button', class: 'write', disabled: true, onclick: () => act('batchDrain',
    [...selected].sort(), () => {
      selected.clear();
      draw();
    }) }, 'Drain selected');
  const tagFilter = h('select', { id: 'instance-tag-filter' }, h('option', { value: '' }, 'any tag'));
  const zonesBox = h('div', { id: 'zones' });
  const releaseBox = h('div', { id: 'releases' });
  const trail = session.canOperate ? auditTable(`/v1/audit?service=${name}&limit=25`, {
    caption: `Audit trail of ${name}, newest first`,
  }) : null;
  const shift = releases(releaseBox, name, session);

  put(view,
    h('section', { 'aria-labelledby': 'service-title' },
      h('div', { class: 'heading' },
        h('h1', { id: 'service-title' }, name),
        h('span', { class: 'pill' }, 'revision ', revisionText), live,
        session.canOperate ? h('button', { type: 'button', class: 'write', id: 'settings-button',
          onclick: () => act('editSettings') }, 'Settings…') : null,
        h('a', { href: `#/services/${name}/subscribers`, id: 'subscribers-link' }, 'Subscribers')),
      settingsLine),
    h('section', { 'aria-labelledby': 'instances-title' },
      h('div', { class: 'heading' }, h('h2', { id: 'instances-title' }, 'Instances'),
        h('div', { class: 'field inline' }, h('label', { for: 'instance-tag-filter' }, 'Tag'), tagFilter),
        session.canOperate ? batchButton : null),
      h('table', { class: 'instances' },
        h('caption', { class: 'visually-hidden' }, `Instances of ${name}, updated live`),
        h('thead', {}, h('tr', {},
          session.canOperate ? h('th', { scope: 'col' }, h('span', { class: 'visually-hidden' }, 'Select')) : null,
          ['Instance', 'Zone', 'Tags', 'Mode', 'Health', 'Weight', 'Effective weight', 'Lease', 'Metadata']
            .map((column) => h('th', { scope: 'col' }, column)),
          session.canOperate ? h('th', { scope: 'col' }, 'Actions') : null)),
        tbody)),
    h('section', { 'aria-labelledby': 'zones-title', id: 'zones-section', hidden: true },
      h('h2', { id: 'zones-title' }, 'Zones'), zonesBox),
    h('section', { 'aria-labelledby': 'releases-title' },
      h('h2', { id: 'releases-title' }, 'Releases'), releaseBox),
    trail ? h('section', { 'aria-labelledby': 'audit-title' },
      h('h2', { id: 'audit-title' }, 'Audit trail'), trail.element) : null);

  // Settings, budget, zones and releases change with the instances: re-read them at most
  // once a second while events arrive.
  let pending = null;
  function refreshSoon() {
    if (!pending) {
      pending = setTimeout(() => {
        pending = null;
        refreshSettings();
        shift.refresh();
      }, 300);
    }
  }

  async function refreshSettings() {
    try {
      settings = (await get(base)).body;
    } catch (error) {
      say(`Could not read ${name}: ${error.message}`, 'error');
      return;
    }
    revision = Math.max(revision ?? 0, settings.revision);
    revisionText.textContent = revision;
    drawHeader();
    refreshZones();
  }

  /** The header: the settings as last read, and the counts of the rows as drawn now. */
  function drawHeader() {
    const s = settings;
    if (!s) {
      return;
    }
    const now = instancesHealth(instances.values());
    const used = percent(s.unroutableWeight, s.nominalWeight);
    const kind = used > s.maxUnroutablePercent ? 'over' : used >= s.maxUnroutablePercent * 0.8 ? 'near' : 'budget';
    const e = s.ejection;
    settingsLine.replaceChildren(
      h('dl', {},
        h('dt', {}, 'Policy'), h('dd', {}, s.weightPolicy),
        h('dt', {}, 'Default weight'), h('dd', {}, s.defaultWeight),
        h('dt', {}, 'Lease'), h('dd', {}, `${s.leaseTtlSeconds} s`),
        h('dt', {}, 'Routable'), h('dd', { id: 'routable-count' }, `${now.routable} / ${now.instances}`),
        h('dt', {}, 'Effective weight'), h('dd', {}, bar(now.effective, now.configured, {
          label: 'effective weight of configured', kind: now.held ? 'held' : 'weight',
          text: `${now.effective} / ${now.configured}`,
        })),
        h('dt', {}, 'Guard budget in use'), h('dd', { id: 'budget' }, bar(used, 100, {
          label: 'guard budget in use', kind, limit: s.maxUnroutablePercent,
          text: `${used}% of nominal (limit maxUnroutable ${s.maxUnroutable})`,
        })),
        h('dt', {}, 'Ejection cap'), h('dd', { id: 'ejection', class: now.held ? 'state state-held' : '' },
          `${s.maxEjectionPercent}%: ejections may leave ${e.allowanceWeight} out, ${e.remainingWeight} more now`,
          now.ejected ? `; ${now.ejected} ejected` : '',
          now.held ? `; ${now.held} critical held routable by the cap` : ''),
        h('dt', {}, 'Locality'), h('dd', { id: 'locality' }, s.locality
          ? `${s.locality.mode}, at most ${s.locality.maxCrossZonePercent}% crosses zones` : 'off (flat view)'),
        now.causes.length ? [h('dt', {}, 'Critical'), h('dd', { id: 'critical-causes', class: 'state state-held' },
          now.causes.join('; '))] : null));
  }

  async function refreshZones() {
    const section = document.getElementById('zones-section');
    try {
      await drawZones(zonesBox, base, [...instances.values()], settings?.locality);
      section.hidden = !zonesBox.firstChild;
    } catch (error) {
      zonesBox.replaceChildren(h('p', { class: 'error' }, `Could not read the zones' views: ${error.message}`));
    }
  }

  function offerTags() {
    const all = [...new Set([...instances.values()].flatMap((i) => i.tags || []))].sort();
    const chosen = tagFilter.value;
    const now = [...tagFilter.options].slice(1).map((option) => option.value);
    if (now.join('\n') !== all.join('\n')) {
      tagFilter.replaceChildren(h('option', { value: '' }, 'any tag'),
        ...all.map((tag) => h('option', { value: tag, selected: tag === chosen }, tag)));
    }
  }

  function draw() {
    scale = Math.max(1, ...[...instances.values()].flatMap((i) => [i.weight, i.effectiveWeight]));
    offerTags();
    const tag = tagFilter.value;
    const focused = document.activeElement?.closest?.('tr[data-instance]');
    const focusKey = focused ? document.activeElement.dataset.focus : null;
    const ids = [...instances.keys()].filter((id) => !tag || (instances.get(id).tags || []).includes(tag)).sort();
    for (const [id, old] of rows) {
      if (!ids.includes(id)) {
        old.row.remove();
        rows.delete(id);
        if (!instances.has(id)) {
          selected.delete(id);
        }
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
    tbody.querySelector('tr:not([data-instance])')?.remove();
    if (!ids.length) {
      tbody.append(h('tr', {}, h('td', { colspan: 12, class: 'muted' },
        instances.size ? 'No instance carries this tag.' : 'No instance is registered.')));
    }
    if (focused && focusKey) {
      rows.get(focused.dataset.instance)?.row.querySelector(`[data-focus="${focusKey}"]`)?.focus();
    }
    if (highlight && rows.has(highlight)) {
      const row = rows.get(highlight).row;
      row.classList.add('found');
      row.querySelector('th').tabIndex = -1;
      row.querySelector('th').focus();
      row.scrollIntoView({ block: 'center' });
      highlight = null;
    }
    batchButton.disabled = selected.size === 0;
    batchButton.textContent = selected.size ? `Drain selected (${selected.size})` : 'Drain selected';
    revisionText.textContent = revision ?? '…';
    drawHeader();
  }

  function instanceRow(i) {
    const id = i.id;
    const state = instanceState(i);
    return h('tr', { dataset: { instance: id, mode: i.mode, state: state.key } },
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
      h('th', { scope: 'row' }, h('div', {}, h('a', { href: `#/services/${name}/instances/${encodeURIComponent(id)}`,
        'aria-label': `Instance ${id}: its checks and labels` }, id)),
      h('div', { class: 'muted small' }, `${i.address}:${i.port}`)),
      h('td', {}, i.zone || h('span', { class: 'muted' }, '—')),
      h('td', { class: 'tags' }, tagList(i.tags)),
      h('td', { class: 'mode' }, h('span', { class: `pill mode-${i.mode.toLowerCase()}` }, i.mode), modeWords(i)),
      h('td', {}, healthCell(i)),
      h('td', { class: 'weight' }, bar(i.weight, scale, { label: `${id} weight`, kind: 'configured', text: `${i.weight}` })),
      h('td', { class: 'effective' }, bar(i.effectiveWeight, scale, {
        label: `${id} effective weight`, kind: !i.routable ? 'zero' : state.key === 'held' ? 'held' : 'weight',
        text: `${i.effectiveWeight}`,
      })),
      h('td', { class: 'lease', dataset: { expires: i.leaseExpiresAt } }, relative(i.leaseExpiresAt)),
      h('td', {}, metadata(i.metadata)),
      session.canOperate ? h('td', { class: 'actions' },
        button('Weight', `Edit the weight of ${id}`, () => act('editWeight', id), 'weight'),
        button('Labels', `Edit the metadata and tags of ${id}`, () => act('editLabels', id), 'labels'),
        i.mode === 'SERVING' || i.mode === 'WARMING'
          ? button('Drain', `Drain ${id}`, () => act('drain', id), 'drain')
          : button('Serve', `Serve ${id} again`, () => act('serve', id), 'serve'),
        i.mode !== 'MAINTENANCE' ? button('Maintenance', `Put ${id} in maintenance`, () => act('maintenance', id), 'maint')
          : null,
        button('Deregister', `Deregister ${id}`, () => act('deregister', i), 'deregister')) : null);
  }

  function button(text, label, onclick, focus) {
    return h('button', { type: 'button', class: 'write small', 'aria-label': label, onclick, dataset: { focus } }, text);
  }

  const stopWatch = watch(`${base}/watch`, {
    onEvent: (event) => {
      // Event ids are opaque positions: only the payloads' revisions are numbers.
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
      } else if (event.name === 'delete') {
        instances.clear();
        revision = event.data.revision;
      } else if (event.id === null) {
        return;
      }
      draw();
      refreshSoon();
      if (trail && event.name !== 'snapshot') {
        clearTimeout(auditTimer);
        auditTimer = setTimeout(trail.reload, 1500);
      }
    },
    onState: (state, error) => {
      live.textContent = state === 'live' ? 'live' : state === 'stopped' ? `stopped: ${error?.message}` : 'reconnecting…';
      live.dataset.state = state;
    },
  });
  let auditTimer = null;

  // Countdowns tick each second: leases, and the latest end of a drain that waits.
  const ticker = setInterval(() => {
    const now = Date.now();
    for (const cell of tbody.querySelectorAll('[data-expires]')) {
      cell.textContent = relative(cell.dataset.expires, now);
    }
  }, 1000);

  tagFilter.addEventListener('change', draw);
  refreshSettings();
  shift.refresh();
  trail?.reload();
  return () => {
    stopWatch();
    clearInterval(ticker);
    clearTimeout(pending);
    clearTimeout(auditTimer);
  };
}

/** What the mode means now: maintenance's reason and end, a warm-up's end, a drain's wait. */
function modeWords(i) {
  if (i.modeReason) {
    return h('div', { class: 'muted small' }, i.modeReason, i.modeUntil ? ` (until ${when(i.modeUntil)})` : '');
  }
  if (i.mode === 'DRAINING' && i.unconfirmedSubscribers?.length) {
    return h('div', { class: 'small wait' },
      `${i.effectiveWeight > 0 ? 'Ramping to 0, then waits' : 'Waits'} for ${i.unconfirmedSubscribers.join(', ')} `
        + `to confirm weight 0; DRAINED by ${when(i.modeUntil)} at the latest (`,
      h('span', { dataset: { expires: i.modeUntil } }, relative(i.modeUntil)), ').');
  }
  if (i.mode === 'WARMING' && i.modeUntil) {
    return h('div', { class: 'muted small' },
      `Warming up to ${i.weight} by ${when(i.modeUntil)}: until then the guard counts what it does not serve yet as out.`);
  }
  if (i.mode === 'DRAINED' && i.unconfirmedSubscribers?.length) {
    return h('div', { class: 'small state state-held' },
      `Completed without the confirmation of ${i.unconfirmedSubscribers.join(', ')}.`);
  }
  return null;
}

function metadata(map) {
  const keys = Object.keys(map || {}).sort();
  return keys.length ? h('details', {}, h('summary', { dataset: { focus: 'meta' } },
    `${keys.length} ${keys.length === 1 ? 'key' : 'keys'}`),
  h('dl', { class: 'meta' }, keys.flatMap((k) => [h('dt', {}, k), h('dd', {}, map[k])])))
    : h('span', { class: 'muted' }, 'none');
}
