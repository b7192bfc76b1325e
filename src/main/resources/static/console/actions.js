// The operator's actions on a service and its instances, each one dialog and one call
// to the public API: weight, drain, serve, maintenance, deregister, a batch drain, and
// the service's settings (a merge patch whose refusals are shown at their fields).

import { call, get } from './api.js';
import { act } from './dialogs.js';
import { h, percent, say, when } from './dom.js';

const forceQuery = (force) => (force ? '?force=true' : '');
const stamp = (date) => date.toISOString().replace(/\.\d+Z$/, 'Z');

/** The actions of one service's page. */
export function actions(name) {
  const base = `/v1/services/${name}`;
  const instancePath = (id) => `${base}/instances/${encodeURIComponent(id)}`;

  /** The instance and its ETag, or null (said in the status line) when it cannot be read. */
  async function read(id) {
    try {
      return await get(instancePath(id));
    } catch (error) {
      say(`Could not read ${id}: ${error.message}`, 'error');
      return null;
    }
  }

  async function editWeight(id) {
    const current = await read(id);
    if (!current) {
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
        value: current.body.weight, pointer: '/weight',
        help: 'An integer. 0 takes the instance out of rotation, guarded like a drain.',
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

  /**
   * An instance's metadata and tags, edited as every edit is: one merge patch, sent with
   * If-Match, through the same guard and audit (instance.edit) as a weight edit. Tags
   * are replaced as a list; a metadata key left out is removed (null in the patch).
   */
  async function editLabels(id) {
    const current = await read(id);
    if (!current) {
      return;
    }
    let etag = current.headers.get('ETag');
    let before = current.body.metadata || {};
    const intro = h('p', { class: 'muted', id: 'labels-now' }, `Revision ${current.body.revision}. The edit is sent `
      + 'with If-Match, so a change made meanwhile is not overwritten; it is audited as instance.edit.');
    act({
      title: `Metadata and tags of ${id}`,
      intro,
      fields: [
        { id: 'tags', label: 'Tags', value: (current.body.tags || []).join(', '), pointer: '/tags',
          help: 'Separated by commas, in order; empty removes them all. Labels only: a tag never sets a weight.' },
        { id: 'metadata', label: 'Metadata (one key=value a line)', type: 'textarea', pointer: '/metadata',
          value: Object.entries(before).map(([k, v]) => `${k}=${v}`).join('\n'),
          help: 'Keys of A-Z a-z 0-9 . _ / - (not weight, nothing under ballast.); a key left out is removed.' },
      ],
      submitLabel: 'Save labels',
      send: (v) => {
        const tags = (v.tags || '').split(',').map((t) => t.trim()).filter(Boolean);
        const metadata = {};
        const lines = (v.metadata || '').split('\n').map((l) => l.trim()).filter(Boolean);
        for (const line of lines) {
          const at = line.indexOf('=');
          metadata[at < 0 ? line : line.slice(0, at).trim()] = at < 0 ? '' : line.slice(at + 1).trim();
        }
        for (const key of Object.keys(before)) {
          if (!(key in metadata)) {
            metadata[key] = null;
          }
        }
        return call('PATCH', instancePath(id), { body: { tags, metadata }, headers: { 'If-Match': etag } });
      },
      onStale: async () => {
        const now = await get(instancePath(id));
        etag = now.headers.get('ETag');
        before = now.body.metadata || {};
        intro.textContent = `Revision ${now.body.revision}.`;
        return `It changed meanwhile (now revision ${now.body.revision}).`;
      },
      done: (r) => `Metadata and tags of ${id} saved (revision ${r.body.revision}).`,
    });
  }

  function drain(id) {
    act({
      title: `Drain ${id}`,
      fields: [{
        id: 'durationSeconds', label: 'Ramp duration (seconds)', type: 'number', min: 0, max: 3600, value: 10,
        help: 'Its effective weight steps down to 0 over this time; 0 drains at once. It is DRAINED once every live '
          + 'subscriber has confirmed weight 0, or after the confirmation timeout.',
      }],
      submitLabel: 'Drain',
      send: (v, force) => call('POST', `${instancePath(id)}/drain`,
        { body: { durationSeconds: v.durationSeconds, ...(force ? { force: true } : {}) } }),
      done: (r) => `${id} is draining${waitWords(r.body)}.`,
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
          ...(v.minutes ? { until: stamp(new Date(Date.now() + v.minutes * 60000)) } : {}),
          ...(force ? { force: true } : {}),
        },
      }),
      done: () => `${id} is in maintenance.`,
    });
  }

  /** The service as the registry has it now, or null (and the user told why) when it cannot be read. */
  async function readService() {
    try {
      return (await get(base)).body;
    } catch (error) {
      say(`Could not read ${name}: ${error.message}`, 'error');
      return null;
    }
  }

  /**
   * Deregistration is not guarded (the instance is leaving), but the guard counts the
   * capacity that left within its window as unroutable: the dialog says what leaves and
   * what the budget in use will be afterwards.
   */
  async function deregister(instance) {
    const id = instance.id;
    const s = await readService();
    if (!s) {
      return;
    }
    const nominal = s.nominalWeight;
    // An instance already held out counts in the budget now; one in rotation adds its weight.
    const inRotation = instance.routable && instance.health === 'PASSING'
      && (instance.mode === 'SERVING' || instance.mode === 'WARMING');
    const usedNow = s.unroutableWeight;
    const usedAfter = usedNow + (inRotation ? instance.weight : 0);
    act({
      title: `Deregister ${id}`,
      intro: h('div', { id: 'deregister-intro' },
        h('p', {}, `${id} (${instance.address}:${instance.port}) leaves ${name} at once: balancers get its removal `
          + 'and stop sending it traffic. A registrant that still heartbeats gets 404 and registers again.'),
        h('p', {}, h('strong', {}, 'Capacity that leaves: '),
          `weight ${instance.weight}, ${percent(instance.weight, nominal)}% of the nominal weight ${nominal}`,
          instance.effectiveWeight ? ` (it carries ${instance.effectiveWeight} now).` : ' (it carries no traffic now).'),
        h('p', {}, 'Deregistration is not guarded, but the guard counts capacity that left within its capacity '
          + 'window as unroutable: the guard budget in use goes from ', h('strong', {}, `${percent(usedNow, nominal)}%`),
        ' to about ', h('strong', {}, `${percent(usedAfter, nominal)}%`), ` (limit ${s.maxUnroutable}), `
          + 'so a drain or maintenance right after may be refused until the window ends or a replacement registers.')),
      submitLabel: 'Deregister',
      danger: true,
      send: () => call('DELETE', instancePath(id)),
      done: () => `${id} is deregistered.`,
    });
  }

  function batchDrain(ids, whenDone) {
    act({
      title: `Drain ${ids.length} instances together`,
      intro: h('p', {}, 'Drains ', h('strong', {}, ids.join(', ')),
        ' in one step: the guard checks them together, so either all drain or none does.'),
      fields: [{ id: 'durationSeconds', label: 'Ramp duration (seconds)', type: 'number', min: 0, max: 3600, value: 10 }],
      submitLabel: 'Drain all',
      send: (v, force) => call('POST', `${base}/drains`,
        { body: { instances: ids, durationSeconds: v.durationSeconds, ...(force ? { force: true } : {}) } }),
      done: () => {
        whenDone();
        return `${ids.join(', ')} are draining.`;
      },
    });
  }

  /**
   * The service's settings. Only what changed is sent, as a merge patch; the registry is
   * the one judge of each value (no range is checked here), and a refusal is shown at
   * the field its pointer names.
   */
  async function editSettings() {
    const s = await readService();
    if (!s) {
      return;
    }
    const locality = s.locality;
    act({
      title: `Settings of ${name}`,
      intro: h('p', { class: 'muted' }, 'Each change is audited (service.edit). Leave a field as it is to keep it.'),
      fields: [
        { id: 'weightPolicy', label: 'Weight policy', options: ['STRICT', 'NORMALIZE'], value: s.weightPolicy,
          pointer: '/weightPolicy', help: 'STRICT refuses a weight that is not a JSON integer; NORMALIZE converts '
            + '"100" and 100.0, reporting and auditing each conversion.' },
        { id: 'defaultWeight', label: 'Default weight', type: 'number', value: s.defaultWeight,
          pointer: '/defaultWeight', help: 'The weight of a registration that sends none: 0 to 10000.' },
        { id: 'leaseTtlSeconds', label: 'Lease TTL (seconds)', type: 'number', value: s.leaseTtlSeconds,
          pointer: '/leaseTtlSeconds', help: 'For registrations that send none: 5 to 300.' },
        { id: 'maxUnroutable', label: 'Guard budget (maxUnroutable)', value: s.maxUnroutable, pointer: '/maxUnroutable',
          help: 'How much drains, maintenance and weight edits may hold out at once: a count of instances (1) or '
            + 'a percent of the capacity (25%).' },
        { id: 'maxEjectionPercent', label: 'Ejection cap (maxEjectionPercent)', type: 'number',
          value: s.maxEjectionPercent, pointer: '/maxEjectionPercent',
          help: 'The most of the weight that lease expiry and failing checks may take out at once: 0 to 100.' },
        { id: 'localityMode', label: 'Locality', options: [['', 'off: the flat view'], ['PREFER_LOCAL', 'PREFER_LOCAL']],
          value: locality?.mode ?? '', pointer: '/locality',
          help: 'PREFER_LOCAL gives a balancer asking with ?zone= its zone\'s view: local first, capped crossing.' },
        { id: 'maxCrossZonePercent', label: 'Most of a zone\'s traffic that may cross zones (%)', type: 'number',
          value: locality?.maxCrossZonePercent ?? 20, pointer: '/locality/maxCrossZonePercent',
          help: 'With PREFER_LOCAL: 0 to 100.' },
      ],
      submitLabel: 'Save settings',
      wide: true,
      send: (v) => {
        const patch = {};
        for (const key of ['weightPolicy', 'defaultWeight', 'leaseTtlSeconds', 'maxUnroutable', 'maxEjectionPercent']) {
          if (v[key] !== undefined && String(v[key]) !== String(s[key])) {
            // A count budget travels as a JSON integer, a percent as a string ("25%").
            patch[key] = key === 'maxUnroutable' && /^\d+$/.test(v[key]) ? Number(v[key]) : v[key];
          }
        }
        if (!v.localityMode && locality) {
          patch.locality = null;
        } else if (v.localityMode && (v.localityMode !== locality?.mode
          || v.maxCrossZonePercent !== locality?.maxCrossZonePercent)) {
          patch.locality = { mode: v.localityMode, maxCrossZonePercent: v.maxCrossZonePercent ?? null };
        }
        return Object.keys(patch).length ? call('PATCH', base, { body: patch }) : Promise.resolve({ unchanged: true });
      },
      done: (r) => (r.unchanged ? 'Nothing to change.' : `Settings of ${name} saved.`),
    });
  }

  return { editWeight, editLabels, drain, serve, maintenance, deregister, batchDrain, editSettings };
}

/** What a draining instance waits for, in words: whom, and until when at the latest. */
export function waitWords(i) {
  if (i.mode !== 'DRAINING' || !i.unconfirmedSubscribers?.length) {
    return '';
  }
  const who = i.unconfirmedSubscribers.join(', ');
  return i.effectiveWeight > 0
    ? `; then it waits for ${who} to confirm weight 0, until ${when(i.modeUntil)} at the latest`
    : `; it waits for ${who} to confirm weight 0, until ${when(i.modeUntil)} at the latest`;
}
