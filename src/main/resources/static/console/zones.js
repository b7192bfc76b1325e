// Each zone's share: how much of its capacity is routable, and how much of the traffic of
// the balancers in that zone crosses to other zones. With a locality policy the figures
// are those of the zone's own view (GET .../instances?zone=Z, what its balancers get);
// without one, of the flat view every balancer gets.

import { get } from './api.js';
import { bar, h, percent } from './dom.js';

const NO_ZONE = '';

/** Draws the zones of {@code instances} (the flat list) into {@code box}; empty when one zone. */
export async function drawZones(box, base, instances, locality) {
  const zones = [...new Set(instances.map((i) => i.zone ?? NO_ZONE))].sort();
  if (zones.length < 2 && !locality) {
    box.replaceChildren();
    return;
  }
  const sum = (list, key) => list.reduce((total, i) => total + i[key], 0);
  const flatTotal = sum(instances, 'effectiveWeight');
  const rows = await Promise.all(zones.map(async (zone) => {
    const members = instances.filter((i) => (i.zone ?? NO_ZONE) === zone);
    const capacity = sum(members, 'weight');
    const routable = sum(members, 'effectiveWeight');
    let crossing = null;
    if (zone === NO_ZONE) {
      // A balancer can ask for no such zone: it has no view of its own.
    } else if (locality) {
      const view = (await get(`${base}/instances?zone=${encodeURIComponent(zone)}`)).body.instances;
      crossing = { across: sum(view.filter((i) => i.zone !== zone), 'effectiveWeight'), total: sum(view, 'effectiveWeight') };
    } else {
      crossing = { across: flatTotal - routable, total: flatTotal };
    }
    return { zone, members, capacity, routable, crossing };
  }));
  const cap = locality?.maxCrossZonePercent;
  box.replaceChildren(
    h('p', { class: 'muted' }, locality
      ? `Locality ${locality.mode}: a balancer that asks with ?zone= gets its zone's view, local first; at most ${cap}% `
        + 'of its traffic crosses to other zones.'
      : 'No locality policy: every balancer gets the flat view, so a zone\'s balancers send the other zones their '
        + 'share of the routable weight.'),
    h('table', { class: 'zones' }, h('caption', { class: 'visually-hidden' }, 'Zones: routable share and crossing traffic'),
      h('thead', {}, h('tr', {}, ['Zone', 'Instances', 'Routable share of its capacity',
        'Its balancers\' traffic crossing to other zones'].map((c) => h('th', { scope: 'col' }, c)))),
      h('tbody', {}, rows.map((r) => {
        const routableShare = percent(r.routable, r.capacity);
        const crossShare = r.crossing ? percent(r.crossing.across, r.crossing.total) : null;
        return h('tr', { dataset: { zone: r.zone || '-' } },
          h('th', { scope: 'row' }, r.zone || h('span', { class: 'muted' }, 'no zone')),
          h('td', { class: 'num' }, r.members.length),
          h('td', { class: 'routable-share' }, bar(routableShare, 100, {
            label: `zone ${r.zone} routable share`, kind: routableShare >= 100 / 1.4 ? 'weight' : 'near',
            text: `${routableShare}% (${r.routable} of ${r.capacity})`,
          })),
          h('td', { class: 'cross-share' }, crossShare === null
            ? h('span', { class: 'muted' }, 'no view: instances without a zone count as crossing for every zone')
            : bar(crossShare, 100, {
              label: `zone ${r.zone} crossing share`, kind: cap !== undefined && crossShare > cap ? 'over' : 'release',
              limit: cap, text: `${crossShare}%${cap !== undefined ? ` (cap ${cap}%)` : ''}`,
            })));
      }))));
}
