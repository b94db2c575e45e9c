// The dashboard: views over the /api/ endpoints (docs/API.md), chosen by
// the URL's fragment: #course/<assignment> (leaderboard, roster,
// submissions), #submission/<id> (one report, its source and its diff
// against the learner's previous submission), #assignment/<label> (runs by
// label), #learner/<learner>, #live.
// Every table links to the CSV of the same endpoint. When a view has drawn
// its data, <body data-ready> names it (the headless page test waits on it).
// On a server with authentication the API answers 401 without a token: the
// page then asks for one in #login-box, keeps it in sessionStorage (this tab
// only) and sends it as `Authorization: Bearer TOKEN` on every request.
'use strict';
(function () {
  const $ = (id) => document.getElementById(id);
  const liveRefreshMs = 3000;
  let liveTimer = null;

  // `digits` significant digits, but never rounding the integer part; no
  // trailing zeros; exponents only for very small or large values.
  kbench.num = function (value, digits = 3) {
    if (value == null || Number.isNaN(value)) return '';
    if (typeof value !== 'number') return String(value);
    const magnitude = Math.abs(value);
    if (value !== 0 && (magnitude < 1e-3 || magnitude >= 1e7)) return value.toExponential(2);
    if (magnitude >= 10 ** digits) return String(Math.round(value));
    return String(Number(value.toPrecision(digits)));
  };
  // A time given in milliseconds in the unit that reads best: "301 µs",
  // "4.42 ms", "1.2 s" (never 3.01e-4 ms).
  kbench.ms = function (value) {
    if (value == null || Number.isNaN(value) || typeof value !== 'number') return '';
    const magnitude = Math.abs(value);
    if (magnitude >= 1000) return `${kbench.num(value / 1000)} s`;
    if (magnitude >= 1 || value === 0) return `${kbench.num(value)} ms`;
    if (magnitude >= 1e-3) return `${kbench.num(value * 1e3)} µs`;
    return `${kbench.num(value * 1e6)} ns`;
  };
  kbench.time = function (unixMs) {
    if (!unixMs) return '';
    const d = new Date(unixMs);
    const pad = (n) => String(n).padStart(2, '0');
    return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())} ` +
           `${pad(d.getHours())}:${pad(d.getMinutes())}`;
  };
  kbench.duration = function (ms) {
    const s = Math.max(0, Math.round(ms / 1000));
    if (s < 60) return `${s} s`;
    if (s < 3600) return `${Math.floor(s / 60)} min ${s % 60} s`;
    if (s < 86400) return `${Math.floor(s / 3600)} h ${Math.floor((s % 3600) / 60)} min`;
    return `${Math.floor(s / 86400)} d ${Math.floor((s % 86400) / 3600)} h`;
  };
  kbench.note = function (text) {
    const p = document.createElement('p');
    p.className = 'muted';
    p.textContent = text;
    return p;
  };

  const tokenKey = 'kbench-token';
  // The API refused the request for want of a valid token; the login box
  // says why, so it is not reported as a page error.
  class NeedsToken extends Error {}

  function authHeaders() {
    const token = sessionStorage.getItem(tokenKey);
    return token ? {Authorization: `Bearer ${token}`} : {};
  }

  function askForToken(reason) {
    $('login-reason').textContent = reason || '';
    $('login-box').hidden = false;
  }

  // A refusal the page expects for some callers (a learner asking for the
  // roster): shown where the data would be, not reported as a page error.
  class Forbidden extends Error {}

  async function getJson(url) {
    const response = await fetch(url, {headers: authHeaders()});
    const body = await response.json();
    if (response.status === 401) {
      askForToken(body.error);
      throw new NeedsToken(body.error);
    }
    if (response.status === 403) throw new Forbidden(body.error);
    if (!response.ok) throw new Error(`${url}: ${body.error || response.status}`);
    return body;
  }

  // A CSV link that carries the token: fetched with the header, saved as a file.
  async function downloadCsv(url) {
    const response = await fetch(url, {headers: authHeaders()});
    if (!response.ok) throw new Error(`${url}: ${response.status}`);
    const disposition = response.headers.get('Content-Disposition') || '';
    const name = (disposition.match(/filename="([^"]+)"/) || [])[1] || 'table.csv';
    const save = document.createElement('a');
    save.href = URL.createObjectURL(await response.blob());
    save.download = name;
    save.click();
    URL.revokeObjectURL(save.href);
  }

  function api(path, params = {}) {
    const query = new URLSearchParams(params).toString();
    return query ? `${path}?${query}` : path;
  }

  function csvUrl(url) {
    return url + (url.includes('?') ? '&' : '?') + 'format=csv';
  }

  // columns: [{key, title, format?(value, row) -> text or Node, cls?}]
  function renderTable(container, url, data, columns, empty) {
    container.replaceChildren();
    const bar = document.createElement('div');
    bar.className = 'table-bar';
    const count = document.createElement('span');
    count.className = 'muted';
    count.textContent = `${data.rows.length} row${data.rows.length === 1 ? '' : 's'}` +
                        (data.truncated ? ' (older runs not read)' : '');
    const link = document.createElement('a');
    link.href = csvUrl(url);
    link.addEventListener('click', (event) => {
      if (!sessionStorage.getItem(tokenKey)) return;
      event.preventDefault();
      downloadCsv(link.href).catch((error) => kbench.reportError(error.message));
    });
    link.textContent = 'Download CSV';
    link.className = 'csv';
    bar.append(count, link);
    container.append(bar);
    if (data.rows.length === 0) {
      container.append(kbench.note(empty));
      return;
    }
    const table = document.createElement('table');
    const head = table.createTHead().insertRow();
    for (const column of columns) {
      const th = document.createElement('th');
      th.textContent = column.title;
      if (column.cls) th.className = column.cls;
      head.append(th);
    }
    const body = table.createTBody();
    for (const row of data.rows) {
      const tr = body.insertRow();
      if (row.verified === false) tr.className = 'failed';
      for (const column of columns) {
        const td = tr.insertCell();
        if (column.cls) td.className = column.cls;
        const shown = column.format ? column.format(row[column.key], row)
                                    : kbench.num(row[column.key]);
        td.append(shown instanceof Node ? shown : document.createTextNode(shown ?? ''));
      }
    }
    const scroller = document.createElement('div');
    scroller.className = 'table-scroll';
    scroller.append(table);
    container.append(scroller);
  }

  const text = (v) => v ?? '';
  const when = (v) => kbench.time(v);
  const percent = (v) => (v == null ? '' : `${kbench.num(v)} %`);
  const learnerLink = (v) => {
    const a = document.createElement('a');
    a.href = `#learner/${encodeURIComponent(v)}`;
    a.textContent = v;
    return a;
  };
  const num = {cls: 'num'};
  // A device figure the server reports as 0 when it did not measure it.
  const measured = (v) => (v ? kbench.num(v, 4) : 'not measured');

  function fillSelect(select, values, current) {
    select.replaceChildren(...values.map((v) => new Option(v, v)));
    select.value = current;
  }

  const submissionLink = (v) => {
    if (!v) return '';
    const a = document.createElement('a');
    a.href = `#submission/${encodeURIComponent(v)}`;
    a.textContent = v;
    return a;
  };
  const scoreText = (v, r) => (v == null ? '' :
      `${kbench.ms(v)} [${kbench.num(r.score_ci_low_ms, 4)}–${kbench.num(r.score_ci_high_ms, 4)}]`);

  async function showCourse(name) {
    const assignments = await getJson('/api/assignments');
    const names = assignments.rows.map((r) => r.name);
    if (names.length === 0) {
      $('course-summary').textContent =
          'No assignments yet: an instructor creates one with `kbench assignment create FILE`.';
      document.body.dataset.ready = 'course';
      return;
    }
    if (name === undefined || !names.includes(name)) name = names[0];
    fillSelect($('course-select'), names, name);
    const info = assignments.rows.find((r) => r.name === name);
    $('course-summary').textContent = [
      info.title, `${info.op}, ${info.problems} problems`, `beside ${info.baselines}`,
      info.due_unix_ms ? `due ${kbench.time(info.due_unix_ms)}` : 'no due time',
      info.closed ? 'closed' : `${info.submissions_per_hour} submissions per hour`,
    ].filter(Boolean).join(' · ');

    const boardUrl = api('/api/assignments/leaderboard', {assignment: name});
    const submissionsUrl = api('/api/assignments/submissions', {assignment: name});
    const [board, submissions] = await Promise.all([getJson(boardUrl), getJson(submissionsUrl)]);
    const speedupColumns = board.columns.filter((c) => c.startsWith('speedup_')).map((c) => (
      {key: c, title: `vs ${c.slice('speedup_'.length)}`, ...num,
       format: (v) => (v == null ? '' : `${kbench.num(v)}x`)}));
    renderTable($('leaderboard-table'), boardUrl, board, [
      {key: 'rank', title: 'Rank', ...num, format: (v, r) => `${r.tied ? '=' : ''}${v}`},
      {key: 'learner', title: 'Learner',
       format: (v, r) => (v == null ? '(hidden)' : `${v}${r.you ? ' (you)' : ''}`)},
      {key: 'score_ms', title: 'Score [interval]', ...num, format: scoreText},
      ...speedupColumns,
      {key: 'attempts', title: 'Attempts', ...num},
      {key: 'last_attempt_unix_ms', title: 'Last attempt', format: when, cls: 'time'},
      {key: 'late', title: 'Late', format: (v) => (v ? 'late' : '')},
      {key: 'submission_id', title: 'Best submission', format: submissionLink},
    ], board.without_counting
      ? `No counting submission yet (${board.without_counting} learners submitted).`
      : 'No submissions yet.');
    renderTable($('submissions-table'), submissionsUrl, submissions, [
      {key: 'submitted_unix_ms', title: 'Submitted', format: when, cls: 'time'},
      {key: 'learner', title: 'Learner', format: text},
      {key: 'submission_id', title: 'Submission', format: submissionLink},
      {key: 'kernel', title: 'Kernel', format: text},
      {key: 'late', title: 'Late', format: (v, r) =>
        [v ? 'late' : '', r.rerun_of ? `re-run of ${r.rerun_of}` : ''].filter(Boolean).join(', ')},
      {key: 'score_ms', title: 'Score [interval]', ...num, format: scoreText},
      {key: 'devices', title: 'Measured on', format: text},
      {key: 'why_not', title: 'Does not count because', format: text},
    ], 'No submissions yet.');
    kbench.scoresChart($('scores-chart'), submissions.rows.filter((r) => !r.rerun_of));

    try {
      const rosterUrl = '/api/assignments/roster';
      const roster = await getJson(rosterUrl);
      const columns = [{key: 'learner', title: 'Learner', format: text}];
      for (const column of roster.columns.slice(1)) {
        columns.push({key: column, title: column, format: (v, r) => {
          const d = roster.details[r.learner][column];
          if (d.standing === 'counting') return `#${d.rank} ${kbench.ms(d.score_ms)}`;
          if (d.standing === 'failing') return `failing (${d.attempts})`;
          return '—';
        }});
      }
      renderTable($('roster-table'), rosterUrl, roster, columns,
                  'No learners in the cohort yet.');
      const stuck = [];
      for (const [learner, cells] of Object.entries(roster.details)) {
        const d = cells[name];
        if (d && d.standing === 'failing') stuck.push(`${learner} (${d.attempts} attempt${d.attempts === 1 ? '' : 's'}): ${d.why_not}`);
      }
      const list = document.createElement('ul');
      list.replaceChildren(...stuck.map((line) => {
        const li = document.createElement('li');
        li.textContent = line;
        return li;
      }));
      $('stuck-list').replaceChildren(stuck.length ? list : kbench.note('No one is stuck.'));
    } catch (error) {
      if (!(error instanceof Forbidden)) throw error;
      $('roster-table').replaceChildren(kbench.note(
          'The roster is for your instructor; your own submissions are listed below.'));
      $('stuck-list').replaceChildren(kbench.note('—'));
    }
    document.body.dataset.ready = 'course';
  }

  // The lines of `after` against `before`: each {kind: same|added|removed,
  // line}, from their longest common subsequence (sources are at most a
  // few thousand lines; beyond that the source is shown without a diff).
  kbench.lineDiff = function (before, after) {
    const a = before.split('\n'), b = after.split('\n');
    if (a.length * b.length > 4e6) return null;
    const lcs = Array.from({length: a.length + 1}, () => new Uint32Array(b.length + 1));
    for (let i = a.length - 1; i >= 0; --i)
      for (let j = b.length - 1; j >= 0; --j)
        lcs[i][j] = a[i] === b[j] ? lcs[i + 1][j + 1] + 1 : Math.max(lcs[i + 1][j], lcs[i][j + 1]);
    const lines = [];
    let i = 0, j = 0;
    while (i < a.length || j < b.length) {
      if (i < a.length && j < b.length && a[i] === b[j]) {
        lines.push({kind: 'same', line: a[i]}); ++i; ++j;
      } else if (i < a.length && (j === b.length || lcs[i + 1][j] >= lcs[i][j + 1])) {
        lines.push({kind: 'removed', line: a[i++]});
      } else {
        lines.push({kind: 'added', line: b[j++]});
      }
    }
    return lines;
  };

  async function showSubmission(id) {
    const data = await getJson(api('/api/assignments/submission', {id}));
    const report = data.report;
    const s = report.submission;
    $('submission-back').href = `#course/${encodeURIComponent(s.assignment)}`;
    $('submission-summary').textContent =
        `${s.submission_id} · ${s.assignment} · ${s.user || '(local)'} · ` +
        `${kbench.time(Number(s.submitted_unix_ms))}${s.late ? ' (late)' : ''} · ` +
        `kernel ${s.kernel.name} · measured on ${(report.devices || []).join(', ') || '—'}`;
    $('submission-verdict').textContent = report.counts
      ? `Counts: score ${kbench.ms(report.score_ms)} [${kbench.num(report.score_ci_low_ms, 4)}–` +
        `${kbench.num(report.score_ci_high_ms, 4)}]; ` +
        (report.speedups || []).map((x) => `${kbench.num(x.speedup)}x vs ${x.baseline}`).join(', ')
      : `Does not count: ${report.why_not}`;
    $('submission-verdict').className = report.counts ? 'healthy' : 'unhealthy';
    const rows = (report.problems || []).map((p, i) => {
      const stats = (p.result && p.result.stats) || {};
      const speedups = (p.speedups || []).map(
          (x) => `${kbench.num(x.speedup)}x vs ${x.baseline}`).join(', ');
      return {
        index: i + 1, problem: p.problem, dtype: p.dtype, median_ms: stats.median_ms,
        speedups,
        verified: !p.error && stats.median_ms > 0, error: p.error || (p.run_id ? '' : 'not run'),
        config: p.result ? p.result.config : '', run_id: p.run_id,
      };
    });
    renderTable($('problems-table'), api('/api/assignments/submission', {id}), {rows}, [
      {key: 'index', title: '#', ...num},
      {key: 'problem', title: 'Problem', format: text}, {key: 'dtype', title: 'Dtype', format: text},
      {key: 'median_ms', title: 'Median', ...num, format: (v) => kbench.ms(v)},
      {key: 'speedups', title: 'Speedup', ...num, format: text},
      {key: 'error', title: 'Verified', format: (v, r) => (r.verified ? 'yes' : v || 'NO')},
      {key: 'run_id', title: 'Run', format: text},
    ], 'No problems.');
    // A report is JSON only: its table has no CSV.
    $('problems-table').querySelector('a.csv').remove();
    const compiled = (report.problems || []).map((p) => p.result && p.result.compile)
                                            .find(Boolean);
    $('compile-facts').textContent = compiled
      ? `Compiled for ${compiled.arch}: ${compiled.registers_per_thread || 0} registers per ` +
        `thread, spills ${compiled.spill_store_bytes || 0} B stored / ` +
        `${compiled.spill_load_bytes || 0} B loaded, ` +
        `${compiled.static_shared_memory_bytes || 0} B static shared memory, ` +
        `${compiled.local_memory_bytes || 0} B local memory per thread` +
        (compiled.log ? '; the compiler said:' : '; the compiler said nothing.')
      : 'No run of it compiled yet.';
    $('compile-log').hidden = !(compiled && compiled.log);
    $('compile-log').textContent = compiled ? compiled.log || '' : '';
    const source = s.kernel.source ? atob(s.kernel.source) : '';
    const pre = $('submission-source');
    const diff = data.previous ? kbench.lineDiff(data.previous.source, source) : null;
    if (diff) {
      $('diff-caption').textContent = `(changes since ${data.previous.submission_id}, ` +
          `${kbench.time(data.previous.submitted_unix_ms)})`;
      pre.replaceChildren(...diff.map((d) => {
        const span = document.createElement('span');
        span.className = d.kind;
        span.textContent = (d.kind === 'added' ? '+ ' : d.kind === 'removed' ? '- ' : '  ') + d.line;
        return span;
      }));
    } else {
      $('diff-caption').textContent = data.previous ? '' : '(the learner\'s first submission)';
      pre.textContent = source;
    }
    document.body.dataset.ready = 'submission';
  }

  async function showAssignment(label) {
    const labels = await getJson('/api/labels');
    // Runs without a label belong to no assignment (the learner view has them).
    const names = labels.rows.map((r) => r.label).filter((name) => name !== '');
    if (names.length === 0) {
      $('label-summary').textContent = 'No labelled runs stored yet.';
      document.body.dataset.ready = 'assignment';  // drawn, empty
      return;
    }
    if (label === undefined || !names.includes(label)) label = names[0];
    fillSelect($('label-select'), names, label);
    const info = labels.rows.find((r) => r.label === label);
    $('label-summary').textContent = `${info.runs} runs by ${info.learners} learners · ` +
        `${info.ok} verified · ${info.failed_verification} failed verification · ` +
        `last ${kbench.time(info.last_unix_ms)}`;

    const urls = ['best', 'speedups', 'throughput', 'failures'].map(
        (table) => api(`/api/assignment/${table}`, {label}));
    const [best, speedups, points, failures] = await Promise.all(urls.map(getJson));
    renderTable($('best-table'), urls[0], best, [
      {key: 'learner', title: 'Learner', format: learnerLink},
      {key: 'op', title: 'Op', format: text}, {key: 'problem', title: 'Problem', format: text},
      {key: 'dtype', title: 'Dtype', format: text}, {key: 'variant', title: 'Variant', format: text},
      {key: 'median_ms', title: 'Median', ...num, format: (v) => kbench.ms(v)},
      {key: 'throughput', title: 'Throughput', ...num,
       format: (v, r) => `${kbench.num(v)} ${r.unit}`},
      {key: 'percent_of_ceiling', title: '% of ceiling', ...num, format: percent},
      {key: 'attempts', title: 'Verified runs', ...num},
      {key: 'accepted_unix_ms', title: 'When', format: when, cls: 'time'},
    ], 'No verified results for this assignment yet.');
    renderTable($('speedups-table'), urls[1], speedups, [
      {key: 'learner', title: 'Learner', format: learnerLink},
      {key: 'problem', title: 'Problem', format: text}, {key: 'dtype', title: 'Dtype', format: text},
      {key: 'variant', title: 'Variant', format: text},
      {key: 'baseline', title: 'Baseline', format: text},
      {key: 'speedup', title: 'Speedup', ...num, format: (v) => `${kbench.num(v)}x`},
      {key: 'ci_low', title: 'Interval (confidence)', ...num,
       format: (v, r) => r.ci_confidence > 0
         ? `${kbench.num(r.ci_low)}–${kbench.num(r.ci_high)} (${Math.round(r.ci_confidence * 100)}%)`
         : `none (${r.rounds} rounds)`},
      {key: 'verdict', title: 'Verdict', format: text},
    ], 'No speedups: no run of this assignment verified every variant.');
    renderTable($('failures-table'), urls[3], failures, [
      {key: 'learner', title: 'Learner', format: learnerLink},
      {key: 'accepted_unix_ms', title: 'When', format: when, cls: 'time'},
      {key: 'problem', title: 'Problem', format: text}, {key: 'dtype', title: 'Dtype', format: text},
      {key: 'variant', title: 'Variant', format: text},
      {key: 'rel_l2_error', title: 'Rel. L2 error', ...num},
      {key: 'tolerance', title: 'Tolerance', ...num},
      {key: 'max_abs_error', title: 'Max abs error', ...num},
      {key: 'non_finite', title: 'Non-finite', ...num},
      {key: 'run_id', title: 'Run', format: text},
    ], 'No failed verifications.');
    kbench.speedupHistogram($('speedup-chart'), speedups.rows);
    kbench.rooflineCharts($('roofline-charts'), points.rows);
    document.body.dataset.ready = 'assignment';
  }

  async function showLearner(learner) {
    const learners = await getJson('/api/learners');
    const names = learners.rows.map((r) => r.learner);
    if (names.length === 0) {
      $('learner-summary').textContent = 'No runs stored yet.';
      document.body.dataset.ready = 'learner';  // drawn, empty
      return;
    }
    if (learner === undefined || !names.includes(learner)) learner = names[0];
    fillSelect($('learner-select'), names, learner);
    const info = learners.rows.find((r) => r.learner === learner);
    $('learner-summary').textContent = `${info.runs} runs in ${info.labels} assignments · ` +
        `${info.ok} verified · ${info.failed_verification} failed verification · ` +
        `last ${kbench.time(info.last_unix_ms)}`;
    const url = api('/api/learner', {learner});
    const history = await getJson(url);
    renderTable($('history-table'), url, history, [
      {key: 'accepted_unix_ms', title: 'When', format: when, cls: 'time'},
      {key: 'label', title: 'Assignment', format: text}, {key: 'op', title: 'Op', format: text},
      {key: 'problem', title: 'Problem', format: text}, {key: 'dtype', title: 'Dtype', format: text},
      {key: 'status', title: 'Status', format: text},
      {key: 'variant', title: 'Variant', format: text},
      {key: 'median_ms', title: 'Median', ...num, format: (v) => kbench.ms(v)},
      {key: 'throughput', title: 'Throughput', ...num,
       format: (v, r) => (v == null ? '' : `${kbench.num(v)} ${r.unit}`)},
      {key: 'percent_of_ceiling', title: '% of ceiling', ...num, format: percent},
      {key: 'verified', title: 'Verified',
       format: (v, r) => (r.variant ? (v ? 'yes' : 'NO') : '')},
      {key: 'error', title: 'Error', format: text},
    ], 'No runs.');
    const overCeiling = kbench.historyChart($('history-chart'), history.rows);
    // The CLI's caveat: a ceiling is measured once, at start-up, for one
    // access pattern; a result above it (cache-resident data, another
    // clock) is real but is not "more than the hardware can do".
    $('history-note').textContent = overCeiling
      ? 'Some results are above 100% of the ceiling: the ceiling was measured once at ' +
        'start-up for one access pattern, and data that stays in cache or a higher clock ' +
        'can beat it.'
      : '';
    document.body.dataset.ready = 'learner';
  }

  async function refreshLive() {
    const runsUrl = '/api/live/runs';
    const devicesUrl = '/api/live/devices';
    const [live, devices, runs] = await Promise.all(
        [getJson('/api/live'), getJson(devicesUrl), getJson(runsUrl)]);
    $('live-summary').textContent = `${live.running} running · ${live.queued} queued · ` +
        `${live.devices} device${live.devices === 1 ? '' : 's'} (${live.backend})`;
    $('live-updated').textContent = new Date(live.now_unix_ms).toLocaleTimeString();
    renderTable($('devices-table'), devicesUrl, devices, [
      {key: 'index', title: '#', ...num}, {key: 'name', title: 'Device', format: text},
      {key: 'backend', title: 'Backend', format: text},
      {key: 'healthy', title: 'Health', format: (v) => {
        const span = document.createElement('span');
        span.className = v ? 'healthy' : 'unhealthy';
        span.textContent = v ? 'healthy' : 'UNHEALTHY';
        return span;
      }},
      {key: 'last_sm_clock_mhz', title: 'Last SM clock MHz', ...num,
       format: (v, r) => (v == null ? 'not read' : `${kbench.num(v, 4)}` +
                                                    (r.last_throttled ? ' (throttled)' : ''))},
      {key: 'max_sm_clock_mhz', title: 'Peak SM clock MHz', ...num, format: measured},
      {key: 'copy_bandwidth_gbps', title: 'Copy GB/s (ceiling)', ...num, format: measured},
      {key: 'matmul_tflops', title: 'Matmul TFLOP/s (ceiling)', ...num, format: measured},
    ], 'The server reports no devices.');
    const now = live.now_unix_ms;
    renderTable($('live-runs-table'), runsUrl, runs, [
      {key: 'state', title: 'State', format: text},
      {key: 'position', title: 'Queue position', ...num},
      {key: 'learner', title: 'Learner', format: learnerLink},
      {key: 'label', title: 'Assignment', format: text}, {key: 'op', title: 'Op', format: text},
      {key: 'device', title: 'Device', ...num},
      {key: 'accepted_unix_ms', title: 'Waiting / running for', ...num,
       format: (v, r) => kbench.duration(now - (r.started_unix_ms || v))},
      {key: 'run_id', title: 'Run', format: text},
    ], 'Nothing queued or running.');
    document.body.dataset.ready = 'live';
  }

  function show(view) {
    for (const name of ['course', 'submission', 'assignment', 'learner', 'live']) {
      $(`view-${name}`).hidden = name !== view;
      // A submission belongs to the course view's tab.
      document.querySelector(`nav a[data-view="${name}"]`)
          ?.classList.toggle('active', name === view || (name === 'course' && view === 'submission'));
    }
  }

  function route() {
    const [view, arg] = location.hash.replace(/^#/, '').split('/');
    const value = arg === undefined ? undefined : decodeURIComponent(arg);
    clearInterval(liveTimer);
    delete document.body.dataset.ready;
    const fail = (error) => {
      if (!(error instanceof NeedsToken)) kbench.reportError(error.message);
    };
    if (view === 'live') {
      show('live');
      refreshLive().catch(fail);
      liveTimer = setInterval(() => refreshLive().catch(fail), liveRefreshMs);
    } else if (view === 'learner') {
      show('learner');
      showLearner(value).catch(fail);
    } else if (view === 'assignment') {
      show('assignment');
      showAssignment(value).catch(fail);
    } else if (view === 'submission') {
      show('submission');
      showSubmission(value).catch(fail);
    } else {
      show('course');
      showCourse(value).catch(fail);
    }
  }

  async function serverLine() {
    const live = await getJson('/api/live');
    $('server-line').textContent = `kbench-server ${live.version} · ${live.backend} · ` +
        `${live.running} running · ${live.queued} queued`;
    // A server without authentication has no users to sign in as.
    $('signed-in').hidden = !live.user;
    $('signed-in-as').textContent = live.user ? `${live.user} (${live.role})` : '';
  }

  $('sign-out').addEventListener('click', () => {
    sessionStorage.removeItem(tokenKey);
    location.reload();
  });

  $('course-select').addEventListener('change', (e) => {
    location.hash = `course/${encodeURIComponent(e.target.value)}`;
  });
  $('label-select').addEventListener('change', (e) => {
    location.hash = `assignment/${encodeURIComponent(e.target.value)}`;
  });
  $('learner-select').addEventListener('change', (e) => {
    location.hash = `learner/${encodeURIComponent(e.target.value)}`;
  });
  $('login-box').addEventListener('submit', (e) => {
    e.preventDefault();
    sessionStorage.setItem(tokenKey, $('token-input').value.trim());
    $('token-input').value = '';
    $('login-box').hidden = true;
    start();
  });
  window.addEventListener('hashchange', route);

  let serverLineTimer = null;
  function start() {
    // The header's running and queued counts stay live on every view.
    const refreshServerLine = () => serverLine().catch((error) => {
      if (!(error instanceof NeedsToken)) kbench.reportError(error.message);
    });
    refreshServerLine();
    clearInterval(serverLineTimer);
    serverLineTimer = setInterval(refreshServerLine, liveRefreshMs);
    route();
  }
  start();
})();
