// SPDX-License-Identifier: MIT
// app.js: the trainplan planner page. Plain browser JavaScript, no build
// step, no external code. The page keeps its state in the address bar
// (?model=llama-3-8b&gpus=8&tp=2), sends it to the local server as the
// same flags the CLI takes (POST /api/estimate), and draws the answer.
// Out of memory, it asks /api/search for the layout that fits (the fix);
// the search panel draws its layouts as a table and a scatter; the plan
// panel sends its own inputs to /api/plan and writes the plan out, with a
// timeline and a deadline -> GPUs and cost curve (one plan per deadline).
// Every figure is the server's; the page only does arithmetic on them
// (cost per million tokens from the price, GPUs and tokens/s).
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
  // The first screen is a configuration that fits: Llama 3 8B on one node
  // of H100s with the distributed optimizer (ZeRO-1), 54 of 80 GiB.
  const DEFAULTS = { model: 'llama-3-8b', gpu: 'h100-sxm', gpus: '8', zero: '1' };
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
  // The plan panel's inputs are in the address bar too, as plan-NAME, where
  // they differ from the page's defaults (never sent to /api/estimate).
  const PLAN_INPUTS = [['plan-tokens', 'tokens'], ['plan-tokens-unit', 'tokens-unit'],
    ['plan-batch', 'batch-tokens'], ['plan-deadline', 'deadline-days'], ['plan-budget', 'budget'],
    ['plan-mfu', 'mfu'], ['plan-price', 'price'], ['plan-cluster', 'cluster'], ['plan-phases', 'phases']];
  const planDefaults = {};
  function readPlanUrl() {
    const q = new URLSearchParams(location.search);
    let any = false;
    for (const [id, name] of PLAN_INPUTS) {
      planDefaults[id] = $(id).value;
      if (q.has('plan-' + name)) { $(id).value = q.get('plan-' + name); any = true; }
    }
    return any;
  }

  function writeUrl() {
    const q = new URLSearchParams();
    for (const k of KEYS) if (state[k] !== undefined && state[k] !== '') q.set(k, state[k]);
    for (const [id, name] of PLAN_INPUTS) {
      const v = $(id).value;
      if (id in planDefaults && v !== planDefaults[id]) q.set('plan-' + name, v);
    }
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
        const v = controls[key].values[Number(range.value)];
        num.value = String(v);
        setValue(key, String(v));
      });
      num.addEventListener('input', () => {
        const t = num.value.trim();
        if (t === '' && field.dataset.optional) { setValue(key, undefined); return; }
        if (!/^\d+$/.test(t)) return; // wait for a whole number
        range.value = String(nearestIndex(controls[key].values, Number(t)));
        setValue(key, t);
      });
      const wrap = el('div', { class: 'inputs' });
      wrap.appendChild(range);
      wrap.appendChild(num);
      field.appendChild(wrap);
      controls[key] = { num, range, values, all: values };
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

  // The slider stops of the parallel axes are the values the layout allows:
  // TP x PP x CP divides the GPUs, EP divides DP, PP x VPP divides the layers,
  // and with a global batch set, micro-batch x DP divides it. The number box
  // still takes any value (and the server says why a wrong one is wrong).
  function divisors(n, max) {
    const d = [];
    if (!(n >= 1) || !Number.isInteger(n)) return d;
    for (let i = 1; i <= Math.min(n, max); i++) if (n % i === 0) d.push(i);
    return d;
  }
  function current(key, r) {
    if (state[key] !== undefined && /^\d+$/.test(String(state[key]))) return Number(state[key]);
    if (key in SHOWN_DEFAULT) return SHOWN_DEFAULT[key];
    const v = derived(key, r);
    return v === undefined ? NaN : v;
  }
  function snapValues(key, r) {
    const c = controls[key];
    const G = current('gpus', r), tp = current('tp', r), pp = current('pp', r), cp = current('cp', r);
    const layers = r && r.model ? r.model.layers : 0;
    const dp = r ? r.layout.dp : G / (tp * pp * cp);
    let v = null;
    if (key === 'tp') v = divisors(G / (pp * cp), 64);
    else if (key === 'pp') v = divisors(G / (tp * cp), Math.min(64, layers || 64));
    else if (key === 'cp') v = divisors(G / (tp * pp), 64);
    else if (key === 'ep') v = r && r.model && r.model.experts > 0 ? divisors(dp, Math.min(256, r.model.experts)) : [1];
    else if (key === 'vpp') v = layers ? divisors(Math.floor(layers / pp), 16).filter((x) => layers % (pp * x) === 0) : null;
    else if (key === 'micro-batch' && state['global-batch'] !== undefined) {
      v = divisors(Number(state['global-batch']) / dp, 1024);
    }
    c.values = v && v.length ? v : c.all;
    c.range.max = String(c.values.length - 1);
  }

  // Show the state (and, where it is silent, what the server derived).
  function syncControls(result) {
    for (const key in controls) {
      const c = controls[key];
      snapValues(key, result);
      const v = state[key] !== undefined ? Number(state[key]) :
        key in SHOWN_DEFAULT ? SHOWN_DEFAULT[key] : derived(key, result);
      if (document.activeElement !== c.num) {
        if (key === 'global-batch' && state[key] === undefined) {
          c.num.value = '';
          c.num.placeholder = v ? String(v) : 'derived';
          c.num.title = 'derived: micro-batch x DP' + (v ? ' = ' + v : '');
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

  // An error's words with the request key it is about, unless the message
  // already starts with it (as "--mfu: ..." or "mfu: ...").
  function errText(err) {
    const m = String(err.message || '');
    const p = err.path ? String(err.path) : '';
    if (!p || m.startsWith(p + ':') || m.startsWith('--' + p + ':')) return m;
    return p + (err.line ? ':' + err.line + ':' + err.column : '') + ': ' + m;
  }

  function showError(err) {
    for (const n of document.querySelectorAll('[aria-invalid="true"]')) n.removeAttribute('aria-invalid');
    const box = $('error');
    if (!err) {
      box.hidden = true;
      document.body.classList.remove('stale');
      return;
    }
    $('fix').hidden = true; // the fix was for the configuration before this one
    fixPending = '';
    box.textContent = 'Not evaluated: ' + errText(err);
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
    // a preset's name on another shape (a pasted model file) says so (docs/cli.md model.reshaped)
    const name = m.name ? m.name + (m.reshaped ? " (reshaped: not the preset's shape)" : '') + ': ' : '';
    $('model-info').textContent = name + big(r.params.total) + ' parameters' +
      (r.params.active !== r.params.total ? ' (' + big(r.params.active) + ' active)' : '') +
      (m.layers ? ', ' + m.layers + ' layers' : '') + (m.heads ? ', ' + m.heads + ' heads' : '') +
      (m.kv_heads && m.kv_heads !== m.heads ? ' (' + m.kv_heads + ' KV)' : '') +
      (m.experts ? ', ' + m.experts + ' experts, top-' + m.topk : '');
    renderVerdict(r);
    document.body.classList.toggle('nofit', !r.memory.fits);
    for (const n of document.querySelectorAll('.nofit-note')) n.hidden = r.memory.fits;
    scheduleFix(r);
    renderMemory(r);
    renderKpis(r);
    renderTime(r);
    renderPipeline(r);
    if (searchAll.length) renderScatter(); // its ring is the configuration in the controls
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

  // ------------------------------------------------------- the OOM fix

  // Out of memory, the banner says what to change, as the CLI does: the
  // search (`trainplan search`, the same model, GPUs and batch, every layout
  // axis free) gives the fastest layout that fits these GPUs, or, when none
  // does, the binding constraint of the closest one. Asked once per
  // model/cluster/batch, a moment after the sliders stop (it runs on the
  // server's compute pool, never in the way of the estimate).
  let fixKey = '';
  let fixTimer = 0;
  let fixAnswer = null;
  let fixPending = '';   // the question the banner is waiting on

  function searchBody(extra) {
    const body = requestBody(extra);
    for (const k of ['tp', 'pp', 'cp', 'ep', 'vpp', 'zero', 'micro-batch', 'recompute', 'schedule', 'sp', 'no-sp']) delete body[k];
    if (body['global-batch'] === undefined && lastGood) body['global-batch'] = lastGood.layout.global_batch;
    return body;
  }

  function scheduleFix(r) {
    const box = $('fix');
    clearTimeout(fixTimer);
    if (r.memory.fits) { box.hidden = true; fixPending = ''; return; }
    const body = searchBody({ top: 1 });
    body['global-batch'] = r.layout.global_batch;
    const key = JSON.stringify(body);
    fixPending = key;
    if (key === fixKey && fixAnswer) { showFix(fixAnswer); return; }
    box.hidden = false;
    box.textContent = 'Looking for a layout that fits (trainplan search)...';
    fixTimer = setTimeout(async () => {
      let res;
      try { res = await post('/api/search', body); } catch (e) { res = { status: 0, data: null }; }
      if (fixPending !== key) return; // the user moved on
      fixKey = key;
      fixAnswer = res;
      showFix(res);
    }, 250);
  }

  // The expert TP when folded (the JSON names etp only then), else ''.
  function etpWords(l) {
    return l.etp !== undefined && l.etp !== l.tp ? 'ETP ' + l.etp : '';
  }

  function layoutWords(l) {
    const w = ['TP ' + l.tp, 'PP ' + l.pp];
    if (l.cp > 1) w.push('CP ' + l.cp);
    w.push('DP ' + l.dp);
    if (l.ep > 1) w.push('EP ' + l.ep);
    if (etpWords(l)) w.push(etpWords(l));
    if (l.vpp > 1) w.push('VPP ' + l.vpp);
    return w.join(' x ') + ', ZeRO-' + l.zero + ', recompute ' + l.recompute + ', micro-batch ' + l.micro_batch +
      ' x accumulation ' + l.grad_accum + (l.sp ? ', SP on' : '');
  }

  function showFix(res) {
    const box = $('fix');
    clear(box);
    box.hidden = false;
    const rows = res.status === 200 && res.data && Array.isArray(res.data) ? res.data : null;
    if (!rows || !rows.length) {
      box.textContent = res.data && res.data.error ? 'No fix found: ' + errText(res.data.error) :
        'No layout of this model fits these GPUs at this batch: add GPUs or use a GPU with more memory.';
      box.dataset.fix = 'none';
      return;
    }
    const e = rows[0];
    if (res.exit === 1) {
      box.appendChild(el('strong', {}, 'To fit: '));
      box.appendChild(document.createTextNode('no layout fits these ' + e.layout.num_gpus +
        ' GPUs at this batch. ' + (e.search && e.search.binding ? 'The closest: ' + e.search.binding + '. ' : '') +
        'Add GPUs (or use a GPU with more memory), or train a shorter sequence.'));
      box.dataset.fix = 'none';
      return;
    }
    box.appendChild(el('strong', {}, 'To fit: '));
    box.appendChild(document.createTextNode(layoutWords(e.layout) + ' fits (' + gib(e.memory.peak_bytes) +
      ' of ' + gib(e.memory.capacity_bytes) + ' GiB' + (e.time ? ', step ' + secs(e.time.step_s) : '') +
      '): the fastest layout on these GPUs (trainplan search).'));
    const b = el('button', { type: 'button', id: 'fix-load' }, 'Use it');
    b.addEventListener('click', () => loadLayout(e.layout));
    box.appendChild(b);
    box.dataset.fix = 'layout';
  }

  function stackedBar(svg, parts, total, scaleMax, marker, prefix) {
    clear(svg);
    const W = 1000, H = Number(svg.getAttribute('viewBox').split(' ')[3]);
    let x = 0;
    svg.appendChild(svgEl('rect', { x: 0, y: 0, width: W, height: H, class: 'track' }));
    parts.forEach(([key, label, value], i) => {
      if (!(value > 0)) return;
      const w = W * value / scaleMax;
      const r = svgEl('rect', { x: x, y: 4, width: Math.max(w, 0.5), height: H - 8, class: 'seg ' + (prefix || 's') + i });
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

  function legend(table, parts, total, fmt, prefix) {
    const tb = table.tBodies[0];
    clear(tb);
    parts.forEach(([key, label, value], i) => {
      if (!(value > 0)) return;
      const tr = el('tr', { 'data-part': key });
      const th = el('th', { scope: 'row' });
      th.appendChild(el('span', { class: 'swatch ' + (prefix || 's') + i }));
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
      ' x DP ' + r.layout.dp + (r.layout.ep > 1 || etpWords(r.layout)
        ? ' (EP ' + r.layout.ep + (etpWords(r.layout) ? ', ' + etpWords(r.layout) : '') + ')' : ''));
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

  // The rates the step time charges (the report's Layout lines; docs/model.md
  // 1b, 2, 2b): GEMMs, attention with its factors, the MoE host floor.
  function ratesText(g) {
    const f3 = (x) => x.toFixed(3);
    const gm = g.gemm_model || {}, am = g.attention_model || {}, hf = g.moe_host_floor;
    const parts = [];
    if (gm.kind === 'kernel') {
      parts.push('GEMMs at the measured matmul rate, ' + f3(gm.matmul_fraction) + ' of peak' +
        (gm.hw_profile ? ' (data/hardware/' + gm.hw_profile + '.json)' : '') + ', x ' +
        f3(gm.gemm_sw) + ' sustained, in ' + gm.tile_m + ' x ' + gm.tile_n + ' tiles on ' +
        gm.sm_count + ' SMs');
    } else if (gm.kind === 'fitted') {
      parts.push('GEMMs at a fitted ' + f3(gm.gemm_fraction) + ' of peak');
    }
    if (am.kind === 'flash') {
      const why = [];
      if (am.kernel_fraction) why.push('best kernel ' + f3(am.kernel_fraction) + ' of peak x ' + f3(am.attn_sw) + ' sustained');
      if (am.ampere_kernel_factor) why.push('x ' + f3(am.ampere_kernel_factor) + ' for a kernel written for Ampere');
      if (am.head_dim_factor) why.push('x ' + f3(am.head_dim_factor) + ' for heads narrower than 128');
      if (am.seq_len_factor) why.push('x ' + f3(am.seq_len_factor) + ' for kernel calls of ' +
        int(Math.round(am.kernel_seq_tokens)) + ' tokens (' + am.seq_len_source + ')');
      parts.push('attention at ' + f3(am.peak_fraction) + ' of the 16-bit peak' +
        (why.length ? ' (' + why.join(', ') + ')' : ''));
    } else if (am.kind === 'unfused') {
      parts.push('attention unfused: its matmuls as GEMMs, the scores at HBM bandwidth');
    }
    if (hf) {
      parts.push(hf.floor_s > 0
        ? 'MoE host floor ' + (hf.floor_s * 1e3).toFixed(2) + ' ms per MoE layer (' +
          (hf.layer_s * 1e3).toFixed(2) + ' ms + ' + plural(hf.local_experts, 'local expert') + ' x ' +
          (hf.expert_s * 1e3).toFixed(3) + ' ms, forward and backward)'
        : 'no MoE host floor (' + hf.none + ')');
    }
    return parts.length ? 'Rates: ' + parts.join('; ') + '.' : '';
  }

  function renderTime(r) {
    const t = r.time;
    $('rates-note').textContent = t && r.gpu ? ratesText(r.gpu) : '';
    if (!t) {
      clear($('time-bar'));
      clear($('time-table').tBodies[0]);
      $('time-note').textContent = 'The step-time model is not available in this build.';
      return;
    }
    const parts = TIME_PARTS.map(([k, label]) => [k, label, t.breakdown[k] || 0]);
    stackedBar($('time-bar'), parts, t.step_s, t.step_s, undefined, 't');
    legend($('time-table'), parts, t.step_s, secs, 't');
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
    const runs = ps.runs || 1; // "runs" only under a local batch: the step repeats the run drawn
    const key = [p, m, v, runs, sched, ps.backward_units, pipeWidth,
      r.time ? r.time.bubble_fraction.of_total : ''].join('/');
    if (key === pipeKey && !force) return;
    pipeKey = key;
    clear(svg);
    if (!ps.drawn) {
      $('pipe-note').textContent = sched === 'dualpipe'
        ? 'DualPipe is not drawn (its two directions are not simulated); the bubble is the model\'s.'
        : 'PP ' + p + ' is too deep to draw.';
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
      (runs > 1 ? runs + ' runs of ' : '') + plural(m, 'micro-batch') + ': idle ' + pct(bubble) +
      ' of the drawn ' + (runs > 1 ? 'run' : 'step');
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
  let searchAll = [];       // their {layout, est}, for the scatter
  // The few closest layouts that do not fit (the request's "unfit", search
  // --unfit): every page carries them apart from the ranked rows; the
  // scatter draws them hollow, so both sides of the capacity line show.
  const SEARCH_UNFIT = 3;
  let searchUnfit = [];

  function searchHeader(table) {
    const thead = table.tHead;
    clear(thead);
    const hr = el('tr');
    for (const h of ['#', 'TP', 'PP', 'CP', 'DP', 'EP', 'VPP', 'SP', 'ZeRO', 'recompute', 'micro-batch',
      'accum.', 'GiB/GPU', 'step', 'MFU', '$/M tok', '']) {
      const th = el('th', { scope: 'col' }, h);
      if (h === 'accum.') th.title = 'gradient accumulation: micro-batches per optimizer step';
      hr.appendChild(th);
    }
    thead.appendChild(hr);
  }

  function searchRow(tbody, row, i, none) {
    const l = row.layout, e = row.est;
    const rank = e.search && e.search.rank ? e.search.rank : i + 1;
    // a layout that does not fit (the closest ones, when none does) is greyed
    const fits = !e.memory || e.memory.fits;
    const tr = el('tr', fits ? {} : { class: 'nofit', title: 'does not fit' });
    const ep = etpWords(l) ? l.ep + ' (' + etpWords(l) + ')' : l.ep; // folded: EP 8 (ETP 1)
    const cells = [rank, l.tp, l.pp, l.cp, l.dp, ep, l.vpp, l.sp === undefined ? '-' : (l.sp ? 'on' : 'off'),
      l.zero, l.recompute, l.micro_batch, l.grad_accum,
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
    if (why) tr.title = (fits ? '' : 'does not fit: ') + why;
    tbody.appendChild(tr);
    if (none && e.search && e.search.binding) {
      const note = el('tr', { class: 'binding' });
      note.appendChild(el('td', { colspan: '17' }, e.search.binding));
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
      if (first) {
        table.hidden = true;
        searchAll = [];
        searchUnfit = [];
        renderScatter();
      }
      more.hidden = true;
      status.textContent = res.data && res.data.error ? 'Search: ' + errText(res.data.error) :
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
      searchAll = [];
    }
    searchUnfit = Array.isArray(res.data.unfit) ? searchRows(res.data.unfit) : [];
    rows.forEach((row, i) => searchRow(tbody, row, searchShown + i, none));
    for (const row of rows) searchAll.push(row);
    renderScatter();
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

  // ------------------------------------------------------------ scatter

  // The search's layouts on screen, step time against memory per GPU, with
  // the GPU's capacity as a line: filled dots fit, hollow red ones do not
  // (the few closest that do not fit, searchUnfit, or the closest layouts
  // when none fits), the ring is the configuration in the controls. A dot
  // loads its layout.
  function renderScatter() {
    const svg = $('scatter'), box = $('scatter-box');
    const pts = searchAll.concat(searchUnfit).filter((r) => r.est.memory && r.est.time);
    box.hidden = pts.length === 0;
    if (!pts.length) return;
    clear(svg);
    const W = Math.max(300, Math.round(svg.getBoundingClientRect().width) || 640), H = 220;
    const L = 52, R = 10, T = 22, B = 34;
    svg.setAttribute('viewBox', '0 0 ' + W + ' ' + H);
    svg.setAttribute('height', String(H));
    const cap = pts[0].est.memory.capacity_bytes / GIB;
    const cur = lastGood && lastGood.time && lastGood.layout.num_gpus === pts[0].layout.num_gpus ? lastGood : null;
    const all = pts.map((r) => [r.est.memory.peak_bytes / GIB, r.est.time.step_s]);
    if (cur) all.push([cur.memory.peak_bytes / GIB, cur.time.step_s]);
    const xMax = Math.max(cap, ...all.map((p) => p[0])) * 1.08;
    const yMin = Math.min(...all.map((p) => p[1])), yMax = Math.max(...all.map((p) => p[1]));
    const y0 = yMin * 0.95, y1 = yMax * 1.05 > y0 ? yMax * 1.05 : y0 * 1.1 + 1e-9;
    const X = (g) => L + (W - L - R) * g / xMax;
    const Y = (t) => T + (H - T - B) * (1 - (t - y0) / (y1 - y0));
    axes(svg, W, H, L, R, T, B, xMax, 0, 'memory per GPU (GiB)', (v) => v.toFixed(0), [y0, y1], 'step', secs, Y);
    svg.appendChild(svgEl('line', { x1: X(cap), x2: X(cap), y1: T, y2: H - B, class: 'cap' }));
    const cl = svgEl('text', { x: X(cap) - 4, y: T + 10, 'text-anchor': 'end', class: 'cap-label' });
    cl.textContent = 'capacity ' + cap.toFixed(1) + ' GiB';
    svg.appendChild(cl);
    let nFit = 0;
    pts.forEach((r, i) => {
      const fits = r.est.memory.fits;
      if (fits) nFit++;
      const c = svgEl('circle', { cx: X(all[i][0]), cy: Y(all[i][1]), r: fits ? 4 : 4.5,
        class: fits ? 'pt-fit' : 'pt-nofit', 'data-fits': String(fits) });
      const t = svgEl('title');
      // the closest that do not fit are numbered among themselves: not a rank
      const closest = r.est.search && r.est.search.rank_by === 'closest';
      t.textContent = (closest ? 'closest not fitting #' : '#') + (r.est.search && r.est.search.rank || i + 1) +
        ' ' + layoutWords(r.layout) + ': ' + gib(r.est.memory.peak_bytes) + ' GiB, step ' +
        secs(r.est.time.step_s) + (fits ? '' : ' (does not fit' +
        (r.est.search && r.est.search.binding ? ': ' + r.est.search.binding : '') + ')');
      c.appendChild(t);
      // a dot is a button: click, or Tab to it and press Enter or Space
      c.setAttribute('tabindex', '0');
      c.setAttribute('role', 'button');
      c.setAttribute('aria-label', 'Load ' + t.textContent);
      c.addEventListener('click', () => loadLayout(r.layout));
      c.addEventListener('keydown', (ev) => {
        if (ev.key === 'Enter' || ev.key === ' ') { ev.preventDefault(); loadLayout(r.layout); }
      });
      svg.appendChild(c);
    });
    if (cur) {
      const c = svgEl('circle', { cx: X(cur.memory.peak_bytes / GIB), cy: Y(cur.time.step_s), r: 8, class: 'pt-cur' });
      const t = svgEl('title');
      t.textContent = 'the configuration in the controls' + (cur.memory.fits ? '' : ' (does not fit)');
      c.appendChild(t);
      svg.appendChild(c);
      // the label on the side with room for it
      const cx = X(cur.memory.peak_bytes / GIB), left = cx > W - 130;
      const lab = svgEl('text', { x: left ? cx - 11 : cx + 11, y: Y(cur.time.step_s) + 4,
        'text-anchor': left ? 'end' : 'start' });
      lab.textContent = 'current' + (cur.memory.fits ? '' : ' (does not fit)');
      svg.appendChild(lab);
    }
    const nExtra = pts.length - searchAll.filter((r) => r.est.memory && r.est.time).length;
    $('scatter-note').textContent = (pts.length - nExtra) + ' layouts from the table' +
      (nExtra ? ' and the ' + nExtra + ' closest that do not fit' : '') + ': ' + nFit + ' fit (filled), ' +
      (pts.length - nFit) + ' do not (hollow, right of the capacity line)' +
      (cur ? '; the ring is the configuration in the controls' + (cur.memory.fits ? '' : ', which does not fit') : '') +
      '. Click a dot to load it.';
    svg.dataset.points = String(pts.length);
    svg.dataset.fit = String(nFit);
  }

  // Axes with a few ticks: x linear from x0 to xMax, y from the ticks given.
  function axes(svg, W, H, L, R, T, B, xMax, x0, xLabel, xFmt, yRange, yLabel, yFmt, Y, xTicks) {
    svg.appendChild(svgEl('line', { x1: L, x2: W - R, y1: H - B, y2: H - B, class: 'axis' }));
    svg.appendChild(svgEl('line', { x1: L, x2: L, y1: T, y2: H - B, class: 'axis' }));
    const ticks = xTicks || niceTicks(x0, xMax, Math.max(3, Math.floor((W - L - R) / 80)));
    for (const v of ticks) {
      const x = L + (W - L - R) * (v - x0) / (xMax - x0);
      if (x < L - 0.5 || x > W - R + 0.5) continue;
      svg.appendChild(svgEl('line', { x1: x, x2: x, y1: T, y2: H - B, class: 'grid' }));
      const t = svgEl('text', { x: x, y: H - B + 13, 'text-anchor': 'middle' });
      t.textContent = xFmt(v);
      svg.appendChild(t);
    }
    const xl = svgEl('text', { x: L + (W - L - R) / 2, y: H - 4, 'text-anchor': 'middle' });
    xl.textContent = xLabel;
    svg.appendChild(xl);
    if (!yRange) return;
    for (const v of niceTicks(yRange[0], yRange[1], 4)) {
      const y = Y(v);
      if (y < T - 0.5 || y > H - B + 0.5) continue;
      svg.appendChild(svgEl('line', { x1: L, x2: W - R, y1: y, y2: y, class: 'grid' }));
      const t = svgEl('text', { x: L - 4, y: y + 4, 'text-anchor': 'end' });
      t.textContent = yFmt(v);
      svg.appendChild(t);
    }
    const yl = svgEl('text', { x: 4, y: T - 10 });
    yl.textContent = yLabel;
    svg.appendChild(yl);
  }
  function niceTicks(a, b, n) {
    if (!(b > a)) return [a];
    const raw = (b - a) / n, mag = Math.pow(10, Math.floor(Math.log10(raw)));
    const step = [1, 2, 2.5, 5, 10].map((m) => m * mag).find((s2) => s2 >= raw) || 10 * mag;
    const out = [];
    for (let v = Math.ceil(a / step) * step; v <= b + step * 1e-9; v += step) out.push(Number(v.toPrecision(12)));
    return out;
  }

  async function runSearch(ev) {
    ev.preventDefault();
    // the model, cluster and batch stay; every layout axis is searched
    searchQuery = searchBody({ rank: $('search-rank').value, unfit: SEARCH_UNFIT });
    await searchPage(true);
  }

  // ------------------------------------------------------------------ plan

  // The plan's own inputs (tokens, deadline, budget, MFU, price, cluster)
  // and the page's model, GPU and sequence length, as `trainplan plan` flags.
  // The layout is left to the plan's search. Empty optional inputs are left
  // out (the plan's defaults); a bad value is refused by the server, which
  // names the flag.
  function planBody(deadlineDays) {
    const body = {};
    if (state['model-config']) body['model-config'] = state['model-config'];
    else body.model = state.model || DEFAULTS.model;
    body.gpu = state.gpu || DEFAULTS.gpu;
    for (const k of ['gpus-per-node', 'precision']) {
      if (state[k] !== undefined && state[k] !== '') body[k] = NUMERIC.has(k) ? Number(state[k]) : state[k];
    }
    body['seq-len'] = Number(state['seq-len'] || (lastGood ? lastGood.layout.seq_len : 2048));
    const num = (id) => { const t = $(id).value.trim(); return t === '' ? undefined : Number(t); };
    const batch = num('plan-batch');
    if (batch !== undefined) body['global-batch-tokens'] = batch;
    const tokens = num('plan-tokens');
    if (tokens !== undefined) body[$('plan-tokens-unit').value] = tokens;
    const deadline = deadlineDays !== undefined ? deadlineDays : num('plan-deadline');
    if ($('plan-cluster').value === 'gpus' && deadlineDays === undefined) {
      body.gpus = Number(state.gpus || DEFAULTS.gpus);
    } else if (deadline !== undefined) {
      body['deadline-days'] = deadline;
    }
    const phases = $('plan-phases').value.split(';').map((x) => x.trim()).filter((x) => x);
    if (phases.length) body.phase = phases;
    for (const [id, flag] of [['plan-budget', 'budget'], ['plan-mfu', 'mfu'], ['plan-price', 'price']]) {
      const v = num(id);
      if (v !== undefined) body[flag] = v;
    }
    return body;
  }

  function days(s) {
    if (s >= 2 * 86400) return (s / 86400).toFixed(1) + ' days';
    if (s >= 3600) return (s / 3600).toFixed(1) + ' hours';
    return (s / 60).toFixed(1) + ' min';
  }
  function usd(x) { return '$' + (x >= 1e6 ? (x / 1e6).toFixed(2) + 'M' : int(Math.round(x))); }

  let planSeq = 0;

  async function runPlan(ev) {
    if (ev) ev.preventDefault();
    writeUrl();
    const seq = ++planSeq;
    const status = $('plan-status'), out = $('plan-out'), pv = $('plan-verdict');
    status.textContent = 'Planning...';
    let res;
    const body = planBody();
    try { res = await post('/api/plan', body); } catch (e) { res = { status: 0, data: null }; }
    if (seq !== planSeq) return;
    clear(out);
    if (res.status !== 200 || !res.data) {
      pv.hidden = true;
      $('plan-timeline-box').hidden = true;
      $('plan-curve-box').hidden = true;
      status.textContent = res.data && res.data.error ? 'Plan: ' + errText(res.data.error) :
        'Plan failed (status ' + res.status + ').';
      status.dataset.error = '1';
      return;
    }
    delete status.dataset.error;
    status.textContent = '';
    const d = res.data;
    renderPlanVerdict(d);
    renderPlanSummary(d, out);
    renderTimeline(d);
    renderCurve(d, body, seq);
  }

  function renderPlanVerdict(d) {
    const pv = $('plan-verdict');
    pv.hidden = false;
    const cl = d.cluster || {}, bu = d.budget || {};
    pv.dataset.feasible = String(d.feasible !== false);
    if (d.feasible === false) {
      pv.className = 'verdict infeasible';
      clear(pv);
      pv.appendChild(el('strong', {}, 'NOT FEASIBLE: '));
      pv.appendChild(document.createTextNode((d.reason || 'no layout fits') + '.'));
      if (d.fix) {
        const p = el('p', { class: 'verdict-fix' });
        p.appendChild(el('strong', {}, 'To fix it: '));
        p.appendChild(document.createTextNode(d.fix + '.'));
        pv.appendChild(p);
      }
      return;
    }
    const warn = [];
    if (cl.sized_by === 'deadline' && cl.deadline_met === false) warn.push('misses the deadline (' + days(cl.deadline_s) + ') even on ' + int(cl.num_gpus) + ' GPUs');
    if (bu.budget_usd > 0 && bu.within_budget === false) warn.push('over the budget of ' + usd(bu.budget_usd));
    pv.className = 'verdict ' + (warn.length ? 'warn' : 'fits');
    pv.textContent = (warn.length ? 'PLANNED, BUT ' + warn.join(' and ') : 'PLANNED') + ': ' +
      int(cl.num_gpus) + ' x ' + cl.gpu + ' for ' + days(planWall(d)) + ', ' + usd(d.compute.cost_usd) + '.';
  }
  function planWall(d) {
    return d.checkpoint && d.checkpoint.chosen && d.checkpoint.chosen.wall_s ? d.checkpoint.chosen.wall_s : d.cluster.wall_s;
  }

  function renderPlanSummary(d, out) {
    const dl = el('dl', { class: 'plan-sum', id: 'plan-summary' });
    const item = (key, label, value, sub) => {
      const div = el('div', { 'data-key': key });
      div.appendChild(el('dt', {}, label));
      const dd = el('dd', {}, value);
      if (sub) dd.appendChild(el('span', { class: 'sub' }, sub));
      div.appendChild(dd);
      dl.appendChild(div);
    };
    const m = d.model || {}, sc = d.scaling || {}, cp = d.compute || {}, cl = d.cluster || {};
    const ph = d.phases || [], p0 = ph[0] || {}, lay = p0.layout || {};
    const ok = d.feasible !== false;
    item('model', 'model', (m.name || '-') + ', ' + big(m.params || 0) + ' parameters',
      m.num_layers + ' layers, hidden ' + m.hidden);
    item('tokens', 'tokens', (sc.tokens >= 1e12 ? (sc.tokens / 1e12).toPrecision(4) + ' T' :
      (sc.tokens / 1e9).toPrecision(4) + ' B'), (sc.tokens_per_param || 0).toFixed(1) + ' per parameter; loss ' +
      (sc.loss ? sc.loss.toFixed(3) : '-') + ' (' + sc.fit + ')');
    const steps = ph.reduce((a, p) => a + (p.steps_whole || 0), 0);
    item('steps', 'steps', int(steps), ph.map((p) => int(p.tokens_per_step) + ' tokens per step (' + int(p.global_batch) +
      ' sequences of ' + int(p.seq_len) + ')').join('; '));
    item('flops', 'FLOPs', (cp.flops_exact || 0).toExponential(2), '6ND: ' + (cp.flops_6nd || 0).toExponential(2));
    if (ok) {
      item('gpu-hours', 'GPU-hours', int(Math.round(cp.gpu_hours)),
        cp.used_predicted ? 'at the predicted MFU ' + pct(p0.predicted_mfu || 0) +
          (cp.mfu_user ? '; ' + int(Math.round(cp.gpu_hours_mfu)) + ' at your MFU ' + pct(cp.mfu_user) : '')
          : 'at your MFU ' + pct(cp.mfu_user || 0));
      item('cost', 'cost', usd(cp.cost_usd), '$' + (cp.price_per_gpu_hour || 0).toFixed(2) + ' per GPU-hour');
      item('cluster', 'cluster', int(cl.num_gpus) + ' x ' + cl.gpu, plural(cl.num_nodes, 'node') + ' of ' +
        cl.gpus_per_node + (cl.sized_by === 'deadline' ? '; sized for ' + days(cl.deadline_s) : '; given') +
        (cl.moved_for_clean_layout && cl.first_fit_gpus ? '; moved up from ' + int(cl.first_fit_gpus) +
          ' GPUs, whose best layout nobody runs (' + cl.first_fit_not_clean + ')' : ''));
      item('wall', 'wall clock', days(planWall(d)), cl.sized_by === 'deadline' ?
        (cl.deadline_met ? 'meets the deadline' : 'misses the deadline') : 'on the GPUs given');
      // one layout per phase (a long-context phase may add CP)
      for (const p of ph) {
        const l = p.layout || {};
        if (!l.tp) continue;
        item(ph.length > 1 ? 'layout-' + p.name : 'layout', ph.length > 1 ? 'layout, phase ' + p.name : 'layout',
          'TP ' + l.tp + ' x PP ' + l.pp + (l.cp > 1 ? ' x CP ' + l.cp : '') + (l.ep > 1 ? ' x EP ' + l.ep : '') + ' x DP ' + l.dp,
          'ZeRO-' + l.zero + ', recompute ' + l.recompute + ', micro-batch ' + l.micro_batch + ' x accumulation ' +
          l.grad_accum + (l.vpp > 1 ? ', VPP ' + l.vpp : '') + (l.sp ? ', SP' : '') + '; step ' + secs(p.step_s || 0) +
          // the search's choice among near-equals, where the plan says so
          (l.tie_break && l.tie_break_note ? '. Chosen by ' + l.tie_break_note : ''));
      }
      if (p0.memory) item('memory', 'memory per GPU' + (ph.length > 1 ? ', phase ' + p0.name : ''), gib(p0.memory.total_bytes) + ' of ' + gib(p0.memory.capacity_bytes) + ' GiB',
        gib(p0.memory.capacity_bytes - p0.memory.total_bytes) + ' GiB headroom' +
        (p0.memory.margin_bytes > 0 ? ', a margin of ' + gib(p0.memory.margin_bytes) + ' GiB kept free' : ''));
      // the budget's inverse problems, as the CLI's section 9 gives them
      const bu = d.budget || {};
      if (bu.budget_usd > 0) {
        const af = bu.affords || {};
        item('budget', 'budget', usd(bu.budget_usd) + (bu.within_budget ? ' (within it)' : ' (over it by ' + usd(cp.cost_usd - bu.budget_usd) + ')'),
          'buys ' + int(Math.round(bu.gpu_hours)) + ' GPU-hours: ' + days(bu.hours_on_cluster * 3600) + ' on this cluster' +
          (af.params > 0 ? '; affords a compute-optimal ' + big(af.params) + ' parameters on ' + big(af.tokens) + ' tokens' : ''));
      }
      const ck = d.checkpoint || {}, ch = ck.chosen || {};
      if (ck.every_steps) {
        item('checkpoint', 'checkpointing', 'every ' + int(Math.max(1, Math.round(ck.every_steps))) + ' steps (' + days(ch.interval_s) + ')',
          ck.mode + ', ' + gib(ch.size_bytes) + ' GiB each, ' + ch.write_s.toFixed(1) + ' s to write; goodput ' + (100 * ch.goodput).toFixed(1) + '%' +
          ', ' + (ch.failures || 0).toFixed(1) + ' failures expected');
      }
    }
    out.appendChild(dl);
    for (const c of d.caveats || []) out.appendChild(el('p', { class: 'small muted' }, 'Note: ' + (typeof c === 'string' ? c : JSON.stringify(c))));
    const det = el('details');
    det.appendChild(el('summary', {}, 'The whole plan (JSON, as trainplan plan --json prints it)'));
    det.appendChild(el('pre', { class: 'plan-text', tabindex: '0' }, JSON.stringify(d, null, 2)));
    out.appendChild(det);
  }

  // The run on a time axis: each phase's compute time in order, then the
  // time lost to checkpoints, failures and restarts (the plan's wall clock
  // minus its compute); below, a tick per checkpoint (a band when they are
  // too dense to draw one by one), the expected failures at their average
  // spacing (the real ones are random), the warmup, and the deadline.
  function renderTimeline(d) {
    const box = $('plan-timeline-box'), svg = $('plan-timeline');
    const ph = d.phases || [];
    const wall = planWall(d);
    if (d.feasible === false || !(wall > 0)) { box.hidden = true; return; }
    box.hidden = false;
    clear(svg);
    const W = Math.max(300, Math.round(svg.getBoundingClientRect().width) || 640), H = 112;
    const L = 8, R = 8, T = 6, B = 30;
    svg.setAttribute('viewBox', '0 0 ' + W + ' ' + H);
    svg.setAttribute('height', String(H));
    const cl = d.cluster || {};
    const end = Math.max(wall, cl.sized_by === 'deadline' && cl.deadline_s ? cl.deadline_s : 0);
    const X = (t) => L + (W - L - R) * t / end;
    const unit = end >= 4 * 86400 ? 86400 : 3600;
    axes(svg, W, H, L, R, T, B, end / unit, 0, unit === 86400 ? 'days' : 'hours', (v) => String(v));
    let t = 0;
    ph.forEach((p, i) => {
      const w = p.wall_s || 0;
      const r = svgEl('rect', { x: X(t), y: T, width: Math.max(1, X(t + w) - X(t)), height: 30, class: 'ph' + (i % 4) });
      const tt = svgEl('title');
      tt.textContent = 'phase ' + p.name + ': ' + big(p.tokens) + ' tokens, ' + int(p.steps_whole) + ' steps, ' + days(w);
      r.appendChild(tt);
      svg.appendChild(r);
      // the label in the bar where it fits (about 6 px a character), else the name alone
      const room = X(t + w) - X(t) - 8;
      const long = p.name + ' (' + big(p.tokens) + ' tokens)';
      const text = long.length * 6.2 <= room ? long : p.name.length * 6.2 <= room ? p.name : '';
      if (text) {
        const lab = svgEl('text', { x: X(t) + 4, y: T + 19, class: 'in' });
        lab.textContent = text;
        svg.appendChild(lab);
      }
      t += w;
    });
    if (wall > t) {
      const r = svgEl('rect', { x: X(t), y: T, width: Math.max(1, X(wall) - X(t)), height: 30, class: 'overhead' });
      const tt = svgEl('title');
      tt.textContent = 'checkpoints, failures and restarts: ' + days(wall - t);
      r.appendChild(tt);
      svg.appendChild(r);
    }
    const ck = d.checkpoint || {}, ch = ck.chosen || {};
    const yC = T + 36, hC = 14;
    let nCk = 0;
    if (ch.interval_s > 0) {
      nCk = Math.floor(t / ch.interval_s);
      if (nCk > (W - L - R) / 4) {
        svg.appendChild(svgEl('rect', { x: X(0), y: yC, width: X(t) - X(0), height: hC, class: 'ckpt-band' }));
      } else {
        for (let k = 1; k <= nCk; k++) {
          const x = X(k * ch.interval_s);
          svg.appendChild(svgEl('line', { x1: x, x2: x, y1: yC, y2: yC + hC, class: 'ckpt' }));
        }
      }
    }
    const nFail = Math.round(ch.failures || 0);
    for (let k = 1; k <= nFail && nFail <= 200; k++) {
      const x = X(wall * k / (nFail + 1));
      svg.appendChild(svgEl('path', { d: 'M' + x + ' ' + (yC + hC + 2) + ' l4 8 l-8 0 z', class: 'fail' }));
    }
    const lr = d.lr_schedule || {};
    if (lr.warmup_steps > 0 && ph.length && ph[0].steps_whole > 0) {
      const wt = (ph[0].wall_s || 0) * Math.min(1, lr.warmup_steps / ph[0].steps_whole);
      svg.appendChild(svgEl('rect', { x: X(0), y: T + 30, width: Math.max(1, X(wt) - X(0)), height: 3, class: 'warm' }));
    }
    if (cl.sized_by === 'deadline' && cl.deadline_s > 0) {
      const x = X(cl.deadline_s);
      svg.appendChild(svgEl('line', { x1: x, x2: x, y1: T - 4, y2: H - B, class: 'deadline' }));
    }
    svg.dataset.phases = String(ph.length);
    svg.dataset.checkpoints = String(nCk);
    $('plan-timeline-note').textContent = ph.map((p) => p.name + ' ' + days(p.wall_s || 0)).join(', then ') +
      (wall > t ? '; grey: ' + days(wall - t) + ' of checkpoint stalls, rework and restarts' : '') +
      (nCk ? '; purple: ' + int(nCk) + ' checkpoints, one every ' + days(ch.interval_s) +
        (nCk > (W - L - R) / 4 ? ' (too dense to draw one by one)' : '') : '') +
      (nFail ? '; red: ' + nFail + ' expected failures, drawn evenly (the real ones come at random)' : '') +
      (lr.warmup_steps ? '; orange: the learning-rate warmup (' + int(lr.warmup_steps) + ' steps)' : '') +
      (cl.sized_by === 'deadline' ? '; dashed: the deadline' : '') + '.';
  }

  // Deadline -> GPUs and cost: one plan per deadline, each sized by the
  // server (whole nodes, the searched layout's predicted MFU at that size):
  // no scaling rule of the page's own.
  const CURVE_DAYS = [1, 2, 3, 5, 7, 10, 14, 21, 30, 45, 60, 90];

  async function renderCurve(d, planned, seq) {
    const box = $('plan-curve-box'), svg = $('plan-curve');
    box.hidden = false;
    clear(svg);
    delete svg.dataset.points;
    $('plan-curve-note').textContent = 'Planning ' + CURVE_DAYS.length + ' deadlines...';
    const pts = new Array(CURVE_DAYS.length);
    const bodies = CURVE_DAYS.map((dd) => planBody(dd)); // the inputs as they were when Plan was pressed
    let next = 0;
    // two at a time: the server runs plans on two compute threads by default
    async function worker() {
      while (next < CURVE_DAYS.length && seq === planSeq) { // a new plan stops this curve
        const i = next++;
        let res;
        try { res = await post('/api/plan', bodies[i]); } catch (e) { res = { status: 0 }; }
        const p = res.status === 200 && res.data ? res.data : null;
        pts[i] = p && p.feasible !== false && p.cluster ? {
          days: CURVE_DAYS[i], gpus: p.cluster.num_gpus, cost: p.compute.cost_usd,
          met: p.cluster.deadline_met !== false, wall: planWall(p)
        } : { days: CURVE_DAYS[i], gpus: NaN, cost: NaN, met: false };
      }
    }
    await Promise.all([worker(), worker()]);
    if (seq !== planSeq) return;
    drawCurve(svg, pts, planned['deadline-days']);
  }

  function drawCurve(svg, pts, chosenDays) {
    const ok = pts.filter((p) => Number.isFinite(p.gpus));
    if (!ok.length) {
      $('plan-curve-note').textContent = 'No deadline from 1 to 90 days could be planned.';
      return;
    }
    const W = Math.max(300, Math.round(svg.getBoundingClientRect().width) || 640), H = 230;
    const L = 52, R = 58, T = 24, B = 34;
    svg.setAttribute('viewBox', '0 0 ' + W + ' ' + H);
    svg.setAttribute('height', String(H));
    const lx0 = Math.log(CURVE_DAYS[0]), lx1 = Math.log(CURVE_DAYS[CURVE_DAYS.length - 1]);
    const X = (dd) => L + (W - L - R) * (Math.log(dd) - lx0) / (lx1 - lx0);
    // GPUs on a log2 axis (a short deadline needs hundreds of times more),
    // the cost on a linear one from zero
    const gLo = Math.pow(2, Math.floor(Math.log2(Math.min(...ok.map((p) => p.gpus))))),
      gHi = Math.pow(2, Math.ceil(Math.log2(Math.max(...ok.map((p) => p.gpus)) * 1.05)));
    const cMax = Math.max(...ok.map((p) => p.cost)) * 1.15;
    const YG = (g) => T + (H - T - B) * (1 - Math.log2(g / gLo) / Math.max(1, Math.log2(gHi / gLo)));
    const YC = (c) => T + (H - T - B) * (1 - c / cMax);
    const xt = CURVE_DAYS.filter((dd, i) => W > 560 || i % 2 === 0);
    // the x axis is logarithmic: its ticks are the deadlines themselves
    svg.appendChild(svgEl('line', { x1: L, x2: W - R, y1: H - B, y2: H - B, class: 'axis' }));
    for (const dd of xt) {
      const t = svgEl('text', { x: X(dd), y: H - B + 13, 'text-anchor': 'middle' });
      t.textContent = String(dd);
      svg.appendChild(t);
      svg.appendChild(svgEl('line', { x1: X(dd), x2: X(dd), y1: T, y2: H - B, class: 'grid' }));
    }
    const xl = svgEl('text', { x: L + (W - L - R) / 2, y: H - 4, 'text-anchor': 'middle' });
    xl.textContent = 'deadline (days, log scale)';
    svg.appendChild(xl);
    const gStep = Math.max(1, Math.ceil(Math.log2(gHi / gLo) / 5));
    for (let v = gLo; v <= gHi; v *= Math.pow(2, gStep)) {
      const t = svgEl('text', { x: L - 4, y: YG(v) + 4, 'text-anchor': 'end', class: 'gpus-pt' });
      t.textContent = int(v);
      svg.appendChild(t);
    }
    for (const v of niceTicks(0, cMax, 4)) {
      const t = svgEl('text', { x: W - R + 4, y: YC(v) + 4, class: 'cost-pt' });
      t.textContent = usd(v);
      svg.appendChild(t);
    }
    const gl = svgEl('text', { x: 4, y: T - 12, class: 'gpus-pt' });
    gl.textContent = 'GPUs';
    svg.appendChild(gl);
    const cl2 = svgEl('text', { x: W - 4, y: T - 12, 'text-anchor': 'end', class: 'cost-pt' });
    cl2.textContent = 'cost';
    svg.appendChild(cl2);
    svg.appendChild(svgEl('path', { class: 'gpus-line', d: 'M' + ok.map((p) => X(p.days) + ' ' + YG(p.gpus)).join(' L') }));
    svg.appendChild(svgEl('path', { class: 'cost-line', d: 'M' + ok.map((p) => X(p.days) + ' ' + YC(p.cost)).join(' L') }));
    for (const p of ok) {
      const g = svgEl('circle', { cx: X(p.days), cy: YG(p.gpus), r: 3.5, class: p.met ? 'gpus-pt' : 'miss' });
      const tg = svgEl('title');
      tg.textContent = p.days + ' days: ' + int(p.gpus) + ' GPUs, ' + usd(p.cost) + ', done in ' + days(p.wall) +
        (p.met ? '' : ' (misses the deadline)');
      g.appendChild(tg);
      svg.appendChild(g);
      const c = svgEl('rect', { x: X(p.days) - 3, y: YC(p.cost) - 3, width: 6, height: 6, class: p.met ? 'cost-pt' : 'miss' });
      c.appendChild(tg.cloneNode(true));
      svg.appendChild(c);
    }
    if (chosenDays !== undefined && chosenDays >= CURVE_DAYS[0] && chosenDays <= CURVE_DAYS[CURVE_DAYS.length - 1]) {
      const x = X(chosenDays);
      svg.appendChild(svgEl('line', { x1: x, x2: x, y1: T, y2: H - B, class: 'deadline' }));
    }
    svg.dataset.points = String(ok.length);
    const miss = ok.filter((p) => !p.met).map((p) => p.days);
    $('plan-curve-note').textContent = 'Blue line, left axis (log scale): GPUs (whole nodes) to finish by each deadline; orange ' +
      'dashes, right axis: the cost. Each point is its own plan from the server (trainplan plan --deadline-days D), ' +
      'its layout searched and its MFU predicted at that size, so no scaling rule is assumed' +
      (chosenDays !== undefined ? '; dashed line: your deadline' : '') +
      (miss.length ? '; hollow red: deadlines no cluster up to the plan\'s limit meets (' + miss.join(', ') + ' days)' : '') +
      (ok.length < pts.length ? '; ' + (pts.length - ok.length) + ' deadlines could not be planned' : '') + '.';
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
    $('plan-form').addEventListener('submit', runPlan);
    const planInUrl = readPlanUrl();
    for (const [id] of PLAN_INPUTS) $(id).addEventListener('change', writeUrl);
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
      for (const [id] of PLAN_INPUTS) $(id).value = planDefaults[id];
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
    await refresh();
    if (planInUrl) runPlan(); // a shared link with a plan shows the plan
  }

  document.addEventListener('DOMContentLoaded', start);
})();
