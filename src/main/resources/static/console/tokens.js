// #/tokens (admins): the tokens (never their secrets), a new one with its role, scope and
// expiry, whose secret is shown once and then forgotten, and revocation, which takes
// effect on every node at once.

import { call, get } from './api.js';
import { act, show } from './dialogs.js';
import { h, say, when } from './dom.js';

const ROLES = ['reader', 'registrant', 'operator', 'admin'];

export function tokensPage(view, session) {
  if (!session.isAdmin) {
    view.replaceChildren(h('p', { class: 'error' }, 'Managing tokens needs an admin token.'));
    return null;
  }
  const body = h('tbody');
  view.replaceChildren(h('section', { 'aria-labelledby': 'tokens-title' },
    h('div', { class: 'heading' }, h('h1', { id: 'tokens-title' }, 'Tokens'),
      h('button', { type: 'button', class: 'write primary', id: 'token-create', onclick: create }, 'Create a token…')),
    h('p', { class: 'muted' }, 'The registry keeps only a hash of each secret: a secret is shown once, when its '
      + 'token is created. Revoking a token stops it on every node at once and ends its watch streams.'),
    h('table', { class: 'tokens' }, h('caption', { class: 'visually-hidden' }, 'Tokens, oldest first'),
      h('thead', {}, h('tr', {}, ['Name', 'Role', 'Services', 'Created', 'Expires', 'Writes per second', 'Actions']
        .map((c) => h('th', { scope: 'col' }, c)))), body)));

  async function refresh() {
    try {
      const tokens = (await get('/v1/tokens')).body;
      // The registry refuses to revoke the last admin token that still works (nobody could
      // manage tokens after it): it is not offered, and the row says why.
      const admins = tokens.filter((t) => t.role === 'admin' && !(t.expiresAt && Date.parse(t.expiresAt) <= Date.now()));
      const last = admins.length === 1 ? admins[0].id : null;
      body.replaceChildren(...tokens.map((t) => h('tr', { dataset: { token: t.id } },
        h('th', { scope: 'row' }, t.name, t.id === session.id ? h('span', { class: 'muted small' }, ' (you)') : null),
        h('td', {}, h('span', { class: 'role', dataset: { role: t.role } }, t.role)),
        h('td', {}, t.services ? t.services.join(', ') : h('span', { class: 'muted' }, 'all')),
        h('td', { class: 'small' }, when(t.createdAt)),
        h('td', { class: 'small' }, t.expiresAt ? when(t.expiresAt) : h('span', { class: 'muted' }, 'never')),
        h('td', { class: 'num' }, t.writesPerSecond ?? h('span', { class: 'muted' }, 'default')),
        h('td', {}, t.id === last
          ? h('span', { class: 'muted small', id: 'last-admin' }, 'The last admin token: create another admin token '
            + 'before revoking it, or nobody could manage tokens.')
          : h('button', { type: 'button', class: 'write small danger', 'aria-label': `Revoke ${t.name}`,
            onclick: () => revoke(t) }, 'Revoke')))));
    } catch (error) {
      body.replaceChildren(h('tr', {}, h('td', { colspan: 7, class: 'error' }, `Could not read the tokens: ${error.message}`)));
    }
  }

  function create() {
    act({
      title: 'Create a token',
      fields: [
        { id: 'name', label: 'Name', required: true, placeholder: 'edge balancers', pointer: '/name',
          help: 'What it is for: 1 to 128 characters.' },
        { id: 'role', label: 'Role', options: ROLES, value: 'reader', pointer: '/role',
          help: 'reader reads and watches; registrant registers in its services; operator edits, drains and reads the '
            + 'audit log; admin also manages tokens.' },
        { id: 'services', label: 'Services (registrant only)', placeholder: 'payments-*, search', pointer: '/services',
          help: 'Names or patterns with *, separated by commas: where a registrant may register.' },
        { id: 'expiresAt', label: 'Expires (optional)', type: 'datetime-local', pointer: '/expiresAt',
          help: 'In this browser\'s time zone; empty: never.' },
        { id: 'writesPerSecond', label: 'Writes per second (optional)', type: 'number', pointer: '/writesPerSecond',
          help: 'Its own write rate limit on each node, instead of the default.' },
      ],
      submitLabel: 'Create',
      send: (v) => call('POST', '/v1/tokens', {
        body: {
          name: v.name, role: v.role,
          ...(v.services ? { services: v.services.split(',').map((s) => s.trim()).filter(Boolean) } : {}),
          ...(v.expiresAt ? { expiresAt: new Date(v.expiresAt).toISOString().replace(/\.\d+Z$/, 'Z') } : {}),
          ...(v.writesPerSecond !== undefined ? { writesPerSecond: v.writesPerSecond } : {}),
        },
      }),
      done: (r) => {
        refresh();
        reveal(r.body);
        return `Token ${r.body.name} (${r.body.role}) created.`;
      },
    });
  }

  /** The secret, this once: it lives only in this dialog, which forgets it on closing. */
  function reveal(issued) {
    const secret = h('input', { id: 'token-secret', readonly: true, value: issued.token, spellcheck: 'false',
      'aria-describedby': 'token-secret-help', class: 'secret' });
    const note = h('span', { role: 'status', class: 'help' });
    show({
      title: `Secret of ${issued.name}`,
      body: h('div', { class: 'field' },
        h('label', { for: 'token-secret' }, `The secret of ${issued.name} (${issued.role})`), secret,
        h('p', { class: 'help', id: 'token-secret-help' }, 'Shown only now: the registry keeps only its hash. Copy it '
          + 'before closing this dialog; it is used as Authorization: Bearer <secret>.'),
        h('div', {}, h('button', { type: 'button', onclick: async () => {
          secret.select();
          try {
            await navigator.clipboard.writeText(issued.token);
            note.textContent = 'Copied.';
          } catch {
            note.textContent = 'Selected: press Ctrl+C (⌘C) to copy it.';
          }
        } }, 'Copy'), ' ', note)),
      closeLabel: 'I have copied it',
    });
  }

  function revoke(t) {
    act({
      title: `Revoke ${t.name}`,
      intro: h('div', {},
        h('p', {}, `${t.name} (${t.role}) stops working on every node at once; its watch streams end and its next `
          + 'call is answered 401. This cannot be undone.'),
        t.id === session.id ? h('p', { class: 'error' }, 'This is the token you are signed in with: the console will '
          + 'ask you to sign in again.') : null),
      submitLabel: 'Revoke',
      danger: true,
      send: () => call('DELETE', `/v1/tokens/${t.id}`),
      done: () => {
        refresh();
        return `Token ${t.name} revoked.`;
      },
    });
  }

  refresh();
  return null;
}
