// Services at a glance, from GET /v1/services, refreshed every 5 seconds: one call for
// every service (a watch per service would cost a stream each).

import { get } from './api.js';
import { bar, h, percent, say } from './dom.js';

const REFRESH_MS = 5000;

export function overview(view, session) {
  const body = h('tbody');
  const stamp = h('p', { class: 'muted', id: 'services-updated' });
  const filter = h('input', { id: 'service-filter', type: 'search', placeholder: 'name contains…' });
  let services = [];
  view.replaceChildren(h('section', { 'aria-labelledby': 'services-title' },
    h('div', { class: 'heading' }, h('h1', { id: 'services-title' }, 'Services'),
      h('div', { class: 'field inline' }, h('label', { for: 'service-filter' }, 'Filter'), filter), stamp),
    h('table', { class: 'services' },
      h('caption', { class: 'visually-hidden' }, 'Every service: instances, weight, guard budget, policy, releases'),
      h('thead', {}, h('tr', {},
        ['Service', 'Routable / instances', 'Effective weight of nominal', 'Guard budget in use (limit)', 'Policy',
          'Release', 'Revision'].map((name) => h('th', { scope: 'col' }, name)))),
      body)));

  function draw() {
    const wanted = filter.value.trim();
    const shown = services.filter((s) => s.name.includes(wanted));
    body.replaceChildren(...shown.map(row));
    if (!shown.length) {
      body.append(h('tr', {}, h('td', { colspan: 7, class: 'muted' },
        services.length ? 'No service matches the filter.' : 'No service is registered yet.')));
    }
  }

  async function refresh() {
    try {
      services = (await get('/v1/services')).body;
      draw();
      stamp.textContent = `Updated ${new Date().toLocaleTimeString()}`;
    } catch (error) {
      say(`Could not read the services: ${error.message}`, 'error');
    }
  }

  filter.addEventListener('input', draw);
  refresh();
  const timer = setInterval(refresh, REFRESH_MS);
  return () => clearInterval(timer);
}

function row(s) {
  const used = percent(s.unroutableWeight, s.nominalWeight);
  const budgetKind = used > s.maxUnroutablePercent ? 'over' : used >= s.maxUnroutablePercent * 0.8 ? 'near' : 'budget';
  return h('tr', { dataset: { service: s.name } },
    h('th', { scope: 'row' }, h('a', { href: `#/services/${s.name}` }, s.name)),
    h('td', { class: 'num' }, `${s.routable} / ${s.instances}`),
    h('td', {}, bar(s.totalEffectiveWeight, s.nominalWeight, {
      label: `${s.name} effective weight`, kind: 'weight',
      text: `${s.totalEffectiveWeight} / ${s.nominalWeight}`,
    })),
    h('td', {}, bar(used, 100, {
      label: `${s.name} guard budget in use`, kind: budgetKind, limit: s.maxUnroutablePercent,
      text: `${used}% (limit ${s.maxUnroutable})`,
    })),
    h('td', {}, s.weightPolicy),
    h('td', {}, s.releaseUnderWay
      ? h('a', { href: `#/services/${s.name}`, class: 'pill release' }, `release #${s.releaseUnderWay}`)
      : h('span', { class: 'muted' }, 'none')),
    h('td', { class: 'num' }, s.revision));
}
