import Database from 'better-sqlite3';
import { createEventsFixture, llmCallCompletedPayload } from '/work/main/runtime/analytics/events-fixture.ts';
const db = new Database('/tmp/perf-explore.db');
const have = (db.prepare("select count(*) n from sqlite_master where name='events'").get() as {n:number}).n;
const ROWS=1_000_000, startUs=1_700_000_000_000_000;
if (!have) {
  createEventsFixture(db);
  const insertSession = db.prepare('INSERT INTO sessions (id) VALUES (?)');
  const insert = db.prepare(`INSERT INTO events VALUES (?, ?, ?, NULL, NULL, 'llm.call_completed', 'agent', 'pseudonymous', ?)`);
  const MODELS = ['anthropic:claude-haiku-4-5', 'anthropic:claude-sonnet-4-6', 'openai:gpt-5-mini', 'openai:gpt-5'];
  db.transaction(() => {
    for (let s = 0; s < 1000; s++) insertSession.run(`s${s}`);
    for (let i = 0; i < ROWS; i++) insert.run(`ev_${String(i).padStart(10,'0')}`, startUs + i*10, `s${i%1000}`, JSON.stringify(llmCallCompletedPayload({model: MODELS[i%4]!, input_tokens: i%5000, output_tokens: i%2000, cached_input_tokens: i%20000, cache_creation_input_tokens: i%3000, cost_usd:'0.0123'})));
  })();
  db.exec('ANALYZE');
}
const t = (label: string, sql: string) => { const st = db.prepare(sql); st.all(startUs, startUs+ROWS*10); const t0=performance.now(); const r = st.all(startUs, startUs+ROWS*10); console.log(label, (performance.now()-t0).toFixed(0), 'ms', JSON.stringify(r).slice(0,120)); console.log('  ', JSON.stringify(db.prepare('EXPLAIN QUERY PLAN '+sql).all(startUs, startUs+ROWS*10).map((x:any)=>x.detail))); };
const W = "type='llm.call_completed' AND timestamp_us BETWEEN ? AND ?";
t('count', `SELECT COUNT(*) FROM events WHERE ${W}`);
t('length', `SELECT SUM(length(payload_json)) FROM events WHERE ${W}`);
t('one extract', `SELECT SUM(payload_json ->> '$.input_tokens') FROM events WHERE ${W}`);
t('model group', `SELECT payload_json ->> '$.model', COUNT(*) FROM events WHERE ${W} GROUP BY 1`);
t('full', `SELECT payload_json ->> '$.model' AS model, COUNT(*), SUM(payload_json ->> '$.input_tokens'), SUM(payload_json ->> '$.output_tokens'), SUM(payload_json ->> '$.cached_input_tokens'), SUM(payload_json ->> '$.cache_creation_input_tokens') FROM events WHERE ${W} GROUP BY 1`);
t('jsonb once', `SELECT b ->> '$.model' AS model, COUNT(*), SUM(b ->> '$.input_tokens'), SUM(b ->> '$.output_tokens'), SUM(b ->> '$.cached_input_tokens'), SUM(b ->> '$.cache_creation_input_tokens') FROM (SELECT jsonb(payload_json) b FROM events WHERE ${W}) GROUP BY 1`);
