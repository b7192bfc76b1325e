// Services at a glance, from GET /v1/services, refreshed every 5 seconds: one call for
// every service (a watch per service would cost a stream each). The list carries each
// service's health and mode counts and its tags, so nothing is read per service.

import { get } from './api.js';
import { bar, h, percent, say, tagList } from './dom.js';
import { serviceHealth } from './health.js';

const REFRESH_MS = 5000;
const TAGS_SHOWN = 3;

export function overview(view) {
  const body = h('tbody');
  const stamp = h('p', { class: 'muted', id: 'services-updated' });
  const filter = h('input', { id: 'service-filter', type: 'search', placeholder: 'name contains…' });
  const tagFilter = h('select', { id: 'tag-filter' }, h('option', { value: '' }, 'any tag'));
  let services = [];
  view.replaceChildren(h('section', { 'aria-labelledby': 'services-title' },
    h('div', { class: 'heading' }, h('h1', { id: 'services-title' }, 'Services'),
      h('div', { class: 'field inline' }, h('label', { for: 'service-filter' }, 'Name'), filter),
      h('div', { class: 'field inline' }, h('label', { for: 'tag-filter' }, 'Tag'), tagFilter), stamp),
    h('table', { class: 'services' },
      h('caption', { class: 'visually-hidden' }, 'Every service: health, instances, weight, guard budget, tags, policy, releases'),
      h('thead', {}, h('tr', {},
        ['Service', 'Health', 'Routable / instances', 'Effective weight of nominal', 'Guard budget in use (limit)', 'Tags',
          'Policy', 'Release', 'Revision'].map((name) => h('th', { scope: 'col' }, name)))),
      body)));

  function draw() {
    const wanted = filter.value.trim();
    const tag = tagFilter.value;
    const shown = services.filter((s) => s.name.includes(wanted) && (!tag || s.tags.includes(tag)));
    body.replaceChildren(...shown.map(row));
    if (!shown.length) {
      body.append(h('tr', {}, h('td', { colspan: 9, class: 'muted' },
        services.length ? 'No service matches the filter.' : 'No service is registered yet.')));
    }
  }

  function offerTags() {
    const all = [...new Set(services.flatMap((s) => s.tags))].sort();
    const chosen = tagFilter.value;
    const now = [...tagFilter.options].slice(1).map((option) => option.value);
    if (now.join('\n') !== all.join('\n')) {
      tagFilter.replaceChildren(h('option', { value: '' }, 'any tag'),
        ...all.map((tag) => h('option', { value: tag, selected: tag === chosen }, tag)));
    }
  }

  async function refresh() {
    try {
      services = (await get('/v1/services')).body;
      offerTags();
      draw();
      stamp.textContent = `Updated ${new Date().toLocaleTimeString()}`;
    } catch (error) {
      say(`Could not read the services: ${error.message}`, 'error');
    }
  }

  filter.addEventListener('input', draw);
  tagFilter.addEventListener('change', draw);
  refresh();
  const timer = setInterval(refresh, REFRESH_MS);
  return () => clearInterval(timer);
}

function row(s) {
  const used = percent(s.unroutableWeight, s.nominalWeight);
  const budgetKind = used > s.maxUnroutablePercent ? 'over' : used >= s.maxUnroutablePercent * 0.8 ? 'near' : 'budget';
  const health = serviceHealth(s);
  // Weight that only the ejection cap keeps in rotation is not drawn as healthy.
  const weightKind = s.held ? 'held' : 'weight';
  return h('tr', { dataset: { service: s.name, health: health.worst } },
    h('th', { scope: 'row' }, h('a', { href: `#/services/${s.name}` }, s.name)),
    h('td', { class: 'health-cell' }, health.cell),
    h('td', { class: `num routable-${health.worst}` }, `${s.routable} / ${s.instances}`,
      s.held ? h('div', { class: 'small state state-held' }, `${s.held} only by the cap`) : null),
    h('td', {}, bar(s.totalEffectiveWeight, s.nominalWeight, {
      label: `${s.name} effective weight`, kind: weightKind,
      text: `${s.totalEffectiveWeight} / ${s.nominalWeight}`,
    })),
    h('td', {}, bar(used, 100, {
      label: `${s.name} guard budget in use`, kind: budgetKind, limit: s.maxUnroutablePercent,
      text: `${used}% (limit ${s.maxUnroutable})`,
    })),
    h('td', { class: 'tags' }, tagList(s.tags, TAGS_SHOWN)),
    h('td', {}, s.weightPolicy),
    h('td', {}, s.releaseUnderWay
      ? h('a', { href: `#/services/${s.name}`, class: 'pill release' }, `release #${s.releaseUnderWay}`)
      : h('span', { class: 'muted' }, 'none')),
    h('td', { class: 'num' }, s.revision));
}
