// The web console: plain DOM and fetch, no build step. Every value from the service is written with textContent
// (job bodies are the callers' data, never markup). A call answered 401 asks for the token (delay.security.token),
// keeps it in this tab's sessionStorage and is sent again once with it.
//
// Pages, chosen by the location's hash so that each can be bookmarked and shared, and back and forward work:
//   #/ (overview), #/jobs?status=&topic=&order= (the job browser, its filter in the address), #/job/<id>,
//   #/topics, #/dead (the topics with dead letters), #/dead/<topic>, #/cluster.
// The answer of an action (success or error) is shown beside the control that caused it (an element of class
// "answer" in the control's section); the banner at the top is only for the live refresh's errors.
'use strict';

const $ = (id) => document.getElementById(id);
const TOKEN_KEY = 'delay-queue.token';
const ZONE_KEY = 'delay-queue.zone';
let lastDispatch = null;

class ApiError extends Error {
  constructor(code, message) {
    super(message);
    this.code = code;
  }
}

/** How long a banner stays before it clears itself (ms): news briefly, errors longer; a newer one replaces it. */
const BANNER_MS = { info: 6000, error: 20000 };
let bannerTimer = null;
/** What the banner shows: a failed refresh clears once one succeeds. */
let bannerSource = null;

/** {@code n} and the noun, plural unless n is 1: "1 dead job", "2 dead jobs". */
function count(n, noun) {
  return `${n} ${noun}${Number(n) === 1 ? '' : 's'}`;
}

// ---- times: one format, with the zone, everywhere; the operator's local zone or UTC ----

/** 'local' or 'utc', remembered in this browser. */
function zoneMode() {
  return localStorage.getItem(ZONE_KEY) === 'utc' ? 'utc' : 'local';
}

function pad(n, width) {
  return String(n).padStart(width || 2, '0');
}

/** The parts of an instant in the chosen zone, and the zone's name: "UTC" or the local offset "UTC+05:30". */
function timeParts(ms) {
  const d = new Date(ms);
  if (zoneMode() === 'utc') {
    return { y: d.getUTCFullYear(), mo: d.getUTCMonth() + 1, d: d.getUTCDate(), h: d.getUTCHours(), mi: d.getUTCMinutes(),
      s: d.getUTCSeconds(), ms: d.getUTCMilliseconds(), zone: 'UTC' };
  }
  const offset = -d.getTimezoneOffset();
  const sign = offset < 0 ? '-' : '+';
  const zone = offset === 0 ? 'UTC' : `UTC${sign}${pad(Math.floor(Math.abs(offset) / 60))}:${pad(Math.abs(offset) % 60)}`;
  return { y: d.getFullYear(), mo: d.getMonth() + 1, d: d.getDate(), h: d.getHours(), mi: d.getMinutes(),
    s: d.getSeconds(), ms: d.getMilliseconds(), zone };
}

/** An instant as "2026-11-27 06:42:54.924 UTC" (or "... UTC+05:30" in a local zone); '' for none. */
function when(ms) {
  if (ms === null || ms === undefined) {
    return '';
  }
  const p = timeParts(ms);
  return `${p.y}-${pad(p.mo)}-${pad(p.d)} ${pad(p.h)}:${pad(p.mi)}:${pad(p.s)}.${pad(p.ms, 3)} ${p.zone}`;
}

/** The clock part of {@link when} (a chart's axis, whose label names the zone). */
function clockTime(ms) {
  const p = timeParts(ms);
  return `${pad(p.h)}:${pad(p.mi)}:${pad(p.s)}`;
}

/** The zone times are written in now: "UTC" or "UTC+05:30". */
function zoneName() {
  return timeParts(Date.now()).zone;
}

/** Names the local zone in the switch (read each time: the browser's zone can change while the page is open). */
function nameLocalZone() {
  const offset = -new Date().getTimezoneOffset();
  const zone = offset === 0 ? 'UTC' : `UTC${offset < 0 ? '-' : '+'}${pad(Math.floor(Math.abs(offset) / 60))}:${pad(Math.abs(offset) % 60)}`;
  $('zone-local').textContent = `local (${zone})`;
}

/** Hooks run when the zone changes (the pages write their times again). */
const zoneListeners = [];

function setZone(mode) {
  localStorage.setItem(ZONE_KEY, mode);
  $('zone').value = mode;
  zoneListeners.forEach((f) => f());
}

// ---- messages ----

function show(text, kind, source) {
  const m = $('message');
  $('message-text').textContent = text;
  m.className = kind;
  m.hidden = false;
  bannerSource = source || null;
  clearTimeout(bannerTimer);
  bannerTimer = setTimeout(clearBanner, BANNER_MS[kind] || BANNER_MS.info);
}

function clearBanner() {
  clearTimeout(bannerTimer);
  $('message').hidden = true;
  bannerSource = null;
}

function errorText(e) {
  return e instanceof ApiError ? `${e.code}: ${e.message}` : `error: ${e.message}`;
}

function showError(e, source) {
  show(errorText(e), 'error', source);
}

/** Shows the answer of an action in its place (an element of class "answer" beside the control); it stays. */
function answer(id, text, kind) {
  const el = $(id);
  el.textContent = text;
  el.className = 'answer ' + (kind || 'info');
  el.hidden = false;
}

function answerError(id, e) {
  answer(id, errorText(e), 'error');
}

function clearAnswer(id) {
  $(id).hidden = true;
  $(id).textContent = '';
}

/** Asks for the token; resolves true when one was given. */
function askToken() {
  const dialog = $('token-dialog');
  $('token-input').value = sessionStorage.getItem(TOKEN_KEY) || '';
  return new Promise((resolve) => {
    dialog.addEventListener('close', () => {
      const given = dialog.returnValue === 'save' && $('token-input').value !== '';
      if (given) {
        sessionStorage.setItem(TOKEN_KEY, $('token-input').value);
      }
      resolve(given);
    }, { once: true });
    dialog.showModal();
    $('token-input').focus();
  });
}

/** Asks to confirm an action on many jobs; resolves true when confirmed. {@code title} says how many. */
function confirmAction(title, text, verb, danger) {
  const dialog = $('confirm-dialog');
  $('confirm-ok').className = danger ? 'danger' : '';
  $('confirm-title').textContent = title;
  $('confirm-text').textContent = text;
  $('confirm-ok').textContent = verb;
  dialog.returnValue = '';
  return new Promise((resolve) => {
    dialog.addEventListener('close', () => resolve(dialog.returnValue === 'ok'), { once: true });
    dialog.showModal();
  });
}

/** Calls the API; resolves with the envelope of a 2xx, rejects with an ApiError naming the problem otherwise. */
async function api(method, path, body, retried) {
  const headers = {};
  const token = sessionStorage.getItem(TOKEN_KEY);
  if (token) {
    headers.Authorization = 'Bearer ' + token;
  }
  if (body !== undefined) {
    headers['Content-Type'] = 'application/json';
  }
  const response = await fetch(path, {
    method,
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  let envelope;
  try {
    envelope = await response.json();
  } catch (e) {
    throw new ApiError(response.status, `the service answered ${response.status} without the JSON envelope`);
  }
  if (response.status === 401 && !retried && (await askToken())) {
    return api(method, path, body, true);
  }
  if (!response.ok || !envelope.success) {
    throw new ApiError(envelope.code || response.status, envelope.message || response.statusText);
  }
  return envelope;
}

function fillTable(table, rows) {
  table.replaceChildren();
  for (const cells of rows) {
    const tr = document.createElement('tr');
    cells.forEach((value, i) => {
      const td = document.createElement('td');
      td.textContent = value === null || value === undefined ? '' : String(value);
      if (i > 0 && typeof value === 'number') {
        td.className = 'n';
      }
      if (i === 2) {
        td.className = 'source';
      }
      tr.appendChild(td);
    });
    table.appendChild(tr);
  }
}

// ---- routing ----

/** The page shown and its parameters, from the hash: {page, arg, params}. */
function route() {
  const hash = location.hash.replace(/^#\/?/, '');
  const [path, query] = hash.split('?');
  const [page, ...rest] = path.split('/');
  let arg = rest.length ? rest.join('/') : null;
  try {
    arg = arg === null ? null : decodeURIComponent(arg);
  } catch (e) {
    // a malformed escape: the text as it is (the service then names what it refuses)
  }
  return { page: page || 'overview', arg, params: new URLSearchParams(query || '') };
}

/** What each page does when shown: filled by console-panels.js for its pages. */
const pages = {
  overview: () => {
    refresh();
  },
};

let currentPage = null;

function showPage() {
  const r = route();
  const known = document.querySelector(`.page[data-page="${r.page}"]`);
  const page = known ? r.page : 'overview';
  for (const el of document.querySelectorAll('.page')) {
    el.hidden = el.dataset.page !== page;
  }
  for (const a of document.querySelectorAll('#nav a')) {
    a.classList.toggle('active', a.dataset.page === page || (page === 'job' && a.dataset.page === 'jobs'));
  }
  if (currentPage !== page) {
    // answers belong to the visit of a page: coming back, its controls start afresh
    document.querySelectorAll(`.page[data-page="${page}"] .answer`).forEach((el) => clearAnswer(el.id));
  }
  currentPage = page;
  nameLocalZone();
  document.title = 'delay-queue · ' + (page === 'job' && r.arg ? 'job ' + r.arg : page);
  (pages[page] || (() => {}))(r);
}

function isShown(page) {
  return currentPage === page;
}

// ---- the overview ----

async function refresh() {
  try {
    const stats = (await api('GET', 'stats')).data;
    $('role').textContent = stats.role;
    nameLocalZone();
    if (!isShown('overview')) {
      if (bannerSource === 'refresh') {
        clearBanner();
      }
      return;
    }
    fillTable($('by-status'), statusRows(stats));
    $('by-status-note').textContent = 'DELAY counts both tiers; FINISHED and DELETED are what Redis still keeps'
      + ' (delay.retention; an embedded Redis starts empty after a restart). The journal keeps every job: see Jobs.';
    fillTable($('lateness'), [
      ['handed over', stats.lateness.count],
      ['p50', stats.lateness.p50],
      ['p99', stats.lateness.p99],
      ['max', stats.lateness.max],
      ['restored since start', stats.restored],
    ]);
    const now = Date.now();
    let rate = '';
    if (lastDispatch) {
      const seconds = (now - lastDispatch.at) / 1000;
      rate = Math.max(0, Math.round((stats.dispatched - lastDispatch.dispatched) / seconds));
    }
    lastDispatch = { at: now, dispatched: stats.dispatched };
    fillTable($('dispatch'), [
      ['sent', stats.dispatched],
      ['sends/s', rate],
      ['failed sends', stats.dispatchFailures],
      ['pull consumers waiting', stats.pullWaiting],
    ]);
    const ready = Object.entries(stats.readyByTopic);
    fillTable($('ready'), ready.length ? ready : [['none', 0]]);
    fillTable($('shards'), stats.shards.map((s) => ['shard ' + s.shard, s.bucketSize]));
    fillTable($('journal'), [
      ['mode', stats.journal.mode],
      ['lag (ms)', stats.journal.lagMs],
      ['queued rows', stats.journal.queuedRows],
    ]);
    if (bannerSource === 'refresh') {
      clearBanner();
    }
  } catch (e) {
    showError(e, 'refresh');
  }
}

/**
 * The rows of "Jobs by status": the count and where it comes from. DELAY is pending in both tiers: Redis's and the
 * journal tier's far jobs (counted by the journal in the background, as the topics page counts them); the others
 * are Redis's, which holds every job not final (a far job is always DELAY).
 */
function statusRows(stats) {
  const by = stats.byStatus || {};
  const tiers = stats.tiers || { redisPending: by.DELAY || 0, journalPending: 0, horizonMs: 0 };
  const rows = [];
  const far = tiers.journalPending;
  const tiered = tiers.horizonMs > 0;
  if (!tiered) {
    rows.push(['DELAY', by.DELAY || 0, 'Redis (no journal tier)']);
  } else if (far === null || far === undefined) {
    rows.push(['DELAY', by.DELAY || 0, `Redis ${by.DELAY || 0} + journal tier (not counted yet)`]);
  } else {
    rows.push(['DELAY', (by.DELAY || 0) + far, `Redis ${by.DELAY || 0} + journal tier ${far}`
      + (tiers.journalCountedAt ? ` (counted ${Math.max(0, Math.round((Date.now() - tiers.journalCountedAt) / 1000))} s ago)` : '')]);
  }
  for (const status of ['READY', 'RESERVED', 'DEAD']) {
    rows.push([status, by[status] || 0, 'Redis']);
  }
  for (const status of ['FINISHED', 'DELETED']) {
    rows.push([status, by[status] || 0, 'Redis, kept delay.retention']);
  }
  return rows;
}

// ---- push, maintenance ----

async function push(event) {
  event.preventDefault();
  const job = { topic: $('push-topic').value, body: $('push-body').value, delay: Number($('push-delay').value || 0) };
  if ($('push-id').value) {
    job.id = $('push-id').value;
  }
  clearAnswer('push-answer');
  try {
    const r = await api('POST', 'push', job);
    answer('push-answer', `pushed ${r.data} (${r.message})`, 'info');
    const link = document.createElement('a');
    link.href = '#/job/' + encodeURIComponent(r.data);
    link.id = 'push-open';
    link.textContent = 'open it';
    $('push-answer').append(' ', link);
  } catch (e) {
    answerError('push-answer', e);
  }
}

async function lookUp(event) {
  event.preventDefault();
  const id = $('lookup-id').value.trim();
  clearAnswer('lookup-answer');
  try {
    await api('GET', 'jobs/' + encodeURIComponent(id));
    location.hash = '#/job/' + encodeURIComponent(id);
  } catch (e) {
    answerError('lookup-answer', e);
  }
}

async function restoreAll() {
  try {
    const r = await api('GET', 'reStore?expire=' + $('restore-expire').checked);
    answer('maintenance-answer', `restore: ${r.message}`, 'info');
    refresh();
  } catch (e) {
    answerError('maintenance-answer', e);
  }
}

function clearAll() {
  const dialog = $('clear-dialog');
  $('clear-input').value = '';
  dialog.addEventListener('close', async () => {
    if (dialog.returnValue !== 'confirm') {
      return;
    }
    if ($('clear-input').value.trim() !== 'clear all') {
      answer('maintenance-answer', 'clearAll not confirmed: type "clear all" to delete every queued job', 'error');
      return;
    }
    try {
      const r = await api('GET', 'clearAll?confirm=true');
      answer('maintenance-answer', `clearAll: ${r.message}`, 'info');
      refresh();
    } catch (e) {
      answerError('maintenance-answer', e);
    }
  }, { once: true });
  dialog.showModal();
}

$('push-form').addEventListener('submit', push);
$('lookup-form').addEventListener('submit', lookUp);
$('restore-all').addEventListener('click', restoreAll);
$('clear-all').addEventListener('click', clearAll);
$('refresh').addEventListener('click', refresh);
$('token-button').addEventListener('click', askToken);
$('message-close').addEventListener('click', clearBanner);
$('zone').value = zoneMode();
$('zone').addEventListener('change', () => setZone($('zone').value));
window.addEventListener('hashchange', showPage);
setInterval(refresh, 2000);
