// The one dialog every action goes through: a form, the call, and the registry's
// refusal explained in place. A guard refusal (409) shows its figures and holders and
// offers force only after an explicit confirmation; a stale ETag (412) is refreshed and
// the operator asked to look again; a schema refusal (422) is shown at the field its
// pointer names. The dialog is modal: Tab stays inside it, Escape closes it, and the
// focus goes back to the control that opened it.

import { Refused, call } from './api.js';
import { h, localTimes, say } from './dom.js';

const dialog = () => document.getElementById('dialog');
let opener = null;

/**
 * @param title the dialog's title
 * @param fields [{id, label, type, value, min, max, required, help, options, pointer}]
 * @param intro optional element shown above the fields
 * @param submitLabel the button's text
 * @param danger whether the action removes something (a red button)
 * @param wide whether the fields go in two columns (a long form)
 * @param send async (values, force) => the call's result; throws Refused when refused
 * @param onStale async () => text telling what changed, after a 412
 * @param done (result) => the success message
 */
export function act({ title, fields = [], intro, submitLabel, danger = false, wide = false, send, onStale, done }) {
  const form = document.getElementById('dialog-form');
  const problem = document.getElementById('dialog-problem');
  const submit = open(title, intro, fields.map(input));
  dialog().classList.toggle('wide', wide);
  submit.textContent = submitLabel;
  submit.classList.toggle('danger', danger);
  let force = false;

  form.onsubmit = async (event) => {
    event.preventDefault();
    if (!form.reportValidity()) {
      return;
    }
    const values = Object.fromEntries(fields.map((field) => [field.id, value(field)]));
    submit.disabled = true;
    clearFieldErrors();
    try {
      const result = await send(values, force);
      dialog().close();
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
      problem.replaceChildren(refusal(error, fieldErrors(fields, error.problem.errors || [])));
    }
  };
}

/** An informational dialog: a title, its content and a button that closes it. */
export function show({ title, body, closeLabel = 'Close' }) {
  const submit = open(title, body, []);
  dialog().classList.remove('wide');
  submit.textContent = closeLabel;
  document.getElementById('dialog-cancel').hidden = true;
  document.getElementById('dialog-form').onsubmit = (event) => {
    event.preventDefault();
    dialog().close();
  };
}

function open(title, intro, controls) {
  const box = dialog();
  const body = document.getElementById('dialog-body');
  const submit = document.getElementById('dialog-submit');
  document.getElementById('dialog-title').textContent = title;
  document.getElementById('dialog-problem').replaceChildren();
  document.getElementById('dialog-cancel').hidden = false;
  body.replaceChildren(...[intro, ...controls].filter(Boolean));
  submit.disabled = false;
  submit.classList.remove('danger');
  document.getElementById('dialog-cancel').onclick = () => box.close();
  if (!box.open && !opener) {
    opener = document.activeElement;
  }
  box.showModal();
  (body.querySelector('input, select, textarea') || submit).focus();
  return submit;
}

// Tab and Shift+Tab cycle through the dialog's controls; what the dialog showed (a
// revealed secret) goes when it closes, and the focus returns to its opener.
{
  const box = dialog();
  box.addEventListener('keydown', (event) => {
    if (event.key !== 'Tab') {
      return;
    }
    const controls = [...box.querySelectorAll('button, input, select, textarea, a[href], summary')]
      .filter((element) => !element.disabled && element.offsetParent !== null);
    const first = controls[0];
    const last = controls[controls.length - 1];
    if (event.shiftKey && document.activeElement === first) {
      event.preventDefault();
      last.focus();
    } else if (!event.shiftKey && document.activeElement === last) {
      event.preventDefault();
      first.focus();
    }
  });
  box.addEventListener('close', () => {
    // A dialog opened again by the one that closed (a secret shown after its creation)
    // keeps its content and its opener.
    if (box.open) {
      return;
    }
    document.getElementById('dialog-body').replaceChildren();
    document.getElementById('dialog-problem').replaceChildren();
    const back = opener;
    opener = null;
    if (back?.isConnected) {
      back.focus();
    } else {
      document.getElementById('main').focus({ preventScroll: true });
    }
  });
}

function input(field) {
  const id = `f-${field.id}`;
  const helpId = field.help ? `${id}-help` : '';
  const errorId = `${id}-error`;
  let control;
  if (field.options) {
    control = h('select', { id, 'aria-describedby': `${helpId} ${errorId}`.trim() }, field.options.map((option) => {
      const [optionValue, text] = Array.isArray(option) ? option : [option, option];
      return h('option', { value: optionValue, selected: optionValue === field.value }, text);
    }));
  } else if (field.type === 'textarea') {
    control = h('textarea', {
      id, rows: field.rows || 5, required: field.required, spellcheck: 'false',
      'aria-describedby': `${helpId} ${errorId}`.trim(), placeholder: field.placeholder,
    }, field.value ?? '');
  } else {
    control = h('input', {
      id, type: field.type || 'text', required: field.required, min: field.min, max: field.max,
      step: field.type === 'number' ? 1 : undefined, value: field.value ?? '', 'aria-describedby': `${helpId} ${errorId}`.trim(),
      placeholder: field.placeholder, inputmode: field.type === 'number' ? 'numeric' : undefined,
    });
  }
  return h('div', { class: 'field' }, h('label', { for: id }, field.label), control,
    field.help ? h('p', { class: 'help', id: helpId }, field.help) : null,
    h('p', { class: 'field-error', id: errorId, hidden: true }));
}

function value(field) {
  const raw = document.getElementById(`f-${field.id}`).value.trim();
  if (field.type === 'number') {
    return raw === '' ? undefined : Number(raw);
  }
  return raw === '' ? undefined : raw;
}

function clearFieldErrors() {
  for (const error of document.querySelectorAll('#dialog-body .field-error')) {
    error.hidden = true;
    error.textContent = '';
    document.getElementById(error.id.replace(/-error$/, ''))?.removeAttribute('aria-invalid');
  }
}

/**
 * Shows each error at the field whose pointer is the longest prefix of the error's
 * (`/locality/maxCrossZonePercent` at its own field, `/locality` at the mode), and
 * returns those no field takes.
 */
function fieldErrors(fields, errors) {
  const left = [];
  for (const error of errors) {
    const field = fields.filter((f) => f.pointer && (error.pointer === f.pointer || error.pointer?.startsWith(`${f.pointer}/`)))
      .sort((a, b) => b.pointer.length - a.pointer.length)[0];
    if (!field) {
      left.push(error);
      continue;
    }
    const control = document.getElementById(`f-${field.id}`);
    const shown = document.getElementById(`f-${field.id}-error`);
    shown.hidden = false;
    shown.textContent = shown.textContent ? `${shown.textContent} ${error.detail}` : error.detail;
    control.setAttribute('aria-invalid', 'true');
  }
  document.querySelector('#dialog-body [aria-invalid="true"]')?.focus();
  return left;
}

/**
 * The guard's refusal: what would break, its figures, who holds the budget, the setting
 * that would admit the action (an operator may change it here, audited like any settings
 * edit), and force, offered only after an explicit confirmation.
 */
function guardRefusal(problem, submit, confirm) {
  const g = problem.guard;
  const service = serviceOf(problem);
  // The guard names its scope within the service ("service", a zone, a release): the
  // dialog says which service.
  const scope = !service ? g.scope : g.scope === 'service' ? `service ${service}` : `${g.scope} of ${service}`;
  const rows = [
    ['Scope', scope],
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
    h('p', {}, h('strong', {}, 'The guard refused: '), localTimes(problem.detail)),
    h('table', { class: 'figures' }, h('caption', {}, 'Guard figures'),
      h('tbody', {}, rows.map(([name, text]) => h('tr', {}, h('th', { scope: 'row' }, name), h('td', {}, text))))),
    budgetSetting(problem),
    h('div', { class: 'confirm' }, checkbox,
      h('label', { for: 'force-confirm' },
        `I accept that ${g.resultingPercent}% of the nominal weight of ${scope} becomes unroutable. `
        + 'Force past the guard (the call is audited as forced).')));
}

/** The service a refused call addressed, from the problem's instance (its path). */
function serviceOf(problem) {
  return /^\/v1\/services\/([^/?]+)/.exec(problem.instance || '')?.[1];
}

/** The service's budget, editable in place: a count (1) or a percent ("25%"). */
function budgetSetting(problem) {
  const service = serviceOf(problem);
  if (!service) {
    return null;
  }
  const field = h('input', { id: 'budget-setting', value: problem.guard.maxUnroutable, size: 6,
    'aria-describedby': 'budget-setting-help' });
  const note = h('span', { class: 'help', role: 'status' });
  const save = h('button', { type: 'button', onclick: async () => {
    try {
      const sent = field.value.trim();
      // A count travels as a JSON integer, a percent as a string.
      const saved = await call('PATCH', `/v1/services/${service}`,
        { body: { maxUnroutable: /^\d+$/.test(sent) ? Number(sent) : sent } });
      note.textContent = `maxUnroutable is now ${saved.body.maxUnroutable}; send the action again.`;
    } catch (error) {
      note.textContent = error instanceof Refused ? (error.problem.errors?.[0]?.detail || error.problem.detail)
        : error.message;
    }
  } }, 'Change the budget');
  return h('div', { class: 'field budget' },
    h('label', { for: 'budget-setting' }, `Budget of ${service} (maxUnroutable)`), field, save, note,
    h('p', { class: 'help', id: 'budget-setting-help' },
      'A count of instances (1) or a percent of the capacity (25%); changing it is audited.'));
}

function refusal(error, errors) {
  const problem = error.problem;
  const lines = errors.map((e) => h('li', {}, `${e.pointer}: ${e.detail}`));
  return h('div', { class: 'refusal' },
    h('p', {}, h('strong', {}, `${problem.title || 'Refused'} (${error.status}). `),
      localTimes(problem.detail || ''), (problem.errors || []).length > errors.length ? ' See the fields marked above.' : ''),
    lines.length ? h('ul', {}, lines) : null);
}
