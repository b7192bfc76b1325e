// The console's entry: sign-in, who is signed in, and the router. Pages live in the URL
// fragment (#/, #/services/NAME, #/services/NAME/instances/ID, #/services/NAME/subscribers,
// #/search?q=, #/audit, #/nodes, #/tokens), which never reaches
// the server; the token is never in it. Each page is a module loaded when first shown,
// so the sign-in page loads only what it needs.

import { Refused, get, token } from './api.js';
import { h, say } from './dom.js';

const ROLES = {
  reader: 'reads services, instances, releases and streams',
  registrant: 'reads, and registers in its services',
  operator: 'reads and edits: weights, drains, maintenance, settings, releases, audit',
  admin: 'everything an operator does, and manages tokens',
};

const PAGES = {
  overview: () => import('./overview.js').then((m) => m.overview),
  service: () => import('./service.js').then((m) => m.servicePage),
  instance: () => import('./instance.js').then((m) => m.instancePage),
  subscribers: () => import('./subscribers.js').then((m) => m.subscribersPage),
  nodes: () => import('./nodes.js').then((m) => m.nodesPage),
  search: () => import('./search.js').then((m) => m.searchPage),
  audit: () => import('./audit.js').then((m) => m.auditPage),
  tokens: () => import('./tokens.js').then((m) => m.tokensPage),
};

let session = null;
let leave = () => {};
let shown = 0;
// The page last drawn for a signed-in session (a service's page names its service).
let place = null;

async function signIn(secret) {
  token.set(secret);
  try {
    const self = (await get('/v1/tokens/self')).body;
    session = {
      id: self.id,
      name: self.name,
      role: self.role,
      canOperate: self.role === 'operator' || self.role === 'admin',
      isAdmin: self.role === 'admin',
    };
    return true;
  } catch (error) {
    token.clear();
    session = null;
    const why = error instanceof Refused && error.status === 401
      ? 'The registry does not know this token (or it expired).'
      : `Could not sign in: ${error.message}`;
    document.getElementById('sign-in-error').textContent = why;
    return false;
  }
}

function signOut() {
  leave();
  token.clear();
  session = null;
  render();
}

function showWho() {
  const who = document.getElementById('who');
  who.hidden = !session;
  document.getElementById('pages').hidden = !session;
  document.getElementById('search-form').hidden = !session;
  if (session) {
    document.getElementById('who-name').textContent = session.name;
    const role = document.getElementById('who-role');
    role.textContent = session.role;
    role.title = ROLES[session.role] || '';
    role.dataset.role = session.role;
    document.body.dataset.role = session.role;
    document.getElementById('nav-audit').hidden = !session.canOperate;
    document.getElementById('nav-nodes').hidden = !session.canOperate;
    document.getElementById('nav-tokens').hidden = !session.isAdmin;
  } else {
    delete document.body.dataset.role;
  }
}

function crumbs(parts) {
  const nav = document.getElementById('crumbs');
  nav.replaceChildren(h('ol', {}, parts.map(([text, href], i) =>
    h('li', {}, href && i < parts.length - 1 ? h('a', { href }, text) : h('span', { 'aria-current': 'page' }, text)))));
}

/** The page a fragment names, its crumbs and its parameters. */
function route() {
  const [path, query = ''] = location.hash.replace(/^#/, '').split('?');
  const params = new URLSearchParams(query);
  const instance = path.match(/^\/services\/([a-z0-9-]+)\/instances\/([^/]+)$/);
  if (instance) {
    const id = decodeURIComponent(instance[2]);
    return { page: 'instance', title: `${id} of ${instance[1]}`,
      crumbs: [['Services', '#/'], [instance[1], `#/services/${instance[1]}`], [id]], args: [instance[1], id] };
  }
  const subscribers = path.match(/^\/services\/([a-z0-9-]+)\/subscribers$/);
  if (subscribers) {
    return { page: 'subscribers', title: `Subscribers of ${subscribers[1]}`,
      crumbs: [['Services', '#/'], [subscribers[1], `#/services/${subscribers[1]}`], ['Subscribers']],
      args: [subscribers[1]] };
  }
  if (path === '/nodes') {
    return { page: 'nodes', title: 'Nodes', crumbs: [['Services', '#/'], ['Nodes']], args: [] };
  }
  const service = path.match(/^\/services\/([a-z0-9-]+)$/);
  if (service) {
    return { page: 'service', title: service[1], crumbs: [['Services', '#/'], [service[1]]], args: [service[1], params] };
  }
  if (path === '/search') {
    return { page: 'search', title: 'Find', crumbs: [['Services', '#/'], ['Find']], args: [params] };
  }
  if (path === '/audit') {
    return { page: 'audit', title: 'Audit log', crumbs: [['Services', '#/'], ['Audit log']], args: [params] };
  }
  if (path === '/tokens') {
    return { page: 'tokens', title: 'Tokens', crumbs: [['Services', '#/'], ['Tokens']], args: [] };
  }
  return { page: 'overview', title: 'Services', crumbs: [['Services', '#/']], args: [] };
}

async function render() {
  leave();
  leave = () => {};
  const turn = ++shown;
  showWho();
  const signInBox = document.getElementById('sign-in');
  const view = document.getElementById('view');
  if (!session) {
    signInBox.hidden = false;
    view.replaceChildren();
    crumbs([]);
    document.getElementById('token').focus();
    place = null;
    return;
  }
  signInBox.hidden = true;
  const { page, title, crumbs: trail, args } = route();
  crumbs(trail);
  // A message tells what happened on the page it was said on ("Settings of cart saved."):
  // another page starts without it. The first page after signing in keeps the greeting.
  const here = page === 'instance' ? `instance ${args[0]} ${args[1]}`
    : page === 'service' || page === 'subscribers' ? `${page} ${args[0]}` : page;
  if (place !== null && place !== here) {
    say('');
  }
  place = here;
  if (page !== 'search') {
    document.getElementById('search').value = '';
  }
  document.title = `${title} · Ballast console`;
  const draw = await PAGES[page]();
  // A later navigation may have started while this page's module loaded.
  if (turn !== shown) {
    return;
  }
  leave = draw(view, session, ...args) || (() => {});
  document.getElementById('main').focus({ preventScroll: true });
}

document.getElementById('sign-in-form').addEventListener('submit', async (event) => {
  event.preventDefault();
  const field = document.getElementById('token');
  // A token pasted with its scheme ("Bearer blst_...") is taken as meant.
  const secret = field.value.trim().replace(/^Bearer\s+/i, '');
  field.value = '';
  document.getElementById('sign-in-error').textContent = '';
  if (secret && await signIn(secret)) {
    say(`Signed in as ${session.name} (${session.role}).`, 'ok');
    render();
  }
});
document.getElementById('search-form').addEventListener('submit', (event) => {
  event.preventDefault();
  const wanted = document.getElementById('search').value.trim();
  if (wanted) {
    location.hash = `#/search?q=${encodeURIComponent(wanted)}`;
  }
});
document.getElementById('sign-out').addEventListener('click', signOut);
window.addEventListener('hashchange', render);
window.addEventListener('ballast:unauthorized', () => {
  if (session) {
    token.clear();
    session = null;
    say('The token is no longer accepted: sign in again.', 'error');
    render();
  }
});

(async () => {
  const kept = token.get();
  if (kept) {
    await signIn(kept);
  }
  render();
})();
