// SPDX-License-Identifier: MIT
// page_test.mjs: the planner page in a real browser.
//
//   node tests/browser/page_test.mjs path/to/trainplan [screenshot-dir]
//
// Debian's chromium (TP_CHROMIUM, default /usr/bin/chromium) driven by
// playwright-core from npm, launched with executablePath: no browser is
// downloaded. Starts `trainplan serve --port 0`, loads the page (the first
// screen fits; a screenshot of its memory and step-time bars is decoded and
// each part checked to be in src/io/svg.c's colour), changes TP
// with the keyboard and with the number box, checks that the memory figure
// and the fit verdict change, that the state is in the URL and survives a
// reload, that an out-of-memory configuration greys its figures and the
// banner offers the search's fitting layout, that the sliders stop at
// divisors, runs a search (table with DP, SP, accumulation; the scatter)
// and loads a result, plans a run from the plan panel (summary, timeline,
// deadline curve) and an infeasible one, and saves screenshots to
// <screenshot-dir> (default: build/): serve-page.png (1280 px wide), serve-scatter.png,
// serve-page-400.png (400 px), serve-oom.png, serve-plan-infeasible.png. Every
// request the page makes must go to the local server. Exit 77 (skipped)
// when playwright-core or chromium is missing; bounded in time.
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { inflateSync } from 'node:zlib';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const DEADLINE_MS = 150000;
const FRAME_STEPS = 30;       // slider steps timed for the frame target
const here = dirname(fileURLToPath(import.meta.url));
const exe = process.argv[2];
const shotDir = resolve(process.argv[3] || join(here, '..', '..', 'build'));
const chromiumPath = process.env.TP_CHROMIUM || '/usr/bin/chromium';

if (!exe) {
  console.error('usage: node page_test.mjs path/to/trainplan [screenshot-dir]');
  process.exit(2);
}
// Missing tools skip the test (exit 77), except where it is required (CI).
const required = process.env.TP_BROWSER_REQUIRED === '1';
function skip(why) {
  console.log((required ? 'FAIL (TP_BROWSER_REQUIRED=1): ' : 'skipped: ') + why);
  process.exit(required ? 1 : 77);
}
if (!existsSync(chromiumPath)) skip(`no chromium at ${chromiumPath} (apt-get install chromium)`);
let chromium;
try {
  ({ chromium } = await import('playwright-core'));
} catch (e) {
  skip('playwright-core is not installed (cd tests/browser && npm ci)');
}

// The pixels of a PNG screenshot (8-bit RGB or RGBA, not interlaced: what
// chromium writes), so that the test can look at what was drawn.
function decodePng(buf) {
  let pos = 8, width = 0, height = 0, type = 0;
  const idat = [];
  while (pos < buf.length) {
    const len = buf.readUInt32BE(pos), kind = buf.toString('latin1', pos + 4, pos + 8);
    const data = buf.subarray(pos + 8, pos + 8 + len);
    if (kind === 'IHDR') {
      width = data.readUInt32BE(0); height = data.readUInt32BE(4); type = data[9];
      if (data[8] !== 8 || (type !== 2 && type !== 6) || data[12] !== 0) throw new Error('unexpected PNG format');
    } else if (kind === 'IDAT') idat.push(data);
    pos += 12 + len;
  }
  const bpp = type === 6 ? 4 : 3, stride = width * bpp;
  const raw = inflateSync(Buffer.concat(idat));
  const out = Buffer.alloc(height * stride);
  for (let y = 0; y < height; y++) {
    const f = raw[y * (stride + 1)];
    for (let x = 0; x < stride; x++) {
      const v = raw[y * (stride + 1) + 1 + x];
      const a = x >= bpp ? out[y * stride + x - bpp] : 0;
      const b = y > 0 ? out[(y - 1) * stride + x] : 0;
      const c = x >= bpp && y > 0 ? out[(y - 1) * stride + x - bpp] : 0;
      let pred = 0;
      if (f === 1) pred = a;
      else if (f === 2) pred = b;
      else if (f === 3) pred = (a + b) >> 1;
      else if (f === 4) {
        const p = a + b - c, pa = Math.abs(p - a), pb = Math.abs(p - b), pc = Math.abs(p - c);
        pred = pa <= pb && pa <= pc ? a : pb <= pc ? b : c;
      }
      out[y * stride + x] = (v + pred) & 255;
    }
  }
  const colours = new Map(); // '#rrggbb' -> pixels
  for (let i = 0; i < out.length; i += bpp) {
    const hex = '#' + [out[i], out[i + 1], out[i + 2]].map((v) => v.toString(16).padStart(2, '0')).join('');
    colours.set(hex, (colours.get(hex) || 0) + 1);
  }
  return { width, height, colours };
}
// A colour array of the CLI's SVG writer (src/io/svg.c), by name.
function svgPalette(name) {
  const src = readFileSync(join(here, '..', '..', 'src', 'io', 'svg.c'), 'utf8');
  const m = new RegExp(name + '\\[[^\\]]*\\] = \\{([^}]*)\\}').exec(src);
  return m ? [...m[1].matchAll(/"(#[0-9a-f]{6})"/gi)].map((x) => x[1].toLowerCase()) : [];
}

let passed = 0;
const failures = [];
function check(cond, what) {
  if (cond) passed++;
  else {
    failures.push(what);
    console.log('FAIL: ' + what);
  }
}

const killer = setTimeout(() => {
  console.log(`FAIL: deadline of ${DEADLINE_MS} ms passed`);
  process.exit(1);
}, DEADLINE_MS);

// ---- the server
const server = spawn(exe, ['serve', '--port', '0'], { stdio: ['ignore', 'pipe', 'pipe'] });
let serverErr = '';
server.stderr.on('data', (d) => { serverErr += d; });
const base = await new Promise((res, rej) => {
  let out = '';
  const t = setTimeout(() => rej(new Error('no URL printed')), 20000);
  server.stdout.on('data', (d) => {
    out += d;
    const m = /serving on (http:\/\/127\.0\.0\.1:\d+\/)/.exec(out);
    if (m) { clearTimeout(t); res(m[1]); }
  });
  server.on('exit', (code) => rej(new Error('server exited ' + code + ': ' + serverErr)));
});
const origin = new URL(base).origin;

// ---- the browser
const browser = await chromium.launch({
  executablePath: chromiumPath,
  headless: true,
  // --no-sandbox: CI runs as root, where chromium's sandbox refuses to start;
  // the page is our own and the browser sees only this loopback server.
  args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage', '--no-first-run',
    '--disable-extensions'],
});
const context = await browser.newContext({ viewport: { width: 1280, height: 1000 } });
const page = await context.newPage();
const external = [];
const consoleErrors = [];
// Watched, not intercepted: page.route would send every request through
// this node process and add its round trip to the frame time measured below.
// The page's CSP (default-src 'self') refuses anything external anyway.
page.on('request', (req) => {
  const u = req.url();
  if (!u.startsWith(origin + '/') && !u.startsWith('data:')) external.push(u);
});
// 4xx/5xx answers are expected (bad TP, search not built yet); Chrome logs them
// as "Failed to load resource". Anything else (CSP refusals, exceptions) counts.
page.on('console', (m) => {
  if (m.type() === 'error' && !/Failed to load resource/.test(m.text())) consoleErrors.push(m.text());
});
page.on('pageerror', (e) => consoleErrors.push(String(e)));
// The last successful /api/estimate answer (the diagram draws its pipeline_schedule).
let lastEstimate = null;
page.on('response', (res) => {
  if (res.url() === origin + '/api/estimate' && res.status() === 200) lastEstimate = res;
});

async function verdict() {
  return page.evaluate(() => {
    const v = document.getElementById('verdict');
    const total = document.getElementById('mem-total');
    return { fits: v.dataset.fits, text: v.textContent, total: total ? Number(total.textContent) : NaN };
  });
}
async function waitVerdict(pred, what) {
  try {
    await page.waitForFunction(pred, null, { timeout: 10000 });
  } catch (e) {
    check(false, 'timed out waiting for ' + what);
  }
}

try {
  // 0. the first screen, with nothing in the URL, is a configuration that fits
  await page.goto(base, { waitUntil: 'load' });
  await waitVerdict(() => document.getElementById('verdict').dataset.fits !== undefined, 'first screen');
  const v0 = await verdict();
  check(v0.fits === 'true', 'the first screen fits (' + v0.text + ')');
  check(!(await page.evaluate(() => document.body.classList.contains('nofit'))), 'first screen: figures not greyed');
  // look at the screenshot of the memory bar and the step-time bar: each part
  // wider than a few pixels is drawn in the colour the CLI's SVG gives it
  for (const [bar, table, name] of [['#mem-bar', '#mem-table', 'mem_colors'], ['#time-bar', '#time-table', 'time_colors']]) {
    const palette = svgPalette(name);
    const shown = await page.$$eval(table + ' tbody tr[data-part]', (trs) => trs.map((tr) =>
      [tr.dataset.part, Number(tr.querySelector('td.n:last-child').textContent.replace('%', ''))]));
    const order = await page.evaluate((t) => t === '#mem-table' ?
      ['weights', 'weights_gathered', 'grads', 'optimizer', 'activations', 'logits', 'comm_buffers', 'framework', 'fragmentation'] :
      ['compute', 'recompute', 'tp_comm', 'cp_comm', 'ep_comm', 'pp_comm', 'bubble', 'dp_comm', 'optimizer'], table);
    const png = decodePng(await (await page.$(bar)).screenshot());
    const big = shown.filter(([, share]) => share >= 3);
    const missing = big.filter(([part]) => !(png.colours.get(palette[order.indexOf(part)]) > 20));
    check(palette.length === 9 && big.length >= 1 && missing.length === 0,
      bar + ' drawn in the CLI\'s SVG colours (' + big.map(([p]) => p + ' ' + palette[order.indexOf(p)]).join(', ') +
      (missing.length ? '; missing: ' + missing.map(([p]) => p).join(', ') : '') + ')');
  }

  // 1. load: llama-3-8b on 8 H100s with TP 1 and ZeRO 0 does not fit
  await page.goto(base + '?model=llama-3-8b&gpu=h100-sxm&gpus=8&tp=1&zero=0', { waitUntil: 'load' });
  await waitVerdict(() => document.getElementById('verdict').dataset.fits !== undefined, 'first verdict');
  const v1 = await verdict();
  check(v1.fits === 'false', 'TP 1: verdict is out of memory (' + v1.text + ')');
  check(v1.total > 100, 'TP 1: memory figure above 100 GiB (' + v1.total + ')');
  // the figures that need a fitting configuration are greyed and say so
  const grey = await page.evaluate(() => ({
    body: document.body.classList.contains('nofit'),
    notes: [...document.querySelectorAll('.nofit-note')].filter((n) => !n.hidden).length,
    opacity: Number(getComputedStyle(document.getElementById('kpis')).opacity),
  }));
  check(grey.body && grey.notes === 3 && grey.opacity < 0.5,
    'out of memory: step time, throughput and pipeline greyed and marked not valid (' + JSON.stringify(grey) + ')');
  // the banner gives the fix the CLI's search gives: a layout that fits, to load
  await page.waitForSelector('#fix[data-fix]', { timeout: 20000 });
  const fixText = await page.textContent('#fix');
  check(/^To fit: TP \d+ x PP \d+ .*ZeRO-\d.*fits \(/.test(fixText), 'OOM banner names a layout that fits (' + fixText + ')');
  check(await page.getAttribute('#fix', 'data-fix') === 'layout', 'the fix is a layout to load');
  mkdirSync(shotDir, { recursive: true });
  await page.screenshot({ path: join(shotDir, 'serve-oom.png') });
  console.log('screenshot: ' + join(shotDir, 'serve-oom.png'));
  // the sliders stop at the divisors: TP of 8 GPUs (PP 1, CP 1) is 1, 2, 4 or 8
  const tpStops = await page.getAttribute('#tp-slider', 'max');
  check(tpStops === '3', 'TP slider snaps to the 4 divisors of 8 GPUs (max index ' + tpStops + ')');
  const options = await page.$$eval('#model option', (os) => os.length);
  check(options > 5, 'model presets listed (' + options + ')');

  // 2. keyboard: TP slider one step right -> TP 2 fits, memory halves
  await page.focus('#tp-slider');
  await page.keyboard.press('ArrowRight');
  await waitVerdict(() => document.getElementById('verdict').dataset.fits === 'true', 'FITS after TP 2');
  const v2 = await verdict();
  check(v2.fits === 'true', 'TP 2: verdict fits (' + v2.text + ')');
  check(v2.total < v1.total * 0.6, `TP 2: memory figure drops (${v1.total} -> ${v2.total} GiB)`);
  check(await page.inputValue('#tp') === '2', 'TP box shows 2');
  check(new URL(page.url()).searchParams.get('tp') === '2', 'URL holds tp=2 (' + page.url() + ')');
  const updateMs = Number(await page.evaluate(() => document.body.dataset.updateMs));
  const serverMs = Number(await page.evaluate(() => document.body.dataset.serverMs));
  console.log(`slider -> redrawn page: ${updateMs.toFixed(2)} ms end to end (server ${serverMs.toFixed(3)} ms)`);
  check(Number.isFinite(updateMs), 'the page redrew after a slider step');

  // 2b. the frame target: from a slider step to the new memory figure in the
  // page, timed inside the page (performance.now at the input event, then
  // when the figure's text changes, then the next animation frame: painted),
  // over FRAME_STEPS steps between TP 2 and TP 4, one at a time.
  const frame = await page.evaluate(async ([steps, WARMUP]) => {
    const range = document.getElementById('tp-slider');
    const figure = () => { const f = document.getElementById('mem-total'); return f ? f.textContent : ''; };
    const dom = [], painted = [], fetchMs = [], renderMs = [];
    const base = Number(range.value);
    for (let i = -WARMUP; i < steps; i++) {
      await new Promise((r) => setTimeout(r, 30)); // idle: nothing in flight
      const before = figure(); // the element is redrawn, so watch the whole page
      const t = await new Promise((resolve) => {
        let t0 = 0;
        const obs = new MutationObserver(() => {
          if (figure() === before) return;
          const t1 = performance.now();
          obs.disconnect();
          requestAnimationFrame(() => resolve([t1 - t0, performance.now() - t0]));
        });
        obs.observe(document.body, { characterData: true, childList: true, subtree: true });
        range.value = String(i % 2 === 0 ? base + 1 : base);
        t0 = performance.now();
        range.dispatchEvent(new Event('input', { bubbles: true }));
        setTimeout(() => { obs.disconnect(); resolve([Infinity, Infinity]); }, 5000);
      });
      if (i < 0) continue; // warm-up steps (JIT, connection) are not counted
      dom.push(t[0]);
      painted.push(t[1]);
      fetchMs.push(Number(document.body.dataset.fetchMs));
      renderMs.push(Number(document.body.dataset.renderMs));
    }
    return { dom, painted, fetchMs, renderMs };
  }, [FRAME_STEPS, 4]);
  const med = (a) => { const b = [...a].sort((x, y) => x - y); return b[Math.floor(b.length / 2)]; };
  const p90 = (a) => { const b = [...a].sort((x, y) => x - y); return b[Math.floor(b.length * 0.9)]; };
  const domMed = med(frame.dom), paintMed = med(frame.painted);
  console.log(`frame: slider step -> new memory figure: median ${domMed.toFixed(2)} ms, ` +
    `90th ${p90(frame.dom).toFixed(2)} ms, max ${Math.max(...frame.dom).toFixed(2)} ms; ` +
    `-> next frame painted: median ${paintMed.toFixed(2)} ms (${FRAME_STEPS} steps; ` +
    `request median ${med(frame.fetchMs).toFixed(2)} ms, drawing median ${med(frame.renderMs).toFixed(2)} ms)`);
  check(frame.dom.every(Number.isFinite), 'every slider step redrew the memory figure');
  // The bound is one frame (16 ms) end to end on loopback. Timing is
  // measured, not asserted, in the test suite (a loaded CI machine must not
  // turn a test red): the figures go to stdout and to serve-frame.json beside
  // the screenshot. A benchmark run asserts the bound with
  // TP_FRAME_BUDGET_MS=16 (docs/serve.md gives the figures measured here).
  mkdirSync(shotDir, { recursive: true });
  writeFileSync(join(shotDir, 'serve-frame.json'), JSON.stringify({
    steps: FRAME_STEPS, median_ms: domMed, p90_ms: p90(frame.dom),
    max_ms: Math.max(...frame.dom), painted_median_ms: paintMed,
    request_median_ms: med(frame.fetchMs), render_median_ms: med(frame.renderMs),
  }, null, 1) + '\n');
  if (process.env.TP_FRAME_BUDGET_MS) {
    const budget = Number(process.env.TP_FRAME_BUDGET_MS);
    check(domMed <= budget, `median slider -> memory figure within ${budget} ms ` +
      `(${domMed.toFixed(2)} ms)`);
  }
  await page.fill('#tp', '2');
  await waitVerdict(() => document.getElementById('verdict').dataset.fits === 'true', 'back to TP 2');

  // 3. typing in the number box: TP 8 -> smaller still
  await page.fill('#tp', '8');
  await waitVerdict(() => Number(document.getElementById('mem-total').textContent) < 20, 'TP 8 memory');
  const v3 = await verdict();
  check(v3.total < v2.total, `TP 8: memory drops again (${v2.total} -> ${v3.total})`);
  check(await page.textContent('#dp') === '1', 'DP shown as derived: 8 / 8 = 1');

  // 4. a bad value: an error message, not a crash; then back
  await page.fill('#tp', '3');
  await page.waitForSelector('#error:not([hidden])', { timeout: 10000 });
  const errText = await page.textContent('#error');
  check(/tp/.test(errText) && /divide/.test(errText), 'TP 3 shows the CLI\'s message (' + errText + ')');
  await page.fill('#tp', '2');
  await page.waitForSelector('#error[hidden]', { state: 'attached', timeout: 10000 });

  // 5. the state survives a reload (it lives in the URL)
  await page.reload({ waitUntil: 'load' });
  await waitVerdict(() => document.getElementById('verdict').dataset.fits === 'true', 'verdict after reload');
  check(await page.inputValue('#tp') === '2', 'after reload TP is still 2');

  // 6. pipeline diagram for PP 4
  await page.fill('#pp', '4');
  await page.fill('#global-batch', '32');
  await page.waitForFunction(() => document.querySelectorAll('#pipe rect.op-f').length >= 16, null, { timeout: 10000 });
  const bubble = Number(await page.getAttribute('#pipe', 'data-bubble'));
  check(bubble > 0 && bubble < 0.5, 'pipeline diagram drawn with a bubble (' + bubble + ')');
  // ... and it is the schedule the server simulated, not one of the page's own
  // (full recompute: backward takes 3 forward passes there, as in the SVG chart)
  // (wait for the estimate this change asks for: the page was network-idle already)
  const fullAnswer = page.waitForResponse((r) => r.url() === origin + '/api/estimate' &&
    r.status() === 200 && (r.request().postDataJSON() || {}).recompute === 'full', { timeout: 10000 });
  await page.selectOption('#recompute', 'full');
  const ps = (await (await fullAnswer).json()).pipeline_schedule;
  const fwd = ps.ops.flat().filter((o) => !o.backward).length;
  const bwd = ps.ops.flat().length - fwd;
  await page.waitForFunction(([f, b]) => document.querySelectorAll('#pipe rect.op-f').length === f &&
    document.querySelectorAll('#pipe rect.op-b').length === b, [fwd, bwd], { timeout: 10000 });
  check(ps.stages === 4 && fwd === ps.stages * ps.microbatches_drawn * ps.virtual_stages,
    'the diagram draws the answer\'s pipeline_schedule (' + fwd + ' forwards, ' + bwd + ' backwards)');
  check(Number(await page.getAttribute('#pipe', 'data-bubble')) === Number(ps.bubble_fraction.toFixed(4)),
    'the diagram\'s bubble is the simulated one (' + ps.bubble_fraction + ')');
  check(ps.backward_units === 3, 'full recompute: backward 3 units (' + ps.backward_units + ')');
  const ratio = await page.evaluate(() => {
    const w = (sel) => Number(document.querySelector(sel).getAttribute('width')) + 0.6;
    return w('#pipe rect.op-b') / w('#pipe rect.op-f');
  });
  check(Math.abs(ratio - ps.backward_units) < 1e-3, 'a backward is drawn ' + ps.backward_units +
    ' forwards long (' + ratio + ')');
  await page.selectOption('#recompute', '');
  await page.waitForLoadState('networkidle');

  // 7. search: run it (one page), ask for the next page, load a result
  await page.fill('#search-top', '5');
  await page.click('#search-run');
  await page.waitForFunction(() => {
    const s = document.getElementById('search-status').textContent;
    return s && s !== 'Searching...';
  }, null, { timeout: 60000 });
  const status = await page.textContent('#search-status');
  const ranks = () => page.$$eval('#search-table tbody tr:not(.binding) td:first-child',
    (tds) => tds.map((td) => Number(td.textContent)));
  const total = Number(await page.evaluate(() => document.body.dataset.searchTotal));
  const r1 = await ranks();
  check(total > 5 && r1.length === 5, `search: first page of 5 of ${total} (${status})`);
  check(await page.isVisible('#search-more'), 'search: "More results" offered');
  await page.click('#search-more');
  await page.waitForFunction(() => document.body.dataset.searchShown === '10', null, { timeout: 60000 });
  const r2 = await ranks();
  check(r2.length === 10 && r2.every((r, i) => r === i + 1),
    'search: the second page follows the first, ranks 1..10 (' + r2.join(',') + ')');
  check(/Best 10 of \d+/.test(await page.textContent('#search-status')), 'search status counts the rows');
  const heads = await page.$$eval('#search-table thead th', (ths) => ths.map((t) => t.textContent));
  check(['DP', 'SP', 'accum.'].every((h) => heads.includes(h)), 'search table shows DP, SP and accumulation (' + heads.join(' ') + ')');
  // both kinds: the 10 ranked rows filled, and the 3 closest layouts that do
  // not fit (the request's "unfit") hollow, right of the capacity line
  const sc = await page.evaluate(() => {
    const svg = document.getElementById('scatter');
    const capX = Number(svg.querySelector('line.cap').getAttribute('x1'));
    const fitX = [...svg.querySelectorAll('circle.pt-fit')].map((c) => Number(c.getAttribute('cx')));
    const hollowX = [...svg.querySelectorAll('circle.pt-nofit')].map((c) => Number(c.getAttribute('cx')));
    return { points: Number(svg.dataset.points), fit: Number(svg.dataset.fit),
      dots: fitX.length, hollow: hollowX.length, cap: svg.querySelectorAll('line.cap').length,
      cur: svg.querySelectorAll('circle.pt-cur').length,
      left: fitX.every((x) => x <= capX), right: hollowX.every((x) => x > capX),
      note: document.getElementById('scatter-note').textContent };
  });
  check(sc.points === 13 && sc.dots === sc.fit && sc.fit === 10 && sc.hollow === 3 && sc.left && sc.right &&
    sc.cap === 1 && sc.cur === 1 && /^10 layouts from the table and the 3 closest that do not fit: 10 fit/.test(sc.note),
    'scatter: 10 layouts that fit (filled, left of the capacity line), the 3 closest that do not (hollow, ' +
    'right of it), the current configuration (' + JSON.stringify(sc) + ')');
  // a dot is a button: Enter on the 10th loads the 10th layout (its micro-batch)
  const mb10 = await page.textContent('#search-table tbody tr:not(.binding):nth-child(10) td:nth-child(11)');
  await page.focus('#scatter circle.pt-fit:nth-of-type(10)');
  await page.keyboard.press('Enter');
  await page.waitForFunction((m) => new URL(location.href).searchParams.get('micro-batch') === m, mb10, { timeout: 10000 })
    .catch(() => {});
  check(new URL(page.url()).searchParams.get('micro-batch') === mb10,
    'Enter on a scatter dot loads its layout (micro-batch ' + mb10 + ': ' + page.url() + ')');
  const loads = await page.$$('#search-table button.load');
  if (loads.length > 0) {
    const before = page.url();
    await loads[0].click();
    await page.waitForFunction((b) => location.href !== b, before, { timeout: 10000 });
    await waitVerdict(() => document.getElementById('verdict').dataset.fits === 'true', 'loaded result fits');
    check((await verdict()).fits === 'true', 'a loaded search result fits');
    console.log('search: ' + status + ' loaded -> ' + page.url());
  } else {
    check(false, 'search gave no result to load: ' + status);
  }

  // 8. plan panel: 20 tokens per parameter, 14 days, $2.50 per GPU-hour,
  // MFU 0.4; the request carries exactly these flags
  await page.fill('#plan-tokens', '20');
  await page.selectOption('#plan-tokens-unit', 'tokens-per-param');
  await page.fill('#plan-deadline', '14');
  await page.fill('#plan-mfu', '0.4');
  await page.fill('#plan-price', '2.5');
  await page.fill('#plan-budget', '');
  const planReq = page.waitForRequest((r) => r.url() === origin + '/api/plan', { timeout: 10000 });
  await page.click('#plan-run');
  const pb = (await planReq).postDataJSON();
  check(pb['tokens-per-param'] === 20 && pb['deadline-days'] === 14 && pb.mfu === 0.4 && pb.price === 2.5 &&
    pb.gpu === 'h100-sxm' && pb.budget === undefined && pb.tp === undefined,
    'plan request carries the panel\'s inputs (' + JSON.stringify(pb) + ')');
  await page.waitForFunction(() => document.getElementById('plan-verdict').dataset.feasible !== undefined &&
    document.getElementById('plan-status').textContent !== 'Planning...', null, { timeout: 30000 });
  const summary = await page.$$eval('#plan-summary [data-key]', (ds) => ds.map((d) => d.dataset.key));
  check(['tokens', 'steps', 'flops', 'gpu-hours', 'cost', 'cluster', 'layout', 'checkpoint'].every((k) => summary.includes(k)),
    'plan summary lists tokens, steps, FLOPs, GPU-hours, cost, cluster, layout, checkpointing (' + summary.join(',') + ')');
  const planTokens = await page.textContent('#plan-summary [data-key=tokens] dd');
  check(/^160\.6 B/.test(planTokens), 'plan tokens: 20 x 8.03 B = 160.6 B (' + planTokens + ')');
  const planCost = await page.textContent('#plan-summary [data-key=cost] dd');
  check(/\$2\.50 per GPU-hour/.test(planCost), 'plan cost at the price given (' + planCost + ')');
  check(await page.getAttribute('#plan-verdict', 'data-feasible') === 'true', 'the plan is feasible');
  check(!(await page.isVisible('#plan-out pre')), 'the raw JSON is folded away');
  const tl = await page.evaluate(() => {
    const svg = document.getElementById('plan-timeline');
    return { phases: Number(svg.dataset.phases), rects: svg.querySelectorAll('rect.ph0').length,
      ck: Number(svg.dataset.checkpoints), deadline: svg.querySelectorAll('line.deadline').length };
  });
  check(tl.phases === 1 && tl.rects === 1 && tl.ck > 0 && tl.deadline === 1,
    'plan timeline: the phase, checkpoints and the deadline (' + JSON.stringify(tl) + ')');
  await page.waitForFunction(() => document.getElementById('plan-curve').dataset.points !== undefined, null, { timeout: 60000 });
  const curve = await page.evaluate(() => {
    const svg = document.getElementById('plan-curve');
    const ys = [...svg.querySelectorAll('circle')].map((c) => Number(c.getAttribute('cy')));
    return { points: Number(svg.dataset.points), ys };
  });
  // a later deadline never needs more GPUs: the dots go down (SVG y grows downwards)
  check(curve.points === 12 && curve.ys.every((y, i) => i === 0 || y >= curve.ys[i - 1] - 1e-6),
    'deadline curve: 12 plans, GPUs fall as the deadline grows (' + JSON.stringify(curve) + ')');

  // the plan's inputs are in the address bar, and a reload plans them again
  const pu = new URL(page.url()).searchParams;
  check(pu.get('plan-deadline-days') === '14' && pu.get('plan-price') === '2.5' && !pu.has('plan-mfu'),
    'plan inputs in the URL where they differ from the defaults (' + page.url() + ')');
  await page.reload({ waitUntil: 'load' });
  await page.waitForFunction(() => document.getElementById('plan-verdict').dataset.feasible !== undefined,
    null, { timeout: 30000 });
  check(await page.inputValue('#plan-deadline') === '14' &&
    (await page.textContent('#plan-summary [data-key=cost] dd')) === planCost,
    'after a reload the plan panel holds the same inputs and plans the same cost (' + planCost + ')');

  // 8a. a bad input is the server's message, naming the flag, and no stale plan
  await page.fill('#plan-mfu', '40');
  await page.click('#plan-run');
  await page.waitForFunction(() => document.getElementById('plan-status').dataset.error === '1', null, { timeout: 10000 });
  const bad = await page.textContent('#plan-status');
  check(/^Plan: (--)?mfu: 40\b/.test(bad) && await page.isHidden('#plan-verdict'),
    'MFU 40: the plan panel shows the server\'s message and no plan (' + bad + ')');
  await page.fill('#plan-mfu', '0.4');

  // 8a'. a budget: the summary says whether the plan is within it and what it buys
  await page.fill('#plan-budget', '5000');
  await page.click('#plan-run');
  await page.waitForFunction(() => document.querySelector('#plan-summary [data-key=budget]') !== null &&
    document.getElementById('plan-status').textContent === '', null, { timeout: 30000 });
  const budText = await page.textContent('#plan-summary [data-key=budget]');
  const budVerdict = await page.textContent('#plan-verdict');
  check(/\$5,000 \(over it by \$[\d,]+\)buys 2,000 GPU-hours/.test(budText) && /over the budget of \$5,000/.test(budVerdict),
    'budget $5,000 at $2.50: over it, buys 2,000 GPU-hours (' + budText + ' | ' + budVerdict + ')');
  await page.fill('#plan-budget', '');
  await page.waitForFunction(() => document.getElementById('plan-curve').dataset.points !== undefined, null, { timeout: 60000 });

  // 8b. two phases (--phase, as the CLI takes them): the timeline draws both, in order
  await page.fill('#plan-phases', 'name=4k,seq=4096; name=32k,seq=32768,tokens=10e9');
  const phReq = page.waitForRequest((r) => r.url() === origin + '/api/plan', { timeout: 10000 });
  await page.click('#plan-run');
  const phBody = (await phReq).postDataJSON();
  check(JSON.stringify(phBody.phase) === '["name=4k,seq=4096","name=32k,seq=32768,tokens=10e9"]',
    'phases sent as plan\'s repeated --phase (' + JSON.stringify(phBody.phase) + ')');
  await page.waitForFunction(() => document.getElementById('plan-timeline').dataset.phases === '2' &&
    document.getElementById('plan-curve').dataset.points !== undefined, null, { timeout: 60000 });
  const tl2 = await page.evaluate(() => {
    const svg = document.getElementById('plan-timeline');
    const r0 = svg.querySelector('rect.ph0'), r1 = svg.querySelector('rect.ph1');
    return { x0: Number(r0.getAttribute('x')), w0: Number(r0.getAttribute('width')), x1: Number(r1.getAttribute('x')),
      note: document.getElementById('plan-timeline-note').textContent };
  });
  check(Math.abs(tl2.x0 + tl2.w0 - tl2.x1) < 0.01 && /^4k .* days, then 32k /.test(tl2.note),
    'timeline: phase 4k then phase 32k, end to end (' + JSON.stringify(tl2) + ')');
  const lay32 = await page.textContent('#plan-summary [data-key=layout-32k] dd');
  check(/ x CP \d+ x /.test(lay32), 'each phase has its layout; the 32k phase uses CP (' + lay32 + ')');

  // 9. screenshots at 1280 px and 400 px wide
  // (the search again, so that the shots show its table and scatter after the reload)
  await page.fill('#search-top', '10');
  await page.click('#search-run');
  await page.waitForFunction(() => /^Best 10 of/.test(document.getElementById('search-status').textContent) &&
    document.getElementById('scatter').dataset.points === '13', null, { timeout: 60000 });
  mkdirSync(shotDir, { recursive: true });
  // the scatter alone, at full size, to look at both kinds of dot
  const shotScatter = join(shotDir, 'serve-scatter.png');
  await (await page.$('#scatter-box')).screenshot({ path: shotScatter });
  console.log('screenshot: ' + shotScatter);
  const shot = join(shotDir, 'serve-page.png');
  await page.screenshot({ path: shot, fullPage: true });
  check(existsSync(shot), 'screenshot saved to ' + shot);
  console.log('screenshot: ' + shot);
  await page.setViewportSize({ width: 400, height: 900 });
  await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth);
  check(overflow <= 400, 'at 400 px wide nothing runs off the side (page ' + overflow + ' px)');
  const shot400 = join(shotDir, 'serve-page-400.png');
  await page.screenshot({ path: shot400, fullPage: true });
  check(existsSync(shot400), 'screenshot saved to ' + shot400);
  console.log('screenshot: ' + shot400);
  await page.setViewportSize({ width: 1280, height: 1000 });

  // 10. paste a Hugging Face config.json instead of a preset
  const hf = JSON.stringify({
    architectures: ['LlamaForCausalLM'], hidden_size: 2048, intermediate_size: 5632,
    num_attention_heads: 32, num_hidden_layers: 22, num_key_value_heads: 4, vocab_size: 32000,
    hidden_act: 'silu', rms_norm_eps: 1e-5, tie_word_embeddings: false,
  }, null, 2);
  await page.click('#paste-box summary');
  await page.fill('#model-config', hf);
  await page.click('#use-config');
  await page.waitForFunction(() => /model-config/.test(document.getElementById('model-info').textContent),
    null, { timeout: 10000 }).catch(() => {});
  const info = await page.textContent('#model-info');
  check(/model-config: 1\.\d B parameters, 22 layers/.test(info), 'pasted config evaluated (' + info + ')');
  check(new URL(page.url()).searchParams.has('model-config'), 'pasted config kept in the URL');
  // a trainplan model file under a preset's name with another shape says so
  const reshaped = JSON.stringify({
    name: 'llama-3-8b', norm: 'rmsnorm', mlp: 'swiglu', position: 'rotary', linear_bias: false,
    tie_embeddings: false, num_layers: 22, hidden: 4096, num_heads: 32, num_kv_heads: 8,
    ffn_hidden: 14336, vocab: 128256,
  }, null, 2);
  await page.fill('#model-config', reshaped);
  await page.click('#use-config');
  await page.waitForFunction(() => /reshaped/.test(document.getElementById('model-info').textContent),
    null, { timeout: 10000 }).catch(() => {});
  const rinfo = await page.textContent('#model-info');
  check(/^llama-3-8b \(reshaped: not the preset's shape\): 5\.\d B parameters, 22 layers/.test(rinfo),
    'a preset name on another shape is marked reshaped (' + rinfo + ')');

  // 11. an infeasible plan is shown as such, with its reason: Llama 3 70B
  // on the 8 GPUs set above (its model states alone need 14)
  await page.goto(base + '?model=llama-3-70b&gpu=h100-sxm&gpus=8&tp=8&global-batch=64', { waitUntil: 'load' });
  await waitVerdict(() => document.getElementById('verdict').dataset.fits !== undefined, '70B verdict');
  // a step of 64 x 2048 tokens of a 70B model on 8 GPUs is seconds long: said in seconds
  const stepText = await page.textContent('#kpi-step');
  const computeText = await page.textContent('#time-table tr[data-part=compute] td');
  check(/^\d+\.\d\d s$/.test(stepText) && /^\d+\.\d\d s$/.test(computeText),
    'step times above a second are in seconds (' + stepText + ', compute ' + computeText + ')');
  // the rates the step time charges, as the report's Layout lines state them
  // (docs/model.md 1b, 2): the H100 profile's measured matmul rate, its best
  // attention kernel, the sequence-length factor of the FA3 paper's shape
  const rates = await page.textContent('#rates-note');
  check(/^Rates: GEMMs at the measured matmul rate, 0\.803 of peak \(data\/hardware\/h100-sxm\.json\), x 0\.\d{3} sustained, in 128 x 256 tiles on 132 SMs; attention at 0\.\d{3} of the 16-bit peak \(best kernel 0\.748 of peak x 0\.\d{3} sustained, x 0\.\d{3} for kernel calls of [\d,]+ tokens \(FlashAttention-3 paper\)\)\.$/.test(rates),
    'the rates the step time charges are stated (' + rates + ')');
  await page.selectOption('#plan-cluster', 'gpus');
  await page.click('#plan-run');
  await page.waitForFunction(() => document.getElementById('plan-verdict').dataset.feasible !== undefined,
    null, { timeout: 30000 });
  const inf = await page.textContent('#plan-verdict');
  check(await page.getAttribute('#plan-verdict', 'data-feasible') === 'false' && /^NOT FEASIBLE: no layout of llama-3-70b fits 8 x h100-sxm/.test(inf),
    'infeasible plan shown as such with its reason (' + inf.slice(0, 120) + ')');
  const infKeys = await page.$$eval('#plan-summary [data-key]', (ds) => ds.map((d) => d.dataset.key));
  check(!infKeys.includes('cost') && !infKeys.includes('gpu-hours'), 'an infeasible plan shows no cost or GPU-hours (' + infKeys + ')');
  await page.waitForFunction(() => document.getElementById('plan-curve').dataset.points !== undefined, null, { timeout: 60000 });
  const infShot = join(shotDir, 'serve-plan-infeasible.png');
  await (await page.$('#plan-h')).evaluate((h) => h.parentElement.scrollIntoView());
  await (await page.$('section[aria-labelledby=plan-h]')).screenshot({ path: infShot });
  console.log('screenshot: ' + infShot);
  // nothing fits these 8 GPUs: the banner gives the binding constraint, and
  // the search's closest layouts are hollow dots right of the capacity line
  await page.waitForSelector('#fix[data-fix]', { timeout: 20000 });
  const noFix = await page.textContent('#fix');
  check(await page.getAttribute('#fix', 'data-fix') === 'none' && /no layout fits these 8 GPUs.*needs PP >= 2 \(16 GPUs\)/.test(noFix),
    'OOM with no fitting layout: the banner gives the binding constraint (' + noFix + ')');
  await page.fill('#search-top', '5');
  await page.click('#search-run');
  await page.waitForFunction(() => /No layout fits/.test(document.getElementById('search-status').textContent),
    null, { timeout: 60000 });
  const sc2 = await page.evaluate(() => {
    const svg = document.getElementById('scatter');
    const cap = Number(svg.querySelector('line.cap').getAttribute('x1'));
    const hollow = [...svg.querySelectorAll('circle.pt-nofit')];
    return { points: Number(svg.dataset.points), fit: Number(svg.dataset.fit), hollow: hollow.length,
      right: hollow.every((c) => Number(c.getAttribute('cx')) > cap) };
  });
  const greyRows = await page.$$eval('#search-table tbody tr.nofit', (trs) => trs.length);
  check(greyRows === 5, 'the 5 closest layouts are greyed rows in the table (' + greyRows + ')');
  check(sc2.points === 5 && sc2.fit === 0 && sc2.hollow === 5 && sc2.right,
    'scatter when nothing fits: 5 hollow dots right of the capacity line (' + JSON.stringify(sc2) + ')');

  // a folded layout (the JSON names etp only then): the EP cell says its expert TP
  await page.route('**/api/search', async (route) => {
    const res = await route.fetch();
    const j = await res.json();
    if (j.results && j.results[0]) Object.assign(j.results[0].layout, { ep: 8, etp: 1, tp: 2 });
    await route.fulfill({ response: res, json: j });
  });
  await page.click('#search-run');
  await page.waitForFunction(() => /No layout fits/.test(document.getElementById('search-status').textContent),
    null, { timeout: 60000 });
  const epCell = await page.textContent('#search-table tbody tr:first-child td:nth-child(6)');
  check(epCell === '8 (ETP 1)', 'a folded layout shows its ETP beside EP in the search table (' + epCell + ')');
  await page.unroute('**/api/search');

  check(external.length === 0, 'no request leaves the machine (' + external.join(', ') + ')');
  check(consoleErrors.length === 0, 'no console errors or CSP violations: ' + consoleErrors.join(' | '));
} catch (e) {
  check(false, 'exception: ' + (e && e.stack || e));
} finally {
  await browser.close();
  server.kill('SIGTERM');
  const code = server.exitCode !== null ? server.exitCode :
    await new Promise((res) => server.on('exit', (c) => res(c)));
  check(code === 0, 'server stopped cleanly (' + code + ')');
  clearTimeout(killer);
}
console.log(`${passed} passed, ${failures.length} failed`);
process.exit(failures.length ? 1 : 0);
