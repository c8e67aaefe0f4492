// bench view: a read-only browser over trace DBs (runs, a run's report, a compare, one rep in full).
// Preact + htm from the server's own /vendor: no build step, nothing fetched from the network.
import { h, render } from '/vendor/preact.mjs';
import { useEffect, useState } from '/vendor/hooks.mjs';
import htm from '/vendor/htm.mjs';

const html = htm.bind(h);

function useJson(url) {
  const [state, setState] = useState({ data: null, error: null });
  useEffect(() => {
    let live = true;
    setState({ data: null, error: null });
    fetch(url)
      .then(async (r) => {
        const body = await r.json();
        if (!r.ok) throw new Error(body.error ?? r.statusText);
        return body;
      })
      .then((data) => live && setState({ data, error: null }))
      .catch((e) => live && setState({ data: null, error: String(e.message ?? e) }));
    return () => {
      live = false;
    };
  }, [url]);
  return state;
}

function useHash() {
  const [hash, setHash] = useState(location.hash || '#/');
  useEffect(() => {
    const on = () => setHash(location.hash || '#/');
    addEventListener('hashchange', on);
    return () => removeEventListener('hashchange', on);
  }, []);
  return hash;
}

const pct = (x) => (x === null || x === undefined ? '—' : `${Number(x).toFixed(1)}%`);
const score = (x) => (x === null || x === undefined ? '—' : Number(x).toFixed(3));
const usd = (x) => (x === null || x === undefined ? '—' : `$${Number(x).toFixed(4)}`);
// Reps are numbered from 1 everywhere a person reads them (the JSON keeps its 0-based index).
const repNo = (r) => r + 1;

function Loading({ state, children }) {
  if (state.error) return html`<p class="error">${state.error}</p>`;
  if (!state.data) return html`<p class="muted">loading…</p>`;
  return children(state.data);
}

// Each kind of run has its own page: agent runs their report, matrix and stream runs a summary.
const runHref = (r) => (r.kind === 'matrix' ? `#/matrix/${r.db}/${r.run_id}` : r.kind === 'streams' ? `#/streams/${r.db}` : `#/run/${r.db}/${r.run_id}`);

/** The commit the run was made from, as its provenance records it. */
const Commit = ({ commit }) => html`<span>commit <code>${commit ?? 'not recorded'}</code></span>`;

function Runs() {
  const state = useJson('/api/runs');
  const [picked, setPicked] = useState([]);
  const toggle = (key) => setPicked((p) => (p.includes(key) ? p.filter((k) => k !== key) : [...p.slice(-1), key]));
  return html`<h2>Runs</h2>
    <${Loading} state=${state}>${(d) => html`
      <p class="muted">${d.dbs.length} trace DB(s). Tick two runs to compare them.</p>
      ${(d.errors ?? []).map((e) => html`<p class="error">${e.db_name} cannot be read: ${e.error}</p>`)}
      ${picked.length === 2 ? html`<p><a href=${`#/compare/${picked[0]}/${picked[1]}`}>Compare the two ticked runs →</a></p>` : null}
      <table>
        <thead><tr><th></th><th>run</th><th>DB</th><th>started (UTC)</th><th>status</th><th>protocol</th><th>provider</th><th class="num">workloads</th><th class="num">reps</th></tr></thead>
        <tbody>${d.runs.map((r) => {
          const key = `${r.db}:${r.run_id}`;
          return html`<tr>
            <td><input type="checkbox" aria-label=${`pick ${r.run_id}`} checked=${picked.includes(key)} onChange=${() => toggle(key)} /></td>
            <td><a href=${runHref(r)}>${r.run_id}</a></td><td>${r.db_name}</td><td>${r.started_at ?? '—'}</td>
            <td class=${r.status === 'complete' ? 'ok' : 'bad'}>${r.status}</td><td>${r.protocol}</td><td>${r.provider}</td>
            <td class="num">${r.workloads}</td><td class="num">${r.reps}${r.unit ? ` ${r.unit}` : ''}</td></tr>`;
        })}</tbody>
      </table>`}<//>`;
}

function Headline({ report }) {
  const h = report.headline;
  if (h && h.verdict) return html`<p class="headline">${h.verdict}</p>`;
  const agg = report.aggregate;
  return html`<p class="headline">${agg.solved_runs ?? agg.successful_runs} of ${agg.workload_runs} reps solved; price effect ${pct(agg.savings.savings_pct)} (the same tokens re-priced at ${report.provenance.baseline_model}'s prices, not a saving)</p>`;
}

function Run({ db, run }) {
  const state = useJson(`/api/report?db=${db}&run=${encodeURIComponent(run)}`);
  return html`<${Loading} state=${state}>${(r) => html`
    <h2>Run ${run}</h2>
    ${r.banner ? html`<div class="banner">${r.banner}</div>` : null}
    <${Headline} report=${r} />
    <p class="muted">status ${r.status} · exit ${r.exit_code} · ${r.provenance.protocol} · ${r.provenance.actual_provider} · <${Commit} commit=${r.commit} /></p>
    <table>
      <thead><tr><th>pass</th><th>workload</th><th>model</th><th class="num">solved</th><th class="num">quality</th><th class="num" title="the same tokens re-priced at the baseline model's prices: a price effect, not a saving">price effect</th><th>reps (open one)</th></tr></thead>
      <tbody>${r.workloads.map((w) => html`<tr>
        <td>${w.pass}</td><td>${w.workload}</td><td>${w.model}</td>
        <td class="num">${w.solved !== undefined ? `${w.solved}/${w.reps.length}` : '—'}</td>
        <td class="num">${score(w.quality_mean)}</td><td class="num">${pct(w.savings.savings_pct)}</td>
        <td>${w.reps.map((rep) => html`<a class="chip" href=${`#/rep/${db}/${run}/${encodeURIComponent(w.workload)}/${encodeURIComponent(w.pass)}/${rep.rep}`} title=${rep.outcome ?? ''}>
          <span class=${rep.solved === false || (rep.check && !rep.check.passed) || rep.error ? 'bad' : 'ok'}>#${repNo(rep.rep)}</span></a> `)}</td></tr>`)}
      </tbody>
    </table>
    ${r.warnings.length ? html`<h3>Warnings</h3><ul>${r.warnings.map((x) => html`<li>${x}</li>`)}</ul>` : null}`}<//>`;
}

function Chain({ chain }) {
  return html`<table>
    <thead><tr><th>slot</th><th>verdict</th><th>candidate</th><th>reason</th><th class="num">confidence</th><th>K-NN scores</th></tr></thead>
    <tbody>${chain.map((c) => html`<tr>
      <td>${c.policy}</td><td class=${c.verdict === 'chose' ? 'ok' : ''}>${c.verdict}</td><td>${c.candidate_model ?? '—'}</td><td>${c.reason}</td>
      <td class="num">${c.confidence === null || c.confidence === undefined ? '—' : Number(c.confidence).toFixed(2)}</td>
      <td>${(c.pattern_alternatives ?? []).map((a) => html`<span class="chip">${a.model} ${Number(a.score).toFixed(3)} (n=${a.sample_size})</span> `)}</td></tr>`)}
    </tbody></table>`;
}

/** The K-NN's neighbour rows pattern.matched carries (absent in events written before it did). */
function Neighbors({ rows }) {
  return html`<table>
    <thead><tr><th>neighbour fingerprint</th><th>model</th><th class="num">similarity</th><th class="num">samples</th><th class="num">mean success</th></tr></thead>
    <tbody>${rows.map((n) => html`<tr>
      <td title=${n.fingerprint_id}>…${String(n.fingerprint_id).slice(-8)}</td><td>${n.primary_model}</td>
      <td class="num">${Number(n.similarity).toFixed(4)}</td><td class="num">${n.sample_size}</td><td class="num">${score(n.success_score_mean)}</td></tr>`)}
    </tbody></table>`;
}

function Turn({ turn }) {
  return html`<div class="turn">
    <h4>Turn ${turn.index + 1} → ${turn.chosen_model ?? '—'} <span class="muted">${usd(turn.cost_usd)}</span></h4>
    ${turn.user ? html`<details><summary>user message</summary><pre>${turn.user}</pre></details>` : null}
    <details open><summary>routing decision</summary><${Chain} chain=${turn.chain} />
      ${turn.pattern ? html`<p class="muted">slot 4 matched: cluster of ${turn.pattern.k_cluster_size}, sample size ${turn.pattern.sample_size}, confidence ${Number(turn.pattern.confidence).toFixed(2)}, ${turn.pattern.fingerprint_kind}</p>` : null}
      ${Array.isArray(turn.pattern?.neighbors) && turn.pattern.neighbors.length ? html`<${Neighbors} rows=${turn.pattern.neighbors} />` : null}</details>
    <table><thead><tr><th>LLM call</th><th class="num">input</th><th class="num">cached</th><th class="num">cache write</th><th class="num">output</th><th class="num">cost</th><th>stop</th></tr></thead>
      <tbody>${turn.llm_calls.map((c) => html`<tr><td>${c.model}${c.cache_tier ? html` <span class="ok">served from the cache (${c.cache_tier})</span>` : null}</td><td class="num">${c.input_tokens}</td><td class="num">${c.cached_input_tokens}</td><td class="num">${c.cache_creation_input_tokens}</td><td class="num">${c.output_tokens}</td><td class="num">${usd(c.cost_usd)}</td><td>${c.stop_reason}</td></tr>`)}</tbody></table>
    ${turn.tool_calls.map((t) => html`<details><summary><span class=${t.is_error ? 'bad' : 'ok'}>${t.name}</span> ${t.error_class ? html`<span class="bad">${t.error_class}</span>` : null} <span class="muted">${t.side_effects ?? ''}</span></summary>
      <div class="muted">input</div><pre>${t.input === null ? '(not recorded)' : JSON.stringify(t.input, null, 2)}</pre>
      <div class="muted">result</div><pre>${t.result ?? '(not recorded)'}</pre></details>`)}
    ${turn.assistant_text.length ? html`<details><summary>assistant text</summary><pre>${turn.assistant_text.join('\n\n')}</pre></details>` : null}
  </div>`;
}

function Rep({ db, run, workload, pass, rep }) {
  const detail = useJson(`/api/rep?db=${db}&run=${encodeURIComponent(run)}&workload=${encodeURIComponent(workload)}&pass=${encodeURIComponent(pass)}&rep=${rep}`);
  return html`<${Loading} state=${detail}>${(d) => {
    const rec = d.record;
    return html`<h2>${workload} · pass ${pass} · rep ${repNo(rec.rep)}</h2>
      <p><a href=${`#/run/${db}/${run}`}>← run ${run}</a></p>
      <p>model ${rec.model} · outcome <b class=${rec.outcome === 'solved' ? 'ok' : 'bad'}>${rec.outcome ?? '—'}</b> · score ${score(rec.score)} · ${rec.turns} turn(s)${rec.error ? html` · <span class="error">${rec.error}</span>` : null}</p>
      ${rec.check ? html`<h3>Hidden check: <span class=${rec.check.passed ? 'ok' : 'bad'}>${rec.check.passed ? 'passed' : 'failed'}</span> <span class="muted">exit ${rec.check.exit_code ?? '—'} · ${rec.check.sandbox}${rec.check.timed_out ? ' · timed out' : ''}</span></h3><pre>${rec.check.output_tail || '(no output)'}</pre>` : html`<p class="muted">no hidden check ran for this rep</p>`}
      ${rec.assertions.length ? html`<h3>Assertions</h3><ul>${rec.assertions.map((a) => html`<li class=${a.passed ? 'ok' : 'bad'}>${a.passed ? '✓' : '✗'} ${a.scope} ${a.detail} <span class="muted">(${a.name})</span></li>`)}</ul>` : null}
      ${d.verdict ? html`<details><summary>verdict signals (score ${score(d.verdict.score)}, ${d.verdict.judge_kind})</summary><pre>${JSON.stringify(d.verdict.signals, null, 2)}</pre></details>` : null}
      ${d.has_transcript ? null : html`<p class="muted">This DB predates transcripts: tool inputs and results were not recorded.</p>`}
      ${d.sessions.map((s, i) => html`<h3>${i === 0 ? 'Session' : 'Worker session'} ${s.session_id}${s.parent_session_id ? html` <span class="muted">(parent ${s.parent_session_id})</span>` : null}</h3>
        ${s.turns.map((t) => html`<${Turn} turn=${t} />`)}`)}`;
  }}<//>`;
}

function Compare({ a, b }) {
  const state = useJson(`/api/compare?a=${encodeURIComponent(a)}&b=${encodeURIComponent(b)}`);
  return html`<${Loading} state=${state}>${(c) => html`
    <h2>Compare</h2>
    ${c.banner ? html`<div class="banner">${c.banner}</div>` : null}
    <p>A = ${c.a.label} · B = ${c.b.label}</p>
    <table><thead><tr><th>metric</th><th>scope</th><th class="num">A</th><th class="num">B</th><th class="num">B − A</th><th>95% CI</th></tr></thead>
      <tbody>${c.rows.map((r) => html`<tr><td>${r.metric}</td><td>${r.scope}</td><td class="num">${r.a ?? '—'}</td><td class="num">${r.b ?? '—'}</td><td class="num">${r.delta ?? '—'}</td>
        <td>${r.ci ? `[${r.ci.low}, ${r.ci.high}]` : html`<span class="muted">${r.ci_reason ?? '—'}</span>`}</td></tr>`)}</tbody></table>`}<//>`;
}

const pts = (x) => (x === null || x === undefined ? '—' : `${x > 0 ? '+' : x < 0 ? '−' : ''}${Math.abs(Number(x)).toFixed(1)}`);
const rate = (x) => (x === null || x === undefined ? '—' : `${(Number(x) * 100).toFixed(1)}%`);
// A zero-width interval, as harness/report/verdict-grammar.ts's zeroWidth decides it (ends apart by rounding alone count).
const zeroWidth = (lo, hi) => Math.abs(hi - lo) <= 1e-12 * Math.max(1, Math.abs(lo), Math.abs(hi));
// An estimate with its interval; a zero-width interval is no variation, as the text reports say.
const est = (e, f = pts) => (!e ? '—' : e.ci_low === null || e.ci_high === null ? f(e.estimate) : zeroWidth(e.ci_low, e.ci_high) ? `${f(e.estimate)} (no variation)` : `${f(e.estimate)} [${f(e.ci_low)}, ${f(e.ci_high)}]`);

function Matrix({ db, run }) {
  const state = useJson(`/api/matrix?db=${db}&run=${encodeURIComponent(run)}`);
  return html`<${Loading} state=${state}>${({ report: m, commit, command }) => html`
    <h2>Matrix run ${run}</h2>
    <p class="headline">${m.verdict.statement}</p>
    <p>${m.headline}</p>
    <p class="muted">${m.provenance.matrix} · ${m.provenance.tasks} tasks in ${m.provenance.clusters} clusters · ${m.models.length} models · seed ${m.provenance.seed} · <${Commit} commit=${commit} /></p>
    <p>The full report: <code>${command}</code></p>
    <h3>Settings</h3>
    <table><thead><tr><th>setting</th><th>target</th><th>chosen point</th><th class="num">solved</th><th class="num">cost / task</th><th>vs hull (pts)</th><th>fallback</th></tr></thead>
      <tbody>${m.settings.map((s) => {
        const c = s.chosen;
        return html`<tr><td title=${s.description}>${s.setting}</td><td>${c ? c.target : '—'}</td><td>${!c ? 'none' : c.cost_weight === null ? `the best fixed model (${c.chosen_by})` : `cost_weight ${c.cost_weight} (${c.chosen_by})`}</td>
          <td class="num">${c ? est(c.point.solved_rate, rate) : '—'}</td><td class="num">${c ? usd(c.point.cost_per_task_usd) : '—'}</td><td>${c ? est(c.point.hull_gap_pts) : '—'}</td><td>${c?.fallback_model ?? '—'}</td></tr>`;
      })}</tbody></table>
    <h3>Baselines at the chosen point</h3>
    <table><thead><tr><th>setting</th><th>baseline</th><th class="num">solved</th><th class="num">cost / task</th><th>vs hull (pts)</th><th>router − baseline (pts)</th></tr></thead>
      <tbody>${m.settings.flatMap((s) => Object.entries(s.baselines ?? {}).filter(([, b]) => b).map(([name, b]) => html`<tr><td>${s.setting}</td><td>${name.replaceAll('_', ' ')}</td>
        <td class="num">${est(b.solved_rate, rate)}</td><td class="num">${usd(b.cost_per_task_usd)}</td><td>${est(b.hull_gap_pts)}</td><td>${est(b.router_minus_baseline_pts)}</td></tr>`))}</tbody></table>`}<//>`;
}

function Streams({ db }) {
  const state = useJson(`/api/streams?db=${db}`);
  return html`<${Loading} state=${state}>${({ report, commit, command }) => html`
    <h2>Cache stream run</h2>
    <p class="muted">${report.streams.length} stream(s) · provider ${report.provider} (reference answers, no model called) · <${Commit} commit=${commit} /></p>
    <p>Figures recomputed from the per-query records: <code>${command}</code></p>
    ${report.streams.map((s) => html`<h3>${s.name} <span class="muted">${s.set} · cache ${s.cache ? 'on' : 'off'} · ${s.embedder} · δ ${s.delta}${s.status ? ` · ${s.status}` : ''}</span></h3>
      <p>${s.figures.queries} queries · cost without the cache ${usd(s.figures.cost_off_usd)}, with it ${usd(s.figures.cost_on_usd)}${s.figures.must_miss_classes_hit.length ? html` · <span class="bad">wrong hits on must-miss queries: ${s.figures.must_miss_classes_hit.join(', ')}</span>` : ''}</p>
      <table><thead><tr><th>tier</th><th class="num">hits</th><th class="num">wrong hits</th><th class="num">hit rate</th><th class="num">precision</th><th class="num">net savings</th></tr></thead>
        <tbody>${s.figures.tiers.map((t) => html`<tr><td>${t.tier}</td><td class="num">${t.hits}</td><td class=${t.wrong_hits ? 'num bad' : 'num'}>${t.wrong_hits}</td>
          <td class="num">${rate(t.hit_rate.n ? t.hit_rate.k / t.hit_rate.n : null)}</td><td class="num">${t.precision && t.precision.n ? rate(t.precision.k / t.precision.n) : '—'}</td>
          <td class="num">${usd(t.net_savings_usd)} (${t.net_savings_pct === null ? '—' : `${Number(t.net_savings_pct).toFixed(1)}%`})</td></tr>`)}</tbody></table>`)}`}<//>`;
}

function App() {
  const hash = useHash();
  const parts = hash.replace(/^#\//, '').split('/').map(decodeURIComponent);
  if (parts[0] === 'run') return html`<${Run} db=${parts[1]} run=${parts[2]} />`;
  if (parts[0] === 'rep') return html`<${Rep} db=${parts[1]} run=${parts[2]} workload=${parts[3]} pass=${parts[4]} rep=${parts[5]} />`;
  if (parts[0] === 'matrix') return html`<${Matrix} db=${parts[1]} run=${parts[2]} />`;
  if (parts[0] === 'streams') return html`<${Streams} db=${parts[1]} />`;
  if (parts[0] === 'compare') return html`<${Compare} a=${parts[1]} b=${parts[2]} />`;
  return html`<${Runs} />`;
}

const root = document.getElementById('app');
root.textContent = '';
render(html`<${App} />`, root);
