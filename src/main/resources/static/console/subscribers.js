// #/services/NAME/subscribers: who follows the service (SSE streams, blocking queries, and
// xDS clients where the registry has them), each with its zone, the revision delivered to
// it (its position), the last it acknowledged as applied, its lag, and the last response
// it refused. Fields a subscriber does not have are shown as a dash. Re-read every 3 s.

import { get } from './api.js';
import { everyFew, h, seen, when } from './dom.js';

const REFRESH_MS = 3000;

export function subscribersPage(view, session, name) {
  const body = h('tbody');
  const stamp = h('p', { class: 'muted', id: 'subscribers-revision' });
  view.replaceChildren(h('section', { 'aria-labelledby': 'subscribers-title' },
    h('div', { class: 'heading' }, h('h1', { id: 'subscribers-title' }, `Subscribers of ${name}`),
      h('a', { href: `#/services/${name}` }, `back to ${name}`)),
    h('p', { class: 'muted' }, 'Named balancers and watchers seen within the subscriber TTL. A drain waits for each '
      + 'live one to acknowledge weight 0; a lag above 0 is changes it has not confirmed applying.'),
    stamp,
    h('table', { class: 'subscribers' }, h('caption', { class: 'visually-hidden' }, `Subscribers of ${name}`),
      h('thead', {}, h('tr', {}, ['Subscriber', 'Protocol', 'Zone', 'Position (delivered)', 'Last acknowledgement',
        'Lag', 'Last refusal (NACK)', 'Last seen'].map((c) => h('th', { scope: 'col' }, c)))), body)));

  const dash = () => h('span', { class: 'muted' }, '—');

  async function refresh() {
    try {
      const list = (await get(`/v1/services/${name}/subscribers`)).body;
      stamp.textContent = `At revision ${list.revision}; read ${new Date().toLocaleTimeString()}.`;
      body.replaceChildren(...list.subscribers.map((s) => h('tr', { dataset: { subscriber: s.name } },
        h('th', { scope: 'row' }, s.name),
        h('td', {}, s.protocol ?? dash()),
        h('td', {}, s.zone ?? dash()),
        h('td', { class: 'num' }, `revision ${s.deliveredRevision}`),
        h('td', { class: 'num' }, s.ackedRevision ? `revision ${s.ackedRevision}` : 'none yet'),
        h('td', { class: `num lag${s.lag > 0 ? ' state-held' : ''}` }, s.lag),
        h('td', { class: 'small' }, s.lastNack
          ? `revision ${s.lastNack.revision} at ${when(s.lastNack.at)}: ${s.lastNack.detail}` : dash()),
        h('td', { class: 'small' }, s.lastSeenAt ? `${seen(s.lastSeenAt)} (${when(s.lastSeenAt)})` : dash()))));
      if (!list.subscribers.length) {
        body.append(h('tr', {}, h('td', { colspan: 8, class: 'muted' },
          'No named subscriber follows this service (a watcher names itself with ?subscriber=).')));
      }
    } catch (error) {
      body.replaceChildren(h('tr', {}, h('td', { colspan: 8, class: 'error' },
        `Could not read the subscribers: ${error.message}`)));
    }
  }

  return everyFew(REFRESH_MS, refresh);
}
