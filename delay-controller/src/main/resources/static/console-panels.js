// The web console's pages beside the overview (console.js): the charts of the last hour (uPlot, served from its
// webjar), the job browser and a job's page, the topics, their dead letters and the cluster. Same rules as
// console.js: values are written with textContent, calls go through api(), answers go beside their control.
'use strict';

/** The charts: each draws some series of GET /console/metrics. */
const CHARTS = [
  { id: 'chart-throughput', series: [
    ['pushesPerSecond', 'pushes/s', '#2457c5'],
    ['handOversPerSecond', 'hand-overs/s', '#067647'],
    ['restoredPerSecond', 'restored/s', '#b54708'],
  ] },
  { id: 'chart-lateness', series: [['latenessP50Ms', 'p50', '#2457c5'], ['latenessP99Ms', 'p99', '#b42318']] },
  { id: 'chart-pending', series: [['redisPending', 'Redis', '#2457c5'], ['journalPending', 'journal tier', '#7a5af8']] },
  { id: 'chart-lag', series: [['journalLagMs', 'lag', '#b54708']] },
  { id: 'chart-dead', series: [['deadLetters', 'dead', '#b42318']] },
];
const plots = new Map();
let lastSnapshot = null;

function chartWidth(el) {
  return Math.max(240, el.clientWidth || 320);
}

/**
 * The time axis of a chart: the clock in the zone chosen, the zone named under it (the one format of when(),
 * shortened). uPlot draws on its canvas: the ticks and the label are also noted on the chart's element.
 */
function timeAxis(el) {
  const label = 'time (' + zoneName() + ')';
  el.dataset.axisLabel = label;
  return {
    size: 30,
    space: 70,
    label,
    labelSize: 16,
    values: (u, splits) => {
      const ticks = splits.map((s) => clockTime(s * 1000));
      el.dataset.ticks = ticks.join(' ');
      return ticks;
    },
  };
}

function drawCharts(snapshot) {
  const times = snapshot.times.map((t) => t / 1000);
  for (const chart of CHARTS) {
    const el = $(chart.id);
    const data = [times, ...chart.series.map(([name]) => snapshot.series[name])];
    let plot = plots.get(chart.id);
    if (!plot) {
      plot = new uPlot({
        width: chartWidth(el),
        height: 170,
        legend: { live: false },
        tzDate: zoneMode() === 'utc' ? (ts) => uPlot.tzDate(new Date(ts * 1e3), 'Etc/UTC') : (ts) => new Date(ts * 1e3),
        scales: { x: { time: true } },
        axes: [timeAxis(el), { size: 50 }],
        series: [{}, ...chart.series.map(([, label, stroke]) => ({ label, stroke, width: 1.5 }))],
      }, data, el);
      plots.set(chart.id, plot);
    } else {
      plot.setData(data);
    }
    // for tests and curious readers: the points drawn, the latest value of each series, the zone of the axis
    el.dataset.points = String(data[1].filter((v) => v !== null).length);
    el.dataset.latest = chart.series.map(([name]) => {
      const values = snapshot.series[name];
      return values.length ? values[values.length - 1] : null;
    }).join(',');
    el.dataset.zone = zoneName();
  }
}

/** Draws the charts anew (the zone changed, or their page is shown again at another width). */
function redrawCharts() {
  for (const plot of plots.values()) {
    plot.destroy();
  }
  plots.clear();
  if (lastSnapshot) {
    drawCharts(lastSnapshot);
  }
}

async function refreshCharts() {
  if (!isShown('overview')) {
    return 2000;
  }
  try {
    const snapshot = (await api('GET', 'console/metrics')).data;
    lastSnapshot = snapshot;
    $('charts-note').textContent = `(a sample every ${snapshot.intervalMs / 1000} s, ${snapshot.times.length} of ${snapshot.capacity}; times in ${zoneName()})`;
    drawCharts(snapshot);
    return snapshot.intervalMs;
  } catch (e) {
    showError(e, 'refresh');
    return 10000;
  }
}

async function chartLoop() {
  const interval = await refreshCharts();
  setTimeout(chartLoop, Math.min(10000, Math.max(1000, interval)));
}

window.addEventListener('resize', () => {
  for (const [id, plot] of plots) {
    plot.setSize({ width: chartWidth($(id)), height: 170 });
  }
});

function cell(tr, value, className) {
  const td = document.createElement('td');
  td.textContent = value === null || value === undefined ? '' : String(value);
  if (className) {
    td.className = className;
  }
  tr.appendChild(td);
  return td;
}

/** A cell holding a link to a page of the console. */
function linkCell(tr, text, hash, className) {
  const td = document.createElement('td');
  const a = document.createElement('a');
  a.href = hash;
  a.textContent = text;
  if (className) {
    a.className = className;
  }
  td.appendChild(a);
  tr.appendChild(td);
  return a;
}

function jobHash(id) {
  return '#/job/' + encodeURIComponent(id);
}

/**
 * Runs {@code act} on each id, four at a time; resolves with {done: [ids], failed: [[id, error text]]}. Each call is
 * one of the API's ordinary ones, so each job's answer is its own.
 */
async function eachJob(ids, act) {
  const done = [];
  const failed = [];
  let next = 0;
  async function worker() {
    while (next < ids.length) {
      const id = ids[next++];
      try {
        await act(id);
        done.push(id);
      } catch (e) {
        failed.push([id, errorText(e)]);
      }
    }
  }
  await Promise.all([worker(), worker(), worker(), worker()]);
  return { done, failed };
}

/** "3 deleted" and, when some were refused, why: "3 deleted, 1 refused: a1b2: 409: ...". */
function outcomeText(verb, outcome) {
  const refused = outcome.failed.length
    ? `, ${outcome.failed.length} refused: ` + outcome.failed.slice(0, 5).map(([id, why]) => `${id}: ${why}`).join('; ')
      + (outcome.failed.length > 5 ? '; …' : '')
    : '';
  return `${outcome.done.length} ${verb}${refused}`;
}

// ---- topics ----

let topicsShown = [];

async function refreshTopics() {
  try {
    const topics = (await api('GET', 'console/topics')).data;
    topicsShown = topics;
    const tbody = $('topics').tBodies[0];
    tbody.replaceChildren();
    for (const t of topics) {
      const tr = document.createElement('tr');
      tr.dataset.topic = t.topic;
      linkCell(tr, t.topic, '#/jobs?' + new URLSearchParams({ status: 'DELAY', topic: t.topic }));
      cell(tr, t.delayed, 'n');
      cell(tr, t.ready, 'n');
      cell(tr, t.reserved, 'n');
      const dead = linkCell(tr, String(t.dead), '#/dead/' + encodeURIComponent(t.topic), 'dead-open' + (t.dead > 0 ? ' bad' : ''));
      dead.title = 'list the dead letters of ' + t.topic;
      dead.parentElement.className = 'n';
      tbody.appendChild(tr);
    }
    if (topics.length === 0) {
      const tr = document.createElement('tr');
      cell(tr, 'no jobs waiting');
      tbody.appendChild(tr);
    }
    // the totals: the same counts as the overview's jobs by status (delayed: both tiers)
    const foot = $('topics').tFoot;
    foot.replaceChildren();
    if (topics.length > 1) {
      const tr = document.createElement('tr');
      tr.className = 'total';
      cell(tr, 'all topics');
      for (const key of ['delayed', 'ready', 'reserved', 'dead']) {
        cell(tr, topics.reduce((sum, t) => sum + t[key], 0), 'n');
      }
      foot.appendChild(tr);
    }
    if (isShown('dead') && !deadTopic) {
      fillDeadTopics();
    }
  } catch (e) {
    showError(e, 'refresh');
  }
}

// ---- dead letters ----

let deadTopic = null;

function fillDeadTopics() {
  const tbody = $('dead-topic-list').tBodies[0];
  tbody.replaceChildren();
  const withDead = topicsShown.filter((t) => t.dead > 0);
  for (const t of withDead) {
    const tr = document.createElement('tr');
    tr.dataset.topic = t.topic;
    linkCell(tr, t.topic, '#/dead/' + encodeURIComponent(t.topic), 'dead-open');
    cell(tr, t.dead, 'n');
    tbody.appendChild(tr);
  }
  if (withDead.length === 0) {
    const tr = document.createElement('tr');
    cell(tr, 'no dead letters');
    tbody.appendChild(tr);
  }
}

async function listDead(topic) {
  deadTopic = topic;
  try {
    const page = (await api('GET', 'dead/' + encodeURIComponent(topic))).data;
    // the last errors, from the journal, read with the list; the list itself is Redis's (what a requeue acts on)
    const errors = page.lastErrors || {};
    $('dead-topic').textContent = 'of ' + topic;
    $('dead-total').textContent = `${count(page.total, 'dead job')} of ${page.topic}` + (page.total > page.jobs.length ? `, the oldest ${page.jobs.length} listed` : '');
    const tbody = $('dead-jobs').tBodies[0];
    tbody.replaceChildren();
    $('dead-pick-all').checked = false;
    for (const job of page.jobs) {
      const tr = document.createElement('tr');
      const pick = document.createElement('td');
      const box = document.createElement('input');
      box.type = 'checkbox';
      box.value = job.id;
      box.className = 'dead-pick';
      pick.appendChild(box);
      tr.appendChild(pick);
      linkCell(tr, job.id, jobHash(job.id), 'mono');
      cell(tr, job.attempts, 'n');
      // a dead job's due time is that of its last attempt
      cell(tr, when(job.executeAt), 'time');
      cell(tr, errors[job.id] || '', 'error-text');
      cell(tr, job.body, 'body');
      const act = document.createElement('td');
      act.className = 'actions';
      for (const [label, className, action] of [['requeue', 'small dead-requeue-one', requeue], ['delete', 'small danger dead-delete-one', deleteDead]]) {
        const button = document.createElement('button');
        button.type = 'button';
        button.className = className;
        button.dataset.id = job.id;
        button.textContent = label;
        button.addEventListener('click', () => action([job.id]));
        act.appendChild(button);
      }
      tr.appendChild(act);
      tbody.appendChild(tr);
    }
    $('dead').hidden = false;
  } catch (e) {
    $('dead').hidden = false;
    answerError('dead-answer', e);
  }
}

/** POST /dead/{topic}/{action} for {@code ids} of the listed topic (all when null); then the lists again. */
async function actOnDead(action, ids) {
  const topic = deadTopic;
  try {
    const r = await api('POST', 'dead/' + encodeURIComponent(topic) + '/' + action, ids === null ? undefined : { ids });
    answer('dead-answer', `${topic}: ${r.message}`, 'info');
    await listDead(topic);
    refresh();
  } catch (e) {
    answerError('dead-answer', e);
  }
}

/** The ids of the dead letters ticked, or null (and the answer says so) when none is. */
function chosenDead(verb) {
  const ids = [...document.querySelectorAll('.dead-pick:checked')].map((b) => b.value);
  if (ids.length === 0) {
    answer('dead-answer', `choose the dead letters to ${verb} first`, 'error');
    return null;
  }
  return ids;
}

/** Requeues {@code ids} of the listed topic, or all of its dead letters when null; more than one once confirmed. */
async function requeue(ids) {
  if (ids === null || ids.length > 1) {
    const what = ids === null ? `every dead letter of ${deadTopic}` : `${ids.length} dead letters of ${deadTopic}`;
    const title = ids === null ? `Requeue ${$('dead-total').textContent}?` : `Requeue ${count(ids.length, 'dead letter')}?`;
    if (!(await confirmAction(title, `${what} become DELAY again, due at once, with their attempts from 0.`, 'Requeue them'))) {
      return;
    }
  }
  await actOnDead('requeue', ids);
}

/**
 * Deletes {@code ids} of the listed topic, or all of its dead letters when null: a deleted dead letter is gone for
 * good (DELETED in the journal, never restored or requeued), so more than one is deleted only once confirmed.
 */
async function deleteDead(ids) {
  if (ids === null || ids.length > 1) {
    const what = ids === null ? `every dead letter of ${deadTopic}` : `${ids.length} dead letters of ${deadTopic}`;
    const title = ids === null ? `Delete ${$('dead-total').textContent}?` : `Delete ${count(ids.length, 'dead letter')}?`;
    if (!(await confirmAction(title, `Delete ${what}? They cannot be requeued or restored afterwards.`, 'Delete them', true))) {
      return;
    }
  }
  await actOnDead('delete', ids);
}

pages.dead = (r) => {
  clearAnswer('dead-answer');
  if (r.arg) {
    $('dead-topics').hidden = true;
    listDead(r.arg);
  } else {
    deadTopic = null;
    $('dead-topic').textContent = '';
    $('dead').hidden = true;
    $('dead-topics').hidden = false;
    fillDeadTopics();
    refreshTopics();
  }
};

// ---- the job browser ----

let browseNext = null;
let browseQuery = null;

/** The browser's filter as the address has it; the form is filled from it, so back and forward restore both. */
function browseParams(r) {
  const params = new URLSearchParams();
  params.set('status', (r.params.get('status') || 'DELAY').toUpperCase());
  for (const name of ['topic', 'order', 'after']) {
    if (r.params.get(name)) {
      params.set(name, r.params.get(name));
    }
  }
  return params;
}

pages.jobs = (r) => {
  const params = browseParams(r);
  $('browse-status').value = params.get('status');
  $('browse-topic').value = params.get('topic') || '';
  $('browse-order').value = params.get('order') || 'soonest';
  clearAnswer('lookup-answer');
  if (browseQuery !== params.toString()) {
    clearAnswer('browse-answer');
  }
  browse(params);
};

/** The form's filter into the address (a new history entry); the hashchange lists it. */
function submitBrowse(event, after) {
  if (event) {
    event.preventDefault();
  }
  const params = new URLSearchParams({ status: $('browse-status').value });
  const topic = $('browse-topic').value.trim();
  if (topic) {
    params.set('topic', topic);
  }
  if ($('browse-order').value !== 'soonest') {
    params.set('order', $('browse-order').value);
  }
  if (after) {
    params.set('after', after);
  }
  const hash = '#/jobs?' + params;
  if (location.hash === hash) {
    pages.jobs(route());
  } else {
    location.hash = hash;
  }
}

async function browse(params) {
  browseQuery = params.toString();
  try {
    const page = (await api('GET', 'console/jobs?' + params)).data;
    const tbody = $('browse-jobs').tBodies[0];
    tbody.replaceChildren();
    $('browse-pick-all').checked = false;
    for (const b of page.jobs) {
      const tr = document.createElement('tr');
      tr.dataset.id = b.job.id;
      tr.className = 'job-row';
      const pick = document.createElement('td');
      const box = document.createElement('input');
      box.type = 'checkbox';
      box.value = b.job.id;
      box.className = 'job-pick';
      box.dataset.status = b.job.status;
      box.dataset.topic = b.job.topic;
      box.addEventListener('change', chosenChanged);
      pick.appendChild(box);
      tr.appendChild(pick);
      const id = linkCell(tr, b.job.id, jobHash(b.job.id), 'mono');
      id.title = 'open its page';
      cell(tr, b.job.topic);
      cell(tr, b.job.status);
      cell(tr, when(b.job.executeAt), 'time');
      cell(tr, b.job.attempts, 'n');
      cell(tr, b.tier, 'tier-' + b.tier);
      cell(tr, b.lastError || '', 'error-text');
      tr.addEventListener('click', (event) => {
        if (event.target !== box && event.target.tagName !== 'A' && event.target !== pick) {
          location.hash = jobHash(b.job.id);
        }
      });
      tbody.appendChild(tr);
    }
    if (page.jobs.length === 0) {
      const tr = document.createElement('tr');
      cell(tr, '');
      cell(tr, params.get('after') ? 'no more jobs' : 'no jobs');
      tbody.appendChild(tr);
    }
    browseNext = page.next;
    $('browse-next').disabled = !browseNext;
    chosenChanged();
  } catch (e) {
    answerError('browse-answer', e);
  }
}

function chosenJobs() {
  return [...document.querySelectorAll('.job-pick:checked')];
}

function chosenChanged() {
  const chosen = chosenJobs();
  $('browse-chosen').textContent = `${chosen.length} chosen`;
  $('browse-run-now').disabled = !chosen.some((b) => b.dataset.status === 'DELAY');
  $('browse-requeue').disabled = !chosen.some((b) => b.dataset.status === 'DEAD');
  $('browse-delete').disabled = chosen.length === 0;
}

/** The chosen jobs of {@code status} (all when null), grouped by topic: {topic: [ids]}. */
function byTopic(boxes) {
  const groups = {};
  for (const b of boxes) {
    (groups[b.dataset.topic] = groups[b.dataset.topic] || []).push(b.value);
  }
  return groups;
}

/** Acts on the chosen jobs of the list once the operator confirmed how many; the answer goes beside the buttons. */
async function actOnChosen(kind) {
  const chosen = chosenJobs();
  const fits = {
    run: (b) => b.dataset.status === 'DELAY',
    requeue: (b) => b.dataset.status === 'DEAD',
    delete: () => true,
  }[kind];
  const boxes = chosen.filter(fits);
  const left = chosen.length - boxes.length;
  if (boxes.length === 0) {
    answer('browse-answer', 'choose the jobs to act on first', 'error');
    return;
  }
  const n = count(boxes.length, 'job');
  const leftNote = left ? ` (${left} chosen ${left === 1 ? 'is' : 'are'} not ${kind === 'run' ? 'DELAY' : 'DEAD'}, left alone)` : '';
  const [title, text, verb] = {
    run: [`Run ${n} now?`, `Each is due at once and handed over within moments${leftNote}.`, `Run ${n} now`],
    requeue: [`Requeue ${n}?`, `Each becomes DELAY again, due at once, with its attempts from 0${leftNote}.`, `Requeue ${n}`],
    delete: [`Delete ${n}?`, 'Each is deleted for good: it is never handed over, restored or requeued afterwards.', `Delete ${n}`],
  }[kind];
  if (!(await confirmAction(title, text, verb, kind === 'delete'))) {
    answer('browse-answer', 'nothing done', 'info');
    return;
  }
  answer('browse-answer', `${kind === 'run' ? 'running' : kind === 'requeue' ? 'requeueing' : 'deleting'} ${n}…`, 'info');
  let outcome;
  if (kind === 'run') {
    outcome = await eachJob(boxes.map((b) => b.value), (id) => api('POST', 'jobs/' + encodeURIComponent(id) + '/run-now'));
    answer('browse-answer', outcomeText('run now', outcome), outcome.failed.length ? 'error' : 'info');
  } else {
    // dead letters by topic, in one call per topic; other jobs one by one
    const dead = byTopic(boxes.filter((b) => b.dataset.status === 'DEAD'));
    outcome = { done: [], failed: [] };
    for (const [topic, ids] of Object.entries(dead)) {
      try {
        const r = (await api('POST', 'dead/' + encodeURIComponent(topic) + '/' + kind, { ids })).data;
        const refused = kind === 'requeue' ? r.notRequeued : r.notDeleted;
        for (const id of ids) {
          if (refused && refused[id]) {
            outcome.failed.push([id, 'now ' + refused[id]]);
          } else {
            outcome.done.push(id);
          }
        }
      } catch (e) {
        ids.forEach((id) => outcome.failed.push([id, errorText(e)]));
      }
    }
    if (kind === 'delete') {
      const others = await eachJob(boxes.filter((b) => b.dataset.status !== 'DEAD').map((b) => b.value),
        (id) => api('DELETE', 'jobs/' + encodeURIComponent(id)));
      outcome.done.push(...others.done);
      outcome.failed.push(...others.failed);
    }
    answer('browse-answer', outcomeText(kind === 'requeue' ? 'requeued' : 'deleted', outcome),
      outcome.failed.length ? 'error' : 'info');
  }
  browse(new URLSearchParams(browseQuery));
  refresh();
}

// ---- a job's page ----

let jobShown = null;
let jobLoaded = null;

pages.job = (r) => {
  if (jobShown !== r.arg) {
    clearAnswer('job-answer');
  }
  jobShown = r.arg;
  loadJob();
};

async function loadJob() {
  const id = jobShown;
  $('job-id').textContent = id || '';
  try {
    const details = (await api('GET', 'jobs/' + encodeURIComponent(id))).data;
    if (id !== jobShown) {
      return;
    }
    jobLoaded = details;
    fillJob(details);
  } catch (e) {
    jobLoaded = null;
    $('job').hidden = true;
    $('job-status').textContent = '';
    for (const b of ['job-run-now', 'job-requeue', 'job-delete', 'job-restore']) {
      $(b).disabled = b !== 'job-restore';
    }
    answerError('job-answer', e);
  }
}

function fillJob(details) {
  const job = details.job;
  $('job-status').textContent = details.status;
  $('job-tier').textContent = details.tier === 'journal'
    ? 'kept in the journal only (a far job of the journal tier, or a final one)'
    : 'kept in Redis (and in the journal)';
  const rows = [
    ['id', job.id],
    ['status', details.status],
    ['topic', job.topic],
    ['subtopic', job.subtopic],
    ['bizKey', job.bizKey],
    ['tier', details.tier],
    ['due', when(job.executeAt)],
    ['created', when(job.createTime)],
    ['ttr (ms)', job.ttr],
    ['attempts', job.attempts],
    ['maxAttempts', job.maxAttempts],
    ['priority', job.priority],
    ['url', job.url],
    ['last error', details.lastError],
    ['body', job.body],
  ];
  const table = $('job-fields');
  table.replaceChildren();
  for (const [label, value] of rows) {
    const tr = document.createElement('tr');
    tr.dataset.field = label;
    cell(tr, label, 'label');
    if (label === 'topic') {
      // the topic's jobs of the same status, in the browser
      linkCell(tr, value, '#/jobs?' + new URLSearchParams({ status: details.status, topic: value }));
    } else {
      cell(tr, value, label === 'last error' ? 'error-text' : label === 'body' ? 'pre' : '');
    }
    table.appendChild(tr);
  }
  const tbody = $('job-history').tBodies[0];
  tbody.replaceChildren();
  for (const h of details.history) {
    const tr = document.createElement('tr');
    cell(tr, when(h.at), 'time');
    for (const value of [h.event, h.from, h.to, h.host, h.detail]) {
      cell(tr, value);
    }
    tbody.appendChild(tr);
  }
  if (details.history.length === 0) {
    const tr = document.createElement('tr');
    cell(tr, 'no history (no journal)');
    tbody.appendChild(tr);
  }
  const status = details.status;
  $('job-run-now').disabled = status !== 'DELAY';
  $('job-requeue').disabled = status !== 'DEAD';
  $('job-delete').disabled = !['DELAY', 'READY', 'DEAD'].includes(status);
  $('job-restore').disabled = false;
  $('job').hidden = false;
}

/** One action of the job's page; its answer goes beside the buttons, then the job is read again. */
async function jobAction(label, call) {
  const id = jobShown;
  try {
    const r = await call(id);
    answer('job-answer', `${label}: ${r.message || 'done'}`, 'info');
  } catch (e) {
    answerError('job-answer', e);
  }
  if (id === jobShown) {
    await loadJob();
  }
  refresh();
}

function jobRunNow() {
  return jobAction('run now', (id) => api('POST', 'jobs/' + encodeURIComponent(id) + '/run-now'));
}

function jobRequeue() {
  const topic = jobLoaded ? jobLoaded.job.topic : '';
  return jobAction('requeue', async (id) => {
    const r = await api('POST', 'dead/' + encodeURIComponent(topic) + '/requeue', { ids: [id] });
    if (r.data.notRequeued && r.data.notRequeued[id]) {
      throw new ApiError(409, `${id} is not a dead job of ${topic} now: ${r.data.notRequeued[id]}`);
    }
    return r;
  });
}

function jobDelete() {
  const dead = jobLoaded && jobLoaded.status === 'DEAD';
  const topic = jobLoaded ? jobLoaded.job.topic : '';
  return jobAction('delete', (id) => dead
    ? api('POST', 'dead/' + encodeURIComponent(topic) + '/delete', { ids: [id] })
    : api('DELETE', 'jobs/' + encodeURIComponent(id)));
}

function jobRestore() {
  return jobAction('restore', (id) => api('GET', 'reStoreJob?jobId=' + encodeURIComponent(id)));
}

// ---- the cluster ----

async function refreshCluster() {
  try {
    const cluster = (await api('GET', 'console/cluster')).data;
    const c = cluster.coordination;
    // standalone, the instance is the only one and has no id of its own: the mode says it all
    $('cluster-mode').textContent = c.mode === 'standalone' ? c.mode : c.mode + ', this instance: ' + c.self;
    $('cluster-zk').textContent = c.zooKeeper ? 'ZooKeeper ' + c.zooKeeper : 'no ZooKeeper';
    $('cluster-zk').className = 'pill' + (c.zooKeeper && !/CONNECTED/.test(c.zooKeeper) ? ' bad' : '');
    const instances = $('cluster-instances').tBodies[0];
    instances.replaceChildren();
    for (const i of c.instances) {
      const tr = document.createElement('tr');
      cell(tr, i.id + (i.id === c.self && c.instances.length > 1 ? ' (this one)' : ''));
      cell(tr, i.role);
      cell(tr, i.shards === null ? 'all' : i.shards.length ? i.shards.join(', ') : 'none');
      instances.appendChild(tr);
    }
    const shards = $('cluster-shards').tBodies[0];
    shards.replaceChildren();
    for (const s of cluster.shards) {
      const tr = document.createElement('tr');
      tr.className = 'shard-row';
      cell(tr, 'shard ' + s.shard);
      cell(tr, s.owner || 'none');
      cell(tr, s.ownedHere ? 'yes' : 'no');
      cell(tr, s.epoch === null ? '–' : s.epoch, 'n');
      cell(tr, s.pending, 'n');
      shards.appendChild(tr);
    }
  } catch (e) {
    showError(e, 'refresh');
  }
}

pages.overview = () => {
  refresh();
  // drawn while hidden, the charts took a guessed width: draw them at the page's
  redrawCharts();
  refreshCharts();
};
pages.topics = () => refreshTopics();
pages.cluster = () => refreshCluster();

zoneListeners.push(() => {
  redrawCharts();
  if (isShown('overview')) {
    refreshCharts();
    refresh();
  } else if (isShown('jobs')) {
    browse(new URLSearchParams(browseQuery));
  } else if (isShown('job') && jobLoaded) {
    fillJob(jobLoaded);
  }
});

$('topics-refresh').addEventListener('click', refreshTopics);
$('dead-requeue-chosen').addEventListener('click', () => {
  const ids = chosenDead('requeue');
  if (ids) {
    requeue(ids);
  }
});
$('dead-requeue-all').addEventListener('click', () => requeue(null));
$('dead-delete-chosen').addEventListener('click', () => {
  const ids = chosenDead('delete');
  if (ids) {
    deleteDead(ids);
  }
});
$('dead-delete-all').addEventListener('click', () => deleteDead(null));
$('dead-pick-all').addEventListener('change', () => {
  document.querySelectorAll('.dead-pick').forEach((b) => { b.checked = $('dead-pick-all').checked; });
});
$('browse-form').addEventListener('submit', submitBrowse);
$('browse-next').addEventListener('click', () => submitBrowse(null, browseNext));
$('browse-pick-all').addEventListener('change', () => {
  document.querySelectorAll('.job-pick').forEach((b) => { b.checked = $('browse-pick-all').checked; });
  chosenChanged();
});
$('browse-run-now').addEventListener('click', () => actOnChosen('run'));
$('browse-requeue').addEventListener('click', () => actOnChosen('requeue'));
$('browse-delete').addEventListener('click', () => actOnChosen('delete'));
$('job-run-now').addEventListener('click', jobRunNow);
$('job-requeue').addEventListener('click', jobRequeue);
$('job-delete').addEventListener('click', jobDelete);
$('job-restore').addEventListener('click', jobRestore);
$('job-reload').addEventListener('click', loadJob);
showPage();
chartLoop();
setInterval(() => (isShown('topics') || (isShown('dead') && !deadTopic)) && refreshTopics(), 5000);
setInterval(() => isShown('cluster') && refreshCluster(), 5000);
