// The web console: plain DOM and fetch, no build step. Every value from the service is written with
// textContent (job bodies are the callers' data, never markup). A call answered 401 asks for the token
// (delay.security.token), keeps it in this tab's sessionStorage and is sent again once with it.
'use strict';

const $ = (id) => document.getElementById(id);
const TOKEN_KEY = 'delay-queue.token';
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
/** What the banner shows: a failed overview refresh clears once one succeeds. */
let bannerSource = null;

/** {@code n} and the noun, plural unless n is 1: "1 dead job", "2 dead jobs". */
function count(n, noun) {
  return `${n} ${noun}${Number(n) === 1 ? '' : 's'}`;
}

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

function showError(e, source) {
  show(e instanceof ApiError ? `${e.code}: ${e.message}` : `error: ${e.message}`, 'error', source);
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
      tr.appendChild(td);
    });
    table.appendChild(tr);
  }
}

async function refresh() {
  try {
    const stats = (await api('GET', 'stats')).data;
    $('role').textContent = stats.role;
    const byStatus = Object.entries(stats.byStatus);
    fillTable($('by-status'), byStatus.length ? byStatus : [['no jobs', 0]]);
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
    $('shards').title = 'jobs waiting for their due time in Redis, per shard';
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

async function push(event) {
  event.preventDefault();
  const job = { topic: $('push-topic').value, body: $('push-body').value, delay: Number($('push-delay').value || 0) };
  if ($('push-id').value) {
    job.id = $('push-id').value;
  }
  try {
    const r = await api('POST', 'push', job);
    show(`pushed ${r.data} (${r.message})`, 'info');
    $('lookup-id').value = r.data;
    refresh();
    refreshTopics();
  } catch (e) {
    showError(e);
  }
}

async function lookUp(event) {
  if (event) {
    event.preventDefault();
  }
  const id = $('lookup-id').value.trim();
  try {
    const details = (await api('GET', 'jobs/' + encodeURIComponent(id))).data;
    const job = details.job;
    $('job-tier').textContent = details.tier === 'journal'
      ? 'kept in the journal only (a far job of the journal tier, or a final one)'
      : 'kept in Redis';
    fillTable($('job-fields'), [
      ['id', job.id],
      ['status', details.status],
      ['topic', job.topic],
      ['due', new Date(job.executeAt).toISOString()],
      ['attempts', job.attempts],
      ['body', job.body],
    ]);
    const tbody = $('job-history').tBodies[0];
    tbody.replaceChildren();
    for (const h of details.history) {
      const tr = document.createElement('tr');
      for (const value of [new Date(h.at).toISOString(), h.event, h.from, h.to, h.host, h.detail]) {
        const td = document.createElement('td');
        td.textContent = value === null ? '' : value;
        tr.appendChild(td);
      }
      tbody.appendChild(tr);
    }
    $('job').hidden = false;
  } catch (e) {
    $('job').hidden = true;
    showError(e);
  }
}

async function deleteJob() {
  const id = $('lookup-id').value.trim();
  try {
    await api('DELETE', 'jobs/' + encodeURIComponent(id));
    show(`deleted ${id}`, 'info');
    await lookUp();
    refresh();
  } catch (e) {
    showError(e);
  }
}

async function restoreOne() {
  const id = $('lookup-id').value.trim();
  try {
    const r = await api('GET', 'reStoreJob?jobId=' + encodeURIComponent(id));
    show(`${id}: ${r.message}`, 'info');
    refresh();
  } catch (e) {
    showError(e);
  }
}

async function restoreAll() {
  try {
    const r = await api('GET', 'reStore?expire=' + $('restore-expire').checked);
    show(`restore: ${r.message}`, 'info');
    refresh();
  } catch (e) {
    showError(e);
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
      show('clearAll not confirmed: type "clear all" to delete every queued job', 'error');
      return;
    }
    try {
      const r = await api('GET', 'clearAll?confirm=true');
      show(`clearAll: ${r.message}`, 'info');
      refresh();
    } catch (e) {
      showError(e);
    }
  }, { once: true });
  dialog.showModal();
}

$('push-form').addEventListener('submit', push);
$('lookup-form').addEventListener('submit', lookUp);
$('delete-submit').addEventListener('click', deleteJob);
$('restore-one').addEventListener('click', restoreOne);
$('restore-all').addEventListener('click', restoreAll);
$('clear-all').addEventListener('click', clearAll);
$('refresh').addEventListener('click', refresh);
$('token-button').addEventListener('click', askToken);
$('message-close').addEventListener('click', clearBanner);
refresh();
setInterval(refresh, 2000);
