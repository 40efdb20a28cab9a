// SPDX-License-Identifier: MIT
// app.js: the trainplan planner page. Plain browser JavaScript, no build
// step, no external code. The page keeps its state in the address bar
// (?model=llama-3-8b&gpus=8&tp=2), sends it to the local server as the
// same flags the CLI takes (POST /api/estimate), and draws the answer.
//
// Requests: at most one in flight; a change made meanwhile is sent as soon
// as the answer comes back, so moving a slider never queues stale work.
'use strict';

(function () {
  const $ = (id) => document.getElementById(id);
  const GIB = 1073741824; // 2^30 bytes

  // Fields of the state, in URL order; names are the CLI flags without dashes.
  const KEYS = ['model', 'model-config', 'gpu', 'gpus', 'gpus-per-node', 'tp', 'pp', 'cp', 'ep',
    'vpp', 'schedule', 'sp', 'zero', 'recompute', 'precision', 'micro-batch', 'seq-len',
    'global-batch'];
  const NUMERIC = new Set(['gpus', 'gpus-per-node', 'tp', 'pp', 'cp', 'ep', 'vpp', 'zero',
    'micro-batch', 'seq-len', 'global-batch']);
  const DEFAULTS = { model: 'llama-3-8b', gpu: 'h100-sxm', gpus: '8' };
  // Shown in a control when the state does not set it (the CLI's own defaults).
  const SHOWN_DEFAULT = { tp: 1, pp: 1, cp: 1, ep: 1, vpp: 1, zero: 0 };

  const MEM_PARTS = [
    ['weights', 'weights'], ['weights_gathered', 'gathered weights (ZeRO-3)'], ['grads', 'gradients'],
    ['optimizer', 'optimizer states'], ['activations', 'activations'], ['logits', 'logits'],
    ['comm_buffers', 'communication buffers'], ['framework', 'CUDA context'],
    ['fragmentation', 'allocator reserve']];
  const TIME_PARTS = [
    ['compute', 'compute'], ['recompute', 'recompute'], ['tp_comm', 'TP communication'],
    ['cp_comm', 'CP communication'], ['ep_comm', 'EP all-to-all'], ['pp_comm', 'PP send/recv'],
    ['bubble', 'pipeline bubble'], ['dp_comm', 'DP communication'], ['optimizer', 'optimizer step']];

  let state = {};
  let presets = null;
  let inflight = false;
  let dirty = false;
  let changedAt = 0;
  let lastGood = null;
  const controls = {}; // key -> {num, range, values}

  // ---------------------------------------------------------------- helpers

  function el(tag, attrs, text) {
    const e = document.createElement(tag);
    for (const k in attrs || {}) e.setAttribute(k, attrs[k]);
    if (text !== undefined) e.textContent = text;
    return e;
  }
  function svgEl(tag, attrs) {
    const e = document.createElementNS('http://www.w3.org/2000/svg', tag);
    for (const k in attrs || {}) e.setAttribute(k, String(attrs[k]));
    return e;
  }
  function clear(node) { while (node.firstChild) node.removeChild(node.firstChild); }
  const gib = (b) => (b / GIB).toFixed(b / GIB >= 100 ? 1 : 2);
  const pct = (x) => (100 * x).toFixed(x < 0.1 ? 1 : 0) + '%';
  function int(n) { return Number(n).toLocaleString('en-US'); }
  function plural(n, word) { return int(n) + ' ' + word + (Number(n) === 1 ? '' : (word.endsWith('h') ? 'es' : 's')); }
  function secs(s) {
    if (s >= 1) return s.toFixed(2) + ' s';
    if (s >= 1e-3) return (s * 1e3).toFixed(1) + ' ms';
    return (s * 1e6).toFixed(0) + ' us';
  }
  function big(n) {
    const u = [[1e12, 'T'], [1e9, 'B'], [1e6, 'M'], [1e3, 'k']];
    for (const [d, s] of u) if (Math.abs(n) >= d) return (n / d).toFixed(n / d >= 100 ? 0 : 1) + ' ' + s;
    return n.toFixed(0);
  }

  // ------------------------------------------------------------- URL state

  function readUrl() {
    const q = new URLSearchParams(location.search);
    const s = Object.assign({}, DEFAULTS);
    for (const k of KEYS) if (q.has(k)) s[k] = q.get(k);
    if (s['model-config']) delete s.model;
    return s;
  }
  function writeUrl() {
    const q = new URLSearchParams();
    for (const k of KEYS) if (state[k] !== undefined && state[k] !== '') q.set(k, state[k]);
    const url = location.pathname + '?' + q.toString();
    if (url !== location.pathname + location.search) history.replaceState(null, '', url);
  }

  // The request body: the CLI's flags as a JSON object (docs/serve.md).
  function requestBody(extra) {
    const b = {};
    for (const k of KEYS) {
      const v = state[k];
      if (v === undefined || v === '') continue;
      if (k === 'sp') {
        if (v === 'on') b.sp = true;
        else if (v === 'off') b['no-sp'] = true;
      } else if (NUMERIC.has(k) && /^-?\d+$/.test(String(v))) {
        b[k] = Number(v);
      } else {
        b[k] = String(v);
      }
    }
    return Object.assign(b, extra || {});
  }

  async function post(path, body) {
    const res = await fetch(path, {
      method: 'POST', headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify(body), cache: 'no-store', priority: 'high'
    });
    let data = null;
    try { data = await res.json(); } catch (e) { data = null; }
    const timing = /dur=([0-9.]+)/.exec(res.headers.get('Server-Timing') || '');
    const exit = res.headers.get('X-Trainplan-Exit');
    return { status: res.status, data, serverMs: timing ? Number(timing[1]) : NaN,
      exit: exit === null ? null : Number(exit) };
  }

  // -------------------------------------------------------------- controls

  function scaleValues(scale, min, max) {
    const v = [];
    if (scale === 'pow2') {
      for (let x = 1; x <= max; x *= 2) if (x >= min) v.push(x);
    } else {
      for (let x = min; x <= max; x++) v.push(x);
    }
    return v;
  }
  function nearestIndex(values, x) {
    let best = 0;
    for (let i = 0; i < values.length; i++) if (Math.abs(values[i] - x) < Math.abs(values[best] - x)) best = i;
    return best;
  }

  function buildNumericControls() {
    for (const field of document.querySelectorAll('.field.num')) {
      const key = field.dataset.key;
      const min = Number(field.dataset.min), max = Number(field.dataset.max);
      const values = scaleValues(field.dataset.scale, min, max);
      const label = field.querySelector('label').textContent.trim();
      const range = el('input', {
        type: 'range', min: '0', max: String(values.length - 1), step: '1',
        id: key + '-slider', 'aria-label': label + ' slider'
      });
      const num = el('input', {
        type: 'number', id: key, name: key, min: String(min), max: String(max), step: '1',
        inputmode: 'numeric'
      });
      if (field.dataset.optional) num.placeholder = 'derived';
      range.addEventListener('input', () => {
        const v = values[Number(range.value)];
        num.value = String(v);
        setValue(key, String(v));
      });
      num.addEventListener('input', () => {
        const t = num.value.trim();
        if (t === '' && field.dataset.optional) { setValue(key, undefined); return; }
        if (!/^\d+$/.test(t)) return; // wait for a whole number
        range.value = String(nearestIndex(values, Number(t)));
        setValue(key, t);
      });
      const wrap = el('div', { class: 'inputs' });
      wrap.appendChild(range);
      wrap.appendChild(num);
      field.appendChild(wrap);
      controls[key] = { num, range, values };
    }
    for (const key of ['schedule', 'sp', 'recompute', 'precision']) {
      $(key).addEventListener('change', () => setValue(key, $(key).value || undefined));
    }
    $('model').addEventListener('change', () => {
      delete state['model-config'];
      setValue('model', $('model').value);
    });
    $('gpu').addEventListener('change', () => setValue('gpu', $('gpu').value));
    $('use-config').addEventListener('click', () => {
      const text = $('model-config').value.trim();
      if (!text) return;
      let compact = text;
      try { compact = JSON.stringify(JSON.parse(text)); } catch (e) { /* the server says where */ }
      delete state.model;
      setValue('model-config', compact);
    });
    $('drop-config').addEventListener('click', () => {
      delete state['model-config'];
      setValue('model', $('model').value || DEFAULTS.model);
    });
  }

  // Show the state (and, where it is silent, what the server derived).
  function syncControls(result) {
    for (const key in controls) {
      const c = controls[key];
      const v = state[key] !== undefined ? Number(state[key]) :
        key in SHOWN_DEFAULT ? SHOWN_DEFAULT[key] : derived(key, result);
      if (document.activeElement !== c.num) {
        if (key === 'global-batch' && state[key] === undefined) {
          c.num.value = '';
          c.num.placeholder = v ? String(v) + ' (derived)' : 'derived';
        } else if (v !== undefined && !Number.isNaN(v)) {
          c.num.value = String(v);
        }
      }
      if (v !== undefined && !Number.isNaN(v)) c.range.value = String(nearestIndex(c.values, v));
    }
    for (const key of ['schedule', 'sp', 'recompute', 'precision']) $(key).value = state[key] || '';
    if (presets) {
      if (state.model) ensureOption($('model'), state.model);
      ensureOption($('gpu'), state.gpu || DEFAULTS.gpu);
      $('gpu').value = state.gpu || DEFAULTS.gpu;
      if (state.model) $('model').value = state.model;
    }
    if (state['model-config']) {
      $('paste-box').open = true;
      if (document.activeElement !== $('model-config') && !$('model-config').value) $('model-config').value = state['model-config'];
    }
  }
  function derived(key, r) {
    if (!r) return undefined;
    const l = r.layout;
    switch (key) {
      case 'gpus': return l.num_gpus;
      case 'gpus-per-node': return l.gpus_per_node;
      case 'micro-batch': return l.micro_batch;
      case 'seq-len': return l.seq_len;
      case 'global-batch': return l.global_batch;
      default: return undefined;
    }
  }
  function ensureOption(select, value) {
    for (const o of select.options) if (o.value === value) return;
    select.appendChild(el('option', { value }, value));
  }

  function setValue(key, value) {
    if (value === undefined) delete state[key];
    else state[key] = value;
    changedAt = performance.now();
    refresh();   // the request goes out first (it starts before refresh's first await)
    writeUrl();  // then the address bar: history.replaceState costs a few ms
  }

  // ------------------------------------------------------------- evaluate

  async function refresh() {
    if (inflight) { dirty = true; return; }
    inflight = true;
    dirty = false;
    const t0 = changedAt || performance.now();
    let res;
    try {
      res = await post('/api/estimate', requestBody());
    } catch (e) {
      res = { status: 0, data: null };
    }
    const tFetched = performance.now();
    if (res.status === 200 && res.data) {
      lastGood = res.data;
      showError(null);
      render(res.data);
    } else {
      showError(res.data && res.data.error ? res.data.error :
        { message: 'the server did not answer (status ' + res.status + ')' });
    }
    const total = performance.now() - t0;
    const srv = Number.isNaN(res.serverMs) ? '' : ', server ' + res.serverMs.toFixed(2) + ' ms';
    $('timing').textContent = 'updated in ' + total.toFixed(1) + ' ms' + srv;
    document.body.dataset.updateMs = total.toFixed(2);
    document.body.dataset.fetchMs = (tFetched - t0).toFixed(2);
    document.body.dataset.renderMs = (performance.now() - tFetched).toFixed(2);
    document.body.dataset.serverMs = Number.isNaN(res.serverMs) ? '' : String(res.serverMs);
    inflight = false;
    changedAt = 0;
    if (dirty) refresh();
  }

  function showError(err) {
    for (const n of document.querySelectorAll('[aria-invalid="true"]')) n.removeAttribute('aria-invalid');
    const box = $('error');
    if (!err) {
      box.hidden = true;
      document.body.classList.remove('stale');
      return;
    }
    const where = err.path ? err.path + (err.line ? ':' + err.line + ':' + err.column : '') + ': ' : '';
    box.textContent = 'Not evaluated: ' + where + err.message;
    box.hidden = false;
    document.body.classList.add('stale');
    const field = err.path && $(err.path.split('.')[0]);
    if (field) field.setAttribute('aria-invalid', 'true');
  }

  // ---------------------------------------------------------------- render

  function render(r) {
    syncControls(r);
    $('dp').textContent = String(r.layout.dp);
    const m = r.model || {};
    $('model-info').textContent = (m.name ? m.name + ': ' : '') + big(r.params.total) + ' parameters' +
      (r.params.active !== r.params.total ? ' (' + big(r.params.active) + ' active)' : '') +
      (m.layers ? ', ' + m.layers + ' layers' : '') + (m.heads ? ', ' + m.heads + ' heads' : '') +
      (m.kv_heads && m.kv_heads !== m.heads ? ' (' + m.kv_heads + ' KV)' : '') +
      (m.experts ? ', ' + m.experts + ' experts, top-' + m.topk : '');
    renderVerdict(r);
    renderMemory(r);
    renderKpis(r);
    renderTime(r);
    renderPipeline(r);
    $('version').textContent = r.trainplan_version || '-';
  }

  function renderVerdict(r) {
    const mem = r.memory;
    const v = $('verdict');
    v.className = 'verdict ' + (mem.fits ? 'fits' : 'oom');
    v.dataset.fits = mem.fits ? 'true' : 'false';
    const used = gib(mem.peak_bytes), cap = gib(mem.capacity_bytes);
    if (mem.fits) {
      v.textContent = 'FITS: ' + used + ' GiB of ' + cap + ' GiB per GPU, ' + gib(mem.headroom_bytes) +
        ' GiB headroom (stage ' + mem.stage + ' is the heaviest)';
    } else {
      v.textContent = 'OUT OF MEMORY: ' + used + ' GiB needed, ' + cap + ' GiB available (' +
        gib(-mem.headroom_bytes) + ' GiB over)' + (r.reason ? ': ' + r.reason : '');
    }
  }

  function stackedBar(svg, parts, total, scaleMax, marker) {
    clear(svg);
    const W = 1000, H = Number(svg.getAttribute('viewBox').split(' ')[3]);
    let x = 0;
    svg.appendChild(svgEl('rect', { x: 0, y: 0, width: W, height: H, class: 'track' }));
    parts.forEach(([key, label, value], i) => {
      if (!(value > 0)) return;
      const w = W * value / scaleMax;
      const r = svgEl('rect', { x: x, y: 4, width: Math.max(w, 0.5), height: H - 8, class: 'seg s' + i });
      const t = svgEl('title');
      t.textContent = label + ': ' + (total ? pct(value / total) : '');
      r.appendChild(t);
      svg.appendChild(r);
      x += w;
    });
    if (marker !== undefined) {
      const mx = W * marker / scaleMax;
      svg.appendChild(svgEl('line', { x1: mx, x2: mx, y1: 0, y2: H, class: 'capacity' }));
    }
  }

  function legend(table, parts, total, fmt) {
    const tb = table.tBodies[0];
    clear(tb);
    parts.forEach(([key, label, value], i) => {
      if (!(value > 0)) return;
      const tr = el('tr', { 'data-part': key });
      const th = el('th', { scope: 'row' });
      th.appendChild(el('span', { class: 'swatch s' + i }));
      th.appendChild(document.createTextNode(label));
      tr.appendChild(th);
      tr.appendChild(el('td', { class: 'n' }, fmt(value)));
      tr.appendChild(el('td', { class: 'n' }, total ? pct(value / total) : '-'));
      tb.appendChild(tr);
    });
  }

  function renderMemory(r) {
    const mem = r.memory;
    const parts = MEM_PARTS.map(([k, label]) => [k, label, mem.breakdown[k] || 0]);
    const scaleMax = Math.max(mem.peak_bytes, mem.capacity_bytes) * 1.02;
    stackedBar($('mem-bar'), parts, mem.peak_bytes, scaleMax, mem.capacity_bytes);
    legend($('mem-table'), parts, mem.peak_bytes, gib);
    const tr = el('tr', { class: 'total' });
    tr.appendChild(el('th', { scope: 'row' }, 'total (capacity ' + gib(mem.capacity_bytes) + ')'));
    tr.appendChild(el('td', { class: 'n', id: 'mem-total' }, gib(mem.peak_bytes)));
    tr.appendChild(el('td', { class: 'n' }, pct(mem.peak_bytes / mem.capacity_bytes) + ' of GPU'));
    $('mem-table').tBodies[0].appendChild(tr);
    $('mem-stage').textContent = '(stage ' + mem.stage + ', ' + plural(mem.layers, 'layer') + ', ' +
      plural(Math.round(mem.inflight_microbatches * 100) / 100, 'micro-batch') + ' in flight)';
    $('mem-scale').textContent = 'the line marks the GPU\'s ' + gib(mem.capacity_bytes) + ' GiB';
  }

  function kpi(dl, label, value, id) {
    dl.appendChild(el('dt', {}, label));
    dl.appendChild(el('dd', id ? { id } : {}, value));
  }

  function renderKpis(r) {
    const dl = $('kpis');
    clear(dl);
    const t = r.time;
    const price = r.gpu && r.gpu.price_per_gpu_hour;
    kpi(dl, 'layout', 'TP ' + r.layout.tp + ' x PP ' + r.layout.pp + ' x CP ' + r.layout.cp +
      ' x DP ' + r.layout.dp + (r.layout.ep > 1 ? ' (EP ' + r.layout.ep + ')' : ''));
    kpi(dl, 'tokens per step', int(r.flops.tokens_per_step) + ' (' + plural(r.layout.grad_accum, 'micro-batch') + ' per pipeline)');
    if (!t) {
      kpi(dl, 'step time', 'not modelled in this build', 'kpi-step');
      return;
    }
    kpi(dl, 'step time', secs(t.step_s), 'kpi-step');
    kpi(dl, 'tokens/s', int(Math.round(t.throughput.tokens_per_s)) + ' (' +
      int(Math.round(t.throughput.tokens_per_s_per_gpu)) + ' per GPU)', 'kpi-tps');
    kpi(dl, 'MFU', pct(t.throughput.mfu) + ' (' + t.throughput.model_tflops_per_gpu.toFixed(0) +
      ' TFLOP/s per GPU; HFU ' + pct(t.throughput.hfu) + ')', 'kpi-mfu');
    if (price > 0 && t.throughput.tokens_per_s > 0) {
      const usdPerM = price * r.layout.num_gpus / 3600 / t.throughput.tokens_per_s * 1e6;
      kpi(dl, 'cost per million tokens', '$' + usdPerM.toFixed(usdPerM < 1 ? 3 : 2) +
        ' at $' + price.toFixed(2) + ' per GPU-hour', 'kpi-cost');
    }
    kpi(dl, 'bottleneck', t.bottleneck || 'none');
  }

  function renderTime(r) {
    const t = r.time;
    if (!t) {
      clear($('time-bar'));
      clear($('time-table').tBodies[0]);
      $('time-note').textContent = 'The step-time model is not available in this build.';
      return;
    }
    const parts = TIME_PARTS.map(([k, label]) => [k, label, t.breakdown[k] || 0]);
    stackedBar($('time-bar'), parts, t.step_s, t.step_s);
    legend($('time-table'), parts, t.step_s, (s) => (s * 1e3).toFixed(1));
    $('time-note').textContent = 'Step ' + secs(t.step_s) + '. Bubble ' + pct(t.bubble_fraction.of_total) +
      ' of the step (' + pct(t.bubble_fraction.of_ideal) + ' of the ideal time).';
  }

  // ------------------------------------------------------ pipeline diagram

  // The diagram draws the schedule the server simulated (the estimate's
  // "pipeline_schedule", src/io/schedule.c, the one the SVG chart draws too):
  // per stage, each forward and backward with its start and end.
  // It depends on (PP, m, VPP, schedule, recompute, width) only: most slider moves keep it.
  let pipeKey = '';
  let pipeWidth = 0;

  function renderPipeline(r, force) {
    const svg = $('pipe');
    const ps = r.pipeline_schedule;
    const p = ps.stages, v = ps.virtual_stages, m = ps.microbatches, shownM = ps.microbatches_drawn;
    const sched = ps.schedule;
    if (!pipeWidth || force) pipeWidth = Math.round(svg.getBoundingClientRect().width) || 640;
    const key = [p, m, v, sched, ps.backward_units, pipeWidth,
      r.time ? r.time.bubble_fraction.of_total : ''].join('/');
    if (key === pipeKey && !force) return;
    pipeKey = key;
    clear(svg);
    if (!ps.drawn) {
      $('pipe-note').textContent = 'PP ' + p + ' is too deep to draw.';
      return;
    }
    // drawn in CSS pixels of the box it gets, so text is never stretched
    const rowH = p > 32 ? 10 : 18, padL = 56, H = p * rowH + 4;
    const W = Math.max(320, pipeWidth);
    svg.setAttribute('viewBox', '0 0 ' + W + ' ' + H);
    svg.setAttribute('height', String(H));
    const sx = (W - padL) / (ps.makespan || 1);
    for (let s = 0; s < p; s++) {
      const y = 2 + s * rowH;
      svg.appendChild(svgEl('rect', { x: padL, y: y, width: W - padL, height: rowH - 3, class: 'idle' }));
      if (rowH >= 18 || s % 4 === 0) {
        const lab = svgEl('text', { x: 4, y: y + rowH - (rowH >= 18 ? 7 : 2), class: 'plabel' });
        lab.textContent = 'stage ' + s;
        svg.appendChild(lab);
      }
      for (const o of ps.ops[s]) {
        const w = (o.end - o.start) * sx;
        const rect = svgEl('rect', {
          x: padL + o.start * sx, y: y, width: Math.max(w - 0.6, 0.4), height: rowH - 3,
          class: (o.backward ? 'op-b' : 'op-f') + ' chunk' + (o.chunk % 4)
        });
        const tt = svgEl('title');
        tt.textContent = (o.backward ? 'backward' : 'forward') + ' micro-batch ' + o.microbatch +
          (v > 1 ? ' chunk ' + o.chunk : '');
        rect.appendChild(tt);
        svg.appendChild(rect);
        if (w > 16 && rowH >= 18) {
          const t = svgEl('text', { x: padL + o.start * sx + w / 2, y: y + rowH - 7, class: 'oplabel' });
          t.textContent = String(o.microbatch);
          svg.appendChild(t);
        }
      }
    }
    const bubble = ps.bubble_fraction;
    const name = { '1f1b': '1F1B', interleaved: 'interleaved 1F1B', gpipe: 'GPipe' }[sched] || sched;
    let note = name + ', PP ' + p + (sched === 'interleaved' ? ' x ' + v + ' virtual stages' : '') + ', ' +
      plural(m, 'micro-batch') + ': idle ' + pct(bubble) + ' of the drawn step';
    if (r.time) note += ' (model: ' + pct(r.time.bubble_fraction.of_total) + ')';
    if (shownM < m) note += '; the first ' + shownM + ' micro-batches are drawn';
    if (!ps.complete) note += '; this order deadlocks when drawn, shown as far as it runs';
    $('pipe-note').textContent = note + '.';
    svg.dataset.bubble = bubble.toFixed(4);
  }

  // ---------------------------------------------------------------- search

  // Layout fields of a search result -> state keys.
  const LAYOUT_KEYS = [['tp', 'tp'], ['pp', 'pp'], ['cp', 'cp'], ['ep', 'ep'], ['vpp', 'vpp'],
    ['zero', 'zero'], ['micro_batch', 'micro-batch'], ['num_gpus', 'gpus'],
    ['global_batch', 'global-batch']];

  function loadLayout(layout) {
    for (const [from, to] of LAYOUT_KEYS) if (layout[from] !== undefined) state[to] = String(layout[from]);
    if (layout.recompute) state.recompute = layout.recompute;
    if (layout.schedule) state.schedule = layout.schedule;
    if (layout.sp !== undefined) state.sp = layout.sp ? 'on' : 'off';
    changedAt = performance.now();
    writeUrl();
    refresh();
    $('results').focus();
  }

  // The array of results and the layout/estimate of one, whatever the exact shape.
  function searchRows(data) {
    const arr = Array.isArray(data) ? data : (data.results || data.items || []);
    return arr.map((it) => {
      const est = it.estimate || it.result || it;
      const layout = it.layout || est.layout || {};
      return { layout, est, raw: it };
    });
  }

  // The search runs in pages (docs/serve.md): {"offset", "limit"} in the body,
  // {"total", "offset", "limit", "results"} back. "More results" asks for the
  // next page of the same search; the rows keep their rank.
  let searchQuery = null;   // the body of the search on screen, without its page
  let searchShown = 0;      // rows on screen

  function searchHeader(table) {
    const thead = table.tHead;
    clear(thead);
    const hr = el('tr');
    for (const h of ['#', 'TP', 'PP', 'CP', 'EP', 'VPP', 'ZeRO', 'recompute', 'micro-batch', 'GiB/GPU', 'step', 'MFU', '$/M tok', '']) hr.appendChild(el('th', { scope: 'col' }, h));
    thead.appendChild(hr);
  }

  function searchRow(tbody, row, i, none) {
    const l = row.layout, e = row.est;
    const rank = e.search && e.search.rank ? e.search.rank : i + 1;
    const tr = el('tr');
    const cells = [rank, l.tp, l.pp, l.cp, l.ep, l.vpp, l.zero, l.recompute, l.micro_batch,
      e.memory ? gib(e.memory.peak_bytes) : '-', e.time ? secs(e.time.step_s) : '-',
      e.time ? pct(e.time.throughput.mfu) : '-',
      e.search && e.search.cost_per_token_usd ? (e.search.cost_per_token_usd * 1e6).toFixed(3) : '-'];
    for (const c of cells) tr.appendChild(el('td', {}, c === undefined ? '-' : String(c)));
    const td = el('td');
    const btn = el('button', { type: 'button', class: 'load', 'data-index': String(i) }, 'Load');
    btn.setAttribute('aria-label', 'Load layout ' + rank);
    btn.addEventListener('click', () => loadLayout(l));
    td.appendChild(btn);
    tr.appendChild(td);
    const why = e.search && (e.search.binding || (e.search.vs_best && e.search.vs_best.layout));
    if (why) tr.title = why;
    tbody.appendChild(tr);
    if (none && e.search && e.search.binding) {
      const note = el('tr', { class: 'binding' });
      note.appendChild(el('td', { colspan: '14' }, e.search.binding));
      tbody.appendChild(note);
    }
  }

  async function searchPage(first) {
    const status = $('search-status');
    const table = $('search-table');
    const more = $('search-more');
    const limit = Math.min(100, Math.max(1, Number($('search-top').value) || 10));
    const body = Object.assign({}, searchQuery, { offset: first ? 0 : searchShown, limit });
    status.textContent = first ? 'Searching...' : 'Loading more...';
    more.disabled = true;
    let res;
    try { res = await post('/api/search', body); } catch (e) { res = { status: 0, data: null }; }
    more.disabled = false;
    if (res.status !== 200 || !res.data || !Array.isArray(res.data.results)) {
      if (first) table.hidden = true;
      more.hidden = true;
      status.textContent = res.data && res.data.error ? 'Search: ' + res.data.error.message :
        'Search failed (status ' + res.status + ').';
      return;
    }
    const rows = searchRows(res.data.results);
    const none = res.exit === 1;
    const tbody = table.tBodies[0];
    if (first) {
      searchHeader(table);
      clear(tbody);
      searchShown = 0;
    }
    rows.forEach((row, i) => searchRow(tbody, row, searchShown + i, none));
    searchShown += rows.length;
    const total = res.data.total;
    status.textContent = none ? (total ? 'No layout fits; the closest ones and what binds:' :
      'No valid layout for this model, cluster and batch.') :
      'Best ' + searchShown + ' of ' + total + ' ranked layouts that fit (global batch ' +
      searchQuery['global-batch'] + ').';
    table.hidden = searchShown === 0;
    more.hidden = searchShown >= total;
    document.body.dataset.searchShown = String(searchShown);
    document.body.dataset.searchTotal = String(total);
  }

  async function runSearch(ev) {
    ev.preventDefault();
    // the model, cluster and batch stay; every layout axis is searched
    const body = requestBody({ rank: $('search-rank').value });
    for (const k of ['tp', 'pp', 'cp', 'ep', 'vpp', 'zero', 'micro-batch', 'recompute', 'schedule', 'sp', 'no-sp']) delete body[k];
    if (body['global-batch'] === undefined && lastGood) body['global-batch'] = lastGood.layout.global_batch;
    searchQuery = body;
    await searchPage(true);
  }

  // ------------------------------------------------------------------ plan

  async function runPlan() {
    const status = $('plan-status'), out = $('plan-out');
    status.textContent = 'Planning...';
    clear(out);
    let res;
    // the current settings, with what the estimate derived made explicit (plan has other defaults)
    const body = requestBody();
    if (lastGood) {
      if (body['seq-len'] === undefined) body['seq-len'] = lastGood.layout.seq_len;
      if (body['global-batch'] === undefined) body['global-batch'] = lastGood.layout.global_batch;
    }
    try { res = await post('/api/plan', body); } catch (e) { res = { status: 0, data: null }; }
    if (res.status !== 200 || !res.data) {
      status.textContent = res.data && res.data.error ? 'Plan: ' + res.data.error.message :
        'Plan failed (status ' + res.status + ').';
      return;
    }
    status.textContent = '';
    const d = res.data;
    const dl = el('dl', { class: 'kpis', id: 'plan-summary' });
    const g = (o, k) => (o && o[k] !== undefined ? o[k] : undefined);
    const m = d.model || {}, sc = d.scaling || {}, cp = d.compute || {}, cl = d.cluster || {};
    if (m.name) kpi(dl, 'model', m.name + ' (' + big(m.params || 0) + ' parameters)');
    if (sc.tokens) kpi(dl, 'training tokens', big(sc.tokens) + ' (' + (sc.tokens_per_param || 0).toFixed(1) + ' per parameter)');
    if (cp.flops_exact) kpi(dl, 'FLOPs', cp.flops_exact.toExponential(3));
    if (cl.num_gpus) kpi(dl, 'cluster', cl.num_gpus + ' x ' + cl.gpu + ' (' + cl.num_nodes + ' nodes)');
    if (cp.gpu_hours) kpi(dl, 'GPU-hours', int(Math.round(cp.gpu_hours)));
    if (cp.cost_usd !== undefined) kpi(dl, 'cost', '$' + int(Math.round(cp.cost_usd)));
    if (cl.wall_s) kpi(dl, 'wall clock', (cl.wall_s / 86400).toFixed(1) + ' days' +
      (g(cl, 'deadline_met') === false ? ' (misses the deadline)' : ''));
    if (d.checkpoint && d.checkpoint.every_steps) kpi(dl, 'checkpoint every', Math.round(d.checkpoint.every_steps) + ' steps (' + d.checkpoint.mode + ')');
    if (d.lr_schedule) kpi(dl, 'steps', int(d.lr_schedule.total_steps) + ', warmup ' + int(d.lr_schedule.warmup_steps));
    kpi(dl, 'feasible', d.feasible === false ? 'no: ' + (d.reason || '') + (d.fix ? ' (' + d.fix + ')' : '') : 'yes');
    out.appendChild(dl);
    for (const c of d.caveats || []) out.appendChild(el('p', { class: 'small muted' }, typeof c === 'string' ? c : JSON.stringify(c)));
    const det = el('details');
    det.appendChild(el('summary', {}, 'The whole plan (JSON, as trainplan plan --json prints it)'));
    det.appendChild(el('pre', { class: 'plan-text', tabindex: '0' }, JSON.stringify(d, null, 2)));
    out.appendChild(det);
  }

  // ------------------------------------------------------------------ start

  async function loadPresets() {
    try {
      const res = await fetch('/api/presets', { cache: 'no-store' });
      presets = await res.json();
    } catch (e) {
      presets = { models: [], gpus: [] };
    }
    const ms = $('model'), gs = $('gpu');
    clear(ms);
    clear(gs);
    for (const m of presets.models || []) {
      ms.appendChild(el('option', { value: m.name }, m.name + ' (' + big(m.params_total) + ')'));
    }
    for (const g of presets.gpus || []) {
      gs.appendChild(el('option', { value: g.name }, g.name + ' (' + gib(g.memory_bytes) + ' GiB)'));
    }
  }

  async function start() {
    state = readUrl();
    buildNumericControls();
    $('search-form').addEventListener('submit', runSearch);
    $('search-more').addEventListener('click', () => searchPage(false));
    $('plan-run').addEventListener('click', runPlan);
    $('copy-link').addEventListener('click', async () => {
      try {
        await navigator.clipboard.writeText(location.href);
        $('timing').textContent = 'link copied';
      } catch (e) {
        $('timing').textContent = 'copy the address bar to share this plan';
      }
    });
    $('reset').addEventListener('click', () => {
      state = Object.assign({}, DEFAULTS);
      $('model-config').value = '';
      changedAt = performance.now();
      writeUrl();
      refresh();
    });
    window.addEventListener('popstate', () => { state = readUrl(); refresh(); });
    let resizeTimer = 0;
    window.addEventListener('resize', () => {
      clearTimeout(resizeTimer);
      resizeTimer = setTimeout(() => { if (lastGood) renderPipeline(lastGood, true); }, 100);
    });
    await loadPresets();
    syncControls(null);
    document.body.dataset.ready = '1';
    refresh();
  }

  document.addEventListener('DOMContentLoaded', start);
})();
