// The dashboard's charts, drawn with Chart.js 3 from the rows of the /api/
// tables (docs/API.md). Each function replaces the chart it drew before.
'use strict';
window.kbench = window.kbench || {};
(function () {
  const palette = ['#1f77b4', '#ff7f0e', '#2ca02c', '#9467bd', '#8c564b', '#e377c2',
                   '#17becf', '#bcbd22', '#7f7f7f'];
  const failedColor = '#d62728';
  const charts = new Map();

  Chart.defaults.animation = false;
  Chart.defaults.maintainAspectRatio = false;
  Chart.defaults.font.family = 'system-ui, sans-serif';

  // Log-axis tick labels at powers of ten only; the other grid lines stay.
  function decades(value) {
    const mantissa = value / 10 ** Math.floor(Math.log10(value));
    return Math.abs(mantissa - 1) < 1e-9 ? kbench.num(value) : '';
  }

  function draw(canvas, config) {
    if (charts.has(canvas)) charts.get(canvas).destroy();
    charts.set(canvas, new Chart(canvas, config));
  }

  function groupBy(rows, key) {
    const groups = new Map();
    for (const row of rows) {
      const k = key(row);
      if (!groups.has(k)) groups.set(k, []);
      groups.get(k).push(row);
    }
    return groups;
  }

  // Speedup bins: below 1 is slower than the baseline.
  const speedupEdges = [0, 1, 1.5, 2, 3, 4, 6, 8, Infinity];
  function binLabel(i) {
    const lo = speedupEdges[i], hi = speedupEdges[i + 1];
    if (lo === 0) return `< ${hi}x`;
    if (hi === Infinity) return `≥ ${lo}x`;
    return `${lo}–${hi}x`;
  }

  // rows: /api/assignment/speedups rows (each learner's best per problem);
  // one bar series per variant and baseline, counting learner x problem
  // results.
  kbench.speedupHistogram = function (canvas, rows) {
    const labels = speedupEdges.slice(0, -1).map((_, i) => binLabel(i));
    const datasets = [];
    for (const [pair, group] of groupBy(rows, (r) => `${r.variant} vs ${r.baseline}`)) {
      const counts = labels.map(() => 0);
      for (const row of group) {
        const i = speedupEdges.findIndex((edge, j) => row.speedup >= edge &&
                                                      row.speedup < speedupEdges[j + 1]);
        if (i >= 0) counts[i] += 1;
      }
      datasets.push({label: pair, data: counts,
                     backgroundColor: palette[datasets.length % palette.length]});
    }
    draw(canvas, {
      type: 'bar',
      data: {labels, datasets},
      options: {
        scales: {
          x: {stacked: true, title: {display: true, text: 'speedup over the baseline'}},
          y: {stacked: true, beginAtZero: true, ticks: {precision: 0},
              title: {display: true, text: 'results (learner × problem)'}},
        },
      },
    });
  };

  // rows: /api/assignment/throughput rows. One chart per throughput unit:
  // x = work per sample (log), y = achieved throughput, one series per
  // variant, the ceiling as a dashed line.
  kbench.rooflineCharts = function (container, rows) {
    for (const canvas of container.querySelectorAll('canvas')) {
      if (charts.has(canvas)) charts.get(canvas).destroy();
      charts.delete(canvas);
    }
    container.replaceChildren();
    if (rows.length === 0) {
      container.append(kbench.note('No verified results yet.'));
      return;
    }
    for (const [unit, group] of groupBy(rows, (r) => r.unit)) {
      const box = document.createElement('div');
      box.className = 'chart-box';
      const canvas = document.createElement('canvas');
      box.append(canvas);
      container.append(box);
      const workUnit = group[0].work_unit;
      const datasets = [];
      for (const [variant, points] of groupBy(group, (r) => r.variant)) {
        datasets.push({
          type: 'scatter', label: variant,
          data: points.map((r) => ({x: r.work, y: r.throughput, row: r})),
          backgroundColor: palette[datasets.length % palette.length],
        });
      }
      // Half a decade of room either side of the points; the ceiling spans it.
      const xs = group.map((r) => r.work);
      const xMin = Math.min(...xs) / 3, xMax = Math.max(...xs) * 3;
      const ceilings = group.map((r) => r.ceiling).filter((c) => c);
      if (ceilings.length) {
        const ceiling = Math.max(...ceilings);
        datasets.push({
          type: 'line', label: `ceiling ${kbench.num(ceiling)} ${unit}`,
          data: [{x: xMin, y: ceiling}, {x: xMax, y: ceiling}],
          borderColor: failedColor, borderDash: [6, 4], pointRadius: 0, fill: false,
        });
      }
      draw(canvas, {
        type: 'scatter',
        data: {datasets},
        options: {
          scales: {
            x: {type: 'logarithmic', min: xMin, max: xMax, title: {display: true, text: `work per sample (${workUnit}, log)`},
                ticks: {callback: decades}},
            y: {type: 'logarithmic', title: {display: true, text: `achieved ${unit} (log)`},
                ticks: {callback: decades}},
          },
          plugins: {
            tooltip: {callbacks: {label: (item) => {
              const r = item.raw.row;
              return r ? `${r.learner} ${r.variant} ${r.problem}: ${kbench.num(r.throughput)} ${unit}`
                       : item.dataset.label;
            }}},
          },
        },
      });
    }
  };

  // rows: /api/learner rows with a result. x = the problem, in natural
  // order (n=2000 before n=10000), so a sweep reads against its size; y =
  // median time on a log scale (every run has one, with or without a
  // ceiling); one series per assignment and variant; failed verifications
  // red. The tooltip gives % of ceiling where a ceiling exists, with a
  // caveat above 100%. Returns whether any result was above its ceiling.
  kbench.historyChart = function (canvas, rows) {
    const results = rows.filter((r) => r.variant && r.median_ms > 0);
    const natural = new Intl.Collator(undefined, {numeric: true});
    const problems = [...new Set(results.map((r) => r.problem))].sort(natural.compare);
    const point = (r) => ({x: r.problem, y: r.median_ms, row: r});
    const datasets = [];
    for (const [series, points] of groupBy(results.filter((r) => r.verified),
                                           (r) => `${r.label} · ${r.variant}`)) {
      const color = palette[datasets.length % palette.length];
      datasets.push({label: series, showLine: false, data: points.map(point),
                     backgroundColor: color, borderColor: color});
    }
    const failed = results.filter((r) => !r.verified);
    if (failed.length) {
      datasets.push({label: 'failed verification', showLine: false, pointStyle: 'crossRot',
                     pointRadius: 7, data: failed.map(point), borderColor: failedColor,
                     backgroundColor: failedColor});
    }
    const overCeiling = results.some((r) => r.percent_of_ceiling > 100);
    draw(canvas, {
      type: 'line',
      data: {labels: problems, datasets},
      options: {
        scales: {
          x: {type: 'category', title: {display: true, text: 'problem'}},
          y: {type: 'logarithmic', title: {display: true, text: 'median time (ms, log)'},
              ticks: {callback: decades}},
        },
        plugins: {
          tooltip: {callbacks: {label: (item) => {
            const r = item.raw.row;
            let text = `${r.label} ${r.variant} ${r.dtype}: ${kbench.ms(r.median_ms)}, ` +
                       `${kbench.num(r.throughput)} ${r.unit}`;
            if (r.percent_of_ceiling != null) {
              text += `, ${kbench.num(r.percent_of_ceiling)}% of ceiling`;
              if (r.percent_of_ceiling > 100) text += ' (above it: see the note under the chart)';
            }
            return text;
          }}},
        },
      },
    });
    return overCeiling;
  };
  // rows: /api/assignments/submissions rows; one series per learner of
  // the counting submissions' scores (ms, from 0) over their time.
  kbench.scoresChart = function (canvas, rows) {
    const datasets = [];
    for (const [learner, group] of groupBy(rows.filter((r) => r.counts), (r) => r.learner)) {
      const points = group.map((r) => ({x: r.submitted_unix_ms, y: r.score_ms}))
                          .sort((a, b) => a.x - b.x);
      const color = palette[datasets.length % palette.length];
      datasets.push({label: learner, data: points, borderColor: color, backgroundColor: color,
                     showLine: true, pointRadius: 4});
    }
    draw(canvas, {
      type: 'scatter',
      data: {datasets},
      options: {
        scales: {
          x: {title: {display: true, text: 'submitted'},
              ticks: {callback: (v) => kbench.time(v), maxTicksLimit: 5}},
          y: {beginAtZero: true, title: {display: true, text: 'score (ms, lower is better)'}},
        },
        plugins: {tooltip: {callbacks: {
          label: (item) => `${item.dataset.label}: ${kbench.ms(item.parsed.y)} at ` +
                           kbench.time(item.parsed.x)}}},
      },
    });
  };
})();
