// #/nodes (operators): the registry nodes that share the database: whether each is alive,
// the checks it probes (each check by one live node), and its lease-writer position, the
// moment through which it has written the heartbeats it absorbed. Re-read every 3 s.

import { get } from './api.js';
import { everyFew, h, relative, seen, when } from './dom.js';

const REFRESH_MS = 3000;

export function nodesPage(view, session) {
  if (!session.canOperate) {
    view.replaceChildren(h('p', { class: 'error' }, 'The nodes page needs an operator token.'));
    return null;
  }
  const body = h('tbody');
  view.replaceChildren(h('section', { 'aria-labelledby': 'nodes-title' },
    h('h1', { id: 'nodes-title' }, 'Nodes'),
    h('p', { class: 'muted' }, 'Every node seen in the last hour. A node is alive while it says so every membership '
      + 'interval; the live ones share the checks, each probed by one of them. Leases are judged no later than a '
      + 'silent node\'s lease-writer position, so that renewals only it absorbed never cause an expiry.'),
    h('table', { class: 'nodes' }, h('caption', { class: 'visually-hidden' }, 'Registry nodes'),
      h('thead', {}, h('tr', {}, ['Node', 'Alive', 'Lease-writer position', 'Checks probed']
        .map((c) => h('th', { scope: 'col' }, c)))), body)));


  async function refresh() {
    try {
      const nodes = (await get('/v1/nodes')).body;
      body.replaceChildren(...nodes.map((n) => h('tr', { dataset: { node: n.id, alive: String(n.alive) } },
        h('th', { scope: 'row' }, n.id, n.self ? h('span', { class: 'pill' }, 'this node') : null),
        h('td', { class: n.alive ? 'state state-routable' : 'state state-ejected' },
          n.alive ? 'alive' : 'gone', n.lastSeenAt ? h('div', { class: 'muted small' },
            `seen ${seen(n.lastSeenAt)} (${when(n.lastSeenAt)})`) : null),
        h('td', { class: 'small' }, n.renewalsThrough
          ? `heartbeats written through ${when(n.renewalsThrough)} (${relative(n.renewalsThrough)})`
          : h('span', { class: 'muted' }, 'none written')),
        h('td', {}, n.checks ? h('details', {}, h('summary', {}, `${n.checks} ${n.checks === 1 ? 'check' : 'checks'}`),
          h('ul', { class: 'probing' }, n.probing.map((c) => h('li', {},
            h('a', { href: `#/services/${c.service}/instances/${encodeURIComponent(c.instance)}` },
              `${c.service}/${c.instance}`), ` ${c.check} ${c.kind} `, h('span', { class: `pill check-${c.status}` },
              c.status))),
          n.checks > n.probing.length ? h('li', { class: 'muted' }, `and ${n.checks - n.probing.length} more`) : null))
          : h('span', { class: 'muted' }, 'none')))));
    } catch (error) {
      body.replaceChildren(h('tr', {}, h('td', { colspan: 4, class: 'error' }, `Could not read the nodes: ${error.message}`)));
    }
  }

  return everyFew(REFRESH_MS, refresh);
}
