// The report page's own parts, as text the report inlines: its style sheet and its script. The
// script is plain DOM code run in the reader's browser (no module, no build step): it reads the data
// block, draws the charts with the inlined Chart.js, fills the sortable tables and paints each
// decision timeline, and says `document.body.dataset.ready = 'true'` when done (or sets
// `dataset.error`). Every string from the data reaches the DOM through textContent, setAttribute or
// canvas text.

export const REPORT_STYLE = `
:root { --ink: #1f2430; --muted: #5d6577; --line: #e2e5eb; --card: #ffffff; --page: #f5f6f8; --accent: #3b6fb6; }
* { box-sizing: border-box; }
body { margin: 0; background: var(--page); color: var(--ink); font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif; }
main { max-width: 1240px; margin: 0 auto; padding: 24px 20px 48px; }
h1 { font-size: 22px; margin: 0 0 4px; }
h2 { font-size: 16px; margin: 0 0 10px; }
h3 { font-size: 13px; margin: 0; font-weight: 600; }
.sub { color: var(--muted); margin: 0 0 16px; }
.card { background: var(--card); border: 1px solid var(--line); border-radius: 8px; padding: 14px 16px; margin: 0 0 16px; }
.facts { display: flex; flex-wrap: wrap; gap: 8px 28px; margin: 0; }
.facts div { min-width: 120px; }
.facts dt { color: var(--muted); font-size: 12px; text-transform: uppercase; letter-spacing: .04em; }
.facts dd { margin: 2px 0 0; font-size: 15px; }
.agents { list-style: none; margin: 0; padding: 0; }
.agents li { margin: 2px 0; }
code { font: 12px ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; background: #f0f2f5; border-radius: 4px; padding: 1px 5px; }
.grid { display: grid; grid-template-columns: 1fr 1fr; gap: 16px; margin: 0 0 16px; }
.grid .card { margin: 0; }
.chart { position: relative; height: 290px; }
.note { color: var(--muted); font-size: 12px; margin: 6px 0 0; }
.scroll { overflow-x: auto; }
table { border-collapse: collapse; width: 100%; font-size: 12px; }
th, td { padding: 5px 7px; border-bottom: 1px solid var(--line); text-align: left; white-space: nowrap; }
th { color: var(--muted); font-weight: 600; cursor: pointer; user-select: none; background: var(--card); white-space: normal; vertical-align: bottom; line-height: 1.2; }
th[data-numeric] { text-align: right; }
th:hover { color: var(--ink); }
th[aria-sort="ascending"]::after { content: " \\25B2"; font-size: 9px; }
th[aria-sort="descending"]::after { content: " \\25BC"; font-size: 9px; }
td.num { text-align: right; font-variant-numeric: tabular-nums; }
tbody tr:nth-child(even) { background: #fafbfc; }
.ci { color: var(--muted); font-size: 10.5px; display: block; }
.legend { display: flex; flex-wrap: wrap; gap: 14px; color: var(--muted); font-size: 12px; margin: 0 0 10px; }
.swatch { display: inline-block; width: 10px; height: 10px; border-radius: 2px; margin-right: 5px; vertical-align: -1px; }
.timeline { border-top: 1px solid var(--line); padding: 10px 0 6px; }
.timeline header { display: flex; gap: 12px; align-items: baseline; flex-wrap: wrap; margin: 0 0 4px; }
.timeline .meta { color: var(--muted); font-size: 12px; }
.ok { color: #2f7d44; } .bad { color: #b8322f; }
a { color: var(--accent); }
.tip { position: fixed; pointer-events: none; background: #1f2430; color: #fff; font-size: 12px; padding: 4px 8px; border-radius: 4px; white-space: pre; z-index: 10; }
.error { background: #fdecea; color: #8a1f1b; border: 1px solid #f3c2bd; border-radius: 6px; padding: 10px 14px; }
@media (max-width: 900px) { .grid { grid-template-columns: 1fr; } }
`;

// The page's script: plain DOM code, no template literals (this is one), data only through
// textContent, setAttribute and canvas text.
export const REPORT_SCRIPT = String.raw`
(function () {
  'use strict';
  var PALETTE = ['#4e79a7', '#f28e2b', '#59a14f', '#e15759', '#76b7b2', '#edc948', '#b07aa1', '#ff9da7', '#9c755f', '#bab0ac'];
  var REFUSED = '#d62f2b';
  var CALLED = '#4e79a7';
  var DECIDED = '#59a14f';

  function fail(error) {
    var message = error && error.message ? error.message : String(error);
    document.body.dataset.error = message;
    var box = document.getElementById('error');
    if (box) { box.hidden = false; box.textContent = 'The report could not be drawn: ' + message; }
  }
  window.addEventListener('error', function (event) { fail(event.error || event.message); });

  function el(tag, attrs, children) {
    var node = document.createElement(tag);
    if (attrs) for (var key in attrs) if (attrs[key] !== undefined && attrs[key] !== null) node.setAttribute(key, String(attrs[key]));
    if (children !== undefined) append(node, children);
    return node;
  }
  function append(node, children) {
    (Array.isArray(children) ? children : [children]).forEach(function (child) {
      if (child === undefined || child === null || child === false) return;
      node.appendChild(typeof child === 'string' || typeof child === 'number' ? document.createTextNode(String(child)) : child);
    });
    return node;
  }
  function alpha(hex, a) {
    var n = parseInt(hex.slice(1), 16);
    return 'rgba(' + (n >> 16) + ',' + ((n >> 8) & 255) + ',' + (n & 255) + ',' + a + ')';
  }
  function pct(x) { return (x * 100).toFixed(1) + '%'; }
  function fixed(x, digits) { return x.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits }); }
  function whole(x) { return Math.round(x).toLocaleString('en-US'); }
  function usd(x) {
    if (x === 0) return '$0';
    if (Math.abs(x) >= 1) return '$' + fixed(x, 2);
    return '$' + x.toPrecision(3);
  }
  function ms(x) { return x >= 1000 ? fixed(x / 1000, 2) + ' s' : fixed(x, x < 10 ? 1 : 0) + ' ms'; }
  function signed(text, x) { return (x > 0 ? '+' : '') + text; }
  function paramsText(params) {
    var keys = Object.keys(params || {}).sort();
    if (keys.length === 0) return 'defaults';
    return keys.map(function (key) { var v = params[key]; return key + '=' + (typeof v === 'string' ? v : JSON.stringify(v)); }).join(', ');
  }
  function paramsKey(params) {
    return JSON.stringify(Object.keys(params || {}).sort().map(function (key) { return [key, params[key]]; }));
  }

  var data = JSON.parse(document.getElementById('data').textContent);
  var root = document.getElementById('report');
  var rows = data.rows;
  var agentNames = data.agents.map(function (a) { return a.name; });
  rows.forEach(function (row) { if (agentNames.indexOf(row.agent) < 0) agentNames.push(row.agent); });
  var combos = [];
  rows.forEach(function (row) {
    var key = paramsKey(row.params);
    if (!combos.some(function (c) { return c.key === key; })) combos.push({ key: key, params: row.params, text: paramsText(row.params) });
  });
  var several = combos.length > 1;
  function rowFor(agent, combo) {
    for (var i = 0; i < rows.length; i++) if (rows[i].agent === agent && paramsKey(rows[i].params) === combo.key) return i;
    return -1;
  }
  function rowLabel(row) { return several ? row.agent + ' · ' + paramsText(row.params) : row.agent; }
  function agentColor(name) { var i = agentNames.indexOf(name); return PALETTE[(i < 0 ? 0 : i) % PALETTE.length]; }

  function header() {
    var agents = el('ul', { class: 'agents' }, data.agents.map(function (a) {
      return el('li', { 'data-agent': a.name }, [el('strong', null, a.name), ' ', el('code', null, a.spec)]);
    }));
    var facts = el('dl', { class: 'facts' }, [
      el('div', null, [el('dt', null, 'world'), el('dd', { id: 'world' }, data.world)]),
      el('div', null, [el('dt', null, 'episodes'), el('dd', { id: 'episodes', 'data-value': data.episodes }, whole(data.episodes))]),
      el('div', null, [el('dt', null, 'params'), el('dd', null, combos.length ? combos.map(function (c) { return c.text; }).join(' | ') : '—')]),
      el('div', null, [el('dt', null, 'agents'), el('dd', null, agents)]),
    ]);
    append(root, [el('h1', null, data.title), el('p', { class: 'sub' }, 'Agent evaluation report · success with Wilson 95% intervals, cost, latency and rule-breaking per agent and params'), el('section', { class: 'card' }, facts)]);
  }

  function chartCard(id, title, note) {
    var canvas = el('canvas', { id: id, role: 'img', 'aria-label': title });
    var card = el('section', { class: 'card' }, [el('h2', null, title), el('div', { class: 'chart' }, canvas)]);
    if (note) append(card, el('p', { class: 'note' }, note));
    return { card: card, canvas: canvas };
  }

  var charts = [];
  function makeChart(canvas, config) {
    config.options = Object.assign({ responsive: true, maintainAspectRatio: false, animation: false }, config.options || {});
    charts.push(new Chart(canvas, config));
  }

  function successChart(grid) {
    var c = chartCard('chart-success', 'Success rate by agent (95% interval)');
    grid.appendChild(c.card);
    var datasets = combos.map(function (combo, ci) {
      return {
        label: several ? combo.text : 'success',
        data: agentNames.map(function (agent) {
          var i = rowFor(agent, combo);
          if (i < 0) return { y: NaN, yMin: NaN, yMax: NaN };
          var s = rows[i].success;
          return { y: s.mean * 100, yMin: s.low * 100, yMax: s.high * 100 };
        }),
        backgroundColor: several ? alpha(PALETTE[ci % PALETTE.length], 0.75) : agentNames.map(function (a) { return alpha(agentColor(a), 0.75); }),
        borderColor: several ? PALETTE[ci % PALETTE.length] : agentNames.map(agentColor),
        borderWidth: 1,
        errorBarColor: '#333',
        errorBarWhiskerColor: '#333',
        errorBarWhiskerSize: 12,
      };
    });
    makeChart(c.canvas, {
      type: 'barWithErrorBars',
      data: { labels: agentNames, datasets: datasets },
      options: {
        plugins: {
          legend: { display: several },
          tooltip: { callbacks: { label: function (item) {
            var v = item.raw;
            return (several ? item.dataset.label + ': ' : '') + v.y.toFixed(1) + '% (95% interval ' + v.yMin.toFixed(1) + '–' + v.yMax.toFixed(1) + '%)';
          } } },
        },
        scales: { y: { min: 0, max: 100, title: { display: true, text: 'success rate (%)' } } },
      },
    });
  }

  var pointLabels = {
    id: 'pointLabels',
    afterDatasetsDraw: function (chart) {
      var ctx = chart.ctx;
      ctx.save();
      ctx.font = '11px system-ui, sans-serif';
      ctx.fillStyle = '#1f2430';
      ctx.textBaseline = 'middle';
      chart.data.datasets.forEach(function (dataset, d) {
        var meta = chart.getDatasetMeta(d);
        if (meta.hidden) return;
        meta.data.forEach(function (point, p) {
          var label = dataset.data[p].label;
          if (!label) return;
          var width = ctx.measureText(label).width;
          var right = point.x + 8 + width > chart.chartArea.right;
          ctx.textAlign = right ? 'right' : 'left';
          ctx.fillText(label, right ? point.x - 8 : point.x + 8, point.y);
        });
      });
      ctx.restore();
    },
  };

  function costChart(grid) {
    var c = chartCard('chart-cost', 'Cost per episode against success rate');
    grid.appendChild(c.card);
    var datasets = agentNames.map(function (agent) {
      var mine = rows.filter(function (row) { return row.agent === agent; });
      return {
        label: agent,
        data: mine.map(function (row) {
          return { x: row.costPerEpisode, y: row.success.mean * 100, yMin: row.success.low * 100, yMax: row.success.high * 100, label: rowLabel(row) };
        }),
        backgroundColor: agentColor(agent),
        borderColor: agentColor(agent),
        errorBarColor: alpha(agentColor(agent), 0.6),
        errorBarWhiskerColor: alpha(agentColor(agent), 0.6),
        pointRadius: 5,
        pointHoverRadius: 7,
      };
    }).filter(function (dataset) { return dataset.data.length > 0; });
    makeChart(c.canvas, {
      type: 'scatterWithErrorBars',
      data: { datasets: datasets },
      plugins: [pointLabels],
      options: {
        layout: { padding: { right: 12 } },
        plugins: {
          legend: { display: false },
          tooltip: { callbacks: { label: function (item) { var v = item.raw; return v.label + ': ' + usd(v.x) + ' per episode, ' + v.y.toFixed(1) + '% success'; } } },
        },
        scales: {
          x: { type: 'linear', beginAtZero: true, title: { display: true, text: 'cost per episode (USD)' }, ticks: { callback: function (v) { return usd(v); } } },
          y: { min: 0, max: 100, title: { display: true, text: 'success rate (%)' } },
        },
      },
    });
  }

  function latencyChart(grid) {
    var none = agentNames.filter(function (agent) {
      return !rows.some(function (row, i) { return row.agent === agent && data.latency.samples[i].length > 0; });
    });
    var capped = rows.map(function (row, i) { return { row: row, n: data.latency.samples[i].length, total: data.latency.totals[i] }; })
      .filter(function (x) { return x.total > x.n; });
    var notes = [];
    if (none.length) notes.push('No decisions: ' + none.join(', ') + ' (a policy decides without a measured model turn).');
    if (capped.length) notes.push('Samples capped at ' + whole(data.latency.cap) + ' per row, taken evenly: ' + capped.map(function (x) { return rowLabel(x.row) + ' ' + whole(x.n) + ' of ' + whole(x.total); }).join('; ') + '.');
    var c = chartCard('chart-latency', 'Decision latency per agent (wall ms)', notes.join(' '));
    c.card.setAttribute('data-capped', capped.length > 0 ? 'true' : 'false');
    grid.appendChild(c.card);
    var labels = agentNames.map(function (agent) { return none.indexOf(agent) >= 0 ? agent + ' (no decisions)' : agent; });
    var datasets = combos.map(function (combo, ci) {
      var color = several ? PALETTE[ci % PALETTE.length] : null;
      return {
        label: several ? combo.text : 'decision ms',
        data: agentNames.map(function (agent) { var i = rowFor(agent, combo); return i < 0 ? [] : data.latency.samples[i]; }),
        backgroundColor: color ? alpha(color, 0.35) : agentNames.map(function (a) { return alpha(agentColor(a), 0.35); }),
        borderColor: color || agentNames.map(agentColor),
        borderWidth: 1,
        outlierRadius: 2,
        itemRadius: 0,
        coef: 1.5,
      };
    });
    makeChart(c.canvas, {
      type: 'boxplot',
      data: { labels: labels, datasets: datasets },
      options: {
        plugins: { legend: { display: several } },
        scales: { y: { beginAtZero: true, title: { display: true, text: 'decision wall time (ms)' } } },
      },
    });
  }

  function rulesChart(grid) {
    var codes = [];
    rows.forEach(function (row) { Object.keys(row.refusalsByCode || {}).forEach(function (code) { if (codes.indexOf(code) < 0) codes.push(code); }); });
    codes.sort();
    var c = chartCard('chart-rules', 'Rule-breaking: refusals per 100 calls, by code', codes.length ? null : 'No refusals in any episode.');
    grid.appendChild(c.card);
    // Each row's codes in proportion, scaled to its refusals per 100 calls.
    var datasets = codes.map(function (code, k) {
      return {
        label: code,
        data: rows.map(function (row) {
          var byCode = row.refusalsByCode || {};
          var sum = 0;
          for (var key in byCode) sum += byCode[key];
          return sum > 0 ? (row.refusalsPer100 * (byCode[code] || 0)) / sum : 0;
        }),
        backgroundColor: alpha(PALETTE[(k + 3) % PALETTE.length], 0.8),
        stack: 'refusals',
      };
    });
    if (datasets.length === 0) datasets.push({ label: 'refusals', data: rows.map(function () { return 0; }), backgroundColor: '#ccc' });
    makeChart(c.canvas, {
      type: 'bar',
      data: { labels: rows.map(rowLabel), datasets: datasets },
      options: {
        plugins: { tooltip: { callbacks: { label: function (item) { return item.dataset.label + ': ' + item.raw.toFixed(2) + ' per 100 calls'; } } } },
        scales: { x: { stacked: true }, y: { stacked: true, beginAtZero: true, title: { display: true, text: 'refusals per 100 calls' } } },
      },
    });
  }

  // A table whose header cells sort it: by data-value as numbers where the column has them, else by text; empty cells last.
  function sortableTable(id, columns, items) {
    var head = el('tr', null, columns.map(function (col, c) { return el('th', { 'data-col': col.key, title: col.title || null, scope: 'col', 'data-index': c, 'data-numeric': col.numeric ? '' : null }, col.label); }));
    var body = el('tbody');
    items.forEach(function (item, r) {
      body.appendChild(el('tr', { 'data-row': r }, columns.map(function (col) {
        var cell = col.cell(item);
        var td = el('td', { 'data-col': col.key, class: col.numeric ? 'num' : null, title: cell.title || null });
        if (cell.value !== undefined && cell.value !== null && Number.isFinite(cell.value)) td.setAttribute('data-value', String(cell.value));
        append(td, cell.text);
        if (cell.extra) append(td, el('span', { class: 'ci' }, cell.extra));
        return td;
      })));
    });
    var table = el('table', { id: id }, [el('thead', null, head), body]);
    head.addEventListener('click', function (event) {
      var th = event.target.closest('th');
      if (!th) return;
      var c = Number(th.getAttribute('data-index'));
      var descending = th.getAttribute('aria-sort') === 'ascending';
      head.querySelectorAll('th').forEach(function (other) { other.removeAttribute('aria-sort'); });
      th.setAttribute('aria-sort', descending ? 'descending' : 'ascending');
      var numeric = columns[c].numeric;
      var trs = Array.prototype.slice.call(body.children);
      var keyed = trs.map(function (tr, i) {
        var td = tr.children[c];
        var raw = td.getAttribute('data-value');
        return { tr: tr, i: i, value: numeric ? (raw === null ? null : Number(raw)) : td.textContent };
      });
      keyed.sort(function (a, b) {
        if (a.value === null || b.value === null) return a.value === b.value ? a.i - b.i : a.value === null ? 1 : -1;
        var order = numeric ? a.value - b.value : String(a.value).localeCompare(String(b.value));
        return (descending ? -order : order) || a.i - b.i;
      });
      keyed.forEach(function (k) { body.appendChild(k.tr); });
    });
    return table;
  }

  function failuresOf(row) {
    var kinds = Object.keys(row.failures || {}).filter(function (k) { return row.failures[k] > 0; });
    var total = kinds.reduce(function (sum, k) { return sum + row.failures[k]; }, 0);
    return { text: total === 0 ? '0' : kinds.map(function (k) { return k + ' ' + row.failures[k]; }).join(' · '), value: total };
  }

  function rowsTable() {
    var columns = [
      { key: 'agent', label: 'agent', cell: function (r) { return { text: r.agent, title: r.agentSpec }; } },
      { key: 'params', label: 'params', cell: function (r) { return { text: paramsText(r.params) }; } },
      { key: 'episodes', label: 'episodes', numeric: true, cell: function (r) { return { text: whole(r.episodes), value: r.episodes }; } },
      { key: 'success', label: 'success', title: 'success rate [Wilson 95% interval]', numeric: true, cell: function (r) {
        return { text: pct(r.success.mean), extra: '[' + pct(r.success.low) + '–' + pct(r.success.high) + ']', value: r.success.mean };
      } },
      { key: 'score', label: 'score', title: 'score per episode [t 95% interval]', numeric: true, cell: function (r) {
        return { text: fixed(r.score.mean, 2), extra: '[' + fixed(r.score.low, 2) + '–' + fixed(r.score.high, 2) + ']', value: r.score.mean };
      } },
      { key: 'rating', label: 'rating', title: 'Glicko-2 over the shared seeds, each a race ranked by score [± 2 deviations: about 95%]', numeric: true, cell: function (r) {
        return !r.rating ? { text: '—' } : { text: whole(r.rating.value), extra: '±' + whole(2 * r.rating.rd), value: r.rating.value };
      } },
      { key: 'ticksToSuccess', label: 'ticks to success', title: 'mean (median) over successful episodes', numeric: true, cell: function (r) {
        return r.ticksToSuccess === null ? { text: '—' } : { text: fixed(r.ticksToSuccess.mean, 1), extra: '(p50 ' + whole(r.ticksToSuccess.p50) + ')', value: r.ticksToSuccess.mean };
      } },
      { key: 'callsPerEpisode', label: 'calls/ep', numeric: true, cell: function (r) { return { text: fixed(r.callsPerEpisode, 1), value: r.callsPerEpisode }; } },
      { key: 'refusalsPer100', label: 'refusals/100', numeric: true, cell: function (r) { return { text: fixed(r.refusalsPer100, 2), value: r.refusalsPer100 }; } },
      { key: 'p50', label: 'p50 latency', numeric: true, cell: function (r) { return r.latencyMs === null ? { text: '—' } : { text: ms(r.latencyMs.p50), value: r.latencyMs.p50 }; } },
      { key: 'p95', label: 'p95 latency', numeric: true, cell: function (r) { return r.latencyMs === null ? { text: '—' } : { text: ms(r.latencyMs.p95), value: r.latencyMs.p95 }; } },
      { key: 'tokensIn', label: 'tokens in/ep', numeric: true, cell: function (r) { return { text: whole(r.tokensPerEpisode.input), value: r.tokensPerEpisode.input }; } },
      { key: 'tokensOut', label: 'tokens out/ep', numeric: true, cell: function (r) { return { text: whole(r.tokensPerEpisode.output), value: r.tokensPerEpisode.output }; } },
      { key: 'costPerEpisode', label: 'cost/ep', numeric: true, cell: function (r) { return { text: usd(r.costPerEpisode), value: r.costPerEpisode }; } },
      { key: 'costPerSuccess', label: 'cost/success', numeric: true, cell: function (r) { return r.costPerSuccess === null ? { text: '—' } : { text: usd(r.costPerSuccess), value: r.costPerSuccess }; } },
      { key: 'failures', label: 'failures', numeric: true, cell: failuresOf },
      { key: 'verified', label: 'verified', title: 'recordings replayed to the same state hash, of those checked', numeric: true, cell: function (r) {
        var v = r.verified || { checked: 0, matched: 0 };
        return v.checked === 0 ? { text: '—' } : { text: v.matched + '/' + v.checked, value: v.matched / v.checked };
      } },
    ];
    return el('section', { class: 'card' }, [el('h2', null, 'Agents and params'), el('div', { class: 'scroll' }, sortableTable('rows', columns, rows))]);
  }

  function comparisonsTable() {
    var columns = [
      { key: 'params', label: 'params', cell: function (c) { return { text: paramsText(c.params) }; } },
      { key: 'a', label: 'a', cell: function (c) { return { text: c.a }; } },
      { key: 'b', label: 'b', cell: function (c) { return { text: c.b }; } },
      { key: 'successDiff', label: 'success a − b', numeric: true, cell: function (c) { return { text: signed(fixed(c.successDiff * 100, 1) + ' pp', c.successDiff), value: c.successDiff }; } },
      { key: 'cohensH', label: "Cohen's h", numeric: true, cell: function (c) { return { text: signed(fixed(c.cohensH, 2), c.cohensH), value: c.cohensH }; } },
      { key: 'scoreDiff', label: 'score a − b', numeric: true, cell: function (c) { return { text: signed(fixed(c.scoreDiff, 2), c.scoreDiff), value: c.scoreDiff }; } },
      { key: 'cohensD', label: "Cohen's d", numeric: true, cell: function (c) { return { text: signed(fixed(c.cohensD, 2), c.cohensD), value: c.cohensD }; } },
      { key: 'pairedSeeds', label: 'paired seeds', numeric: true, cell: function (c) { return { text: whole(c.pairedSeeds), value: c.pairedSeeds }; } },
      { key: 'aOnly', label: 'a only', title: 'seeds where a succeeded and b did not', numeric: true, cell: function (c) { return { text: whole(c.aOnly), value: c.aOnly }; } },
      { key: 'bOnly', label: 'b only', title: 'seeds where b succeeded and a did not', numeric: true, cell: function (c) { return { text: whole(c.bOnly), value: c.bOnly }; } },
    ];
    var card = el('section', { class: 'card' }, el('h2', null, 'Pairwise comparisons'));
    if (data.comparisons.length === 0) append(card, el('p', { class: 'note' }, 'Nothing to compare: one agent per params.'));
    else append(card, el('div', { class: 'scroll' }, sortableTable('comparisons', columns, data.comparisons)));
    return card;
  }

  // Timelines: one lane per character on the tick axis; calls as marks (refused ones red, taller),
  // decisions as bars under them as wide as their wall time; hovering names what is under the pointer.
  var tip = null;
  var maxDecisionMs = 1;
  data.timelines.forEach(function (t) { t.timeline.decisions.forEach(function (d) { if (d[2] > maxDecisionMs) maxDecisionMs = d[2]; }); });

  function niceStep(span) {
    var raw = span / 8;
    var power = Math.pow(10, Math.floor(Math.log10(Math.max(raw, 1e-9))));
    var steps = [1, 2, 5, 10];
    for (var i = 0; i < steps.length; i++) if (raw <= steps[i] * power) return Math.max(1, steps[i] * power);
    return Math.max(1, 10 * power);
  }

  function drawTimeline(canvas, t) {
    var tl = t.timeline;
    var width = Math.max(480, canvas.parentNode.clientWidth);
    var lanes = Math.max(1, tl.characters.length);
    var LEFT = 120, RIGHT = 24, TOP = 6, LANE = 26, AXIS = 22;
    var height = TOP + lanes * LANE + AXIS;
    var ratio = window.devicePixelRatio || 1;
    canvas.width = Math.round(width * ratio);
    canvas.height = Math.round(height * ratio);
    canvas.style.width = width + 'px';
    canvas.style.height = height + 'px';
    var ctx = canvas.getContext('2d');
    ctx.setTransform(ratio, 0, 0, ratio, 0, 0);
    ctx.clearRect(0, 0, width, height);
    var maxTick = Math.max(1, t.ticks);
    tl.calls.forEach(function (c) { if (c[0] > maxTick) maxTick = c[0]; });
    tl.decisions.forEach(function (d) { if (d[0] > maxTick) maxTick = d[0]; });
    var span = width - LEFT - RIGHT;
    function x(tick) { return LEFT + (tick / maxTick) * span; }
    ctx.font = '11px system-ui, sans-serif';
    ctx.textBaseline = 'middle';
    for (var lane = 0; lane < lanes; lane++) {
      var y0 = TOP + lane * LANE;
      ctx.fillStyle = lane % 2 === 0 ? '#f4f6f9' : '#ffffff';
      ctx.fillRect(LEFT, y0, span, LANE);
      ctx.fillStyle = '#1f2430';
      ctx.textAlign = 'right';
      var name = tl.characters[lane] === undefined ? '?' : tl.characters[lane];
      ctx.fillText(name.length > 16 ? name.slice(0, 15) + '…' : name, LEFT - 8, y0 + LANE / 2);
    }
    var axisY = TOP + lanes * LANE;
    ctx.strokeStyle = '#b8bec9';
    ctx.beginPath(); ctx.moveTo(LEFT, axisY + 0.5); ctx.lineTo(LEFT + span, axisY + 0.5); ctx.stroke();
    ctx.fillStyle = '#5d6577';
    ctx.textAlign = 'center';
    var step = niceStep(maxTick);
    for (var tick = 0; tick <= maxTick; tick += step) {
      var tx = Math.round(x(tick)) + 0.5;
      ctx.beginPath(); ctx.moveTo(tx, axisY); ctx.lineTo(tx, axisY + 4); ctx.stroke();
      ctx.fillText(String(tick), tx, axisY + 13);
    }
    ctx.textAlign = 'right';
    ctx.fillText('tick', LEFT - 8, axisY + 13);
    var marks = [];
    function toolName(i) { return tl.tools[i] === undefined ? '?' : tl.tools[i]; }
    function charName(i) { return tl.characters[i] === undefined ? '?' : tl.characters[i]; }
    tl.decisions.forEach(function (d) {
      var dx = x(d[0]);
      var w = Math.min(Math.max(2, (40 * d[2]) / maxDecisionMs), Math.max(2, LEFT + span - dx));
      var dy = TOP + d[1] * LANE + 16;
      ctx.fillStyle = alpha(DECIDED, 0.75);
      ctx.fillRect(dx, dy, w, 6);
      marks.push({ x0: dx, x1: dx + w, y0: dy - 1, y1: dy + 7, text: 'tick ' + d[0] + ' · ' + charName(d[1]) + ' · decision ' + ms(d[2]) + '\ntokens ' + whole(d[3]) + ' in / ' + whole(d[4]) + ' out' });
    });
    var ordered = tl.calls.filter(function (c) { return !c[3]; }).concat(tl.calls.filter(function (c) { return !!c[3]; }));
    ordered.forEach(function (c) {
      var cx = Math.round(x(c[0]));
      var refused = !!c[3];
      var cy = TOP + c[1] * LANE + (refused ? 3 : 5);
      var h = refused ? 12 : 9;
      ctx.fillStyle = refused ? REFUSED : alpha(CALLED, 0.8);
      ctx.fillRect(cx - 1, cy, refused ? 3 : 2, h);
      marks.push({ x0: cx - 2, x1: cx + 2, y0: cy, y1: cy + h, text: 'tick ' + c[0] + ' · ' + charName(c[1]) + ' · ' + toolName(c[2]) + (refused ? '\nrefused: ' + c[3] : '') });
    });
    canvas._marks = marks;
  }

  function hover(event) {
    var canvas = event.currentTarget;
    var box = canvas.getBoundingClientRect();
    var px = event.clientX - box.left, py = event.clientY - box.top;
    var marks = canvas._marks || [];
    var found = null;
    for (var i = marks.length - 1; i >= 0; i--) {
      var m = marks[i];
      if (px >= m.x0 - 2 && px <= m.x1 + 2 && py >= m.y0 - 2 && py <= m.y1 + 2) { found = m; break; }
    }
    if (!tip) { tip = el('div', { class: 'tip', role: 'tooltip' }); tip.hidden = true; document.body.appendChild(tip); }
    if (!found) { tip.hidden = true; canvas.removeAttribute('title'); return; }
    tip.textContent = found.text;
    tip.hidden = false;
    tip.style.left = event.clientX + 12 + 'px';
    tip.style.top = event.clientY + 12 + 'px';
    canvas.setAttribute('title', found.text);
  }

  function relativeHref(path) {
    if (typeof path !== 'string' || path === '' || /^[a-z][a-z0-9+.-]*:/i.test(path) || path.indexOf('//') === 0) return null;
    return path.split(/[\\/]/).map(function (part) { return part === '.' || part === '..' ? part : encodeURIComponent(part); }).join('/');
  }

  function timelines() {
    var card = el('section', { class: 'card', id: 'timelines' }, el('h2', null, 'Decision timelines'));
    var shown = data.timelines.length;
    append(card, el('p', { class: 'note' }, shown === 0 ? 'No timelines in this report.' : shown + ' of ' + whole(data.episodes) + ' episodes, chosen evenly across agents, each with one lane per character on the tick axis.'));
    if (shown === 0) return { card: card, draw: function () {} };
    append(card, el('div', { class: 'legend' }, [
      el('span', null, [el('span', { class: 'swatch', style: 'background:' + CALLED }), 'call']),
      el('span', null, [el('span', { class: 'swatch', style: 'background:' + REFUSED }), 'refused call (code on hover)']),
      el('span', null, [el('span', { class: 'swatch', style: 'background:' + DECIDED }), 'model decision (width = wall time, longest ' + ms(maxDecisionMs) + '; tokens on hover)']),
    ]));
    var canvases = [];
    data.timelines.forEach(function (t, n) {
      var refused = t.timeline.calls.filter(function (c) { return !!c[3]; }).length;
      var heading = el('header', null, [
        el('h3', null, t.agent + (several ? ' · ' + paramsText(t.params) : '') + ' · seed ' + t.seed),
        el('span', { class: t.success ? 'ok' : 'bad' }, t.success ? 'success' : 'no success'),
        el('span', { class: 'meta' }, whole(t.ticks) + ' ticks · ' + t.stop + ' · ' + t.timeline.calls.length + ' calls, ' + refused + ' refused · ' + t.timeline.decisions.length + ' decisions'),
      ]);
      var href = relativeHref(t.recording);
      if (href) append(heading, el('a', { href: href, class: 'recording' }, 'recording'));
      if (t.failure) append(heading, el('span', { class: 'bad' }, 'agent failure: ' + t.failure));
      if (t.timeline.dropped > 0) append(heading, el('span', { class: 'meta' }, whole(t.timeline.dropped) + ' rows past the bound not shown'));
      var canvas = el('canvas', { id: 'timeline-' + n, 'data-calls': t.timeline.calls.length, 'data-refused': refused, 'data-decisions': t.timeline.decisions.length, role: 'img', 'aria-label': 'timeline of ' + t.agent + ' seed ' + t.seed });
      canvas.addEventListener('mousemove', hover);
      canvas.addEventListener('mouseleave', function () { if (tip) tip.hidden = true; });
      append(card, el('div', { class: 'timeline', 'data-agent': t.agent, 'data-seed': t.seed }, [heading, el('div', null, canvas)]));
      canvases.push({ canvas: canvas, t: t });
    });
    return { card: card, draw: function () { canvases.forEach(function (c) { drawTimeline(c.canvas, c.t); }); } };
  }

  function main() {
    if (typeof Chart === 'undefined') throw new Error('Chart.js did not load');
    Chart.defaults.font.family = 'system-ui, -apple-system, "Segoe UI", Roboto, sans-serif';
    Chart.defaults.color = '#4a5163';
    header();
    var grid = el('div', { class: 'grid' });
    root.appendChild(grid);
    successChart(grid);
    costChart(grid);
    latencyChart(grid);
    rulesChart(grid);
    root.appendChild(rowsTable());
    root.appendChild(comparisonsTable());
    var t = timelines();
    root.appendChild(t.card);
    t.draw();
    var resizing = 0;
    window.addEventListener('resize', function () { clearTimeout(resizing); resizing = setTimeout(t.draw, 150); });
    charts.forEach(function (chart) { chart.resize(); chart.update('none'); });
    requestAnimationFrame(function () { if (!document.body.dataset.error) document.body.dataset.ready = 'true'; });
  }

  try { main(); } catch (error) { fail(error); }
})();
`;
