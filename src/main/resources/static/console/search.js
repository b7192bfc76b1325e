// #/search?q=…: instances of every service whose id, address (with or without its port)
// or one of whose tags contains the text, without case. It reads the service list, then
// each service's instance list, a few at a time: what any reader may read.

import { get } from './api.js';
import { h, tagList } from './dom.js';
import { healthCell } from './health.js';

const AT_ONCE = 6;

export function searchPage(view, session, params) {
  const wanted = (params.get('q') || '').trim();
  const needle = wanted.toLowerCase();
  const field = document.getElementById('search');
  field.value = wanted;
  const status = h('p', { role: 'status', id: 'search-status', class: 'muted' }, wanted ? 'Searching…' : '');
  const body = h('tbody');
  view.replaceChildren(h('section', { 'aria-labelledby': 'search-title' },
    h('h1', { id: 'search-title' }, wanted ? `Instances matching “${wanted}”` : 'Find instances'),
    h('p', { class: 'muted' }, 'By instance id, address (10.0.0.5 or 10.0.0.5:8080) or tag, in every service. '
      + 'Type in the box at the top and press Enter.'),
    status,
    h('table', { class: 'found', id: 'search-results' },
      h('caption', { class: 'visually-hidden' }, 'Matching instances'),
      h('thead', {}, h('tr', {}, ['Service', 'Instance', 'Address', 'Zone', 'Tags', 'Mode', 'Health', 'Effective weight']
        .map((c) => h('th', { scope: 'col' }, c)))), body)));
  if (!wanted) {
    field.focus();
    return null;
  }
  let stopped = false;

  const matches = (i) => i.id.toLowerCase().includes(needle) || `${i.address}:${i.port}`.toLowerCase().includes(needle)
    || (i.tags || []).some((tag) => tag.toLowerCase().includes(needle));
  const matchedBy = (i) => (i.id.toLowerCase().includes(needle) ? 'id'
    : `${i.address}:${i.port}`.toLowerCase().includes(needle) ? 'address' : 'tag');

  (async () => {
    let services;
    try {
      services = (await get('/v1/services')).body.filter((s) => s.instances > 0);
    } catch (error) {
      status.textContent = `Could not read the services: ${error.message}`;
      return;
    }
    let read = 0;
    let instances = 0;
    let found = 0;
    const queue = [...services];
    async function worker() {
      while (queue.length && !stopped) {
        const service = queue.shift();
        let list;
        try {
          list = (await get(`/v1/services/${service.name}/instances`)).body.instances;
        } catch {
          // Removed meanwhile, or out of reach: the others are still worth showing.
          continue;
        }
        read += 1;
        instances += list.length;
        for (const i of list.filter(matches)) {
          found += 1;
          body.append(h('tr', { dataset: { service: service.name, instance: i.id, matched: matchedBy(i) } },
            h('td', {}, h('a', { href: `#/services/${service.name}` }, service.name)),
            h('th', { scope: 'row' }, h('a', { href: `#/services/${service.name}?instance=${encodeURIComponent(i.id)}` }, i.id)),
            h('td', {}, `${i.address}:${i.port}`),
            h('td', {}, i.zone || '—'),
            h('td', {}, tagList(i.tags)),
            h('td', {}, h('span', { class: `pill mode-${i.mode.toLowerCase()}` }, i.mode)),
            h('td', {}, healthCell(i)),
            h('td', { class: 'num' }, i.effectiveWeight)));
        }
        if (!stopped) {
          status.textContent = `Searching: ${found} found so far, ${read} of ${services.length} services read…`;
        }
      }
    }
    await Promise.all(Array.from({ length: AT_ONCE }, worker));
    if (!stopped) {
      status.textContent = `${found} found in ${instances} instances of ${read} services.`;
    }
  })();
  return () => {
    stopped = true;
  };
}
