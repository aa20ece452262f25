'use strict';
// The agent-loop admin page: plain DOM, no build step. The key lives in sessionStorage and travels only as the
// Bearer header; every text from the API is set with textContent, never as HTML.

const KEY_ITEM = 'agent-loop-admin-key';
const REFRESH_MS = 2000;
/** the bindings (a Trellis listing each) refresh every this many loop refreshes */
const BINDINGS_EVERY = 5;
const FAILED = new Set(['tool_error', 'timeout', 'transport', 'upstream_error', 'deadline', 'aborted']);
const REFUSED = new Set(['refused', 'blocked', 'invalid', 'repeated']);

const $ = (id) => document.getElementById(id);
// fields: the whole-number tunables and their ranges, as the gateway declares them (GET settings/fields)
let loaded = { settings: undefined, fields: undefined };
let timer;
let ticks = 0;

function el(tag, props = {}, ...children) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(props)) {
    if (name === 'class') node.className = value;
    else if (name === 'text') node.textContent = value;
    else node.setAttribute(name, value);
  }
  for (const child of children) node.append(child);
  return node;
}

class Unauthorized extends Error {}

async function api(path, options = {}) {
  const headers = { authorization: `Bearer ${sessionStorage.getItem(KEY_ITEM)}` };
  if (options.body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(`api/${path}`, { method: options.method ?? 'GET', headers, body: options.body === undefined ? undefined : JSON.stringify(options.body), cache: 'no-store' });
  const body = await res.json().catch(() => ({ error: { message: `HTTP ${res.status}` } }));
  if (res.status === 401) throw new Unauthorized(body.error?.message ?? 'unauthorized');
  if (!res.ok) throw new Error(body.error?.message ?? `HTTP ${res.status}`);
  return body;
}

function say(id, text, ok) {
  const node = $(id);
  node.textContent = text;
  node.className = `message ${ok ? 'ok' : 'bad'}`;
}

function status(text, bad = false) {
  $('status').textContent = text;
  $('status').className = bad ? 'status bad' : 'status';
}

// ---- key ----

function showLogin(message = '') {
  clearInterval(timer);
  $('main').hidden = true;
  $('forget').hidden = true;
  $('login').hidden = false;
  $('login-error').textContent = message;
  $('key').focus();
}

async function open() {
  try {
    await Promise.all([loadSettings(), loadBindings(), loadRules(), refreshLoops()]);
  } catch (error) {
    if (error instanceof Unauthorized) {
      sessionStorage.removeItem(KEY_ITEM);
      return showLogin(`${error.message}. Check the key.`);
    }
    status(`cannot reach the admin API: ${error.message}`, true);
  }
  $('login').hidden = true;
  $('main').hidden = false;
  $('forget').hidden = false;
  clearInterval(timer);
  timer = setInterval(refresh, REFRESH_MS);
}

async function refresh() {
  try {
    await Promise.all([refreshLoops(), ++ticks % BINDINGS_EVERY === 0 ? loadBindings() : undefined]);
  } catch (error) {
    if (error instanceof Unauthorized) {
      sessionStorage.removeItem(KEY_ITEM);
      return showLogin(`${error.message}. The key changed?`);
    }
    status(`refresh failed: ${error.message}`, true);
  }
}

// ---- settings ----

function renderSettings(settings) {
  loaded.settings = settings;
  const globals = $('global-fields');
  globals.replaceChildren(
    ...loaded.fields.settings.map((field) => {
      const input = el('input', { type: 'number', name: field.name, id: `setting-${field.name}`, min: field.min, max: field.max, step: 1 });
      input.value = settings[field.name] ?? '';
      if (!field.optional) input.required = true;
      const hint = field.optional ? 'empty: no limit' : `${field.min}–${field.max}`;
      return el('label', { for: input.id }, el('span', { text: field.name }), el('small', { text: hint }), input);
    }),
  );
  $('binding-head').replaceChildren(el('th', { text: 'binding' }), ...loaded.fields.bindings.map((field) => el('th', { text: field.name })));
  $('binding-fields').replaceChildren(
    ...Object.entries(settings.bindings).map(([name, values]) =>
      el(
        'tr',
        {},
        el('td', { text: name }),
        ...loaded.fields.bindings.map(({ name: field, min, max }) => {
          const input = el('input', { type: 'number', id: `binding-${name}-${field}`, min, max, step: 1, 'aria-label': `${name} ${field}` });
          input.dataset.binding = name;
          input.dataset.field = field;
          input.value = values[field];
          input.required = true;
          return el('td', {}, input);
        }),
      ),
    ),
  );
}

async function loadSettings() {
  const [settings, fields] = await Promise.all([api('settings'), loaded.fields ?? api('settings/fields')]);
  loaded.fields = fields;
  renderSettings(settings);
}

/** Only what the form changed goes into the PATCH. */
function settingsPatch() {
  const patch = {};
  for (const field of loaded.fields.settings) {
    const text = $(`setting-${field.name}`).value.trim();
    const value = text === '' ? null : Number(text);
    if (value !== (loaded.settings[field.name] ?? null)) patch[field.name] = value;
  }
  for (const input of document.querySelectorAll('#binding-fields input')) {
    const { binding, field } = input.dataset;
    const value = Number(input.value);
    if (value !== loaded.settings.bindings[binding][field]) ((patch.bindings ??= {})[binding] ??= {})[field] = value;
  }
  return patch;
}

async function saveSettings(event) {
  event.preventDefault();
  const patch = settingsPatch();
  if (Object.keys(patch).length === 0) return say('settings-message', 'Nothing changed.', true);
  try {
    renderSettings(await api('settings', { method: 'PATCH', body: patch }));
    say('settings-message', `Saved: ${JSON.stringify(patch)}`, true);
    await loadBindings();
  } catch (error) {
    if (error instanceof Unauthorized) return showLogin(error.message);
    say('settings-message', error.message, false);
  }
}

// ---- bindings ----

function matchText(match) {
  return typeof match === 'string' ? match : JSON.stringify(match);
}

async function loadBindings() {
  const { bindings } = await api('bindings');
  $('bindings').replaceChildren(
    ...bindings.map((binding) => {
      const state = binding.trellis.state;
      const badge = el('span', { class: `badge ${state === 'ok' ? 'ok' : state === 'failing' ? 'warn' : 'bad'}`, text: `Trellis ${state}` });
      if (binding.trellis.reason) badge.title = binding.trellis.reason;
      const tools = binding.tools.map((tool) => {
        const code = el('code', { text: tool.name });
        if (tool.description) code.title = tool.description;
        return code;
      });
      return el(
        'div',
        { class: 'binding' },
        el('span', { class: 'name', text: binding.name }),
        badge,
        el('div', { class: 'muted', text: `match ${matchText(binding.match)} · maxTurns ${binding.maxTurns ?? 'defaultMaxTurns'} · toolTimeoutSec ${binding.toolTimeoutSec}${binding.trellis.reason ? ` · ${binding.trellis.reason}` : ''}` }),
        el('div', { class: 'tools' }, ...(tools.length ? tools : [el('span', { class: 'muted', text: 'no tools offered' })])),
      );
    }),
  );
}

// ---- rules ----

async function loadRules() {
  const view = await api('judge/rules');
  $('judge-kind').textContent = view.judge === 'rules' ? `rules judge, mode ${view.mode}` : view.judge === 'none' ? 'no judge: saving rules makes one (mode enforce)' : `${view.judge} judge: no rules to replace`;
  $('rules').value = JSON.stringify(view.rules ?? [], null, 2);
  $('rules').disabled = $('save-rules').disabled = view.judge === 'llm' || view.judge === 'custom';
}

async function saveRules() {
  let rules;
  try {
    rules = JSON.parse($('rules').value);
  } catch (error) {
    return say('rules-message', `not JSON: ${error.message}`, false);
  }
  try {
    const view = await api('judge/rules', { method: 'PUT', body: { rules } });
    $('rules').value = JSON.stringify(view.rules, null, 2);
    say('rules-message', `Replaced: ${view.rules.length} rule${view.rules.length === 1 ? '' : 's'}.`, true);
  } catch (error) {
    if (error instanceof Unauthorized) return showLogin(error.message);
    say('rules-message', error.message, false);
  }
}

// ---- loops ----

const seconds = (ms) => `${(ms / 1000).toFixed(ms < 10000 ? 1 : 0)} s`;

function renderLive(inFlight) {
  $('live-count').textContent = inFlight.length ? `(${inFlight.length})` : '';
  $('live-empty').hidden = inFlight.length > 0;
  $('live-loops').replaceChildren(
    ...inFlight.map((loop) =>
      el(
        'tr',
        { 'data-loop': loop.id },
        el('td', {}, el('code', { text: loop.id })),
        el('td', { text: loop.binding }),
        el('td', { text: String(loop.turn) }),
        el('td', { text: loop.running.map((call) => call.tool).join(', ') || '–' }),
        el('td', { text: seconds(loop.durationMs) }),
      ),
    ),
  );
}

function outcomeClass(outcome, base) {
  if (FAILED.has(outcome)) return 'fail';
  if (REFUSED.has(outcome)) return 'warn';
  return base;
}

function bar(kind, startMs, durationMs, scale, top, height, title) {
  const node = el('div', { class: `bar ${kind}`, title });
  node.style.left = `${(startMs / scale) * 100}%`;
  node.style.width = `${(Math.max(durationMs ?? 0, 0) / scale) * 100}%`;
  node.style.top = `${top}px`;
  node.style.height = `${height}px`;
  return node;
}

/** Turns on the first lane; each turn's tool calls below it, parallel calls on lanes of their own. */
function track(loop) {
  const scale = Math.max(loop.durationMs, 1);
  const lanes = Math.max(1, ...loop.turns.map((turn) => turn.toolCalls.length));
  const node = el('div', { class: 'track' });
  node.style.height = `${14 + lanes * 9}px`;
  for (const turn of loop.turns) {
    node.append(bar(outcomeClass(turn.outcome, 'turn'), turn.startMs, turn.durationMs, scale, 2, 9, `turn ${turn.turn}: ${turn.outcome ?? 'running'}, ${turn.durationMs ?? '?'} ms${turn.tokens ? `, ${turn.tokens} tokens` : ''}`));
    turn.toolCalls.forEach((call, lane) => {
      node.append(bar(outcomeClass(call.outcome, 'tool'), call.startMs, call.durationMs, scale, 14 + lane * 9, 7, `${call.tool}: ${call.outcome ?? 'running'}, ${call.durationMs ?? '?'} ms`));
    });
  }
  return node;
}

function renderTimeline(recent) {
  $('timeline-empty').hidden = recent.length > 0;
  $('timeline').replaceChildren(
    ...recent.map((loop) => {
      const stopClass = loop.stop === 'final' ? 'ok' : loop.stop === 'fallthrough' || loop.stop === 'client_gone' ? 'bad' : 'warn';
      const calls = loop.turns.reduce((sum, turn) => sum + turn.toolCalls.length, 0);
      const label = el(
        'div',
        { class: 'loop-label', title: `${loop.startedAt} · ${loop.model}` },
        el('span', { class: `badge ${stopClass}`, text: loop.state ?? loop.stop }),
        ' ',
        el('span', { class: 'id', text: loop.id.slice(0, 8) }),
        ` ${loop.binding} · ${loop.turn} turn${loop.turn === 1 ? '' : 's'}, ${calls} call${calls === 1 ? '' : 's'} · ${seconds(loop.durationMs)}${loop.usage ? ` · ${loop.usage.total_tokens} tokens` : ''}`,
      );
      return el('div', { class: 'loop-row', 'data-loop': loop.id }, label, track(loop));
    }),
  );
}

async function refreshLoops() {
  const { inFlight, recent } = await api('loops');
  renderLive(inFlight);
  renderTimeline(recent);
  status(`updated ${new Date().toLocaleTimeString()} · refreshes every ${REFRESH_MS / 1000} s`);
}

// ---- wiring ----

document.addEventListener('DOMContentLoaded', () => {
  $('login-form').addEventListener('submit', (event) => {
    event.preventDefault();
    sessionStorage.setItem(KEY_ITEM, $('key').value);
    $('key').value = '';
    void open();
  });
  $('forget').addEventListener('click', () => {
    sessionStorage.removeItem(KEY_ITEM);
    showLogin();
  });
  $('settings-form').addEventListener('submit', saveSettings);
  // the browser refused a value and sent nothing: an earlier "Saved" line would read as this attempt's
  $('settings-form').addEventListener('invalid', () => say('settings-message', '', true), true);
  $('reset-settings').addEventListener('click', () => void loadSettings().then(() => say('settings-message', 'Reloaded.', true)));
  $('save-rules').addEventListener('click', () => void saveRules());
  $('reset-rules').addEventListener('click', () => void loadRules().then(() => say('rules-message', 'Reloaded.', true)));
  if (sessionStorage.getItem(KEY_ITEM)) void open();
  else showLogin();
});
