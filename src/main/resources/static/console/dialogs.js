// The one dialog every action goes through: a form, the call, and the registry's
// refusal explained in place. A guard refusal (409) shows its figures and holders and
// offers force only after an explicit confirmation; a stale ETag (412) is refreshed and
// the operator asked to look again.

import { Refused, call } from './api.js';
import { h, say } from './dom.js';

const dialog = () => document.getElementById('dialog');

/**
 * @param title the dialog's title
 * @param fields [{id, label, type, value, min, max, required, help, options}]
 * @param intro optional element shown above the fields
 * @param submitLabel the button's text
 * @param send async (values, force) => the call's result; throws Refused when refused
 * @param onStale async () => text telling what changed, after a 412
 * @param done (result) => the success message
 */
export function act({ title, fields = [], intro, submitLabel, send, onStale, done }) {
  const box = dialog();
  const form = document.getElementById('dialog-form');
  const body = document.getElementById('dialog-body');
  const problem = document.getElementById('dialog-problem');
  const submit = document.getElementById('dialog-submit');
  document.getElementById('dialog-title').textContent = title;
  body.replaceChildren();
  problem.replaceChildren();
  if (intro) {
    body.append(intro);
  }
  for (const field of fields) {
    body.append(input(field));
  }
  submit.textContent = submitLabel;
  submit.disabled = false;
  submit.classList.remove('danger');
  let force = false;

  form.onsubmit = async (event) => {
    event.preventDefault();
    if (!form.reportValidity()) {
      return;
    }
    const values = Object.fromEntries(fields.map((field) => [field.id, value(field)]));
    submit.disabled = true;
    try {
      const result = await send(values, force);
      box.close();
      say(done(result), 'ok');
    } catch (error) {
      submit.disabled = false;
      if (!(error instanceof Refused)) {
        problem.replaceChildren(h('p', { class: 'error' }, `The call failed: ${error.message}`));
        return;
      }
      if (error.status === 409 && error.problem.guard) {
        force = false;
        problem.replaceChildren(guardRefusal(error.problem, submit, (confirmed) => {
          force = confirmed;
        }));
        submit.textContent = 'Force past the guard';
        submit.classList.add('danger');
        submit.disabled = true;
        return;
      }
      if (error.status === 412 && onStale) {
        const what = await onStale();
        problem.replaceChildren(h('div', { class: 'refusal' },
          h('p', {}, h('strong', {}, 'Changed meanwhile. '), `${what} Check the value and save again.`)));
        return;
      }
      problem.replaceChildren(refusal(error));
    }
  };
  document.getElementById('dialog-cancel').onclick = () => box.close();
  box.showModal();
  const first = body.querySelector('input, select, textarea');
  (first || submit).focus();
}

function input(field) {
  const id = `f-${field.id}`;
  const helpId = field.help ? `${id}-help` : undefined;
  let control;
  if (field.options) {
    control = h('select', { id, 'aria-describedby': helpId }, field.options.map((option) =>
      h('option', { value: option, selected: option === field.value }, option)));
  } else {
    control = h('input', {
      id, type: field.type || 'text', required: field.required, min: field.min, max: field.max,
      step: field.type === 'number' ? 1 : undefined, value: field.value ?? '', 'aria-describedby': helpId,
      placeholder: field.placeholder, inputmode: field.type === 'number' ? 'numeric' : undefined,
    });
  }
  return h('div', { class: 'field' }, h('label', { for: id }, field.label), control,
    field.help ? h('p', { class: 'help', id: helpId }, field.help) : null);
}

function value(field) {
  const raw = document.getElementById(`f-${field.id}`).value.trim();
  if (field.type === 'number') {
    return raw === '' ? undefined : Number(raw);
  }
  return raw === '' ? undefined : raw;
}

/**
 * The guard's refusal: what would break, its figures, who holds the budget, the setting
 * that would admit the action (an operator may change it here, audited like any settings
 * edit), and force, offered only after an explicit confirmation.
 */
function guardRefusal(problem, submit, confirm) {
  const g = problem.guard;
  const rows = [
    ['Scope', g.scope],
    ['Unroutable now', `${g.currentPercent}% (${g.unroutableWeight} of ${g.nominalWeight})`],
    ['After this action', `${g.resultingPercent}% (${g.resultingWeight} of ${g.nominalWeight})`],
    ['Limit (maxUnroutable)', g.maxUnroutable],
    ['Budget held by', g.holders?.length ? g.holders.join(', ') : 'no instance'],
  ];
  const checkbox = h('input', {
    type: 'checkbox', id: 'force-confirm',
    onchange: (event) => {
      confirm(event.target.checked);
      submit.disabled = !event.target.checked;
    },
  });
  return h('div', { class: 'refusal guard' },
    h('p', {}, h('strong', {}, 'The guard refused: '), problem.detail),
    h('table', { class: 'figures' }, h('caption', {}, 'Guard figures'),
      h('tbody', {}, rows.map(([name, text]) => h('tr', {}, h('th', { scope: 'row' }, name), h('td', {}, text))))),
    budgetSetting(problem),
    h('div', { class: 'confirm' }, checkbox,
      h('label', { for: 'force-confirm' },
        `I accept that ${g.resultingPercent}% of the nominal weight of ${g.scope} becomes unroutable. `
        + 'Force past the guard (the call is audited as forced).')));
}

/** The service's budget, editable in place: a count ("1") or a percent ("25%"). */
function budgetSetting(problem) {
  const service = /^\/v1\/services\/([^/]+)/.exec(problem.instance || '')?.[1];
  if (!service) {
    return null;
  }
  const field = h('input', { id: 'budget-setting', value: problem.guard.maxUnroutable, size: 6,
    'aria-describedby': 'budget-setting-help' });
  const note = h('span', { class: 'help', role: 'status' });
  const save = h('button', { type: 'button', onclick: async () => {
    try {
      const saved = await call('PATCH', `/v1/services/${service}`, { body: { maxUnroutable: field.value.trim() } });
      note.textContent = `maxUnroutable is now ${saved.body.maxUnroutable}; send the action again.`;
    } catch (error) {
      note.textContent = error instanceof Refused ? (error.problem.errors?.[0]?.detail || error.problem.detail)
        : error.message;
    }
  } }, 'Change the budget');
  return h('div', { class: 'field budget' },
    h('label', { for: 'budget-setting' }, `Budget of ${service} (maxUnroutable)`), field, save, note,
    h('p', { class: 'help', id: 'budget-setting-help' },
      'A count of instances ("1") or a percent of the capacity ("25%"); changing it is audited.'));
}

function refusal(error) {
  const problem = error.problem;
  const lines = (problem.errors || []).map((e) => h('li', {}, `${e.pointer}: ${e.detail}`));
  return h('div', { class: 'refusal' },
    h('p', {}, h('strong', {}, `${problem.title || 'Refused'} (${error.status}). `), problem.detail || ''),
    lines.length ? h('ul', {}, lines) : null);
}
