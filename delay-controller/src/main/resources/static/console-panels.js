// The web console's panels beside the overview (console.js): the charts of the last hour (uPlot, served from its
// webjar), the topics with their dead letters, the job browser and the cluster. Same rules as console.js: values
// are written with textContent, calls go through api().
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

function chartWidth(el) {
  return Math.max(240, el.clientWidth || 320);
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
        height: 150,
        legend: { live: false },
        scales: { x: { time: true } },
        axes: [{ size: 30 }, { size: 50 }],
        series: [{}, ...chart.series.map(([, label, stroke]) => ({ label, stroke, width: 1.5 }))],
      }, data, el);
      plots.set(chart.id, plot);
    } else {
      plot.setData(data);
    }
    // for tests and curious readers: the points drawn, and the latest value of each series
    el.dataset.points = String(data[1].filter((v) => v !== null).length);
    el.dataset.latest = chart.series.map(([name]) => {
      const values = snapshot.series[name];
      return values.length ? values[values.length - 1] : null;
    }).join(',');
  }
}

async function refreshCharts() {
  try {
    const snapshot = (await api('GET', 'console/metrics')).data;
    $('charts-note').textContent = `(a sample every ${snapshot.intervalMs / 1000} s, ${snapshot.times.length} of ${snapshot.capacity})`;
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
    plot.setSize({ width: chartWidth($(id)), height: 150 });
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

function when(ms) {
  return new Date(ms).toISOString().replace('T', ' ').replace('Z', '');
}

// ---- topics and their dead letters ----

let deadTopic = null;

async function refreshTopics() {
  try {
    const topics = (await api('GET', 'console/topics')).data;
    const tbody = $('topics').tBodies[0];
    tbody.replaceChildren();
    for (const t of topics) {
      const tr = document.createElement('tr');
      tr.dataset.topic = t.topic;
      cell(tr, t.topic);
      cell(tr, t.delayed, 'n');
      cell(tr, t.ready, 'n');
      cell(tr, t.reserved, 'n');
      const dead = cell(tr, '', 'n');
      const link = document.createElement('button');
      link.type = 'button';
      link.className = 'small plain dead-open' + (t.dead > 0 ? ' bad' : '');
      link.textContent = String(t.dead);
      link.title = 'list the dead letters of ' + t.topic;
      link.addEventListener('click', () => listDead(t.topic));
      dead.appendChild(link);
      tbody.appendChild(tr);
    }
    if (topics.length === 0) {
      const tr = document.createElement('tr');
      cell(tr, 'no jobs waiting');
      tbody.appendChild(tr);
    }
  } catch (e) {
    showError(e, 'refresh');
  }
}

async function listDead(topic) {
  deadTopic = topic;
  try {
    const page = (await api('GET', 'dead/' + encodeURIComponent(topic))).data;
    // the last errors, from the journal, read with the list; the list itself is Redis's (what a requeue acts on)
    const errors = page.lastErrors || {};
    $('dead-topic').textContent = topic;
    $('dead-total').textContent = `${count(page.total, 'dead job')} of ${page.topic}` + (page.total > page.jobs.length ? `, the oldest ${page.jobs.length} listed` : '');
    const tbody = $('dead-jobs').tBodies[0];
    tbody.replaceChildren();
    for (const job of page.jobs) {
      const tr = document.createElement('tr');
      const pick = document.createElement('td');
      const box = document.createElement('input');
      box.type = 'checkbox';
      box.value = job.id;
      box.className = 'dead-pick';
      pick.appendChild(box);
      tr.appendChild(pick);
      const id = cell(tr, job.id);
      id.className = 'link';
      id.addEventListener('click', () => openJob(job.id));
      cell(tr, job.attempts, 'n');
      cell(tr, errors[job.id] || '', 'error-text');
      cell(tr, job.body, 'body');
      const act = document.createElement('td');
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
    showError(e);
  }
}

/** Requeues {@code ids} of the listed topic, or all of its dead letters when null. */
function requeue(ids) {
  return actOnDead('requeue', ids);
}

/** POST /dead/{topic}/{action} for {@code ids} of the listed topic (all when null); then the lists again. */
async function actOnDead(action, ids) {
  const topic = deadTopic;
  try {
    const r = await api('POST', 'dead/' + encodeURIComponent(topic) + '/' + action, ids === null ? undefined : { ids });
    show(`${topic}: ${r.message}`, 'info');
    await listDead(topic);
    refresh();
    refreshTopics();
  } catch (e) {
    showError(e);
  }
}

function requeueChosen() {
  const ids = chosenDead('requeue');
  if (ids) {
    requeue(ids);
  }
}

/** The ids of the dead letters ticked, or null (and a message) when none is. */
function chosenDead(verb) {
  const ids = [...document.querySelectorAll('.dead-pick:checked')].map((b) => b.value);
  if (ids.length === 0) {
    show(`choose the dead letters to ${verb} first`, 'error');
    return null;
  }
  return ids;
}

/**
 * Deletes {@code ids} of the listed topic, or all of its dead letters when null: a deleted dead letter is gone for
 * good (DELETED in the journal, never restored or requeued), so more than one is deleted only once confirmed, as the
 * job look-up's delete of one job needs no confirmation.
 */
function deleteDead(ids) {
  const what = ids === null ? `every dead letter of ${deadTopic}` : `${ids.length} dead letters of ${deadTopic}`;
  const confirmed = (ids !== null && ids.length === 1)
    || window.confirm(`Delete ${what}? They cannot be requeued or restored afterwards.`);
  if (!confirmed) {
    return Promise.resolve();
  }
  return actOnDead('delete', ids);
}

function deleteChosen() {
  const ids = chosenDead('delete');
  if (ids) {
    deleteDead(ids);
  }
}

// ---- the job browser ----

let browseNext = null;

async function browse(event, after) {
  if (event) {
    event.preventDefault();
  }
  const params = new URLSearchParams({ status: $('browse-status').value, order: $('browse-order').value });
  const topic = $('browse-topic').value.trim();
  if (topic) {
    params.set('topic', topic);
  }
  if (after) {
    params.set('after', after);
  }
  try {
    const page = (await api('GET', 'console/jobs?' + params)).data;
    const tbody = $('browse-jobs').tBodies[0];
    tbody.replaceChildren();
    for (const b of page.jobs) {
      const tr = document.createElement('tr');
      tr.dataset.id = b.job.id;
      tr.className = 'job-row';
      const id = cell(tr, b.job.id, 'link');
      id.title = 'open its history';
      cell(tr, b.job.topic);
      cell(tr, b.job.status);
      cell(tr, when(b.job.executeAt));
      cell(tr, b.job.attempts, 'n');
      cell(tr, b.tier, 'tier-' + b.tier);
      cell(tr, b.lastError || '', 'error-text');
      tr.addEventListener('click', () => openJob(b.job.id));
      tbody.appendChild(tr);
    }
    if (page.jobs.length === 0) {
      const tr = document.createElement('tr');
      cell(tr, after ? 'no more jobs' : 'no jobs');
      tbody.appendChild(tr);
    }
    browseNext = page.next;
    $('browse-next').disabled = !browseNext;
  } catch (e) {
    showError(e);
  }
}

/** Shows a job with its history in the look-up section. */
function openJob(id) {
  $('lookup-id').value = id;
  lookUp().then(() => $('job').scrollIntoView({ block: 'nearest' }));
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

$('topics-refresh').addEventListener('click', refreshTopics);
$('dead-requeue-chosen').addEventListener('click', requeueChosen);
$('dead-requeue-all').addEventListener('click', () => requeue(null));
$('dead-delete-chosen').addEventListener('click', deleteChosen);
$('dead-delete-all').addEventListener('click', () => deleteDead(null));
$('browse-form').addEventListener('submit', browse);
$('browse-next').addEventListener('click', () => browse(null, browseNext));
chartLoop();
refreshTopics();
refreshCluster();
setInterval(refreshTopics, 5000);
setInterval(refreshCluster, 5000);
