// The console's entry: sign-in, who is signed in, and the router. Pages live in the URL
// fragment (#/ and #/services/NAME), which never reaches the server; the token is never
// in it.

import { Refused, get, token } from './api.js';
import { h, say } from './dom.js';
import { overview } from './overview.js';
import { servicePage } from './service.js';

const ROLES = {
  reader: 'reads services, instances, releases and streams',
  registrant: 'reads, and registers in its services',
  operator: 'reads and edits: weights, drains, maintenance, releases, audit',
  admin: 'everything an operator does, and manages tokens',
};

let session = null;
let leave = () => {};

async function signIn(secret) {
  token.set(secret);
  try {
    const self = (await get('/v1/tokens/self')).body;
    session = {
      name: self.name,
      role: self.role,
      canOperate: self.role === 'operator' || self.role === 'admin',
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
  if (session) {
    document.getElementById('who-name').textContent = session.name;
    const role = document.getElementById('who-role');
    role.textContent = session.role;
    role.title = ROLES[session.role] || '';
    role.dataset.role = session.role;
    document.body.dataset.role = session.role;
  } else {
    delete document.body.dataset.role;
  }
}

function crumbs(parts) {
  const nav = document.getElementById('crumbs');
  nav.replaceChildren(h('ol', {}, parts.map(([text, href], i) =>
    h('li', {}, href && i < parts.length - 1 ? h('a', { href }, text) : h('span', { 'aria-current': 'page' }, text)))));
}

function render() {
  leave();
  leave = () => {};
  showWho();
  const signInBox = document.getElementById('sign-in');
  const view = document.getElementById('view');
  if (!session) {
    signInBox.hidden = false;
    view.replaceChildren();
    crumbs([]);
    document.getElementById('token').focus();
    return;
  }
  signInBox.hidden = true;
  const route = location.hash.replace(/^#/, '') || '/';
  const service = route.match(/^\/services\/([a-z0-9-]+)$/);
  if (service) {
    crumbs([['Services', '#/'], [service[1]]]);
    document.title = `${service[1]} · Ballast console`;
    leave = servicePage(view, service[1], session);
  } else {
    crumbs([['Services', '#/']]);
    document.title = 'Services · Ballast console';
    leave = overview(view, session);
  }
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
